// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24's CUDA library and later (compat/cuda-compat.h): 1.24 gave GstCudaMemory a stream,
// wrapped device pointers (gst_cuda_allocator_alloc_wrapped) and gst_cuda_memory_sync; g2g uses
// them here instead of 1.22's allocator subclass (cuda-compat-1.22.cpp).
#include "compat/cuda-compat.h"

#include <gst/cuda/gstcudautils.h>

namespace g2g::compat {

namespace {

// The token under which a memory of cuda_wrap records the notify it was made with (its user_data
// is GStreamer's to keep: gst_cuda_memory_get_user_data).
gint64 wrap_token()
{
    static const gint64 token = gst_cuda_create_user_token();
    return token;
}

} // namespace

GstMemory *cuda_alloc(GstCudaContext *context, const GstVideoInfo &info)
{
    gst_cuda_memory_init_once();
    return gst_cuda_allocator_alloc(nullptr, context, nullptr, &info);
}

GstMemory *cuda_wrap(GstCudaContext *context, const GstVideoInfo &info, CUdeviceptr data, gpointer user_data,
                     GDestroyNotify notify)
{
    gst_cuda_memory_init_once();
    GstMemory *memory =
        gst_cuda_allocator_alloc_wrapped(nullptr, context, nullptr, &info, data, user_data, notify);
    if (memory)
        gst_cuda_memory_set_token_data(GST_CUDA_MEMORY_CAST(memory), wrap_token(),
                                       reinterpret_cast<gpointer>(notify), nullptr);
    return memory;
}

gpointer cuda_wrapped_user_data(GstMemory *memory, GDestroyNotify notify)
{
    if (!memory || !gst_is_cuda_memory(memory))
        return nullptr;
    auto *cuda = GST_CUDA_MEMORY_CAST(memory);
    if (gst_cuda_memory_get_token_data(cuda, wrap_token()) != reinterpret_cast<gpointer>(notify))
        return nullptr;
    return gst_cuda_memory_get_user_data(cuda);
}

bool cuda_map_for_reading(GstMemory *memory, GstMapInfo *map)
{
    if (!gst_memory_map(memory, map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA)))
        return false;
    gst_cuda_memory_sync(GST_CUDA_MEMORY_CAST(memory));
    return true;
}

} // namespace g2g::compat
