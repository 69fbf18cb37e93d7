// SPDX-License-Identifier: LGPL-2.1-or-later
// What the CUDA bridge asks of the engine: a dense VulkanImage frame copied into a buffer another
// API shares, images released to that API, and the queue drained, so it may read what this
// queue's work wrote.
#include "vulkan-commands.h"
#include "vulkan-engine.h"

namespace g2g::vulkan {

Result<void> Engine::copy_to_external_buffer(GstBuffer *source, VkBuffer buffer, const GstVideoInfo &layout)
{
    // Larger images give their corner: GStreamer 1.22's vulkanupload keeps its first caps' image
    // pool (compat::vulkanupload_keeps_image_pool), so after a renegotiation to a smaller size its
    // frames are larger images.
    if (Result<void> fits = check_images(source, layout); !fits)
        return fits;
    std::lock_guard<std::mutex> guard(lock_);
    Result<Recording> recording = record();
    if (!recording)
        return recording.error();
    record_plane_copies(*recording, source, layout, buffer);
    // The buffer's memory is another API's next: released to it (the external queue family).
    VkBufferMemoryBarrier release{};
    release.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    release.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    release.srcQueueFamilyIndex = queue_->family;
    release.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    release.buffer = buffer;
    release.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(recording->cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 1, &release, 0, nullptr);
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(source)));
    if (Result<Fence> fence = recording->submit(); !fence)
        return fence.error();
    return {};
}

Result<void> Engine::release_to_external(GstBuffer *frame)
{
    const guint planes = gst_buffer_n_memory(frame);
    std::lock_guard<std::mutex> guard(lock_);
    Result<Recording> recording = record();
    if (!recording)
        return recording.error();
    for (guint p = 0; p < planes; ++p) {
        GstVulkanImageMemory *image = image_memory(frame, p);
        if (!image)
            return Error(ErrorCode::InvalidArgument,
                         "a frame to release holds memory other than Vulkan images");
        recording->order_with(image);
        VkImageMemoryBarrier barrier{};
        barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
        barrier.srcAccessMask = image->barrier.parent.access_flags;
        barrier.oldLayout = image->barrier.image_layout;
        barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
        barrier.srcQueueFamilyIndex = queue_->family;
        barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
        barrier.image = image->image;
        barrier.subresourceRange = image->barrier.subresource_range;
        const VkPipelineStageFlags from =
            image->barrier.parent.pipeline_stages
                ? image->barrier.parent.pipeline_stages
                : static_cast<VkPipelineStageFlags>(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        vkCmdPipelineBarrier(recording->cmd(), from, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0,
                             nullptr, 1, &barrier);
        image->barrier.image_layout = VK_IMAGE_LAYOUT_GENERAL;
        image->barrier.parent.access_flags = 0;
        image->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    }
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(frame)));
    if (Result<Fence> fence = recording->submit(); !fence)
        return fence.error();
    return {};
}

Result<void> Engine::finish()
{
    Fence fence;
    {
        // A submission without batches: its fence signals once everything submitted to the queue
        // before it has completed, whoever recorded it. The fence is the pool's, as every
        // submission's is (the CUDA bridge drains the queue once per frame).
        std::lock_guard<std::mutex> guard(lock_);
        Result<Fence> acquired = submissions_->fences().acquire();
        if (!acquired)
            return acquired.error();
        fence = std::move(*acquired);
        gst_vulkan_queue_submit_lock(queue_);
        const VkResult submitted = vkQueueSubmit(queue_->queue, 0, nullptr, fence.handle());
        gst_vulkan_queue_submit_unlock(queue_);
        if (submitted != VK_SUCCESS)
            return failure("vkQueueSubmit", submitted);
        fence.mark_submitted();
    }
    if (VkResult waited = fence.wait(); waited != VK_SUCCESS)
        return failure("vkWaitForFences", waited);
    return {};
}

} // namespace g2g::vulkan

namespace g2g::vulkan {

Result<Fence> Engine::copy_for_export(GstBuffer *source, GstBuffer *destination, const GstVideoInfo &info)
{
    if (Result<void> fits = check_images(source, info); !fits)
        return fits.error();
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);
    if (gst_buffer_n_memory(destination) != planes)
        return Error(ErrorCode::InvalidArgument, "an export frame of " +
                                                     std::to_string(gst_buffer_n_memory(destination)) +
                                                     " images for " + std::to_string(planes) + " planes");
    std::lock_guard<std::mutex> guard(lock_);
    Result<Recording> recording = record();
    if (!recording)
        return recording.error();
    GstVulkanImageMemory *transitioned = nullptr;
    for (guint p = 0; p < planes; ++p) {
        const ImagePlane from = *image_plane(source, GST_VIDEO_INFO_FORMAT(&info), p); // check_images'd
        GstVulkanImageMemory *to = image_memory(destination, p);
        if (!to || to->device != device_)
            return Error(ErrorCode::InvalidArgument, "an export frame's plane " + std::to_string(p) +
                                                         " is not a Vulkan image of device " +
                                                         describe(device_));
        if (from.image != transitioned) // a multi-planar image's planes move on together
            recording->transition(from.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                  VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        transitioned = from.image;
        recording->transition(to, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT);
        VkImageCopy region{};
        region.srcSubresource = {from.aspect, 0, 0, 1};
        region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.extent = {static_cast<guint32>(GST_VIDEO_INFO_COMP_WIDTH(&info, p)),
                         static_cast<guint32>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p)), 1};
        vkCmdCopyImage(recording->cmd(), from.image->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, to->image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        // The image is another process's next: released to the external queue family.
        VkImageMemoryBarrier release{};
        release.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
        release.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        release.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        release.newLayout = VK_IMAGE_LAYOUT_GENERAL;
        release.srcQueueFamilyIndex = queue_->family;
        release.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
        release.image = to->image;
        release.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdPipelineBarrier(recording->cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0, nullptr, 1, &release);
        to->barrier.image_layout = VK_IMAGE_LAYOUT_GENERAL;
        to->barrier.parent.access_flags = 0;
        to->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    }
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(source)));
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(destination)));
    return recording->submit();
}

} // namespace g2g::vulkan
