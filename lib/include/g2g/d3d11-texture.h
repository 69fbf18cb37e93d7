// SPDX-License-Identifier: LGPL-2.1-or-later
// The D3D11 adapter: an ID3D11Texture2D subresource as the payload and keep-alive of a g2g
// D3D11Texture frame. Header-only and Windows-only: it includes <d3d11.h> and g2g's plain-C
// payloads (g2g/handle-payloads.h), not GStreamer, so g2g-core links no D3D11 and this header
// builds wherever d3d11.h does (MSVC, or mingw-w64: g2g's tests cross-compile it on Debian).
//
//   g2g::d3d11::Frame frame;
//   if (g2g::d3d11::frame_of(texture, subresource, frame)) {           // AddRefs the texture
//       GError *error = nullptr;
//       GstMemory *memory = g2g_d3d11_texture_memory_new(&frame.payload, frame_size,
//                                                        frame.release, frame.user_data, &error);
//       if (!memory)
//           frame.release(frame.user_data);                             // refused: not taken
//   }
//
// The memory then holds the texture until its last share is gone and Releases it once (COM's
// IUnknown::Release, passed as a function). A consumer gets it back with
// g2g_memory_get_d3d11_texture (or handles::payload_of<G2gD3D11Texture> in C++), never by a cast
// of the memory.
#pragma once

#include <d3d11.h>

#include <g2g/handle-payloads.h>

namespace g2g::d3d11 {

// What g2g_d3d11_texture_memory_new (or handles::wrap with handles::keep_alive) takes.
struct Frame {
    G2gD3D11Texture payload{};
    G2gHandleRelease release = nullptr; // Releases the texture frame_of AddRef'd
    void *user_data = nullptr;          // the texture
};

// The keep-alive's release: the texture's own IUnknown::Release.
inline void release_texture(void *texture)
{
    static_cast<ID3D11Texture2D *>(texture)->Release();
}

// The payload of `subresource` of `texture`: its size at that mip level, its DXGI format and its
// device (GetDesc, GetDevice), with the texture AddRef'd for the frame. False, nothing AddRef'd,
// for a null texture or a subresource past the texture's mip levels x array size.
inline bool frame_of(ID3D11Texture2D *texture, UINT subresource, Frame &frame)
{
    if (!texture)
        return false;
    D3D11_TEXTURE2D_DESC desc{};
    texture->GetDesc(&desc);
    const UINT mip_levels = desc.MipLevels ? desc.MipLevels : 1;
    if (subresource >= mip_levels * desc.ArraySize)
        return false;
    const UINT mip = subresource % mip_levels;
    ID3D11Device *device = nullptr;
    texture->GetDevice(&device); // AddRefs the device: the texture holds it for as long as it lives
    frame.payload.texture = texture;
    frame.payload.subresource = subresource;
    frame.payload.width = desc.Width >> mip ? desc.Width >> mip : 1;
    frame.payload.height = desc.Height >> mip ? desc.Height >> mip : 1;
    frame.payload.dxgi_format = static_cast<uint32_t>(desc.Format);
    frame.payload.device = device;
    if (device)
        device->Release();
    texture->AddRef();
    frame.release = release_texture;
    frame.user_data = texture;
    return true;
}

} // namespace g2g::d3d11
