// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: the memfd-backed DMABuf the tests build, as a capture or display stack would
// hand one out, and the bare memfd for the tests that wrap it themselves (gst_fd_allocator).
#pragma once

#include <gst/gst.h>

namespace g2g::test {

// A memfd of `size` bytes (close it yourself, or hand it to an allocator that does), sealed against
// shrinking as every producer's memfd is (g2g's, GStreamer's unixfdsink's), unless `sealed` is false.
int make_memfd(gsize size, bool sealed = true);

// A DMABuf memory (GstDmaBufAllocator's) over a fresh memfd of `size` bytes, with `flags` set on
// it (GST_MEMORY_FLAG_NO_SHARE for a capture pool's memory). The memory owns the fd: ask
// gst_dmabuf_memory_get_fd() for it. Transfer full.
GstMemory *memfd_dmabuf(gsize size, GstMemoryFlags flags = static_cast<GstMemoryFlags>(0));

} // namespace g2g::test
