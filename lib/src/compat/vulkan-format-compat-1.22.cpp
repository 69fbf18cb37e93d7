// SPDX-License-Identifier: LGPL-2.1-or-later
// The Vulkan formats of GStreamer 1.22's one-image-per-plane frames (compat/vulkan-format-compat.h):
// gst_vulkan_format_from_video_info (gstvkimagememory.c in 1.22) is a switch that names every plane
// (R8, R8G8 or R8G8B8A8 by the plane's components) and picks VK_FORMAT_R8G8B8A8_SRGB (or
// B8G8R8A8_SRGB) for RGBA, RGBx, BGRA and BGRx whose colorimetry's transfer is *not* sRGB, UNORM
// for sRGB; the image pool of vulkanupload calls it for each plane, so every format vulkanupload
// offers is made. 1.24 moved it to a table that names fewer planes (vulkan-format-compat-1.24.cpp).
#include "compat/vulkan-format-compat.h"

namespace g2g::compat {

VkFormat vulkan_plane_format(const GstVideoInfo &info, guint plane)
{
    return gst_vulkan_format_from_video_info(const_cast<GstVideoInfo *>(&info), plane);
}

} // namespace g2g::compat
