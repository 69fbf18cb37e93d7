// SPDX-License-Identifier: LGPL-2.1-or-later
// How work on a Vulkan image is ordered with GStreamer's Vulkan elements on other queues (compat.h
// has the map). From 1.24 each image GStreamer makes has a timeline semaphore in its barrier state
// (GstVulkanBarrierMemoryInfo.semaphore, made where the device has timeline semaphores), and each of
// its operations (GstVulkanOperation) waits for the image's semaphore_value and signals value + 1,
// then counts it up: that is how a frame of vulkanh264dec, decoded on the video queue, is known to be
// decoded before another queue reads it. 1.22 has no such field: its elements share one queue and
// order by submission. Built with the vulkan feature; meson picks vulkan-timeline-compat-1.22.cpp or
// vulkan-timeline-compat-1.24.cpp.
#pragma once

#include "platform/vulkan/gst-vulkan.h"

namespace g2g::compat {

struct ImageTimeline {
    VkSemaphore semaphore = VK_NULL_HANDLE; // none: the image is ordered by its queue alone
    guint64 *value = nullptr;               // the value its last work signals, in its memory
};

// The timeline `image`'s work is ordered on, where this GStreamer gives it one and another queue
// than the pipeline's works on the image (1.24's video decoders).
ImageTimeline vulkan_image_timeline(GstVulkanImageMemory *image);

} // namespace g2g::compat
