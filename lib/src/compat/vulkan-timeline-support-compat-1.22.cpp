// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22 (compat/vulkan-timeline-support-compat.h): images have no timeline semaphore.
#include "compat/vulkan-timeline-support-compat.h"

namespace g2g::compat {

bool images_have_timelines(GstVulkanDevice *)
{
    return false;
}

} // namespace g2g::compat
