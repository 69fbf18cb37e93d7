// SPDX-License-Identifier: LGPL-2.1-or-later
// g2g's DMA-BUF memory, inside the library: the DRM format recorded on each memory, memory over
// an fd, CPU access brackets. The public side is g2g/dmabuf.h.
//
// lib/src/platform/dmabuf/ holds the DmaBuf domain:
//   drm-format        fourccs of GStreamer's video formats, drm-format strings, known modifiers
//   dmabuf-allocator  G2gDmaBufAllocator (a GstDmaBufAllocator) and where its fds come from
//                     (dma-heap, udmabuf, memfd)
//   dmabuf-pool       the buffer pool on it: one fd per frame, GstVideoMeta, DRM format recorded
//   dmabuf-frame      layouts, frames over an application's fds, system frames exported
//   dmabuf-region     which region of a frame to export its caps describe (video and crop metas)
//   dmabuf-copy       that region copied plane by plane into a DMA-BUF, in every DRM format
//   dmabuf-sync       DMA_BUF_IOCTL_SYNC around CPU reads and writes
//   dma-drm-caps      GStreamer 1.24's DMA_DRM caps next to 1.22's form
//   dmabuf-share      make_shareable's second memory over a dup of the fd
#pragma once

#include <gst/gst.h>

#include <optional>

#include <g2g/dmabuf.h>

namespace g2g::dmabuf::detail {

// Records `format` on DMA-BUF memory `memory` (copied to the memories share_fd makes).
void record_format(GstMemory *memory, DrmFormat format);
// What record_format recorded; nullopt for memory g2g did not make or wrap.
std::optional<DrmFormat> recorded_format(GstMemory *memory);

// A memory of g2g's allocator over `fd` of `size` bytes, with `format` recorded. The memory
// closes the fd when freed unless `close_fd` is false (the fd is then owned by whatever the caller
// keeps alive with the memory). Not mappable (GST_MEMORY_FLAG_NOT_MAPPABLE) unless `mappable`.
GstMemory *wrap_fd(int fd, gsize size, DrmFormat format, bool mappable, bool close_fd = true);

// Brackets a CPU's access to a DMA-BUF's bytes with DMA_BUF_IOCTL_SYNC (START before, END after),
// as the kernel asks of every CPU access to a device's buffer; a no-op for memory that is not
// DMA-BUF and for fds without the ioctl (memfd). Reads and writes as `flags` says.
void begin_cpu_access(GstMemory *memory, GstMapFlags flags);
void end_cpu_access(GstMemory *memory, GstMapFlags flags);

// The byte size of the object behind `fd` (lseek to its end, as for any dma-buf); -1 when the fd
// is not open or has no size.
gssize fd_size(int fd);

} // namespace g2g::dmabuf::detail
