// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: memfd-backed DMABuf memory (see memfd-dmabuf.h).
#include "memfd-dmabuf.h"

#include <g2g/gst-ref.h>

#include <gst/allocators/allocators.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace g2g::test {

int make_memfd(gsize size, bool sealed)
{
    int fd = memfd_create("g2g-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
    if (sealed) {
        EXPECT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
    }
    return fd;
}

GstMemory *memfd_dmabuf(gsize size, GstMemoryFlags flags)
{
    Ref<GstAllocator> allocator = Ref<GstAllocator>::adopt(gst_dmabuf_allocator_new());
    GstMemory *memory = gst_dmabuf_allocator_alloc(allocator.get(), make_memfd(size), size);
    EXPECT_NE(memory, nullptr);
    if (memory)
        GST_MINI_OBJECT_FLAG_SET(memory, flags);
    return memory;
}

} // namespace g2g::test
