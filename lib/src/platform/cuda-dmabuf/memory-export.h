// SPDX-License-Identifier: LGPL-2.1-or-later
// One CUDA memory's DMA-BUF fd: whether its device exports any, the driver's export of its
// range, and the fd kept on the memory (qdata) until the memory is freed.
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>

#include <g2g/error.h>

#include "cuda-dmabuf.h"

namespace g2g::cuda_dmabuf {

struct MemoryExport {
    int fd = -1; // closed when the CUDA memory is freed (its qdata's destroy), by nobody else
    ExportRange range;
};

// The export of `memory` (a GstCudaMemory whose device pointer is `data`): kept from its first
// frame, else made now (`made` says which). Its fd lives as long as the memory.
Result<const MemoryExport *> export_memory(GstCudaMemory *memory, CUdeviceptr data, bool &made);

} // namespace g2g::cuda_dmabuf
