// SPDX-License-Identifier: LGPL-2.1-or-later
// The payload-free discriminant of a memory domain: where a frame's bytes live.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace g2g {

// Exactly the seed's variants, in the seed's order. The numeric values are the C API's
// G2gMemoryDomainKind values and the bit positions of DomainSet and of the GFlags type.
enum class MemoryDomainKind : std::uint8_t {
    System,
    SystemView,
    DmaBuf,
    VulkanTexture,
    WebGPUBuffer,
    Cuda,
    D3D11Texture,
    CvPixelBuffer,
    WebGPUExternalTexture,
    WgpuTexture,
    WgpuBuffer,
};

inline constexpr std::size_t kMemoryDomainKindCount = 11;

inline constexpr std::array<MemoryDomainKind, kMemoryDomainKindCount> kAllMemoryDomainKinds = {
    MemoryDomainKind::System,        MemoryDomainKind::SystemView,    MemoryDomainKind::DmaBuf,
    MemoryDomainKind::VulkanTexture, MemoryDomainKind::WebGPUBuffer,  MemoryDomainKind::Cuda,
    MemoryDomainKind::D3D11Texture,  MemoryDomainKind::CvPixelBuffer, MemoryDomainKind::WebGPUExternalTexture,
    MemoryDomainKind::WgpuTexture,   MemoryDomainKind::WgpuBuffer,
};

// The seed's name ("System", "Cuda", "WgpuBuffer", ...).
std::string_view name(MemoryDomainKind kind);

// Kebab-case nick, as used by the GFlags type and element properties ("system-view").
std::string_view nick(MemoryDomainKind kind);

// The caps features a stream of this kind negotiates, as gst_caps_features_from_string()
// parses them ("memory:CUDAMemory"; SystemView is "memory:SystemMemory, meta:G2gTensorView").
std::string_view caps_feature(MemoryDomainKind kind);

// The memory part of caps_feature() alone ("memory:SystemMemory" for SystemView).
std::string_view memory_caps_feature(MemoryDomainKind kind);

// True for domains whose bytes a CPU may read in place (System, SystemView through its view,
// and DmaBuf when the memory is mappable); the others need a download.
bool is_host_domain(MemoryDomainKind kind);

std::optional<MemoryDomainKind> kind_from_name(std::string_view name_or_nick);

} // namespace g2g
