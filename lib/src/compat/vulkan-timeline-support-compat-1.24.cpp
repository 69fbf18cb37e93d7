// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24 (compat/vulkan-timeline-support-compat.h): an image allocation gets a timeline
// semaphore where the device was opened with VK_KHR_timeline_semaphore.
#include "compat/vulkan-timeline-support-compat.h"

namespace g2g::compat {

bool images_have_timelines(GstVulkanDevice *device)
{
    return gst_vulkan_device_is_extension_enabled(device, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
}

} // namespace g2g::compat
