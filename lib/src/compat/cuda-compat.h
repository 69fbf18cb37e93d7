// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer's CUDA library as g2g uses it, the same on every version (compat.h has the map). Built
// with the cuda feature; meson picks cuda-compat-1.22.cpp or
// cuda-compat-1.24.cpp.
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>

namespace g2g::compat {

// New CUDA memory laid out by GStreamer's allocator for `info` on `context`, with no stream (the
// writer synchronizes before handing it on). 1.24 added the stream argument.
GstMemory *cuda_alloc(GstCudaContext *context, const GstVideoInfo &info);

// A GstCudaMemory over device memory g2g holds (`data`, laid out as `info`: its size, strides and
// offsets); `notify(user_data)` once it is freed. Every nvcodec element maps it as its own; mapping
// it for the CPU downloads it. 1.24 has gst_cuda_allocator_alloc_wrapped; 1.22 has no way to wrap
// a device pointer, so g2g derives GStreamer's CUDA allocator there.
GstMemory *cuda_wrap(GstCudaContext *context, const GstVideoInfo &info, CUdeviceptr data, gpointer user_data,
                     GDestroyNotify notify);

// The user_data a memory of cuda_wrap was made with, when it was made with `notify`; nullptr for
// any other memory.
gpointer cuda_wrapped_user_data(GstMemory *memory, GDestroyNotify notify);

// Maps `memory` (a GstCudaMemory) for its device pointer to read on any stream: on 1.24 and later
// a producer may still be writing it on its own CUDA stream (nvh264dec's copy out of the decoder,
// flagged GST_CUDA_MEMORY_TRANSFER_NEED_SYNC), so this waits for that stream (gst_cuda_memory_sync)
// first; 1.22's CUDA memory has no stream and its writers finish before handing it on.
bool cuda_map_for_reading(GstMemory *memory, GstMapInfo *map);

} // namespace g2g::compat
