// MemoryDomain::make_shareable: turn NO_SHARE memory into memory every copy can share.
#include <g2g/memory-domain.h>

#include <gst/allocators/allocators.h>

#include <unistd.h>

#include <vector>

#include "g2g-config.h"
#include "log-private.h"

namespace g2g {
namespace {

// Keeps the source frame (and so its pool slot) and a read mapping of one of its memories
// alive for as long as the wrapping memory, or any share or copy of it, lives.
struct MappedSource {
    BufferRef frame;
    MemoryRef memory;
    GstMapInfo map;
};

void release_mapped_source(gpointer data)
{
    auto *source = static_cast<MappedSource *>(data);
    gst_memory_unmap(source->memory.get(), &source->map);
    delete source;
}

// Host memory: the same bytes behind a plain, shareable, read-only wrapper.
GstMemory *rewrap_host_memory(GstBuffer *frame, GstMemory *memory)
{
    auto *source = new MappedSource{BufferRef::borrow(frame), MemoryRef::borrow(memory), GST_MAP_INFO_INIT};
    if (!gst_memory_map(memory, &source->map, GST_MAP_READ)) {
        delete source;
        return nullptr;
    }
    return gst_memory_new_wrapped(GST_MEMORY_FLAG_READONLY, source->map.data, source->map.size, 0,
                                  source->map.size, source, release_mapped_source);
}

// DMABuf memory: a second GstDmaBufMemory over a dup of the same dma-buf fd (no bytes move),
// holding the source frame until it dies. Without the dmabuf feature such memory stays as it is.
GstMemory *rewrap_dmabuf_memory(GstBuffer *frame, GstMemory *memory)
{
#if !G2G_HAVE_DMABUF
    (void)frame;
    (void)memory;
    return nullptr;
#else
    static const GQuark source_frame_quark = g_quark_from_static_string("g2g-shareable-source-frame");
    static GstAllocator *allocator = [] {
        GstAllocator *made = gst_dmabuf_allocator_new();
        GST_OBJECT_FLAG_SET(made, GST_OBJECT_FLAG_MAY_BE_LEAKED); // process-wide, like sysmem's
        return made;
    }();
    gsize offset = 0;
    gsize maxsize = 0;
    const gsize size = gst_memory_get_sizes(memory, &offset, &maxsize);
    const int fd = dup(gst_dmabuf_memory_get_fd(memory));
    if (fd < 0)
        return nullptr;
    GstMemory *shareable = gst_dmabuf_allocator_alloc(allocator, fd, maxsize);
    if (!shareable) {
        close(fd);
        return nullptr;
    }
    gst_memory_resize(shareable, static_cast<gssize>(offset), size);
    gst_mini_object_set_qdata(GST_MINI_OBJECT(shareable), source_frame_quark, gst_buffer_ref(frame),
                              reinterpret_cast<GDestroyNotify>(gst_buffer_unref));
    return shareable;
#endif
}

} // namespace

void MemoryDomain::make_shareable()
{
    if (is_shareable())
        return;
    GstBuffer *frame = buffer_.get();
    const guint n = gst_buffer_n_memory(frame);
    std::vector<GstMemory *> memories;
    memories.reserve(n);
    for (guint i = 0; i < n; ++i) {
        GstMemory *memory = gst_buffer_peek_memory(frame, i);
        GstMemory *shareable = nullptr;
        if (GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NO_SHARE)) {
            if (gst_is_dmabuf_memory(memory))
                shareable = rewrap_dmabuf_memory(frame, memory);
            else if (kind_ == MemoryDomainKind::System || kind_ == MemoryDomainKind::SystemView)
                shareable = rewrap_host_memory(frame, memory);
            if (!shareable)
                // Device memory without a host mapping stays as it is: the frame itself is
                // still shared by reference, only a branch's copy of it would copy the bytes.
                GST_CAT_DEBUG(G2G_CAT, "memory %u of %" GST_PTR_FORMAT " stays NO_SHARE", i, frame);
        }
        memories.push_back(shareable ? shareable : gst_memory_ref(memory));
    }

    GstBuffer *rewrapped = gst_buffer_new();
    gst_buffer_copy_into(rewrapped, frame,
                         static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS |
                                                         GST_BUFFER_COPY_META),
                         0, static_cast<gsize>(-1));
    for (GstMemory *memory : memories)
        gst_buffer_append_memory(rewrapped, memory);
    buffer_.reset(rewrapped);
}

} // namespace g2g
