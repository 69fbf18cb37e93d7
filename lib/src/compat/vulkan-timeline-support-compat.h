// SPDX-License-Identifier: LGPL-2.1-or-later
// Whether GStreamer gives the images it allocates on a device a timeline semaphore (compat.h has the
// map): 1.22 never; 1.24 where the device was opened with VK_KHR_timeline_semaphore; 1.26 also where
// the device's Vulkan version is 1.2 or later, which has timeline semaphores without the extension
// (gstvkimagememory.c). g2g gives the images a decoder writes into one under the same rule
// (compat::give_image_timeline), so that the decoder's operations order by it as by GStreamer's own.
// Built with the vulkan feature; meson picks vulkan-timeline-support-compat-1.22.cpp, -1.24.cpp or
// -1.26.cpp.
#pragma once

#include "../platform/vulkan/gst-vulkan.h"

namespace g2g::compat {

bool images_have_timelines(GstVulkanDevice *device);

} // namespace g2g::compat
