// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for buffers and pools.
#pragma once

#include <gst/gst.h>

#include <g2g/gst-ref.h>

namespace g2g::test {

// Where the buffer's bytes are (mapped and unmapped again): to compare memory identity.
const guint8 *data_of(GstBuffer *buffer);

// A started pool of one `size`-byte buffer whose memory is flagged NO_SHARE, as v4l2 and
// capture pools hand out.
Ref<GstBufferPool> no_share_pool(guint size);

// A buffer from `pool` without waiting: GST_FLOW_EOS when the pool has none free.
GstFlowReturn try_acquire(GstBufferPool *pool, BufferRef &out);

// The memory type of foreign_memory_buffer()'s memory, which no domain of g2g knows.
inline constexpr const char *kForeignMemoryType = "G2gTestForeignMemory";

// A `size`-byte memory of type `mem_type` from an allocator of type ForeignAllocator, not
// mappable: memory of a platform g2g has never heard of.
MemoryRef foreign_memory(gsize size, const char *mem_type = kForeignMemoryType);

// A `size`-byte memory of type `mem_type` (a string that outlives the memory) holding a copy of
// `bytes`, mapped to them as a device memory that downloads itself when mapped is (GstCudaMemory:
// mem_type "gst.cuda.memory"), or as any allocator registering `mem_type` would; `flags` as its
// allocator or pool sets them (NO_SHARE by default, as device memory may be). With `bytes`
// nullptr it does not map (a lost device).
MemoryRef mapped_memory(const guint8 *bytes, gsize size, const char *mem_type,
                        GstMemoryFlags flags = GST_MEMORY_FLAG_NO_SHARE);

// A buffer of one foreign_memory(size).
BufferRef foreign_memory_buffer(gsize size);

} // namespace g2g::test
