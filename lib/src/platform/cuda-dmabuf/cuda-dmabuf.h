// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA frames as DMA-BUFs, with no copy: a GstCudaMemory's device memory exported by the CUDA
// driver as one DMA-BUF fd (cuMemGetHandleForAddressRange, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)
// and wrapped as g2g's DMA-BUF memory: linear, its planes where the CUDA memory has them (its
// pitch), and not mappable: the fd is the GPU's memory, which no CPU mapping reaches (NVIDIA's
// exporter refuses mmap), for importers that take device memory (a NIC, another driver).
//
// Each CUDA memory is exported once: its fd is kept on the memory and closed when the memory is
// freed, so a decoder's pool memory, which comes back frame after frame, is not exported again,
// and every fd is closed exactly once. A DMA-BUF frame holds its CUDA frame alive, so the pool
// cannot reuse the memory while anyone holds the DMA-BUF.
//
// lib/src/platform/cuda-dmabuf/ holds:
//   cuda-dmabuf     export_frame (this header): the frame's checks, its DMA-BUF memory and planes
//   memory-export   one CUDA memory's fd: the device's support, the driver call, the fd kept
// Built with both the cuda and the dmabuf feature; none/no-cuda-dmabuf.cpp otherwise.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <string>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

namespace g2g::cuda_dmabuf {

// What of a CUDA memory is exported. The driver exports only ranges whose start and size are
// multiples of the host's page size, so the memory's bytes [data, data + size) are widened to the
// pages around them: the fd holds `size` bytes from `begin`, the memory's first byte at `offset`.
// A memory that does not start or end on a page boundary (a small one the driver placed within a
// page of others) lends the fd the bytes around it on its first and last page; none leave the
// process unless the fd does.
struct ExportRange {
    std::uint64_t begin = 0;
    std::uint64_t size = 0;
    std::uint64_t offset = 0;

    bool operator==(const ExportRange &) const = default;
};

constexpr ExportRange export_range(std::uint64_t data, std::uint64_t size, std::uint64_t page)
{
    const std::uint64_t begin = data / page * page;
    const std::uint64_t end = (data + size + page - 1) / page * page;
    return {begin, end - begin, data - begin};
}

// The formats a CUDA frame is exported in: those GStreamer 1.22's GstCudaMemory lays out that
// DRM has a fourcc for, as a caps list ("{ NV12, I420, ... }"); empty in a build without this.
std::string formats();

struct Export {
    BufferRef frame;       // the DMA-BUF frame
    bool exported = false; // its CUDA memory was exported now (its first frame), not before
};

// `frame` (one GstCudaMemory) as a DMA-BUF frame over the same device memory: one g2g DMA-BUF
// memory over the whole exported range, not mappable, its DRM format (the frame's format's
// fourcc, linear) recorded, and a GstVideoMeta with the CUDA memory's planes (their offsets
// moved by the range's `offset`, its strides the pitch). The frame carries no other metadata (the
// caller's). Refused, saying why: not one CUDA memory, a format DRM has no fourcc for, a device
// whose driver exports no DMA-BUFs (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 0), memory the driver
// will not export (not of cuMemAlloc: memory imported from Vulkan), a driver without the call.
Result<Export> export_frame(GstBuffer *frame);

// The CUDA frame a DMA-BUF frame of export_frame is over (transfer none); nullptr for any other.
GstBuffer *cuda_frame_of(GstBuffer *dmabuf_frame);

// Whether CUDA device `id` exports its memory as DMA-BUFs here (its driver has the call and the
// device says CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED): export_frame's refusal of its frames if not.
Result<void> check_device(gint id);

} // namespace g2g::cuda_dmabuf
