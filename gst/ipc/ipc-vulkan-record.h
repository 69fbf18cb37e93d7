// SPDX-License-Identifier: LGPL-2.1-or-later
// Vulkan images across processes (issue 33): a NEW_BUFFER of memory kind VulkanImage carries one
// opaque fd per plane and this record of g2g's own in its meta list: the GPU and driver that made
// them, the producer's frame they belong to (a consumer imports each frame once and keeps it while
// the producer reuses it), and each plane's image as vulkan-external-plane.h describes it. Decoded
// here, checked against the stream and the consumer's device where it is imported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <g2g/error.h>

#include "ipc-wire.h"
#include <g2g-internal/plugin-interface.h>

namespace g2g::ipc {

inline constexpr const char *kVulkanRecordName = "G2gVulkanImages";
inline constexpr std::uint8_t kVulkanRecordVersion = 1;

struct VulkanImages {
    vulkan::DeviceIdentity identity;
    std::uint64_t frame = 0;
    std::vector<vulkan::ExternalPlane> planes;
};

MetaRecord encode_vulkan_images(const VulkanImages &images);
// Refused: another version, a length other than its planes make, no plane or more than four.
Result<VulkanImages> decode_vulkan_images(const MetaRecord &record);

// A decoder's frame (one multi-planar image of a Vulkan video profile) carries its profile beside the
// G2gVulkanImages record: the caps GStreamer writes of it (gst_vulkan_video_profile_to_caps), which the
// consumer makes the image's profile from again (compat::VideoProfile::decoding).
inline constexpr const char *kVideoProfileRecordName = "G2gVulkanVideoProfile";
inline constexpr std::uint8_t kVideoProfileRecordVersion = 1;
inline constexpr std::size_t kMaxVideoProfileBytes = 1024;

MetaRecord encode_video_profile(const std::string &caps);
// Refused: another version, no text or more than kMaxVideoProfileBytes, a byte that is not printable.
Result<std::string> decode_video_profile(const MetaRecord &record);

} // namespace g2g::ipc
