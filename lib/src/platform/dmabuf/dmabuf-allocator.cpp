// SPDX-License-Identifier: LGPL-2.1-or-later
// G2gDmaBufAllocator: GStreamer's DMA-BUF allocator (its memory is "dmabuf" memory, which every
// GStreamer element knows) that also allocates, from the best source this machine has, and
// brackets every CPU mapping of its memory with DMA_BUF_IOCTL_SYNC.
#include <gst/allocators/allocators.h>

#include <fcntl.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log-private.h"
#include "core/memfd-allocator.h"
#include "dmabuf-allocator.h"
#include "dmabuf-memory.h"

struct _G2gDmaBufAllocator {
    GstDmaBufAllocator parent;
};

G_DEFINE_TYPE(G2gDmaBufAllocator, g2g_dmabuf_allocator, GST_TYPE_DMABUF_ALLOCATOR)

namespace g2g::dmabuf {
namespace {

constexpr const char *kDmaHeapPath = "/dev/dma_heap/system";
constexpr const char *kUdmabufPath = "/dev/udmabuf";

// The device a backend allocates through, opened once for the process (-1 for memfd).
struct Source {
    Backend backend = Backend::Memfd;
    int device = -1;
};

const Source &source()
{
    static const Source detected = [] {
        Source found;
        for (auto [backend, path] :
             {std::pair{Backend::DmaHeap, kDmaHeapPath}, std::pair{Backend::Udmabuf, kUdmabufPath}}) {
            const int device = open(path, O_RDWR | O_CLOEXEC);
            if (device >= 0) {
                found = {backend, device};
                break;
            }
            GST_CAT_DEBUG(G2G_CAT, "no %s: %s", path, std::strerror(errno));
        }
        GST_CAT_INFO(G2G_CAT, "g2g's DMA-BUF allocator takes its buffers from %s",
                     found.backend == Backend::DmaHeap   ? "the dma-heap /dev/dma_heap/system"
                     : found.backend == Backend::Udmabuf ? "udmabuf (/dev/udmabuf over memfds)"
                                                         : "sealed memfds (no dma-heap or udmabuf here)");
        return found;
    }();
    return detected;
}

// udmabuf turns pages of a memfd into a DMA-BUF; it wants whole pages and a memfd that cannot shrink.
int udmabuf_fd(int device, gsize size)
{
    const gsize page = static_cast<gsize>(sysconf(_SC_PAGESIZE));
    const gsize rounded = (size + page - 1) / page * page;
    const int memfd = g2g::detail::sealed_memfd(rounded, "g2g-udmabuf");
    if (memfd < 0)
        return -1;
    udmabuf_create create{};
    create.memfd = static_cast<__u32>(memfd);
    create.flags = UDMABUF_FLAGS_CLOEXEC;
    create.offset = 0;
    create.size = rounded;
    const int fd = ioctl(device, UDMABUF_CREATE, &create);
    close(memfd); // the DMA-BUF holds the pages
    return fd;
}

int dma_heap_fd(int device, gsize size)
{
    dma_heap_allocation_data data{};
    data.len = size;
    data.fd_flags = O_RDWR | O_CLOEXEC;
    if (ioctl(device, DMA_HEAP_IOCTL_ALLOC, &data) != 0)
        return -1;
    return static_cast<int>(data.fd);
}

int allocate_fd(gsize size)
{
    const Source &from = source();
    switch (from.backend) {
    case Backend::DmaHeap:
        return dma_heap_fd(from.device, size);
    case Backend::Udmabuf:
        return udmabuf_fd(from.device, size);
    case Backend::Memfd:
        break;
    }
    return g2g::detail::sealed_memfd(size, "g2g-dmabuf");
}

GstMemoryMapFunction fd_map = nullptr;
GstMemoryUnmapFunction fd_unmap = nullptr;

gpointer map_synced(GstMemory *memory, GstMapInfo *info, gsize maxsize)
{
    // GStreamer's gst_memory_map does not look at GST_MEMORY_FLAG_NOT_MAPPABLE, and an mmap of a
    // tiled or device-exported DMA-BUF succeeds: its bytes would be read as rows. Refused here,
    // every mapping of it fails, g2g's readers' and any GStreamer element's alike.
    if (GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NOT_MAPPABLE)) {
        GST_CAT_DEBUG(G2G_CAT,
                      "memory %p of fd %d is not mappable (a non-linear layout or a device's memory)", memory,
                      gst_dmabuf_memory_get_fd(memory));
        return nullptr;
    }
    detail::begin_cpu_access(memory, info->flags);
    gpointer data = fd_map(memory, maxsize, info->flags);
    if (!data)
        detail::end_cpu_access(memory, info->flags);
    return data;
}

void unmap_synced(GstMemory *memory, GstMapInfo *info)
{
    fd_unmap(memory);
    detail::end_cpu_access(memory, info->flags);
}

GstMemory *allocate(GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
    const gsize prefix = params ? params->prefix : 0;
    const gsize maxsize = prefix + size + (params ? params->padding : 0);
    const int fd = allocate_fd(maxsize);
    if (fd < 0) {
        GST_CAT_ERROR(G2G_CAT,
                      "g2g's DMA-BUF allocator could not allocate %" G_GSIZE_FORMAT " bytes from %s: %s",
                      maxsize, backend_name(source().backend).data(), std::strerror(errno));
        return nullptr;
    }
    GstMemory *memory = gst_fd_allocator_alloc(allocator, fd, maxsize, GST_FD_MEMORY_FLAG_NONE);
    if (memory && prefix)
        gst_memory_resize(memory, static_cast<gssize>(prefix), size);
    return memory;
}

} // namespace

std::string_view backend_name(Backend backend)
{
    switch (backend) {
    case Backend::DmaHeap:
        return "dma-heap";
    case Backend::Udmabuf:
        return "udmabuf";
    case Backend::Memfd:
        break;
    }
    return "memfd";
}

Backend backend()
{
    return source().backend;
}

GstAllocator *allocator()
{
    static GstAllocator *made = [] {
        auto *allocator = static_cast<GstAllocator *>(g_object_new(g2g_dmabuf_allocator_get_type(), nullptr));
        gst_object_ref_sink(allocator);
        GST_OBJECT_FLAG_SET(allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED); // process-wide, like sysmem's
        return allocator;
    }();
    return made;
}

bool is_g2g_memory(GstMemory *memory)
{
    return memory && memory->allocator &&
           G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, g2g_dmabuf_allocator_get_type());
}

} // namespace g2g::dmabuf

static void g2g_dmabuf_allocator_class_init(G2gDmaBufAllocatorClass *klass)
{
    GST_ALLOCATOR_CLASS(klass)->alloc = g2g::dmabuf::allocate;
}

static void g2g_dmabuf_allocator_init(G2gDmaBufAllocator *self)
{
    // GstFdAllocator's instance init set its mmap-based map and unmap; they stay the mapping, the
    // sync brackets go around them (the _full variants are the ones that see the map flags).
    GstAllocator *allocator = GST_ALLOCATOR_CAST(self);
    g2g::dmabuf::fd_map = allocator->mem_map;
    g2g::dmabuf::fd_unmap = allocator->mem_unmap;
    allocator->mem_map_full = g2g::dmabuf::map_synced;
    allocator->mem_unmap_full = g2g::dmabuf::unmap_synced;
}
