// SPDX-License-Identifier: LGPL-2.1-or-later
#include "core/host-copy.h"

#include <g2g/memory-domain.h>

#include <cstring>
#include <string>

#include "core/domain-table.h"
#include "core/make-shareable.h"

namespace g2g::detail {

Result<BufferRef> host_copy_of(GstBuffer *frame)
{
    // System memory, the common case on every frame g2gview reads, is answered without classifying
    // the frame (a buffer that mixes it with another kind is refused by its reader).
    GstMemory *first = gst_buffer_n_memory(frame) ? gst_buffer_peek_memory(frame, 0) : nullptr;
    if (!first || gst_memory_is_type(first, GST_ALLOCATOR_SYSMEM))
        return BufferRef{};
    Result<MemoryDomain> domain = MemoryDomain::from_buffer(frame);
    if (!domain || !domain_info(domain->kind()).maps_under_system_caps)
        return BufferRef{};
    BufferRef copy = BufferRef::adopt(gst_buffer_new());
    // Not GST_BUFFER_COPY_MEMORY: device memory flagged NO_SHARE would be copied on the device.
    gst_buffer_copy_into(copy.get(), frame, GST_BUFFER_COPY_METADATA, 0, static_cast<gsize>(-1));
    copy_memory_metas(frame, copy.get());
    for (guint i = 0, n = gst_buffer_n_memory(frame); i < n; ++i) {
        GstMemory *memory = gst_buffer_peek_memory(frame, i);
        GstMapInfo source = GST_MAP_INFO_INIT;
        if (!gst_memory_map(memory, &source, GST_MAP_READ))
            return Error(ErrorCode::MapFailed,
                         "memory " + std::to_string(i) + " of a " +
                             std::string(domain_info(domain->kind()).name) +
                             " frame under system-memory caps does not map to the host");
        GstMemory *host = gst_allocator_alloc(nullptr, source.size, nullptr);
        GstMapInfo target = GST_MAP_INFO_INIT;
        // Whether it was written, kept apart from `target`: GStreamer 1.28 clears a GstMapInfo when
        // it is unmapped.
        const bool written = host && gst_memory_map(host, &target, GST_MAP_WRITE);
        if (written) {
            std::memcpy(target.data, source.data, source.size);
            gst_memory_unmap(host, &target);
        }
        gst_memory_unmap(memory, &source);
        if (!written) {
            if (host)
                gst_memory_unref(host);
            return Error(ErrorCode::MapFailed, "cannot allocate " + std::to_string(source.size) +
                                                   " bytes of system memory for a host copy");
        }
        gst_buffer_append_memory(copy.get(), host);
    }
    return copy;
}

} // namespace g2g::detail
