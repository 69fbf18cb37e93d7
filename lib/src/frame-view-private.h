#pragma once

#include <gst/video/video.h>

namespace g2g::detail {

// YUY2, UYVY, YVYU: two pixels share one 4-byte macropixel.
inline bool is_packed_422(GstVideoFormat format)
{
    return format == GST_VIDEO_FORMAT_YUY2 || format == GST_VIDEO_FORMAT_UYVY ||
           format == GST_VIDEO_FORMAT_YVYU;
}

} // namespace g2g::detail
