// SPDX-License-Identifier: LGPL-2.1-or-later
// GPU handles of platforms g2g-core never links (D3D11, CoreVideo, WebGPU, wgpu), carried as
// GstMemory of their own kind and kept alive by whatever the producing element provides.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <memory>

#include <g2g/error.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

namespace g2g {

// Owns the platform object behind a handle (a retained CVPixelBufferRef, an AddRef'd
// ID3D11Texture2D, a wgpu::Texture). The producer derives from it; a consumer that links the
// platform recovers its type with dynamic_cast (the seed's WgpuKeepAlive::as_any).
class KeepAlive {
public:
    virtual ~KeepAlive() = default;
};

struct OpaqueHandle {
    void *handle = nullptr;         // ID3D11Texture2D*, CVPixelBufferRef, GPUBuffer, wgpu::Texture*, ...
    std::uint32_t subresource = 0;  // D3D11Texture: the texture-array slice
    std::uint64_t valid_length = 0; // WgpuBuffer: bytes of valid data in the buffer
};

// True for the six kinds carried this way: D3D11Texture, CvPixelBuffer, WebGPUBuffer,
// WebGPUExternalTexture, WgpuTexture, WgpuBuffer.
bool is_opaque_kind(MemoryDomainKind kind);

// A GstMemory of `kind` carrying `handle`; `size` is the frame's byte size as caps describe it.
// The memory cannot be mapped (the host cannot read it); sharing it is a refcount bump; the
// keep-alive is released when the last memory sharing it dies. Fails for non-opaque kinds
// and for a null handle or keep-alive.
Result<MemoryRef> wrap_opaque_handle(MemoryDomainKind kind, const OpaqueHandle &handle,
                                     std::shared_ptr<KeepAlive> keep_alive, gsize size);

// The handle carried by memory made by wrap_opaque_handle (or a share of it), else nullptr.
const OpaqueHandle *opaque_handle(GstMemory *memory);
// Its keep-alive, else nullptr.
std::shared_ptr<KeepAlive> opaque_keep_alive(GstMemory *memory);

} // namespace g2g
