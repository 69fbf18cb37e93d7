// SPDX-License-Identifier: LGPL-2.1-or-later
// The pool g2gipcsink offers upstream for VulkanImage frames (issue 33): its frames are
// ExportedFrame faces, images another process imports, so that an element that writes into its
// downstream's pool writes each frame where the consumers read it, and the producer sends it with
// no copy. Such elements: vulkanupload from GStreamer 1.24 on
// (compat::vulkanupload_takes_downstream_pool) and vulkanh264dec, a GstVulkanVideoFilter
// (vulkancolorconvert) on every version, and g2g's own shader's writers (g2gmaterialize, g2gview's dense
// frames: export_pool_written_by).
//
// It is a GstVulkanImageBufferPool because vulkanupload, GstVulkanVideoFilter and vulkanh264dec keep a
// downstream pool only of that class (GST_IS_VULKAN_IMAGE_BUFFER_POOL in their decide_allocation).
// Each element that keeps it asks it for images of its own kind: a renderer's (color attachments),
// a video decoder's (vulkanh264dec, 1.24 on: decode usage and a video profile), which it serves with
// exported images of that kind (vulkan::VideoImages) where the device can export and import them. A
// configuration that asks for what exported images are not (compat::image_pool_ask: usage beyond
// theirs, host-visible memory, layers, an initial layout; a profile the device cannot export images
// of) is served as GStreamer's own pool serves it: its frames are then not exported, and g2gipcsink
// copies them as any other. On 1.22 every configuration asks for what that
// version's pool makes of every one, which exported images are where the format can be rendered to.
// Its exported frames come from an ExportedPool: when GStreamer's pool discards a buffer (its
// memory still held downstream, by a view of it), the frame comes back to the next buffer made,
// with its id, which each consumer imports once.
#pragma once

#include <gst/gst.h>

#include <memory>

#include "gst-vulkan.h"

namespace g2g::vulkan {

class Engine;

// A new pool of exportable images on `device`, unconfigured. A configuration it serves with
// exported images keeps their allocations' size, whatever it said; one it serves as GStreamer's pool
// does is that pool's to take or refuse; one of other caps than fixed VulkanImage video caps is
// refused.
GstBufferPool *export_pool_new(GstVulkanDevice *device);

// Whether `pool` is one export_pool_new made, and if so its device (not a new reference).
GstVulkanDevice *export_pool_device(GstBufferPool *pool);

// The usage every plane of `pool`'s exported images has, where `pool` (export_pool_new's) serves
// its configuration with them; 0 where it does not.
VkImageUsageFlags export_pool_usage(GstBufferPool *pool);

// Whether `pool` (export_pool_new's) serves its configuration with exported images.
bool export_pool_exports(GstBufferPool *pool);

// The frames `pool` (export_pool_new's) makes from now on are written by `engine`'s shader (a g2g
// element that keeps its downstream's export pool): they are marked so (mark_written_by).
void export_pool_written_by(GstBufferPool *pool, const std::shared_ptr<Engine> &engine);

} // namespace g2g::vulkan
