// SPDX-License-Identifier: LGPL-2.1-or-later
// The video info of the caps an application hands the C API with a frame (g2g_frame_new,
// g2g_dmabuf_export): one reading, so that the same caps get the same answer from every entry
// point, and never a GStreamer-CRITICAL on the way to a refusal.
#pragma once

#include <gst/video/video.h>

#include <string_view>

#include <g2g/error.h>

namespace g2g::detail {

// The video info of `caps`: fixed raw video caps of any memory, DMA_DRM caps (g2g's own
// g2gdmabufupload output, GStreamer 1.24's form) included, of at least one pixel each way. Refused,
// naming `caller` and the caps: no caps; caps that are not fixed (a list, a range, ANY, EMPTY:
// gst_video_info_from_caps asserts on them); caps that are not raw video; a width or height below 1.
Result<GstVideoInfo> video_info_of_caps(std::string_view caller, const GstCaps *caps);

} // namespace g2g::detail
