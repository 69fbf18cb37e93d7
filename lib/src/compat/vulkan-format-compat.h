// SPDX-License-Identifier: LGPL-2.1-or-later
// The Vulkan formats of GStreamer's one-image-per-plane frames, as each GStreamer version picks them
// (compat.h has the map; vulkan-upload-compat.h says which formats vulkanupload cannot make). Built
// with the vulkan feature; meson picks vulkan-format-compat-1.22.cpp or vulkan-format-compat-1.24.cpp.
#pragma once

#include "platform/vulkan/gst-vulkan.h"

namespace g2g::compat {

// The Vulkan format of plane `plane`'s image in a frame of `info` made of one image per plane, as
// GStreamer's Vulkan elements make and read such images (gst_vulkan_format_from_video_info), so that
// images g2g makes read as theirs. Where GStreamer's table names no format for the plane (1.24 and
// 1.26 name only the first plane of I420, YV12, Y444, Y42B and Y41B), the first plane's: the planes
// of those formats are all 8-bit. VK_FORMAT_UNDEFINED for a format GStreamer has no image of.
VkFormat vulkan_plane_format(const GstVideoInfo &info, guint plane);

} // namespace g2g::compat
