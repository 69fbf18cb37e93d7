// SPDX-License-Identifier: LGPL-2.1-or-later
// Vulkan images across processes (issue 33): a NEW_BUFFER of memory kind VulkanImage carries one
// opaque fd per plane and this record of g2g's own in its meta list: the GPU and driver that made
// them, the producer's frame they belong to (a consumer imports each frame once and keeps it while
// the producer reuses it), and each plane's image as vulkan-external-plane.h describes it. Decoded
// here, checked against the stream and the consumer's device where it is imported.
#pragma once

#include <cstdint>
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

} // namespace g2g::ipc
