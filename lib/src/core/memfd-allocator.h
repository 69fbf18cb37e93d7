// SPDX-License-Identifier: LGPL-2.1-or-later
// System memory another process can map: sealed memfds, and the GstFdAllocator that makes its
// memory of them (memory type "fd", so every frame of it classifies as System). g2gipcsink offers
// it upstream, so that frames a producer writes are already what crosses by descriptor; g2g's
// DMA-BUF allocator takes its memfds from here where the machine has no dma-heap or udmabuf.
#pragma once

#include <gst/gst.h>

namespace g2g::detail {

// A memfd of `size` bytes named `name` (seen in /proc/<pid>/fd), its size sealed so that what a
// mapping sees stays backed whoever holds it; -1 with errno set on failure.
int sealed_memfd(gsize size, const char *name);

// The process's memfd allocator (transfer none): each memory is one sealed memfd, mapped with
// mmap; prefix and padding of the allocation params are honoured as the system allocator does.
GstAllocator *memfd_allocator();

// True for memory of memfd_allocator().
bool is_memfd_memory(GstMemory *memory);

} // namespace g2g::detail
