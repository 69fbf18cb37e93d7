/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a frame of each platform-handle domain carries: the seed's payload of D3D11Texture,
 * CvPixelBuffer, WebGPUBuffer, WebGPUExternalTexture, WgpuTexture and WgpuBuffer, as plain C.
 *
 * This header includes neither GStreamer nor any platform SDK, so a platform's adapter
 * (g2g/d3d11-texture.h) builds where GStreamer's headers are not (a mingw-w64 cross build), and
 * g2g-core builds without the platform's. The handles are the platform's own pointers or ids,
 * uninterpreted by g2g; they are kept alive by the keep-alive their memory holds
 * (g2g/platform-handles.h, g2g_*_memory_new in g2g/g2g.h). Compiles as C11 and C++. */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Releases the platform object behind a handle, once, after the last share of its memory: COM's
 * IUnknown::Release for D3D11, CFRelease for a CVPixelBuffer, the application's own otherwise. */
typedef void (*G2gHandleRelease)(void *user_data);

/* D3D11Texture: one subresource of an ID3D11Texture2D (a texture-array slice of a decoder's
 * pool), on its ID3D11Device. */
typedef struct {
    void *texture;        /* ID3D11Texture2D* */
    uint32_t subresource; /* the array slice (D3D11CalcSubresource(0, slice, mip_levels)) */
    uint32_t width;       /* the frame's size, which may be smaller than the texture's */
    uint32_t height;
    uint32_t dxgi_format; /* DXGI_FORMAT (DXGI_FORMAT_NV12 = 103, DXGI_FORMAT_R8G8B8A8_UNORM = 28) */
    void *device;         /* ID3D11Device* the texture lives on */
} G2gD3D11Texture;

/* CvPixelBuffer: a CoreVideo CVPixelBufferRef (macOS, iOS). */
typedef struct {
    void *pixel_buffer; /* CVPixelBufferRef */
    uint32_t width;
    uint32_t height;
    uint32_t pixel_format; /* OSType FourCC: '420v' (0x34323076) for NV12 video range, 'BGRA' */
    int iosurface_backed;  /* non-zero when backed by an IOSurface (Metal and VideoToolbox share it) */
} G2gCvPixelBuffer;

/* WebGPUBuffer: a browser GPUBuffer, as the id the wasm side knows it by (wasm-bindgen's heap
 * index, an application's table). */
typedef struct {
    uint64_t buffer_id; /* never 0 */
    uint64_t size;      /* the GPUBuffer's size in bytes */
} G2gWebGPUBuffer;

/* WebGPUExternalTexture: a browser VideoFrame, to be imported as a GPUExternalTexture. */
typedef struct {
    void *video_frame; /* the VideoFrame's handle (a JS object reference) */
    uint32_t width;    /* its displayWidth and displayHeight */
    uint32_t height;
} G2gWebGPUExternalTexture;

/* WgpuTexture: a native wgpu texture (Vulkan, Metal, D3D12 underneath). */
typedef struct {
    void *texture; /* wgpu::Texture* (or WGPUTexture of wgpu-native) */
    uint32_t width;
    uint32_t height;
    uint32_t format; /* WGPUTextureFormat's value, as the producer's webgpu.h numbers it */
} G2gWgpuTexture;

/* WgpuBuffer: a native wgpu storage buffer holding a tensor or other linear data. */
typedef struct {
    void *buffer;          /* wgpu::Buffer* (or WGPUBuffer) */
    uint64_t valid_length; /* the bytes of valid data from its start */
} G2gWgpuBuffer;

#ifdef __cplusplus
}
#endif
