// SPDX-License-Identifier: LGPL-2.1-or-later
// Images of a Vulkan video profile, as a video decoder's are made (compat.h has the map): from 1.24
// vulkanh264dec and vulkanh265dec ask their downstream's pool for images of a decoding profile
// (its caps in the configuration's "decode-caps"), each frame one image of a multi-planar format,
// shared by every queue family the device opened, with a timeline semaphore in its barrier state
// that orders the decoder's queue with the others. 1.22 has no Vulkan video. g2g's exported images
// (vulkan-external.h) are made so where a decoder writes them, and imported so in the consumer.
// Built with the vulkan feature; meson picks vulkan-video-compat-1.22.cpp or
// vulkan-video-compat-1.24.cpp.
#pragma once

#include <gst/video/video.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <g2g/error.h>

#include "../platform/vulkan/gst-vulkan.h"

namespace g2g::compat {

// A decoding profile (codec, chroma subsampling, bit depths, the codec's own profile), from the caps
// GStreamer writes of it (gst_vulkan_video_profile_to_caps: a decoder's "decode-caps").
class VideoProfile {
public:
    // Refused: caps that name no decoding profile GStreamer knows, and GStreamer 1.22 (no Vulkan video).
    static Result<VideoProfile> decoding(const std::string &caps);
    const std::string &caps() const { return caps_; }
    // A VkVideoProfileListInfoKHR of this one profile, to chain into an image's creation or a
    // format query: valid while this profile (or a copy of it) lives.
    const void *list() const { return list_.get(); }
    bool operator==(const VideoProfile &other) const { return caps_ == other.caps_; }

private:
    std::string caps_;
    std::shared_ptr<const void> list_;
};

// The caps of the decoding profile `config` (a GstVulkanImageBufferPool configuration) asks its
// images be made for; empty where it names none (always on 1.22).
std::string image_pool_decode_caps(GstStructure *config);

// The format of the one multi-planar image that holds every plane of a decoder's frame of `info`,
// as GStreamer's pool makes it; VK_FORMAT_UNDEFINED where there is none (and on 1.22).
VkFormat multi_planar_format(const GstVideoInfo &info);

// The queue families a video image is shared by (VK_SHARING_MODE_CONCURRENT), as GStreamer's pool
// shares a decoder's: every family `device` opened, where it opened more than one; none otherwise.
std::vector<std::uint32_t> video_image_families(GstVulkanDevice *device);

// `memory` (an image g2g wrapped) gets a timeline semaphore of its own, as GStreamer 1.24's image
// allocations have (it destroys it with the memory): a decoder's operations on the video queue wait
// for and signal it. Nothing on 1.22 or where the device has no timeline semaphores.
Result<void> give_image_timeline(GstVulkanImageMemory *memory);
// `barrier` (an image's barrier state, kept past its memory) without the memory's timeline
// semaphore, which went with the memory; the next memory of the image gets a new one.
void forget_image_timeline(GstVulkanBarrierImageInfo &barrier);

} // namespace g2g::compat
