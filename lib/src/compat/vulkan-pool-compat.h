// SPDX-License-Identifier: LGPL-2.1-or-later
// What a GstVulkanImageBufferPool's configuration asks of its images, per GStreamer version (compat.h
// has the map): 1.24 added allocation parameters (usage, memory properties, initial layout and
// access), layers, and the caps of a video decoder's or encoder's images; 1.22's configuration
// holds only the caps, and its pool makes every image alike. g2g's pool of exportable images
// (vulkan-export-pool.h) makes its own images only for what it can tell it serves. Built with the
// vulkan feature; meson picks vulkan-pool-compat-1.22.cpp or vulkan-pool-compat-1.24.cpp.
#pragma once

#include <gst/gst.h>

#include "../platform/vulkan/gst-vulkan.h"

namespace g2g::compat {

struct ImagePoolAsk {
    VkImageUsageFlags usage = 0;
    VkMemoryPropertyFlags memory = 0;
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
    guint layers = 1;
    bool video = false; // decode or encode caps: images of a video profile
};

// What `config` asks: what GStreamer's own pool would make of it (its defaults where it says
// nothing; on 1.22, what it makes of every configuration).
ImagePoolAsk image_pool_ask(GstStructure *config);

// `config` asks for images of `usage`, in device-local memory, of an undefined initial layout and no
// access; nothing where the configuration cannot say it (1.22).
void ask_image_pool_usage(GstStructure *config, VkImageUsageFlags usage);

} // namespace g2g::compat
