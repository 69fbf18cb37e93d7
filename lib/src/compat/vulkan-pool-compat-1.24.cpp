// SPDX-License-Identifier: LGPL-2.1-or-later
// GstVulkanImageBufferPool from GStreamer 1.24 on (compat/vulkan-pool-compat.h): its configuration's
// allocation parameters (gst_vulkan_image_buffer_pool_config_set_allocation_params, 1.24), where
// absent the usage TRANSFER_SRC | TRANSFER_DST | SAMPLED | INPUT_ATTACHMENT | COLOR_ATTACHMENT and
// device-local memory (gstvkimagebufferpool.c default_usage); "num-layers" (1 where absent); and
// "decode-caps" / "encode-caps", which a video decoder (vulkanh264dec) or encoder sets with its
// video usages (1.24.0 to 1.28.6).
#include "compat/vulkan-pool-compat.h"

namespace g2g::compat {

ImagePoolAsk image_pool_ask(GstStructure *config)
{
    ImagePoolAsk ask;
    guint64 access = 0;
    gst_vulkan_image_buffer_pool_config_get_allocation_params(config, &ask.usage, &ask.memory, &ask.layout,
                                                              &access);
    if (!gst_structure_get_uint(config, "num-layers", &ask.layers))
        ask.layers = 1;
    ask.video =
        gst_structure_has_field(config, "decode-caps") || gst_structure_has_field(config, "encode-caps");
    return ask;
}

void ask_image_pool_usage(GstStructure *config, VkImageUsageFlags usage)
{
    gst_vulkan_image_buffer_pool_config_set_allocation_params(
        config, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_IMAGE_LAYOUT_UNDEFINED, 0);
}

} // namespace g2g::compat
