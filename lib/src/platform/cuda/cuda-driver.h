// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA driver as g2g's platform code speaks to it, beyond GStreamer 1.22's CUDA loader
// (gstcudaloader.h): failures named by the driver's own error names, devices described for
// messages, and entry points that loader does not load taken from the library it loaded
// (libcuda.so.1). Used by cuda/, cuda-vulkan/ and cuda-dmabuf/; built with the cuda feature.
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include <string>

#include <g2g/error.h>

namespace g2g::cuda {

// "<what> failed: CUDA_ERROR_..." (MapFailed).
Error failure(const char *what, CUresult result);

// "CUDA device 0 'NVIDIA H200'": the device `context` works on, or device `id`.
std::string describe(GstCudaContext *context);
std::string describe_device(gint id);

// The device id `context` was made for (its cuda-device-id).
gint device_id_of(GstCudaContext *context);

// A driver entry point of libcuda.so.1 (already loaded by GStreamer's loader: this only finds
// it), or nullptr when that driver lacks it or CUDA does not load here.
void *driver_symbol(const char *name);

// The same, typed: false when missing.
template <typename Function> bool load_driver_symbol(const char *name, Function &function)
{
    function = reinterpret_cast<Function>(driver_symbol(name));
    return function != nullptr;
}

} // namespace g2g::cuda
