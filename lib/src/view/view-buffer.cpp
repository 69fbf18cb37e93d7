// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-buffer.h"

#include "compat/buffer-free-compat.h"

namespace g2g::detail {

BufferRef buffer_over_memories(GstBuffer *input)
{
    BufferRef output = BufferRef::adopt(gst_buffer_new());
    gst_buffer_copy_into(output.get(), input, GST_BUFFER_COPY_METADATA, 0, static_cast<gsize>(-1));
    for (guint i = 0; i < gst_buffer_n_memory(input); ++i)
        gst_buffer_append_memory(output.get(), gst_memory_ref(gst_buffer_peek_memory(input, i)));
    gst_buffer_add_parent_buffer_meta(output.get(), input);
    compat::free_memories_before_parent(output.get());
    return output;
}

} // namespace g2g::detail
