// SPDX-License-Identifier: LGPL-2.1-or-later
// The g2g plugin's contract with the library: everything of libg2g that gst/ may use beyond the
// public API (lib/include/g2g/). It is internal: never installed, no ABI or API promise beyond
// this source tree (the plugin and the library are built and shipped together). gst/ sees this
// folder and the public headers only (g2g_plugin_dep in lib/meson.build), so a private header of
// lib/src reaches the plugin only by being named here, with what the plugin takes from it.
//
// lib/internal/g2g-internal/ holds:
//   plugin-interface.h  this header: the domain model's tables, the view backends, the bridges, the
//                       version layer; no platform SDK header
//   vulkan.h            the Vulkan part (GStreamer's Vulkan library, the Engine): for
//                       gst/common/vulkan-context.cpp, the only plugin file that includes a Vulkan
//                       header
//
// The headers below live with their code in lib/src (relative includes: lib/src is not on the
// plugin's include path); each line says what the plugin uses of it.
#pragma once

// Which domain caps and caps features say: detail::domain_of (g2gtee, g2gview, g2gmaterialize,
// g2gconvert, the allocation helper).
#include "../../src/core/caps-domain.h"

// The video info of fixed raw caps of any memory, DMA_DRM included, refused by name otherwise:
// detail::video_info_of_caps (g2gview's plan).
#include "../../src/core/caps-video-info.h"

// The domain table: detail::domain_table, domain_info, DomainInfo, HostRead, HandleViews,
// DeviceRoute (g2gtee's conversions, g2gview's handle kinds).
#include "../../src/core/domain-table.h"

// A device frame under system-memory caps copied once through its mapping: detail::host_copy_of
// (g2gview's input, where 1.22's cudadownload passes GstCudaMemory through).
#include "../../src/core/host-copy.h"

// System memory another process maps: detail::memfd_allocator, is_memfd_memory (g2gipcsink's
// offer upstream and its copies of frames that are not fd memory).
#include "../../src/core/memfd-allocator.h"

// The view backends: detail::ViewBackend, cpu_view_backend, view_backend, view_backend_of,
// view_domains, format_list (g2gview's caps and dense output, g2gconvert's formats).
#include "../../src/view/view-backend.h"

// The buffer a view rides on, over the input's memories: detail::buffer_over_memories (g2gview's
// views, as the C API's g2g_buffer_make_view makes them).
#include "../../src/view/view-buffer.h"

// How many bands a CPU materialize makes of a frame: detail::band_count, kMinBandBytes (the view
// elements' n-threads: no pool for a frame the library would not split).
#include "../../src/view/cpu/band-sizing.h"

// Which bridges between platforms this build has: platform::cuda_vulkan::built,
// platform::cuda_dmabuf::built (g2gtee's and g2gconvert's offers).
#include "../../src/platform/bridges-built.h"

// CUDA frames to Vulkan and back on the GPU: cuda_vulkan::Bridge, Conversion,
// gpu_of_cuda_context (g2gconvert, g2gtee).
#include "../../src/platform/cuda-vulkan/cuda-vulkan-bridge.h"

// CUDA frames exported as DMA-BUFs: cuda_dmabuf::export_frame, Export, formats (g2gconvert).
#include "../../src/platform/cuda-dmabuf/cuda-dmabuf.h"

// DMA_DRM caps read as a video info on every GStreamer version: compat::video_info_from_caps
// (g2gconvert).
#include "../../src/compat/dma-drm-compat.h"

// What crosses to another process for a Vulkan image it imports, in plain integers:
// vulkan::ExternalPlane, DeviceIdentity (the IPC wire's G2gVulkanImages record, in every build).
#include "../../src/platform/vulkan/vulkan-external-plane.h"

// What crosses to another process for CUDA memory it opens, in plain integers: cuda::IpcHandle
// (the IPC wire's G2gCudaIpc record, in every build).
#include "../../src/platform/cuda/cuda-ipc-handle.h"
