// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22's GstVulkanImageBufferPool (compat/vulkan-pool-compat.h): its configuration is the
// caps alone (gstvkimagebufferpool.c set_config reads nothing else), and it makes every image of
// VulkanImage caps alike: optimal tiling, usage TRANSFER_SRC | TRANSFER_DST | COLOR_ATTACHMENT |
// SAMPLED | INPUT_ATTACHMENT, device-local memory, one layer. An element that keeps a downstream
// pool (a GstVulkanVideoFilter: vulkancolorconvert) cannot ask for anything else there, so that is
// what every configuration asks; and a configuration cannot be told another usage.
#include "compat/vulkan-pool-compat.h"

namespace g2g::compat {

ImagePoolAsk image_pool_ask(GstStructure *)
{
    ImagePoolAsk ask;
    ask.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
    ask.memory = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    return ask;
}

void ask_image_pool_usage(GstStructure *, VkImageUsageFlags)
{
}

} // namespace g2g::compat
