// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22's GstVulkanImageBufferPool (compat/vulkan-pool-compat.h): its configuration is the
// caps alone (gstvkimagebufferpool.c set_config reads nothing else), and an element that takes a
// downstream pool cannot say which usage it needs of the images, so what a configuration asks is
// not known.
#include "compat/vulkan-pool-compat.h"

namespace g2g::compat {

ImagePoolAsk image_pool_ask(GstStructure *)
{
    return {};
}

void ask_image_pool_usage(GstStructure *, VkImageUsageFlags)
{
}

} // namespace g2g::compat
