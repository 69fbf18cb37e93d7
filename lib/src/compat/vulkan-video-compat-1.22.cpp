// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22 (compat/vulkan-video-compat.h): no Vulkan video decoder, no video profile in a pool's
// configuration, no timeline semaphore in an image's barrier state. A record of video images that
// reaches a 1.22 consumer is refused, naming the version.
#include "compat/vulkan-video-compat.h"

namespace g2g::compat {

Result<VideoProfile> VideoProfile::decoding(const std::string &caps)
{
    return Error(ErrorCode::UnsupportedDomain,
                 "images of the Vulkan video profile " + caps +
                     " cannot be made here: GStreamer 1.22 has no Vulkan video (1.24 and later have)");
}

std::string image_pool_decode_caps(GstStructure *)
{
    return {};
}

VkFormat multi_planar_format(const GstVideoInfo &)
{
    return VK_FORMAT_UNDEFINED;
}

std::vector<std::uint32_t> video_image_families(GstVulkanDevice *)
{
    return {};
}

Result<void> give_image_timeline(GstVulkanImageMemory *)
{
    return {};
}

void forget_image_timeline(GstVulkanBarrierImageInfo &)
{
}

} // namespace g2g::compat
