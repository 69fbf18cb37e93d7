#pragma once

#include <gst/video/video.h>

namespace g2g::detail {

// YUY2, UYVY, YVYU: two pixels share one 4-byte macropixel.
inline bool is_packed_422(GstVideoFormat format)
{
    return format == GST_VIDEO_FORMAT_YUY2 || format == GST_VIDEO_FORMAT_UYVY ||
           format == GST_VIDEO_FORMAT_YVYU;
}

// The layout of a frame held in one CUDA device memory (GstCudaMemory knows its pitch), or
// nullptr for any other buffer, a build without CUDA, or a memory of another format.
const GstVideoInfo *device_memory_layout(GstBuffer *buffer, GstVideoFormat format);

} // namespace g2g::detail
