// SPDX-License-Identifier: LGPL-2.1-or-later
// MemoryDomain::make_shareable: turn NO_SHARE memory into memory every copy can share, the way
// the frame's row of the domain table says.
#include <g2g/memory-domain.h>

#include <vector>

#include "core/domain-table.h"
#include "core/log-private.h"
#include "core/make-shareable.h"

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

} // namespace

namespace detail {

// Copies each meta of `source` tagged "memory" (GstVideoMeta: the planes' offsets and strides;
// G2gTensorViewMeta) to `dest`, as a whole-buffer copy. gst_buffer_copy_into leaves such metas out
// of a copy that does not copy the memories; here the memories are the same bytes at the same
// offsets, so what the metas say of them holds, and without them the planes would be read at
// GStreamer's default strides.
void copy_memory_metas(GstBuffer *source, GstBuffer *dest)
{
    static const GQuark memory_tag = g_quark_from_static_string(GST_META_TAG_MEMORY_STR);
    gpointer state = nullptr;
    while (GstMeta *meta = gst_buffer_iterate_meta(source, &state)) {
        const GstMetaInfo *info = meta->info;
        if (!info->transform_func || !gst_meta_api_type_has_tag(info->api, memory_tag))
            continue;
        GstMetaTransformCopy whole{FALSE, 0, static_cast<gsize>(-1)};
        info->transform_func(dest, meta, source, _gst_meta_transform_copy, &whole);
    }
}

GstMemory *share_host_mapping(GstBuffer *frame, GstMemory *memory)
{
    auto *source = new MappedSource{BufferRef::borrow(frame), MemoryRef::borrow(memory), GST_MAP_INFO_INIT};
    if (!gst_memory_map(memory, &source->map, GST_MAP_READ)) {
        delete source;
        return nullptr;
    }
    return gst_memory_new_wrapped(GST_MEMORY_FLAG_READONLY, source->map.data, source->map.size, 0,
                                  source->map.size, source, release_mapped_source);
}

} // namespace detail

void MemoryDomain::make_shareable()
{
    if (is_shareable())
        return;
    GstBuffer *frame = buffer_.get();
    const detail::MakeShareable rewrap = detail::domain_info(kind_).make_shareable;
    const guint n = gst_buffer_n_memory(frame);
    std::vector<GstMemory *> memories;
    memories.reserve(n);
    for (guint i = 0; i < n; ++i) {
        GstMemory *memory = gst_buffer_peek_memory(frame, i);
        GstMemory *shareable = nullptr;
        if (GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NO_SHARE)) {
            shareable = rewrap ? rewrap(frame, memory) : nullptr;
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
    detail::copy_memory_metas(frame, rewrapped);
    buffer_.reset(rewrapped);
}

} // namespace g2g
