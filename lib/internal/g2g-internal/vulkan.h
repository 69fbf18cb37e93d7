// SPDX-License-Identifier: LGPL-2.1-or-later
// The Vulkan part of the plugin's contract with the library (plugin-interface.h says what the
// contract is): internal, never installed, no ABI promise. It includes GStreamer's Vulkan library
// and the Vulkan SDK's header, so only gst/common/vulkan-* and gst/ipc/ipc-vulkan.cpp include it (DESIGN.md:
// only a platform's folder and gst/common/<platform>-* include a platform SDK header).
#pragma once

// GStreamer's Vulkan headers with the C linkage some of 1.22's lack.
#include "../../src/platform/vulkan/gst-vulkan.h"

// g2g's work on one Vulkan queue: vulkan::Engine, new_compute_queue, device_uuid (the Vulkan
// context an element shares with GStreamer's Vulkan elements).
#include "../../src/platform/vulkan/vulkan-engine.h"

// Vulkan frames another process imports: vulkan::ExportedFrame, ExportedPool, ImportedFrame,
// identity_of (g2gipcsink's and g2gipcsrc's Vulkan route).
#include "../../src/platform/vulkan/vulkan-external.h"

// The pool g2gipcsink offers upstream, of exportable images: vulkan::export_pool_new, and what
// a configuration of it asks (compat::ask_image_pool_usage).
#include "../../src/compat/vulkan-pool-compat.h"
#include "../../src/platform/vulkan/vulkan-export-pool.h"

// GstVulkanInstance's "create-device" signal in each GStreamer version's form:
// compat::vulkan_device_from_handler.
#include "../../src/compat/vulkan-device-compat.h"

// What vulkanupload does to its frames per GStreamer version: compat::vulkanupload_races_staging.
#include "../../src/compat/vulkan-upload-compat.h"
