// SPDX-License-Identifier: LGPL-2.1-or-later
// The pool g2gipcsink offers upstream for VulkanImage frames (issue 33): its frames are
// ExportedFrame faces, images another process imports, so that an element that writes into its
// downstream's pool (vulkanupload from GStreamer 1.24 on: compat::vulkanupload_takes_downstream_pool)
// writes each frame where the consumers read it, and the producer sends it with no copy.
//
// It is a GstVulkanImageBufferPool because vulkanupload keeps a downstream pool only of that class
// (GST_IS_VULKAN_IMAGE_BUFFER_POOL in its decide_allocation); it takes nothing from that class but
// its type. Its frames come from an ExportedPool: when GStreamer's pool discards a buffer (its
// memory still held downstream, by a view of it), the frame comes back to the next buffer made,
// with its id, which each consumer imports once.
#pragma once

#include <gst/gst.h>

#include "gst-vulkan.h"

namespace g2g::vulkan {

// A new pool of exportable images on `device`, unconfigured. Its configuration (fixed VulkanImage
// video caps; min and max buffers kept) is refused where the device cannot export every plane's
// images (ExportedFrame::create's reason, as a warning on the pool); the size it keeps is its
// images' allocations, whatever the configuration said.
GstBufferPool *export_pool_new(GstVulkanDevice *device);

// Whether `pool` is one export_pool_new made, and if so its device (not a new reference).
GstVulkanDevice *export_pool_device(GstBufferPool *pool);

} // namespace g2g::vulkan
