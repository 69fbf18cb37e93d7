// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gdmabufupload: a frame of other memory copied plane by plane into a frame of the element's
// DMA-BUF pool (the folder's map is in g2gdmabufupload.h).
#pragma once

#include <gst/video/video.h>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

#include "upload-region.h"

namespace g2g::dmabuf_upload {

// The caps' frame at `region` of `frame` (laid out as `caps` or as its GstVideoMeta says) copied
// row by row into a frame of `pool` (g2g::dmabuf::pool_new's for `caps`, active), for every format
// the element advertises: each plane's rows whole (packed 4:2:2's last macropixel included), read
// between the input's planes' bounds and written between the DMA-BUF's sync brackets (its map).
// The frame's flags and timestamps go with it, and its crop meta where `region` says it travels.
// Refused, naming `element`, where a plane of the frame lies outside its memory.
Result<BufferRef> copy_region(const std::string &element, GstBuffer *frame, const GstVideoInfo &caps,
                              const InputRegion &region, GstBufferPool *pool);

} // namespace g2g::dmabuf_upload
