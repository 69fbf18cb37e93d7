// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames of the platform-handle domains: D3D11Texture, CvPixelBuffer, WebGPUBuffer,
// WebGPUExternalTexture, WgpuTexture, WgpuBuffer. Each is a GstMemory type of its own (memory type
// "G2g<Kind>", allocator "G2g<Kind>Allocator") carrying its payload (g2g/handle-payloads.h) and a
// keep-alive that owns the platform object. The memory cannot be mapped (the host cannot read
// it); a share (gst_memory_share, a g2gtee branch, gst_buffer_copy) is a reference, never a copy;
// the keep-alive is released exactly once, after the last share is gone.
//
// g2g-core links none of the platforms: a producer hands its handle with the platform's own
// retain/release (COM's AddRef/Release, CFRetain/CFRelease), and a consumer that links the
// platform gets the payload back by asking for its type (the seed's as_any): asking with another
// kind's payload type gives nothing, never a reinterpretation.
//
//   auto keep = g2g::handles::keep_alive(texture, [](void *t) { static_cast<IUnknown *>(t)->Release(); });
//   texture->AddRef();
//   g2g::Result<g2g::MemoryRef> memory = g2g::handles::wrap(G2gD3D11Texture{...}, keep, frame_size);
//   ...
//   if (const G2gD3D11Texture *d3d = g2g::handles::payload_of<G2gD3D11Texture>(memory))
//       context->CopySubresourceRegion(..., static_cast<ID3D11Texture2D *>(d3d->texture), d3d->subresource,
//       ...);
#pragma once

#include <gst/gst.h>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include <g2g/error.h>
#include <g2g/gst-ref.h>
#include <g2g/handle-payloads.h>
#include <g2g/memory-domain-kind.h>

namespace g2g::handles {

// Owns the platform object behind a handle. A producer that links the platform may derive its
// own (holding a wgpu::Texture, a ComPtr); keep_alive() makes one of a release function. A
// consumer recovers a derived one with as<T>(), the seed's as_any: nullptr when it is another.
class KeepAlive {
public:
    virtual ~KeepAlive() = default;
    template <typename T> T *as() { return dynamic_cast<T *>(this); }
    template <typename T> const T *as() const { return dynamic_cast<const T *>(this); }
};

// A keep-alive that calls `release(user_data)` once, when the last share of its memory is gone
// (`release` must not be null; wrap() refuses a null keep-alive). The caller has already taken
// the reference that `release` gives back (AddRef, CFRetain).
std::shared_ptr<KeepAlive> keep_alive(void *user_data, G2gHandleRelease release);

// The kind each payload type is the payload of.
template <typename Payload> struct KindOf;
template <>
struct KindOf<G2gD3D11Texture> : std::integral_constant<MemoryDomainKind, MemoryDomainKind::D3D11Texture> {
};
template <>
struct KindOf<G2gCvPixelBuffer> : std::integral_constant<MemoryDomainKind, MemoryDomainKind::CvPixelBuffer> {
};
template <>
struct KindOf<G2gWebGPUBuffer> : std::integral_constant<MemoryDomainKind, MemoryDomainKind::WebGPUBuffer> {
};
template <>
struct KindOf<G2gWebGPUExternalTexture>
    : std::integral_constant<MemoryDomainKind, MemoryDomainKind::WebGPUExternalTexture> {
};
template <>
struct KindOf<G2gWgpuTexture> : std::integral_constant<MemoryDomainKind, MemoryDomainKind::WgpuTexture> {
};
template <>
struct KindOf<G2gWgpuBuffer> : std::integral_constant<MemoryDomainKind, MemoryDomainKind::WgpuBuffer> {
};

// True for the six kinds carried this way.
bool is_handle_kind(MemoryDomainKind kind);

// A memory of the payload's kind, of `size` bytes (the frame's size as its caps describe it; a
// WgpuBuffer's at least its valid length). Refused, naming the kind and the field, for a null
// handle (texture, pixel buffer, video frame, buffer; buffer id 0), a D3D11 texture without its
// device, a texture or pixel buffer of 0x0, a WebGPU buffer of 0 bytes, a WgpuBuffer whose valid
// length exceeds `size`, and a null keep-alive. On refusal g2g keeps nothing: the keep-alive goes
// with the caller's last shared_ptr to it (a temporary's at once, releasing the object then).
Result<MemoryRef> wrap(const G2gD3D11Texture &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size);
Result<MemoryRef> wrap(const G2gCvPixelBuffer &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size);
Result<MemoryRef> wrap(const G2gWebGPUBuffer &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size);
Result<MemoryRef> wrap(const G2gWebGPUExternalTexture &payload, std::shared_ptr<KeepAlive> keep_alive,
                       gsize size);
Result<MemoryRef> wrap(const G2gWgpuTexture &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size);
Result<MemoryRef> wrap(const G2gWgpuBuffer &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size);

// The domain of a platform-handle memory (or a share of one); nullopt for any other memory.
std::optional<MemoryDomainKind> handle_domain_of(GstMemory *memory);

namespace detail {
const void *payload_of(GstMemory *memory, MemoryDomainKind kind);
}

// The payload of `memory` when it is a memory of Payload's kind (or a share of one); nullptr for
// memory of any other kind or type. Valid while the memory lives.
template <typename Payload> const Payload *payload_of(GstMemory *memory)
{
    return static_cast<const Payload *>(detail::payload_of(memory, KindOf<Payload>::value));
}

// The keep-alive of a platform-handle memory; nullptr for other memory.
std::shared_ptr<KeepAlive> keep_alive_of(GstMemory *memory);

// What a frame of a platform-handle kind looks like, for messages and g2gprobe: "D3D11Texture
// 0x1234 subresource 3, 1920x1080, DXGI format 103, device 0x5678".
std::string describe(GstMemory *memory);

} // namespace g2g::handles
