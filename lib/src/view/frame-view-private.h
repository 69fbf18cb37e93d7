// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <gst/video/video.h>

#include <cstdint>

namespace g2g::detail {

// The formats a view can describe (FrameView::supports_format), in the order caps offer them.
inline constexpr GstVideoFormat kViewFormats[] = {
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_BE,
    GST_VIDEO_FORMAT_RGBA,  GST_VIDEO_FORMAT_BGRA,      GST_VIDEO_FORMAT_ARGB,
    GST_VIDEO_FORMAT_ABGR,  GST_VIDEO_FORMAT_RGBx,      GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_xRGB,  GST_VIDEO_FORMAT_xBGR,      GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGR,   GST_VIDEO_FORMAT_AYUV,      GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_NV21,  GST_VIDEO_FORMAT_I420,      GST_VIDEO_FORMAT_YV12,
    GST_VIDEO_FORMAT_Y444,  GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_YUY2,  GST_VIDEO_FORMAT_UYVY,      GST_VIDEO_FORMAT_YVYU,
};

// YUY2, UYVY, YVYU: two pixels share one 4-byte macropixel.
inline bool is_packed_422(GstVideoFormat format)
{
    return format == GST_VIDEO_FORMAT_YUY2 || format == GST_VIDEO_FORMAT_UYVY ||
           format == GST_VIDEO_FORMAT_YVYU;
}

// The first component stored in plane p of a format.
guint component_of_plane(const GstVideoFormatInfo *finfo, guint p);

// The rows of plane p of a frame laid out as `info`, and the bytes each holds: whole macropixels
// for packed 4:2:2 (an odd width's last one included), else its samples. What a dense copy of the
// plane needs of its destination.
guint plane_rows(const GstVideoInfo &info, guint p);
std::uint64_t plane_row_bytes(const GstVideoInfo &info, guint p);

} // namespace g2g::detail
