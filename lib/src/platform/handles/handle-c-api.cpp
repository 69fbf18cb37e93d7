// SPDX-License-Identifier: LGPL-2.1-or-later
// The C API of the platform-handle memories (g2g/g2g.h) over g2g/platform-handles.h.
#include <g2g/g2g.h>
#include <g2g/platform-handles.h>

#include "core/c-api-error.h"
#include "handle-rules.h"
#include "release-function.h"

namespace {

using g2g::detail::set_error;

// A memory of `payload` kept alive by `release(user_data)`; on refusal `release` is not called.
template <typename Payload>
GstMemory *memory_new(const Payload *payload, gsize size, G2gHandleRelease release, gpointer user_data,
                      GError **error)
{
    const std::string kind(g2g::name(g2g::handles::KindOf<Payload>::value));
    if (!payload) {
        set_error(error, g2g::Error(g2g::ErrorCode::InvalidArgument,
                                    "a " + kind + " frame needs its payload: it is NULL"));
        return nullptr;
    }
    if (!release) {
        set_error(error, g2g::Error(g2g::ErrorCode::InvalidArgument,
                                    "a " + kind +
                                        " frame needs a release function for its platform object: "
                                        "it is NULL"));
        return nullptr;
    }
    // Checked before the keep-alive exists: a refused payload must not be released.
    if (std::optional<std::string> refused = g2g::handles::detail::refusal(*payload, size)) {
        set_error(error, g2g::Error(g2g::ErrorCode::InvalidArgument, *refused));
        return nullptr;
    }
    g2g::Result<g2g::MemoryRef> memory =
        g2g::handles::wrap(*payload, g2g::handles::keep_alive(user_data, release), size);
    return memory->release();
}

template <typename Payload> gboolean get(GstMemory *memory, Payload *payload)
{
    const Payload *found = g2g::handles::payload_of<Payload>(memory);
    if (!found || !payload)
        return FALSE;
    *payload = *found;
    return TRUE;
}

} // namespace

GstMemory *g2g_d3d11_texture_memory_new(const G2gD3D11Texture *payload, gsize size, G2gHandleRelease release,
                                        gpointer user_data, GError **error)
{
    return memory_new(payload, size, release, user_data, error);
}

GstMemory *g2g_cv_pixel_buffer_memory_new(const G2gCvPixelBuffer *payload, gsize size,
                                          G2gHandleRelease release, gpointer user_data, GError **error)
{
    return memory_new(payload, size, release, user_data, error);
}

GstMemory *g2g_web_gpu_buffer_memory_new(const G2gWebGPUBuffer *payload, gsize size, G2gHandleRelease release,
                                         gpointer user_data, GError **error)
{
    return memory_new(payload, size, release, user_data, error);
}

GstMemory *g2g_web_gpu_external_texture_memory_new(const G2gWebGPUExternalTexture *payload, gsize size,
                                                   G2gHandleRelease release, gpointer user_data,
                                                   GError **error)
{
    return memory_new(payload, size, release, user_data, error);
}

GstMemory *g2g_wgpu_texture_memory_new(const G2gWgpuTexture *payload, gsize size, G2gHandleRelease release,
                                       gpointer user_data, GError **error)
{
    return memory_new(payload, size, release, user_data, error);
}

GstMemory *g2g_wgpu_buffer_memory_new(const G2gWgpuBuffer *payload, gsize size, G2gHandleRelease release,
                                      gpointer user_data, GError **error)
{
    return memory_new(payload, size, release, user_data, error);
}

gboolean g2g_memory_get_d3d11_texture(GstMemory *memory, G2gD3D11Texture *payload)
{
    return get(memory, payload);
}

gboolean g2g_memory_get_cv_pixel_buffer(GstMemory *memory, G2gCvPixelBuffer *payload)
{
    return get(memory, payload);
}

gboolean g2g_memory_get_web_gpu_buffer(GstMemory *memory, G2gWebGPUBuffer *payload)
{
    return get(memory, payload);
}

gboolean g2g_memory_get_web_gpu_external_texture(GstMemory *memory, G2gWebGPUExternalTexture *payload)
{
    return get(memory, payload);
}

gboolean g2g_memory_get_wgpu_texture(GstMemory *memory, G2gWgpuTexture *payload)
{
    return get(memory, payload);
}

gboolean g2g_memory_get_wgpu_buffer(GstMemory *memory, G2gWgpuBuffer *payload)
{
    return get(memory, payload);
}

gpointer g2g_memory_get_handle_user_data(GstMemory *memory)
{
    const std::shared_ptr<g2g::handles::KeepAlive> keep = g2g::handles::keep_alive_of(memory);
    const auto *release = keep ? keep->as<g2g::handles::detail::ReleaseFunction>() : nullptr;
    return release ? release->user_data() : nullptr;
}
