// SPDX-License-Identifier: LGPL-2.1-or-later
// vulkanupload from GStreamer 1.24 on (compat/vulkan-upload-compat.h), ext/vulkan/vkupload.c:
// - its image pool is made at each negotiation (gst_base_transform_get_buffer_pool in
//   _raw_to_image_perform, the pool of its decide_allocation: fd5c344fb6 "vkupload: implement
//   decide_allocation vmethod", 1.23.1), of the device of that run; that decide_allocation keeps
//   its downstream's first pool where it is a GstVulkanImageBufferPool (1.24.0 to 1.28.6), only
//   adding the transfer usages to its configuration;
// - it still shears padded 8-bit planes: 1.24.0 to 1.26.11 copy each plane with
//   bufferRowLength = GST_VIDEO_INFO_COMP_WIDTH (and vkdownload.c likewise), checked on 1.26.2 by
//   the Vulkan tests. 1.28 takes the row from the buffer's own strides
//   (gst_vulkan_buffer_get_plane_dimensions, 05841e07c3, 1.27.50; c76eee1aad and d030ffa3a8 in
//   1.28.3), which a 1.28 file will say once a 1.28 build with GStreamer's Vulkan library can test it;
// - it still races its staging buffer: 1.24 records the copy with GstVulkanOperation (11c8c002a5
//   "vulkanupload: use GstVulkanOperation", 1.23.1), whose dependencies are the output images only,
//   and still unrefs the buffer it copies from (in_vk_copy, or upstream's buffer once the transform
//   returns) right after gst_vulkan_operation_end submits (1.26.2 and 1.28.6 alike). On 1.26.2 and
//   lavapipe, `vulkanupload ! g2gmaterialize ! video/x-raw ! queue` without the wait gave later
//   frames' pixels (tests/pipelines/vulkan/test-tee-vulkan.cpp);
// - its image pool (gstvkimagebufferpool.c set_config, through gst_vulkan_format_from_video_info_2
//   with no multi-plane image) takes the per-plane formats of GStreamer's format table
//   (gstvkformat.c vk_formats_map), which for I420, YV12, Y444, Y42B and Y41B names the first plane's
//   only: it creates images of VK_FORMAT_UNDEFINED for the others, which fails ("Could not create
//   Vulkan Memory"); for GRAY8 (neither RGB nor YUV) it takes `vkfrmts[0]`, which GRAY8's entry
//   leaves undefined ("no Vulkan format available for GRAY8"). vulkanupload then refuses its
//   allocation and the stream stops (1.24.0 to 1.26.11; 1.28's table names them, e0d0a2513f
//   "vkformat: add missing vulkan video formats", and leaves YV12 out).
#include "compat/vulkan-upload-compat.h"

namespace g2g::compat {

bool vulkanupload_shears_padded_planes()
{
    return true;
}

bool vulkanupload_races_staging()
{
    return true;
}

bool vulkanupload_keeps_image_pool()
{
    return false;
}

bool vulkanupload_takes_downstream_pool()
{
    return true;
}

const char *vulkanupload_lacks_format(GstVideoFormat format)
{
    switch (format) {
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_Y41B:
        return "GStreamer's Vulkan format table (gstvkformat.c vk_formats_map, 1.24 to 1.26) names no "
               "Vulkan format for planes 1 and 2 of this format, so vulkanupload's image pool cannot "
               "create their images";
    case GST_VIDEO_FORMAT_GRAY8:
        return "GStreamer's Vulkan format table (gstvkformat.c vk_formats_map, 1.24 to 1.26) names no "
               "single-image Vulkan format for GRAY8, so vulkanupload's image pool finds none";
    default:
        return nullptr;
    }
}

} // namespace g2g::compat
