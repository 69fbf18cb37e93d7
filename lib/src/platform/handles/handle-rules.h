// SPDX-License-Identifier: LGPL-2.1-or-later
// The per-kind facts of the platform-handle memories (platform/handles/): which payload a kind
// carries, what makes one unusable, and how to describe it. One row per kind (handle-rules.cpp);
// handle-memory.cpp holds the GstMemory and allocator mechanics all six share.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>
#include <variant>

#include <g2g/handle-payloads.h>
#include <g2g/memory-domain-kind.h>

namespace g2g::handles::detail {

using Payload = std::variant<G2gD3D11Texture, G2gCvPixelBuffer, G2gWebGPUBuffer, G2gWebGPUExternalTexture,
                             G2gWgpuTexture, G2gWgpuBuffer>;

// The domain a payload is of.
MemoryDomainKind domain_of(const Payload &payload);

// Why a frame of `payload` and `size` bytes cannot be made ("a D3D11Texture needs its
// ID3D11Texture2D: the texture is NULL"); nullopt when it can.
std::optional<std::string> refusal(const Payload &payload, gsize size);

// "D3D11Texture 0x1234 subresource 3, 1920x1080, DXGI format 103, device 0x5678".
std::string describe(const Payload &payload);

} // namespace g2g::handles::detail
