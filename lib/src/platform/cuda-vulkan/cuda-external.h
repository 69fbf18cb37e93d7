// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA driver calls the bridge needs that GStreamer 1.22's CUDA loader (gstcudaloader.h) does
// not load: external memory (import of a Vulkan allocation's fd, its mapping as device memory) and
// device UUIDs. Taken from the driver library GStreamer already loaded (libcuda.so.1).
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>

#include <array>
#include <cstdint>
#include <string>

#include <g2g/error.h>

#include "platform/cuda/cuda-driver.h"

namespace g2g::cuda_vulkan {

using Uuid = std::array<std::uint8_t, 16>;

struct CudaExternal {
    CUresult (*import_memory)(CUexternalMemory *, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *) = nullptr;
    CUresult (*mapped_buffer)(CUdeviceptr *, CUexternalMemory,
                              const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *) = nullptr;
    CUresult (*destroy_memory)(CUexternalMemory) = nullptr;
    CUresult (*device_uuid)(CUuuid *, CUdevice) = nullptr;
};

// The calls, once loaded; an error naming the one the driver lacks (a driver older than CUDA 11.4)
// or that CUDA does not load here.
Result<const CudaExternal *> cuda_external();

// The UUID of the GPU `context` works on.
Result<Uuid> uuid_of(GstCudaContext *context);
// Its name for messages ("CUDA device 0 'NVIDIA H200'").
using cuda::describe;

// "a25e9467-420c-c8e9-5f27-333f13f7c107", as nvidia-smi -L writes it.
std::string uuid_text(const Uuid &uuid);

// A CUDA result as an Error: "<what> failed: CUDA_ERROR_...".
inline Error cuda_failure(const char *what, CUresult result)
{
    return cuda::failure(what, result);
}

} // namespace g2g::cuda_vulkan
