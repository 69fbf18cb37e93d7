// SPDX-License-Identifier: LGPL-2.1-or-later
// What crosses to another process for a Vulkan image it imports (vulkan-external.h), in plain
// integers: the IPC wire (gst/ipc/ipc-vulkan-record) carries it in builds without Vulkan too.
#pragma once

#include <array>
#include <cstdint>

namespace g2g::vulkan {

// What a process needs to make one plane's image again over memory it imports: the parameters the
// exporter made it with, the layout it left it in, and the allocation's size.
struct ExternalPlane {
    std::uint32_t format = 0; // VkFormat
    std::uint32_t width = 0, height = 0;
    std::uint32_t usage = 0;  // VkImageUsageFlags
    std::uint32_t tiling = 0; // VkImageTiling
    std::uint32_t layout = 0; // VkImageLayout
    std::uint64_t size = 0;   // of the allocation (vkGetImageMemoryRequirements' size)
    bool operator==(const ExternalPlane &) const = default;
};

// The GPU and the driver (VkPhysicalDeviceIDProperties' deviceUUID and driverUUID), which an opaque
// fd requires equal on both sides.
using Uuid = std::array<std::uint8_t, 16>;
struct DeviceIdentity {
    Uuid device{}, driver{};
    bool operator==(const DeviceIdentity &) const = default;
};

} // namespace g2g::vulkan
