// SPDX-License-Identifier: LGPL-2.1-or-later
// Frame views of CUDA device memory (GStreamer's GstCudaMemory, as nvh264dec and cudaupload
// make it): materialized by a CUDA kernel into device memory, never through the host.
#pragma once

#include <gst/gst.h>

#include <cstdint>

#include <g2g/error.h>
#include <g2g/frame-view.h>

namespace g2g::cuda {

// True when this build has the cuda feature and the CUDA driver library loads here: the CUDA
// paths can run. False on a machine without an NVIDIA driver (the plugin still loads).
bool available();

// True when every memory of `buffer` is GstCudaMemory.
bool is_device_frame(GstBuffer *buffer);

// Writes `view` of `source` (one GstCudaMemory) densely into `destination` (one GstCudaMemory
// of the view's format and size, laid out as its own video info says), with a kernel on the
// destination's CUDA context, on the default stream. Returns when the frame is written, or with
// `wait` false as soon as the kernels are queued (GStreamer 1.22's CUDA memory carries no
// stream: only a caller that synchronizes itself, such as a benchmark, may say false). Both
// frames must be on the same GPU: a frame of another device is refused with an error naming
// both devices.
Result<void> materialize_into(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                              bool wait = true);

// The same into device memory that is not a GstCudaMemory (one allocation per plane, as memory
// imported from Vulkan is): plane p of the dense frame goes to `planes[p]` (a CUdeviceptr) with
// rows `strides[p]` bytes apart, written on `context` (a GstCudaContext of the source's device).
Result<void> materialize_into_planes(const FrameView &view, GstBuffer *source, gpointer context,
                                     const std::uint64_t planes[], const gint strides[], bool wait = true);

} // namespace g2g::cuda
