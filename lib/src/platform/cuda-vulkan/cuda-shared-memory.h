// SPDX-License-Identifier: LGPL-2.1-or-later
// A GstCudaMemory over device memory g2g holds (a Vulkan allocation imported into CUDA), which
// GStreamer 1.22 cannot make: its allocator allocates every CUDA memory itself (wrapping a device
// pointer came in 1.24). The memory's allocator derives GStreamer's CUDA allocator, so
// gst_is_cuda_memory() says yes and every nvcodec element maps it (GST_MAP_CUDA: the device
// pointer) as its own; mapping it for the CPU downloads it, as GStreamer's does.
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>

namespace g2g::cuda_vulkan {

// The memory over `data` (device memory of `context`, laid out as `info`: its size, strides and
// offsets); `notify(user_data)` once it is freed (the holder of `data` may then reuse it).
GstMemory *wrap_cuda_memory(GstCudaContext *context, const GstVideoInfo &info, CUdeviceptr data,
                            gpointer user_data, GDestroyNotify notify);

// The user_data a memory of wrap_cuda_memory was made with, when it was made with `notify`;
// nullptr for any other memory.
gpointer wrapped_cuda_user_data(GstMemory *memory, GDestroyNotify notify);

} // namespace g2g::cuda_vulkan
