// SPDX-License-Identifier: LGPL-2.1-or-later
// Platform-handle frames for tests (see handle-frames.h).
#include "handle-frames.h"

#include <cstdint>

namespace g2g::test {

std::shared_ptr<handles::KeepAlive> counting_keep_alive(StandIn &object)
{
    return handles::keep_alive(&object, [](void *data) { ++static_cast<StandIn *>(data)->releases; });
}

MemoryRef handle_memory(MemoryDomainKind kind, StandIn &object,
                        std::shared_ptr<handles::KeepAlive> keep_alive, gsize size, guint width, guint height)
{
    using K = MemoryDomainKind;
    void *handle = &object;
    Result<MemoryRef> memory = Error(ErrorCode::InvalidArgument, "not a handle kind");
    switch (kind) {
    case K::D3D11Texture:
        memory = handles::wrap(G2gD3D11Texture{handle, 2, width, height, 103, handle}, keep_alive, size);
        break;
    case K::CvPixelBuffer:
        memory = handles::wrap(G2gCvPixelBuffer{handle, width, height, 0x34323076, 1}, keep_alive, size);
        break;
    case K::WebGPUBuffer:
        memory =
            handles::wrap(G2gWebGPUBuffer{reinterpret_cast<std::uintptr_t>(handle), size}, keep_alive, size);
        break;
    case K::WebGPUExternalTexture:
        memory = handles::wrap(G2gWebGPUExternalTexture{handle, width, height}, keep_alive, size);
        break;
    case K::WgpuTexture:
        memory = handles::wrap(G2gWgpuTexture{handle, width, height, 18}, keep_alive, size);
        break;
    case K::WgpuBuffer:
        memory = handles::wrap(G2gWgpuBuffer{handle, size}, keep_alive, size);
        break;
    default:
        break;
    }
    return memory ? std::move(*memory) : MemoryRef();
}

BufferRef handle_frame(MemoryDomainKind kind, StandIn &object, gsize size, guint width, guint height)
{
    MemoryRef memory = handle_memory(kind, object, counting_keep_alive(object), size, width, height);
    if (!memory)
        return {};
    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(frame.get(), memory.release());
    return frame;
}

const void *handle_of(GstMemory *memory)
{
    if (const auto *p = handles::payload_of<G2gD3D11Texture>(memory))
        return p->texture;
    if (const auto *p = handles::payload_of<G2gCvPixelBuffer>(memory))
        return p->pixel_buffer;
    if (const auto *p = handles::payload_of<G2gWebGPUBuffer>(memory))
        return reinterpret_cast<const void *>(static_cast<std::uintptr_t>(p->buffer_id));
    if (const auto *p = handles::payload_of<G2gWebGPUExternalTexture>(memory))
        return p->video_frame;
    if (const auto *p = handles::payload_of<G2gWgpuTexture>(memory))
        return p->texture;
    if (const auto *p = handles::payload_of<G2gWgpuBuffer>(memory))
        return p->buffer;
    return nullptr;
}

} // namespace g2g::test
