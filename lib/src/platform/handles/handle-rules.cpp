// SPDX-License-Identifier: LGPL-2.1-or-later
// The per-kind facts of the platform-handle memories (see handle-rules.h).
#include "handle-rules.h"

#include <g2g/platform-handles.h>

#include <cinttypes>
#include <cstdio>

namespace g2g::handles::detail {
namespace {

using K = MemoryDomainKind;

std::string pointer(const void *p)
{
    char text[32];
    std::snprintf(text, sizeof text, "%p", p);
    return text;
}

std::string size_of(std::uint32_t width, std::uint32_t height)
{
    return std::to_string(width) + "x" + std::to_string(height);
}

// A FourCC as its four characters where they print ('420v'), else in hex.
std::string fourcc(std::uint32_t code)
{
    std::string text;
    for (int shift = 24; shift >= 0; shift -= 8) {
        const char c = static_cast<char>((code >> shift) & 0xff);
        if (c < 0x20 || c > 0x7e) {
            char hex[16];
            std::snprintf(hex, sizeof hex, "0x%08" PRIx32, code);
            return hex;
        }
        text += c;
    }
    return "'" + text + "'";
}

std::optional<std::string> empty_size(const char *what, std::uint32_t width, std::uint32_t height)
{
    if (width && height)
        return std::nullopt;
    return std::string(what) + " of " + size_of(width, height) + " holds no frame";
}

struct Refusal {
    gsize size;
    std::optional<std::string> operator()(const G2gD3D11Texture &p) const
    {
        if (!p.texture)
            return "a D3D11Texture needs its ID3D11Texture2D: the texture is NULL";
        if (!p.device)
            return "a D3D11Texture needs the ID3D11Device its texture lives on: the device is NULL";
        return empty_size("a D3D11Texture", p.width, p.height);
    }
    std::optional<std::string> operator()(const G2gCvPixelBuffer &p) const
    {
        if (!p.pixel_buffer)
            return "a CvPixelBuffer needs its CVPixelBufferRef: the pixel buffer is NULL";
        return empty_size("a CvPixelBuffer", p.width, p.height);
    }
    std::optional<std::string> operator()(const G2gWebGPUBuffer &p) const
    {
        if (!p.buffer_id)
            return "a WebGPUBuffer needs its GPUBuffer's id: the buffer id is 0";
        if (!p.size)
            return "a WebGPUBuffer of 0 bytes holds no frame";
        return std::nullopt;
    }
    std::optional<std::string> operator()(const G2gWebGPUExternalTexture &p) const
    {
        if (!p.video_frame)
            return "a WebGPUExternalTexture needs its VideoFrame: the video frame is NULL";
        return empty_size("a WebGPUExternalTexture", p.width, p.height);
    }
    std::optional<std::string> operator()(const G2gWgpuTexture &p) const
    {
        if (!p.texture)
            return "a WgpuTexture needs its wgpu texture: the texture is NULL";
        return empty_size("a WgpuTexture", p.width, p.height);
    }
    std::optional<std::string> operator()(const G2gWgpuBuffer &p) const
    {
        if (!p.buffer)
            return "a WgpuBuffer needs its wgpu buffer: the buffer is NULL";
        if (p.valid_length > size)
            return "a WgpuBuffer's valid length (" + std::to_string(p.valid_length) +
                   " bytes) exceeds its frame's " + std::to_string(size) + " bytes";
        return std::nullopt;
    }
};

struct Description {
    std::string operator()(const G2gD3D11Texture &p) const
    {
        return "D3D11Texture " + pointer(p.texture) + " subresource " + std::to_string(p.subresource) + ", " +
               size_of(p.width, p.height) + ", DXGI format " + std::to_string(p.dxgi_format) + ", device " +
               pointer(p.device);
    }
    std::string operator()(const G2gCvPixelBuffer &p) const
    {
        return "CvPixelBuffer " + pointer(p.pixel_buffer) + ", " + size_of(p.width, p.height) +
               ", pixel format " + fourcc(p.pixel_format) +
               (p.iosurface_backed ? ", IOSurface-backed" : ", not IOSurface-backed");
    }
    std::string operator()(const G2gWebGPUBuffer &p) const
    {
        return "WebGPUBuffer id " + std::to_string(p.buffer_id) + ", " + std::to_string(p.size) + " bytes";
    }
    std::string operator()(const G2gWebGPUExternalTexture &p) const
    {
        return "WebGPUExternalTexture of VideoFrame " + pointer(p.video_frame) + ", " +
               size_of(p.width, p.height);
    }
    std::string operator()(const G2gWgpuTexture &p) const
    {
        return "WgpuTexture " + pointer(p.texture) + ", " + size_of(p.width, p.height) + ", format " +
               std::to_string(p.format);
    }
    std::string operator()(const G2gWgpuBuffer &p) const
    {
        return "WgpuBuffer " + pointer(p.buffer) + ", " + std::to_string(p.valid_length) + " valid bytes";
    }
};

} // namespace

MemoryDomainKind domain_of(const Payload &payload)
{
    return std::visit([](const auto &p) { return KindOf<std::decay_t<decltype(p)>>::value; }, payload);
}

std::optional<std::string> refusal(const Payload &payload, gsize size)
{
    return std::visit(Refusal{size}, payload);
}

std::string describe(const Payload &payload)
{
    return std::visit(Description{}, payload);
}

} // namespace g2g::handles::detail
