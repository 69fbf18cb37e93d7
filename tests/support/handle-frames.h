// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: platform-handle frames of any of the six kinds (g2g/platform-handles.h) over a
// stand-in object, with a keep-alive that counts its releases, so a test sees a leak (no release)
// or a double release (two) of the platform object.
#pragma once

#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>
#include <g2g/platform-handles.h>

#include <atomic>
#include <memory>

namespace g2g::test {

// The six kinds, in kind order.
inline constexpr MemoryDomainKind kHandleKinds[] = {
    MemoryDomainKind::WebGPUBuffer,          MemoryDomainKind::D3D11Texture, MemoryDomainKind::CvPixelBuffer,
    MemoryDomainKind::WebGPUExternalTexture, MemoryDomainKind::WgpuTexture,  MemoryDomainKind::WgpuBuffer,
};

// A platform object's stand-in: how many holders released it.
struct StandIn {
    std::atomic<int> releases{0};
};

// A keep-alive of `object` (release() counts), as a producer on the platform would make it.
std::shared_ptr<handles::KeepAlive> counting_keep_alive(StandIn &object);

// A valid memory of `kind` whose handle is `object`, `width` x `height` where the kind has a size,
// of `size` bytes.
MemoryRef handle_memory(MemoryDomainKind kind, StandIn &object,
                        std::shared_ptr<handles::KeepAlive> keep_alive, gsize size, guint width = 64,
                        guint height = 48);
// The same as a buffer of one memory.
BufferRef handle_frame(MemoryDomainKind kind, StandIn &object, gsize size, guint width = 64,
                       guint height = 48);

// The handle a memory of a handle kind carries (its texture, pixel buffer, video frame or buffer;
// a WebGPUBuffer's id as a pointer), or nullptr when the memory is none.
const void *handle_of(GstMemory *memory);

} // namespace g2g::test
