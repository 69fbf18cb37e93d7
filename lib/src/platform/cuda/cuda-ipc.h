// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA memory across processes (issue 33), by the driver's IPC handles (cuIpcGetMemHandle): the
// producer's GstCudaMemory is opened in the consumer's process as it is, no byte copied. A handle
// names a whole allocation made by cuMemAlloc (and cuMemAllocPitch, GStreamer's); memory of the
// driver's stream-ordered or virtual-memory pools has none, and is refused with the driver's
// error. An allocation opened once in a process cannot be opened again there until closed, so the
// consumer keeps what it opened (IpcOpened) and closes it when no memory over it lives.
#pragma once

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include <deque>
#include <memory>

#include <g2g/error.h>

#include "cuda-ipc-handle.h"

namespace g2g::cuda {

// The handle of `memory` (a GstCudaMemory), once what writes it has finished
// (compat::cuda_map_for_reading waits for its stream). Refused, saying why: memory that is not
// CUDA memory, memory the driver gives no handle for.
Result<IpcHandle> export_memory(GstMemory *memory);

class IpcOpened {
public:
    // Opens on `context` (one reference taken), the device that device memory of the producer is
    // read on (peer access where it is another GPU's).
    explicit IpcOpened(GstCudaContext *context);
    ~IpcOpened();
    IpcOpened(const IpcOpened &) = delete;
    IpcOpened &operator=(const IpcOpened &) = delete;

    // A GstCudaMemory laid out as `layout` (its size, strides and offsets) over `handle`'s
    // allocation from its offset: the allocation opened the first time its handle comes, kept for
    // the next times (the last kKept allocations). Refused: a handle the driver does not open, a
    // memory (offset and layout) past the end of the allocation that opened.
    Result<GstMemory *> memory(const IpcHandle &handle, const GstVideoInfo &layout);

private:
    struct Allocation;
    GstCudaContext *context_;
    std::deque<std::shared_ptr<Allocation>> opened_; // the most recent last
};

} // namespace g2g::cuda
