// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24 on (compat/vulkan-timeline-compat.h): the timeline semaphore of an image's barrier
// state (gstvkimagememory.c makes it where the device has timeline semaphores; gstvkoperation.c's
// gst_vulkan_operation_add_dependency_frame waits for semaphore_value, signals semaphore_value + 1 and
// counts the field up once submitted). g2g's engine keeps the same protocol for the images a video
// queue works on (a decoder's: video usage), the only ones another queue than the pipeline's
// writes. The others (vulkanupload's, vulkancolorconvert's, g2g's own) are ordered by the queue
// the pipeline's Vulkan elements share ("gst.vulkan.queue"), as on 1.22: with a timeline semaphore
// in every submission, Debian 13's lavapipe (Mesa 25.0) crashed in its queue thread within a few
// dozen frames of test-vulkan-engine (any wait or signal of these semaphores did it).
#include "compat/vulkan-timeline-compat.h"

namespace g2g::compat {

ImageTimeline vulkan_image_timeline(GstVulkanImageMemory *image)
{
    VkImageUsageFlags video = 0;
#ifdef VK_KHR_video_decode_queue
    video |= VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR;
#endif
#ifdef VK_KHR_video_encode_queue
    video |= VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR | VK_IMAGE_USAGE_VIDEO_ENCODE_DPB_BIT_KHR;
#endif
    if (image->barrier.parent.semaphore == VK_NULL_HANDLE || !(image->create_info.usage & video))
        return {};
    return {image->barrier.parent.semaphore, &image->barrier.parent.semaphore_value};
}

} // namespace g2g::compat
