// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA-Vulkan bridge: CUDA frames (GstCudaMemory) become VulkanImage frames and back on the
// GPU both run on, never through host memory. GStreamer 1.22 has no such path (cudadownload !
// vulkanupload copies every frame down and up again).
//
// A frame crosses in memory both APIs address (shared-frame.h): Vulkan allocates it exportable,
// CUDA imports it. One pass on the GPU writes it, none when the frame is already there:
//   CUDA -> Vulkan   one kernel writes the frame (or its view: rotated, cropped) into shared linear
//                    images, CUDA is synchronized, the images are acquired from the external queue
//                    family on the pipeline's queue; their Vulkan face goes on
//   Vulkan -> CUDA   one copy of the images into a shared buffer at CUDA pitches on the pipeline's
//                    queue, released to CUDA, the queue waited for; its CUDA face goes on. A view is
//                    written by the compute shader first (two passes).
//   a face of a one-plane frame g2g shares already   goes on as the other face, no pass at all
// CUDA and Vulkan must be one GPU (their device UUIDs match); anything else is refused naming both.
//
// lib/src/platform/cuda-vulkan/ holds:
//   cuda-vulkan-bridge   Bridge (this header)
//   cuda-external        the CUDA driver's external-memory calls and device UUIDs, which GStreamer
//                        1.22's CUDA loader does not load
//   shared-frame         SharedFrame (linear images in one exportable allocation, imported into
//                        CUDA) and the pool that reuses them
//   cuda-shared-memory   a GstCudaMemory over memory g2g holds (1.22 cannot wrap a device pointer)
// Built with both the cuda and the vulkan feature; none/no-cuda-vulkan.cpp otherwise.
#pragma once

#include <gst/gst.h>

#include <array>
#include <memory>
#include <optional>
#include <string>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>

namespace g2g::vulkan {
class Engine;
template <typename Frame> class FramePool;
} // namespace g2g::vulkan

namespace g2g::cuda_vulkan {

class SharedImages;
class SharedBuffer;

// The UUID of the GPU `cuda_context` (a GstCudaContext) works on; nullopt without one or without
// the bridge. What a Vulkan device is matched with.
std::optional<std::array<guint8, 16>> gpu_of_cuda_context(gpointer cuda_context);

struct Conversion {
    BufferRef frame;  // the frame in the other domain (no metadata of the source: the caller's)
    guint passes = 0; // passes on the GPU that wrote it; 0: the source's own shared memory
};

class Bridge {
public:
    // `cuda_context` (a GstCudaContext) and the engine's Vulkan device must be one GPU, and the
    // device opened with VK_KHR_external_memory_fd. Refused otherwise, naming both devices.
    static Result<std::shared_ptr<Bridge>> create(gpointer cuda_context,
                                                  std::shared_ptr<vulkan::Engine> engine);
    ~Bridge();

    Bridge(const Bridge &) = delete;
    Bridge &operator=(const Bridge &) = delete;

    // `view` of the CUDA frame `source` as a dense VulkanImage frame (one linear image per plane,
    // of the view's format and size). `dense`: the view is the frame's own identity view (no
    // view meta), so a frame g2g shares already goes on without a pass.
    Result<Conversion> to_vulkan(GstBuffer *source, const FrameView &view, bool dense);
    // `view` of the VulkanImage frame `source` as a dense CUDA frame (one GstCudaMemory).
    Result<Conversion> to_cuda(GstBuffer *source, const FrameView &view, bool dense);

    // Shared frames allocated so far (each exported to CUDA once, then reused).
    guint64 frames_allocated() const;

    // The error when `cuda` (GPU `cuda_uuid`) and `vulkan` (GPU `vulkan_uuid`) are not one GPU.
    static std::optional<Error> different_gpus(const std::string &cuda,
                                               const std::array<guint8, 16> &cuda_uuid,
                                               const std::string &vulkan,
                                               const std::array<guint8, 16> &vulkan_uuid);
    // "CUDA device 0 'NVIDIA H200' and Vulkan device 'NVIDIA H200' (VkDevice 0x...), GPU a25e9467-..."
    const std::string &description() const { return description_; }

private:
    Bridge() = default;
    // A Vulkan face of `frame` after CUDA wrote it, acquired for the pipeline's queue.
    Result<BufferRef> vulkan_face_for_readers(SharedImages &frame);
    // The dense VulkanImage frame `dense` copied into a shared buffer and released to CUDA.
    Result<BufferRef> copied_for_cuda(GstBuffer *dense, const GstVideoInfo &info);

    gpointer cuda_ = nullptr; // GstCudaContext, one reference
    std::shared_ptr<vulkan::Engine> engine_;
    std::shared_ptr<vulkan::FramePool<SharedImages>> images_;
    std::shared_ptr<vulkan::FramePool<SharedBuffer>> buffers_;
    // Views of Vulkan frames are written here by the shader before their copy (the engine's pool).
    Ref<GstBufferPool> staging_;
    GstVideoInfo staging_info_{};
    std::string description_;
};

} // namespace g2g::cuda_vulkan
