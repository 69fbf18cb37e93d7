// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22 (compat/vulkan-timeline-compat.h): images have no timeline semaphore; its Vulkan
// elements share the pipeline's queue and order their work by submission, as g2g's engine does.
#include "compat/vulkan-timeline-compat.h"

namespace g2g::compat {

ImageTimeline vulkan_image_timeline(GstVulkanImageMemory *)
{
    return {};
}

} // namespace g2g::compat
