// SPDX-License-Identifier: LGPL-2.1-or-later
// What each platform gives the core and the views. Each platform's code lives in its folder
// and is the only code that includes its SDK; a build without a feature links, instead, that
// feature's file in none/ (meson picks one or the other), so no core or view code tests a
// G2G_HAVE_* macro.
//
//   cuda/      GstCudaMemory: recognition, layouts, the CUDA view backend (kernels in view-kernels.cu,
//              compiled by nvcc and embedded as a fatbin), device pointers and dense copies for
//              tensor frames (cuda-tensor.cpp)                    none/no-cuda.cpp without it
//   vulkan/    GstVulkanImageMemory and host-visible Vulkan buffers, the Vulkan view backend
//              (a compute shader, shaders/, compiled by glslc and embedded), the fenced download
//                                                                  none/no-vulkan.cpp without it
//   cuda-vulkan/  CUDA frames to Vulkan images and back on the GPU, through memory both share
//              (cuda-vulkan-bridge.h)                                none/no-cuda-vulkan.cpp
//   dmabuf/    DMA-BUF frames: g2g's allocator and pool, DRM formats, wrap and export, sync
//              brackets, sharing through a dup of the fd (dmabuf-memory.h)  none/no-dmabuf.cpp
//   handles/   the platform-handle memories of platforms g2g never links (D3D11, CoreVideo, WebGPU,
//              wgpu): one memory type per kind, its payload and keep-alive
//   bridges-built.h  which bridges (cuda-vulkan/, cuda-dmabuf/) this build has
#pragma once

#include <gst/gst.h>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>

#include "bridges-built.h" // cuda_vulkan::built, cuda_dmabuf::built

namespace g2g::detail {
class ViewBackend;
}

namespace g2g::platform {

namespace cuda {
// GstCudaMemory of any allocator (also those derived from GStreamer's, with other type names).
bool recognises(GstMemory *memory);
// The backend that materializes views of CUDA frames; nullptr in a build without CUDA.
const detail::ViewBackend *view_backend();

// What tensor frames (g2g/tensor-frame.h) need of CUDA memory (cuda/cuda-tensor.cpp); in a build
// without CUDA every call fails and tensor frames refuse CUDA frames.
// Maps `memory` for its device pointer (GST_MAP_READ | GST_MAP_CUDA); false when it cannot.
bool map_device_pointer(GstMemory *memory, GstMapInfo *map);
// The CUDA device ordinal of `memory`'s context.
int device_ordinal(GstMemory *memory);
// `view` of `source` (one CUDA memory) written densely into a new CUDA memory on the same device
// by a kernel, finished when this returns.
Result<BufferRef> dense_frame(const FrameView &view, GstBuffer *source);
// `view` of `source` written densely into caller device memory on the frame's GPU: plane p at
// `planes[p]` (a CUdeviceptr), rows `strides[p]` bytes apart, finished when this returns.
Result<void> materialize_into_device(const FrameView &view, GstBuffer *source, void *const planes[],
                                     const gint strides[]);
} // namespace cuda

namespace vulkan {
// GstVulkanImageMemory of any allocator.
bool recognises_image(GstMemory *memory);
// Host-visible GstVulkanBufferMemory (what vulkandownload hands to system-memory caps): its
// bytes map in place like system memory.
bool is_host_visible_buffer(GstMemory *memory);
// The backend that materializes views of VulkanImage frames with a compute shader; nullptr in a
// build without Vulkan.
const detail::ViewBackend *view_backend();
} // namespace vulkan

namespace dmabuf {
// A second GstDmaBufMemory over a dup of `memory`'s fd (no bytes move) that keeps `frame`
// alive; nullptr in a build without the dmabuf feature (the memory then stays as it is).
GstMemory *share_fd(GstBuffer *frame, GstMemory *memory);
// Around a CPU's read of DMA-BUF memory of any allocator (DMA_BUF_IOCTL_SYNC where the fd has
// it; g2g's own memory brackets its mappings itself); no-ops for other memory and without the feature.
void begin_cpu_read(GstMemory *memory);
void end_cpu_read(GstMemory *memory);
} // namespace dmabuf

} // namespace g2g::platform
