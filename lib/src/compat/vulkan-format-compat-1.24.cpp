// SPDX-License-Identifier: LGPL-2.1-or-later
// The Vulkan formats of one-image-per-plane frames from GStreamer 1.24 on
// (compat/vulkan-format-compat.h). 1.24 replaced 1.22's switch by a table (gstvkformat.c
// vk_formats_map, read by gst_vulkan_format_from_video_info and gst_vulkan_format_from_video_info_2,
// commit 35dbd9f92c "vkformat: add gst_vulkan_format_from_video_info_2()" and those after it):
// - a YUV format's per-plane formats are the table's `vkfrmts`, and for I420, YV12, Y444, Y42B and
//   Y41B it lists only the first plane's (`{ VK_FORMAT_R8_UNORM, }`), so planes 1 and 2 are
//   VK_FORMAT_UNDEFINED (1.24.0 to 1.26.11; 1.28 lists R8 for each: e0d0a2513f "vkformat: add
//   missing vulkan video formats", 1.27.50). g2g takes the first plane's format there: the planes
//   of those formats are all 8-bit, and it is the format 1.28 names for them;
// - GStreamer's image pool cannot make those formats then (vulkan-upload-compat-1.24.cpp);
// - RGB formats: 1.24 keeps 1.22's choice (SRGB unless the transfer is sRGB); 1.26 takes UNORM first
//   whatever the colorimetry (e913b4870a "vkformat: try UNORM format first and decouple them from
//   colorimetry", 1.25.1). gst_vulkan_format_from_video_info follows its version, and so does g2g.
#include "compat/vulkan-format-compat.h"

namespace g2g::compat {

VkFormat vulkan_plane_format(const GstVideoInfo &info, guint plane)
{
    auto *video = const_cast<GstVideoInfo *>(&info);
    const VkFormat format = gst_vulkan_format_from_video_info(video, plane);
    if (format != VK_FORMAT_UNDEFINED || plane == 0 || plane >= GST_VIDEO_INFO_N_PLANES(&info))
        return format;
    // Only formats whose components are all 8-bit samples of their own plane lack a per-plane entry.
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c) {
        if (GST_VIDEO_INFO_COMP_PSTRIDE(&info, c) != 1 || GST_VIDEO_INFO_COMP_DEPTH(&info, c) != 8)
            return VK_FORMAT_UNDEFINED;
    }
    return gst_vulkan_format_from_video_info(video, 0);
}

} // namespace g2g::compat
