// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA frames across processes (issue 33), by the driver's IPC handles: the producer's
// GstCudaMemory crosses as its allocation's handle, once what writes it has finished, and the
// consumer opens it on its own CUDA context (peer access where that is another GPU) and reads the
// producer's memory in place: no byte copied on either side. The handle travels in a G2gCudaIpc
// record (ipc-cuda-record.h) with the memory's layout as a GstVideoMeta record. ipc-cuda.cpp with
// the cuda feature, no-ipc-cuda.cpp without.
#pragma once

#include <gst/video/video.h>

#include <cstdint>
#include <memory>
#include <optional>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>

#include "ipc-frame.h"

namespace g2g::ipc {

// Whether this build carries CUDA frames (the elements' templates name CUDAMemory caps).
bool cuda_built();

// The message of a CUDA frame (kind CudaIpc, no descriptor, the G2gCudaIpc and GstVideoMeta
// records; for a view, the GstVideoMeta record lays out the frame it reads and its view record
// follows), id `id`; nullopt for a frame whose memory is not CUDA memory. Refused: memory the
// driver gives no handle for (cuda::export_memory's reason).
std::optional<Result<OutgoingFrame>> describe_cuda_frame(GstBuffer *frame, std::uint64_t id);

// Views of CUDA frames written dense once, by the library's kernel, into frames of a CUDA pool on
// the context of the memory they read (for consumers of dense CUDA frames, and of DMA-BUFs).
class CudaDense {
public:
    CudaDense();
    ~CudaDense();
    Result<BufferRef> materialize(GstBuffer *frame, const FrameView &view);
    void stop(); // lets go of the pool

private:
    struct Pool;
    std::unique_ptr<Pool> pool_;
};

class CudaImports {
public:
    CudaImports();
    ~CudaImports();
    // The CUDA frame `message` describes, its memory opened on `context` (a GstCudaContext): each
    // allocation once, kept for the next frames over it. In view caps (`view_caps`) the memory is
    // the frame the view reads, of the size its layout record says, and the view is made again
    // over it (ipc-view). Refused before anything is read: a missing or unreadable record, a layout
    // of another format than `info`'s or past the memory, a view where the caps say none (and the
    // reverse) or that read_view refuses, what cuda::IpcOpened refuses; after: what view_over refuses.
    Result<BufferRef> build(gpointer context, const NewBuffer &message, const GstVideoInfo &info,
                            bool view_caps);
    void clear();

private:
    struct Opened;
    std::unique_ptr<Opened> opened_;
};

} // namespace g2g::ipc
