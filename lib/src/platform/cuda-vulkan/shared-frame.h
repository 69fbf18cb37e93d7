// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames whose bytes CUDA and Vulkan both address. Vulkan allocates them exportable
// (VK_KHR_external_memory_fd); CUDA imports each allocation's fd (cuImportExternalMemory) and
// maps it as device memory. Every allocation is dedicated to its one image or buffer: on NVIDIA's
// driver (580, H200) CUDA's writes into a non-dedicated allocation shared by several images
// reached Vulkan's readers as zeros past each row's first 32 bytes, while a dedicated one read
// back exactly (docs/design-notes.md).
//
//   SharedImages  one linear image per plane, each in its own allocation: the frame CUDA writes for
//                 Vulkan (its Vulkan face, GstVulkanImageMemory per plane). A one-plane frame also has
//                 a CUDA face (one GstCudaMemory over its allocation). Its images cross to other
//                 processes as they are (vulkan::ExportableImages: g2gipcsink).
//   SharedBuffer  one buffer holding every plane at CUDA pitches: the frame Vulkan writes (copies of
//                 its images) for CUDA (its CUDA face, one GstCudaMemory).
// Linear images: CUDA addresses memory by pitch, and a linear image's layout is the pitch the
// driver reports (vkGetImageSubresourceLayout).
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>
#include "platform/vulkan/gst-vulkan.h"
#include "platform/vulkan/frame-pool.h"
#include "platform/vulkan/vulkan-external.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

namespace g2g::cuda_vulkan {

// One exportable allocation dedicated to one image or buffer, imported into CUDA and mapped.
struct SharedAllocation {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    CUexternalMemory imported = nullptr;
    CUdeviceptr data = 0;
};

// What both frame kinds hold: their device and CUDA context, and their allocations.
class SharedMemoryBase {
public:
    SharedMemoryBase(const SharedMemoryBase &) = delete;
    SharedMemoryBase &operator=(const SharedMemoryBase &) = delete;

    const GstVideoInfo &info() const { return info_; }
    GstVulkanDevice *device() const { return device_; }

protected:
    SharedMemoryBase(GstVulkanDevice *device, GstCudaContext *cuda, const GstVideoInfo &info);
    ~SharedMemoryBase(); // CUDA's mappings and imports, then the Vulkan allocations

    // Allocates `requirements` dedicated to `image` or `buffer`, exportable, and imports it into CUDA.
    Result<SharedAllocation *> allocate(const VkMemoryRequirements &requirements, VkImage image,
                                        VkBuffer buffer);

    GstVulkanDevice *device_ = nullptr; // one reference
    GstCudaContext *cuda_ = nullptr;    // one reference
    GstVideoInfo info_{};
    std::vector<SharedAllocation> allocations_;
};

class SharedImages : public SharedMemoryBase,
                     public vulkan::ExportableImages,
                     public std::enable_shared_from_this<SharedImages> {
public:
    // Linear images of `info`'s planes (its format and size) of `device`, imported into `cuda`.
    // Refused with the reason: a plane without a Vulkan format, images the driver cannot copy,
    // sample, export or import in linear tiling (vulkan::exportable_usage). Faces need the frame
    // owned by a std::shared_ptr.
    static Result<std::unique_ptr<SharedImages>> create(GstVulkanDevice *device, GstCudaContext *cuda,
                                                        const GstVideoInfo &info);
    ~SharedImages() override;

    GstVulkanDevice *device() const override { return device_; }
    const GstVideoInfo &info() const override { return info_; }
    // Each plane's fd for another process is made the first time one is asked for (few frames of
    // g2gconvert's cross processes), and kept with the frame.
    std::vector<vulkan::ExternalImage> planes(GstBuffer *face = nullptr) override;

    // Where CUDA writes plane p: a device pointer (CUdeviceptr) and its row pitch.
    void cuda_planes(std::uint64_t planes[], gint strides[]) const;

    // A new VulkanImage frame of the images (one GstVulkanImageMemory per plane) holding this frame
    // until its memories are freed. Each plane's recorded layout, access and stage carry over from
    // the last face freed, so the next reader's barrier starts where the last one left.
    BufferRef vulkan_face();
    // A one-plane frame's bytes as a CUDA frame (one GstCudaMemory), holding this frame; an empty
    // reference for more planes (their allocations are apart: no GstCudaMemory holds them).
    BufferRef cuda_face();

    // The frame behind a face's memory, or nullptr for any other memory.
    static std::shared_ptr<SharedImages> of_vulkan_memory(GstMemory *memory);
    static std::shared_ptr<SharedImages> of_cuda_memory(GstMemory *memory);

private:
    using SharedMemoryBase::SharedMemoryBase;
    struct Plane {
        VkImage image = VK_NULL_HANDLE;
        vulkan::ExternalPlane description; // as made (its layout aside)
        SharedAllocation *allocation = nullptr;
        VkDeviceSize offset = 0; // of the image's bytes in its allocation
        gint pitch = 0;
        int fd = -1; // for another process, once asked for (closed with the frame)
    };
    struct FaceHold;
    static void release_vulkan_plane(gpointer hold);
    static void release_cuda(gpointer hold);

    std::vector<Plane> planes_;
    VkImageUsageFlags usage_ = 0; // of every plane (the faces say one usage)
    // Per plane: the barrier state the last freed Vulkan face left; the fds.
    std::mutex lock_;
    std::vector<GstVulkanBarrierImageInfo> barriers_;
};

class SharedBuffer : public SharedMemoryBase, public std::enable_shared_from_this<SharedBuffer> {
public:
    // A buffer of `device` holding `info`'s planes at CUDA-friendly pitches (256-byte rows and
    // plane starts, which vkCmdCopyImageToBuffer's row lengths in texels and offsets allow),
    // imported into `cuda`.
    static Result<std::unique_ptr<SharedBuffer>> create(GstVulkanDevice *device, GstCudaContext *cuda,
                                                        const GstVideoInfo &info);
    ~SharedBuffer();

    VkBuffer buffer() const { return buffer_; }
    // The planes' pitches and offsets in the buffer.
    const GstVideoInfo &layout() const { return layout_; }
    // A new CUDA frame over the buffer (one GstCudaMemory laid out as layout()), holding this frame.
    BufferRef cuda_face();

private:
    using SharedMemoryBase::SharedMemoryBase;
    static void release(gpointer hold);

    VkBuffer buffer_ = VK_NULL_HANDLE;
    GstVideoInfo layout_{};
};

// Frames of one kind and layout that no face holds, reused (vulkan::FramePool): importing an
// allocation into CUDA costs far more than a frame's copy.
template <typename Frame> using SharedPool = vulkan::FramePool<Frame>;

// A pool of `Frame`s (SharedImages or SharedBuffer) of `device`, imported into `cuda` (each held
// while the pool lives).
template <typename Frame>
std::shared_ptr<SharedPool<Frame>> shared_pool(GstVulkanDevice *device, GstCudaContext *cuda)
{
    const std::shared_ptr<GstVulkanDevice> held_device(static_cast<GstVulkanDevice *>(gst_object_ref(device)),
                                                       [](GstVulkanDevice *d) { gst_object_unref(d); });
    const std::shared_ptr<GstCudaContext> held_cuda(static_cast<GstCudaContext *>(gst_object_ref(cuda)),
                                                    [](GstCudaContext *c) { gst_object_unref(c); });
    return SharedPool<Frame>::create([held_device, held_cuda](const GstVideoInfo &info) {
        return Frame::create(held_device.get(), held_cuda.get(), info);
    });
}

} // namespace g2g::cuda_vulkan
