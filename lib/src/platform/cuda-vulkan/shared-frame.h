// SPDX-License-Identifier: LGPL-2.1-or-later
// SharedFrame: one frame's bytes that CUDA and Vulkan both address. Vulkan allocates them (one
// exportable allocation, VK_KHR_external_memory_fd, holding a linear image per plane) and CUDA
// imports the allocation's fd (cuImportExternalMemory) and maps it as device memory, so the frame
// is at once a VulkanImage frame (its Vulkan face: GstVulkanImageMemory per plane) and a CUDA frame
// (its CUDA face: one GstCudaMemory with the images' row pitches and offsets). Whoever writes
// one face makes its work complete before the other face is handed on (the bridge does).
//
// Linear images: CUDA addresses memory by pitch, and a linear image's layout is the pitch the
// driver reports (vkGetImageSubresourceLayout); an optimal image would need a CUDA array per
// plane, which no GstCudaMemory can hold.
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>
#include "platform/vulkan/gst-vulkan.h"

#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

namespace g2g::cuda_vulkan {

class SharedFrame : public std::enable_shared_from_this<SharedFrame> {
public:
    // The planes of `info` (format and size) as linear images of `device` in one exportable
    // allocation (a dedicated one for a one-plane format whose driver prefers it), imported into
    // `cuda`. Refused with the reason: formats without a Vulkan format per plane, images the driver
    // cannot export, a driver that requires a dedicated allocation per plane of a multi-plane format.
    // Faces need the frame owned by a std::shared_ptr (a pool's, which takes it back when the last
    // face is freed).
    static Result<std::unique_ptr<SharedFrame>> create(GstVulkanDevice *device, GstCudaContext *cuda,
                                                       const GstVideoInfo &info);
    ~SharedFrame(); // CUDA's mapping and import first, then the images and the allocation

    SharedFrame(const SharedFrame &) = delete;
    SharedFrame &operator=(const SharedFrame &) = delete;

    const GstVideoInfo &info() const { return info_; }
    // The bytes as CUDA sees them: info()'s format and size with the images' pitches and offsets.
    const GstVideoInfo &cuda_layout() const { return cuda_layout_; }
    GstVulkanDevice *device() const { return device_; }
    bool dedicated() const { return dedicated_; }

    // A new VulkanImage frame of this frame's images (one GstVulkanImageMemory per plane), holding
    // the frame until its memories are freed. Each plane's recorded layout, access and stage carry
    // over from the last face freed, so the next reader's barrier starts where the last one left.
    BufferRef vulkan_face();
    // A new CUDA frame over the bytes (one GstCudaMemory laid out as cuda_layout()), holding the frame.
    BufferRef cuda_face();

    // The frame behind a face's memory, or nullptr for any other memory.
    static std::shared_ptr<SharedFrame> of_vulkan_memory(GstMemory *memory);
    static std::shared_ptr<SharedFrame> of_cuda_memory(GstMemory *memory);

private:
    SharedFrame() = default;
    struct FaceHold;
    static void release_vulkan_plane(gpointer hold);
    static void release_cuda(gpointer hold);

    GstVulkanDevice *device_ = nullptr; // one reference
    GstCudaContext *cuda_ = nullptr;    // one reference
    GstVideoInfo info_{};
    GstVideoInfo cuda_layout_{};
    bool dedicated_ = false;
    std::vector<VkImage> images_;
    std::vector<VkFormat> formats_;
    VkImageUsageFlags usage_ = 0;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    CUexternalMemory imported_ = nullptr;
    CUdeviceptr data_ = 0;
    // Per plane: the barrier state the last freed Vulkan face left.
    std::mutex lock_;
    std::vector<GstVulkanBarrierImageInfo> barriers_;
};

// Frames of one layout that no face holds, reused: importing an allocation into CUDA costs far
// more than a frame's copy. Frames come back when their last face is freed, and are freed with
// the pool (or when the layout changes).
class SharedFramePool : public std::enable_shared_from_this<SharedFramePool> {
public:
    static std::shared_ptr<SharedFramePool> create(GstVulkanDevice *device, GstCudaContext *cuda);
    ~SharedFramePool();

    // A frame of `info`'s format and size: a free one, or a new one.
    Result<std::shared_ptr<SharedFrame>> acquire(const GstVideoInfo &info);

    // Frames made since the pool was (each an allocation exported to CUDA).
    guint64 allocated() const { return allocated_; }

private:
    SharedFramePool() = default;
    void give_back(SharedFrame *frame);

    GstVulkanDevice *device_ = nullptr;
    GstCudaContext *cuda_ = nullptr;
    std::mutex lock_;
    std::vector<std::unique_ptr<SharedFrame>> free_;
    guint64 allocated_ = 0;
};

} // namespace g2g::cuda_vulkan
