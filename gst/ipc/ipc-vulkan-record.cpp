// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-vulkan-record.h"

#include "ipc-bytes.h"

#include <string>

namespace g2g::ipc {

namespace {

// The payload, little-endian: device and driver UUIDs (16 bytes each), the frame (u64), the number
// of planes (u32), then per plane format, width, height, usage, tiling, layout (u32) and size (u64).
constexpr std::size_t kFixed = 16 + 16 + 8 + 4;
constexpr std::size_t kPerPlane = 6 * 4 + 8;
constexpr std::uint32_t kMaxPlanes = 4;

Error refused(const std::string &what)
{
    return Error(ErrorCode::InvalidArgument, std::string("a ") + kVulkanRecordName + " record " + what);
}

} // namespace

MetaRecord encode_vulkan_images(const VulkanImages &images)
{
    MetaRecord record{kVulkanRecordName, kVulkanRecordVersion, {}};
    std::vector<std::uint8_t> &out = record.payload;
    out.insert(out.end(), images.identity.device.begin(), images.identity.device.end());
    out.insert(out.end(), images.identity.driver.begin(), images.identity.driver.end());
    put_le(out, images.frame);
    put_le(out, static_cast<std::uint32_t>(images.planes.size()));
    for (const vulkan::ExternalPlane &plane : images.planes) {
        for (std::uint32_t v :
             {plane.format, plane.width, plane.height, plane.usage, plane.tiling, plane.layout})
            put_le(out, v);
        put_le(out, plane.size);
    }
    return record;
}

Result<VulkanImages> decode_vulkan_images(const MetaRecord &record)
{
    if (record.version != kVulkanRecordVersion)
        return refused("of version " + std::to_string(record.version) + " (this g2g reads " +
                       std::to_string(kVulkanRecordVersion) + ")");
    Reader reader(record.payload);
    VulkanImages images;
    std::uint32_t n = 0;
    if (record.payload.size() < kFixed)
        return refused("of " + std::to_string(record.payload.size()) + " bytes, shorter than its fixed " +
                       std::to_string(kFixed));
    for (std::uint8_t &b : images.identity.device)
        reader.host(b);
    for (std::uint8_t &b : images.identity.driver)
        reader.host(b);
    reader.le(images.frame);
    reader.le(n);
    if (n == 0 || n > kMaxPlanes)
        return refused("of " + std::to_string(n) + " planes (1 to " + std::to_string(kMaxPlanes) + ")");
    if (record.payload.size() != kFixed + n * kPerPlane)
        return refused("of " + std::to_string(record.payload.size()) + " bytes for " + std::to_string(n) +
                       " planes (" + std::to_string(kFixed + n * kPerPlane) + ")");
    images.planes.resize(n);
    for (vulkan::ExternalPlane &plane : images.planes) {
        for (std::uint32_t *v :
             {&plane.format, &plane.width, &plane.height, &plane.usage, &plane.tiling, &plane.layout})
            reader.le(*v);
        reader.le(plane.size);
    }
    return images;
}

MetaRecord encode_video_profile(const std::string &caps)
{
    return MetaRecord{kVideoProfileRecordName, kVideoProfileRecordVersion,
                      std::vector<std::uint8_t>(caps.begin(), caps.end())};
}

Result<std::string> decode_video_profile(const MetaRecord &record)
{
    auto refused = [](const std::string &what) {
        return Error(ErrorCode::InvalidArgument,
                     std::string("a ") + kVideoProfileRecordName + " record " + what);
    };
    if (record.version != kVideoProfileRecordVersion)
        return refused("of version " + std::to_string(record.version) + " (this g2g reads " +
                       std::to_string(kVideoProfileRecordVersion) + ")");
    if (record.payload.empty() || record.payload.size() > kMaxVideoProfileBytes)
        return refused("of " + std::to_string(record.payload.size()) + " bytes (1 to " +
                       std::to_string(kMaxVideoProfileBytes) + ")");
    for (std::uint8_t byte : record.payload)
        if (byte < 0x20 || byte > 0x7e)
            return refused("holds the byte " + std::to_string(byte) + ": caps are printable text");
    return std::string(record.payload.begin(), record.payload.end());
}

} // namespace g2g::ipc
