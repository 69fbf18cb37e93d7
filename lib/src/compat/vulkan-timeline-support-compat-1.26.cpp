// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.26 on (compat/vulkan-timeline-support-compat.h): an image allocation gets a timeline
// semaphore where the device's Vulkan version is 1.2 or later (gst_vulkan_physical_device_check_api_version,
// 1.26), or it was opened with VK_KHR_timeline_semaphore.
#include "compat/vulkan-timeline-support-compat.h"

namespace g2g::compat {

bool images_have_timelines(GstVulkanDevice *device)
{
    return gst_vulkan_physical_device_check_api_version(device->physical_device, 1, 2, 0) ||
           gst_vulkan_device_is_extension_enabled(device, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
}

} // namespace g2g::compat
