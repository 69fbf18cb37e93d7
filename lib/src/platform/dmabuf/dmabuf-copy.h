// SPDX-License-Identifier: LGPL-2.1-or-later
// export_frame's copy of a frame that carries no view: its region copied plane by plane into a
// DMA-BUF (dmabuf-memory.h maps the folder).
#pragma once

#include <gst/video/video.h>

#include <string_view>

#include <g2g/error.h>

#include "dmabuf-region.h"

namespace g2g::dmabuf::detail {

// The caps' frame at `region` of `frame` (laid out as `caps` or as its GstVideoMeta says) copied
// row by row into `target` (a DMA-BUF frame of the caps' format and size with a GstVideoMeta:
// new_frame's or a pool's), for every format with a DRM fourcc: each plane's rows whole (packed
// 4:2:2's last macropixel included), read between the frame's planes' bounds and written between
// the DMA-BUF's sync brackets (its map). Only pixels: flags, timestamps and metas are the caller's.
// Refused, `caller` opening the text, where the frame's bytes cannot hold the caps' frame or a
// plane of it lies outside its memory; nothing is written into `target` then.
Result<void> copy_region(std::string_view caller, GstBuffer *frame, const GstVideoInfo &caps,
                         const Region &region, GstBuffer *target);

} // namespace g2g::dmabuf::detail
