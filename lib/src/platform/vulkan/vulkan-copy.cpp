// SPDX-License-Identifier: LGPL-2.1-or-later
// Engine::copy_frame and Engine::finish: a dense VulkanImage frame copied image to image on the
// GPU (what the CUDA bridge does into the images it shares with CUDA), and the queue drained, so
// another API may read what this queue's work wrote.
#include "vulkan-commands.h"
#include "vulkan-engine.h"

namespace g2g::vulkan {

namespace {

GstVulkanImageMemory *image_at(GstBuffer *buffer, guint index)
{
    GstMemory *memory = index < gst_buffer_n_memory(buffer) ? gst_buffer_peek_memory(buffer, index) : nullptr;
    return memory && gst_is_vulkan_image_memory(memory) ? reinterpret_cast<GstVulkanImageMemory *>(memory)
                                                        : nullptr;
}

} // namespace

Result<void> Engine::copy_frame(GstBuffer *source, GstBuffer *destination)
{
    const guint planes = gst_buffer_n_memory(source);
    if (planes == 0 || planes != gst_buffer_n_memory(destination))
        return Error(ErrorCode::InvalidArgument, "the frames to copy have " + std::to_string(planes) + " and " +
                                                     std::to_string(gst_buffer_n_memory(destination)) +
                                                     " images");
    for (guint p = 0; p < planes; ++p) {
        GstVulkanImageMemory *from = image_at(source, p), *to = image_at(destination, p);
        if (!from || !to)
            return Error(ErrorCode::InvalidArgument, "a frame to copy holds memory other than Vulkan images");
        if (from->device->device != device_->device || to->device->device != device_->device)
            return Error(ErrorCode::InvalidArgument, "the frame's Vulkan images are of device " +
                                                         describe(from->device) + " but the engine works on " +
                                                         describe(device_));
        if (from->create_info.extent.width != to->create_info.extent.width ||
            from->create_info.extent.height != to->create_info.extent.height ||
            from->create_info.format != to->create_info.format)
            return Error(ErrorCode::InvalidArgument,
                         "plane " + std::to_string(p) + " of the frame to copy is " +
                             std::to_string(from->create_info.extent.width) + "x" +
                             std::to_string(from->create_info.extent.height) + " (VkFormat " +
                             std::to_string(from->create_info.format) + ") but its destination is " +
                             std::to_string(to->create_info.extent.width) + "x" +
                             std::to_string(to->create_info.extent.height) + " (VkFormat " +
                             std::to_string(to->create_info.format) + ")");
    }
    std::lock_guard<std::mutex> guard(lock_);
    Result<Recording> recording = Recording::begin(queue_, &command_pool_, trash_);
    if (!recording)
        return recording.error();
    for (guint p = 0; p < planes; ++p) {
        GstVulkanImageMemory *from = image_at(source, p), *to = image_at(destination, p);
        recording->transition(from, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT);
        recording->transition(to, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT);
        VkImageCopy region{};
        region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.extent = {from->create_info.extent.width, from->create_info.extent.height, 1};
        vkCmdCopyImage(recording->cmd(), from->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, to->image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    }
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(source)));
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(destination)));
    Result<GstVulkanFence *> fence = recording->submit();
    if (!fence)
        return fence.error();
    gst_vulkan_fence_unref(*fence); // the trash list keeps its own
    return {};
}

Result<void> Engine::hand_over(GstBuffer *frame, External direction)
{
    const guint planes = gst_buffer_n_memory(frame);
    std::lock_guard<std::mutex> guard(lock_);
    Result<Recording> recording = Recording::begin(queue_, &command_pool_, trash_);
    if (!recording)
        return recording.error();
    for (guint p = 0; p < planes; ++p) {
        GstVulkanImageMemory *image = image_at(frame, p);
        if (!image)
            return Error(ErrorCode::InvalidArgument, "a frame to hand over holds memory other than Vulkan images");
        const bool acquire = direction == External::Acquire;
        VkImageMemoryBarrier barrier{};
        barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
        // An acquire waits for nothing of this queue (the other API's writes are done: its caller
        // synchronized) and makes them visible to everything after; a release makes this queue's
        // writes available to the other API.
        barrier.srcAccessMask = acquire ? 0 : image->barrier.parent.access_flags;
        barrier.dstAccessMask = acquire ? VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT : 0;
        barrier.oldLayout = image->barrier.image_layout;
        barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
        barrier.srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : queue_->family;
        barrier.dstQueueFamilyIndex = acquire ? queue_->family : VK_QUEUE_FAMILY_EXTERNAL;
        barrier.image = image->image;
        barrier.subresourceRange = image->barrier.subresource_range;
        const VkPipelineStageFlags from =
            acquire || !image->barrier.parent.pipeline_stages
                ? static_cast<VkPipelineStageFlags>(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT)
                : image->barrier.parent.pipeline_stages;
        const VkPipelineStageFlags to =
            acquire ? VK_PIPELINE_STAGE_ALL_COMMANDS_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
        vkCmdPipelineBarrier(recording->cmd(), from, to, 0, 0, nullptr, 0, nullptr, 1, &barrier);
        image->barrier.image_layout = VK_IMAGE_LAYOUT_GENERAL;
        image->barrier.parent.access_flags = barrier.dstAccessMask;
        image->barrier.parent.pipeline_stages = to;
    }
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(frame)));
    Result<GstVulkanFence *> fence = recording->submit();
    if (!fence)
        return fence.error();
    gst_vulkan_fence_unref(*fence);
    return {};
}

Result<void> Engine::finish()
{
    GError *error = nullptr;
    GstVulkanFence *fence = gst_vulkan_device_create_fence(device_, &error);
    if (!fence)
        return failure("creating a Vulkan fence", error);
    VkResult submitted;
    {
        // A submission without batches: its fence signals once everything submitted to the queue
        // before it has completed, whoever recorded it.
        std::lock_guard<std::mutex> guard(lock_);
        gst_vulkan_queue_submit_lock(queue_);
        submitted = vkQueueSubmit(queue_->queue, 0, nullptr, GST_VULKAN_FENCE_FENCE(fence));
        gst_vulkan_queue_submit_unlock(queue_);
    }
    VkResult waited = VK_SUCCESS;
    if (submitted == VK_SUCCESS) {
        VkFence vk = GST_VULKAN_FENCE_FENCE(fence);
        waited = vkWaitForFences(device_->device, 1, &vk, VK_TRUE, G_MAXUINT64);
    }
    gst_vulkan_fence_unref(fence);
    if (submitted != VK_SUCCESS)
        return failure("vkQueueSubmit", submitted);
    if (waited != VK_SUCCESS)
        return failure("vkWaitForFences", waited);
    return {};
}

} // namespace g2g::vulkan
