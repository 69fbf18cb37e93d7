// SPDX-License-Identifier: LGPL-2.1-or-later
// Engine::download: a VulkanImage frame copied into a host-visible staging buffer, the copy
// recorded with a fence and the frame handed on at once as fenced memory (vulkan-fenced-memory).
// GStreamer 1.22's vulkandownload waits for every frame's copy on the streaming thread instead.
// Staging buffers are reused: a frame's returns to the engine's free list when the frame is gone.
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "vulkan-commands.h"
#include "vulkan-engine.h"
#include "vulkan-fenced-memory.h"

namespace g2g::vulkan {

// The staging buffers of one size that no frame holds, each with the fence of the last copy into
// it. Shared with the frames' memories, so a frame outliving its engine still frees its buffer.
struct Engine::Staging {
    struct Free {
        GstMemory *memory;
        GstVulkanFence *fence;
    };
    std::mutex lock;
    gsize size = 0;
    std::vector<Free> free;

    ~Staging() { drop(free); }

    // Buffers no copy writes any more (their fences waited for) are freed.
    static void drop(std::vector<Free> &buffers)
    {
        for (const Free &entry : buffers)
            release(entry.memory, entry.fence);
        buffers.clear();
    }

    static void release(GstMemory *memory, GstVulkanFence *fence)
    {
        VkFence vk = GST_VULKAN_FENCE_FENCE(fence);
        vkWaitForFences(fence->device->device, 1, &vk, VK_TRUE, G_MAXUINT64);
        gst_vulkan_fence_unref(fence);
        gst_memory_unref(memory);
    }

    // A free buffer of `size` bytes once its last copy is done, or a new one: host-cached memory
    // first (a CPU reads it; uncached write-combined memory reads several times slower), plain
    // host-visible otherwise.
    GstMemory *take(GstVulkanDevice *device, gsize wanted)
    {
        std::vector<Free> stale;
        std::optional<Free> reused;
        {
            std::lock_guard<std::mutex> guard(lock);
            if (size != wanted) {
                stale.swap(free);
                size = wanted;
            }
            if (!free.empty()) {
                reused = free.back();
                free.pop_back();
            }
        }
        drop(stale);
        if (reused) {
            VkFence vk = GST_VULKAN_FENCE_FENCE(reused->fence);
            vkWaitForFences(reused->fence->device->device, 1, &vk, VK_TRUE, G_MAXUINT64);
            gst_vulkan_fence_unref(reused->fence);
            return reused->memory;
        }
        const VkMemoryPropertyFlags visible =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        GstMemory *memory = gst_vulkan_buffer_memory_alloc(device, wanted, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                           visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        return memory ? memory
                      : gst_vulkan_buffer_memory_alloc(device, wanted, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                       visible);
    }

    // A buffer whose frame is gone, with the fence of the copy into it (both handed over).
    void give_back(GstMemory *memory, GstVulkanFence *fence)
    {
        {
            std::lock_guard<std::mutex> guard(lock);
            if (memory->size == size && free.size() < 8) {
                free.push_back({memory, fence});
                return;
            }
        }
        release(memory, fence);
    }
};

Result<void> Engine::check_images(GstBuffer *source, const GstVideoInfo &info) const
{
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);
    for (guint p = 0; p < planes; ++p) {
        const std::optional<ImagePlane> plane = image_plane(source, GST_VIDEO_INFO_FORMAT(&info), p);
        if (!plane) {
            if (gst_buffer_n_memory(source) != planes && gst_buffer_n_memory(source) != 1)
                return Error(ErrorCode::InvalidArgument,
                             "the frame has " + std::to_string(gst_buffer_n_memory(source)) +
                                 " memories for " + GST_VIDEO_INFO_NAME(&info) + "'s " +
                                 std::to_string(planes) +
                                 " planes (one Vulkan image each, or one multi-planar image)");
            return Error(ErrorCode::InvalidArgument,
                         "plane " + std::to_string(p) + " of the frame is not a Vulkan image of " +
                             GST_VIDEO_INFO_NAME(&info) +
                             "'s planes (one image each, or one multi-planar image)");
        }
        if (plane->image->device != device_)
            return Error(ErrorCode::InvalidArgument, "the frame's Vulkan images are of device " +
                                                         describe(plane->image->device) +
                                                         " but g2g works on device " + describe(device_));
        // Plane p's first component is component p in every format the Vulkan backend takes.
        if (plane->width < static_cast<guint>(GST_VIDEO_INFO_COMP_WIDTH(&info, p)) ||
            plane->height < static_cast<guint>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p)))
            return Error(ErrorCode::InvalidArgument,
                         "plane " + std::to_string(p) + "'s Vulkan image is " + std::to_string(plane->width) +
                             "x" + std::to_string(plane->height) + ", smaller than " +
                             GST_VIDEO_INFO_NAME(&info) + " " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) +
                             "x" + std::to_string(GST_VIDEO_INFO_HEIGHT(&info)) + " needs");
    }
    return {};
}

void Engine::record_plane_copies(Recording &recording, GstBuffer *source, const GstVideoInfo &layout,
                                 VkBuffer buffer)
{
    GstVulkanImageMemory *transitioned = nullptr;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&layout); ++p) {
        const ImagePlane plane = *image_plane(source, GST_VIDEO_INFO_FORMAT(&layout), p); // check_images'd
        if (plane.image != transitioned) // a multi-planar image's planes move on together
            recording.transition(plane.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                 VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        transitioned = plane.image;
        const VkBufferImageCopy region = plane_copy_region(layout, p, plane.aspect);
        vkCmdCopyImageToBuffer(recording.cmd(), plane.image->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               buffer, 1, &region);
    }
}

Result<BufferRef> Engine::download(GstBuffer *source, const GstVideoInfo &info, bool wait)
{
    if (Result<void> fits = check_images(source, info); !fits)
        return fits.error();
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);

    std::lock_guard<std::mutex> guard(lock_);
    if (!staging_)
        staging_ = std::make_shared<Staging>();
    GstMemory *staging = staging_->take(device_, GST_VIDEO_INFO_SIZE(&info));
    if (!staging)
        return Error(ErrorCode::MapFailed, "cannot allocate a host-visible Vulkan buffer of " +
                                               std::to_string(GST_VIDEO_INFO_SIZE(&info)) + " bytes");
    auto *buffer_memory = reinterpret_cast<GstVulkanBufferMemory *>(staging);
    Result<Recording> recording = Recording::begin(queue_, &command_pool_, trash_);
    if (!recording) {
        gst_memory_unref(staging); // no copy was recorded into it
        return recording.error();
    }
    recording->transition(buffer_memory, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    record_plane_copies(*recording, source, info, buffer_memory->buffer);
    // The host reads the bytes after the fence: make the copy's writes visible to it.
    recording->transition(buffer_memory, VK_ACCESS_HOST_READ_BIT, VK_PIPELINE_STAGE_HOST_BIT);
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(source)));
    Result<GstVulkanFence *> fence = recording->submit();
    if (!fence) {
        gst_memory_unref(staging);
        return fence.error();
    }

    if (wait) {
        VkFence copied = GST_VULKAN_FENCE_FENCE(*fence);
        vkWaitForFences(device_->device, 1, &copied, VK_TRUE, G_MAXUINT64);
    }
    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    std::weak_ptr<Staging> recycler = staging_;
    gst_buffer_append_memory(frame.get(),
                             fenced_memory_new(staging, GST_VIDEO_INFO_SIZE(&info), *fence,
                                               [recycler](GstMemory *memory, GstVulkanFence *done) {
                                                   if (auto pool = recycler.lock())
                                                       pool->give_back(memory, done);
                                                   else
                                                       Staging::release(memory, done);
                                               }));
    gst_vulkan_fence_unref(*fence);
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                   GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info), planes,
                                   const_cast<gsize *>(info.offset), const_cast<gint *>(info.stride));
    gst_buffer_copy_into(frame.get(), source,
                         static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, static_cast<gsize>(-1));
    return frame;
}

} // namespace g2g::vulkan
