// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memfd-allocator.h"

#include <gst/allocators/allocators.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log-private.h"

struct G2gMemfdAllocator {
    GstFdAllocator parent;
};
struct G2gMemfdAllocatorClass {
    GstFdAllocatorClass parent_class;
};

G_DEFINE_TYPE(G2gMemfdAllocator, g2g_memfd_allocator, GST_TYPE_FD_ALLOCATOR)

namespace g2g::detail {

int sealed_memfd(gsize size, const char *name)
{
    const int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, static_cast<off_t>(size)) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
        const int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

namespace {

GstMemory *allocate(GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
    const gsize prefix = params ? params->prefix : 0;
    const gsize maxsize = prefix + size + (params ? params->padding : 0);
    const int fd = sealed_memfd(maxsize, "g2g-memfd");
    if (fd < 0) {
        GST_CAT_ERROR(G2G_CAT, "g2g's memfd allocator could not make %" G_GSIZE_FORMAT " bytes: %s", maxsize,
                      std::strerror(errno));
        return nullptr;
    }
    // Kept mapped from its first mapping to its end: a pool's frame is written again and again, and an
    // mmap and a fault per page of every frame (12 MB at 4K) cost more than the frame's writing.
    GstMemory *memory = gst_fd_allocator_alloc(allocator, fd, maxsize, GST_FD_MEMORY_FLAG_KEEP_MAPPED);
    if (memory && prefix)
        gst_memory_resize(memory, static_cast<gssize>(prefix), size);
    return memory;
}

} // namespace

GstAllocator *memfd_allocator()
{
    static GstAllocator *made = [] {
        auto *allocator = static_cast<GstAllocator *>(g_object_new(g2g_memfd_allocator_get_type(), nullptr));
        gst_object_ref_sink(allocator);
        GST_OBJECT_FLAG_SET(allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED); // process-wide, like sysmem's
        return allocator;
    }();
    return made;
}

bool is_memfd_memory(GstMemory *memory)
{
    return memory && memory->allocator &&
           G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, g2g_memfd_allocator_get_type());
}

} // namespace g2g::detail

static void g2g_memfd_allocator_class_init(G2gMemfdAllocatorClass *klass)
{
    GST_ALLOCATOR_CLASS(klass)->alloc = g2g::detail::allocate;
}

static void g2g_memfd_allocator_init(G2gMemfdAllocator *)
{
}
