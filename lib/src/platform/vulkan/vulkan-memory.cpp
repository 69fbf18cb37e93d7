// SPDX-License-Identifier: LGPL-2.1-or-later
// Vulkan memories seen through GStreamer's Vulkan library: images of allocators derived from
// GStreamer's, and the host-visible buffers vulkandownload hands to system-memory caps.
#include "platform/vulkan/gst-vulkan.h"

#include "platform/platform.h"

namespace g2g::platform::vulkan {

bool recognises_image(GstMemory *memory)
{
    return gst_is_vulkan_image_memory(memory);
}

bool is_host_visible_buffer(GstMemory *memory)
{
    // A device-local Vulkan buffer has no kind of its own (VulkanTexture is images): unknown.
    if (!gst_is_vulkan_buffer_memory(memory))
        return false;
    const GstVulkanMemory *backing = reinterpret_cast<GstVulkanBufferMemory *>(memory)->vk_mem;
    return backing && (backing->properties & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
}

} // namespace g2g::platform::vulkan
