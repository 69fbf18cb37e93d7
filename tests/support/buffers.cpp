// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for buffers and pools (see buffers.h).
#include "buffers.h"

#include <gtest/gtest.h>

namespace {

// An allocator of a memory type g2g has never heard of (its memories are freed, never mapped).
struct ForeignAllocator {
    GstAllocator parent;
};
struct ForeignAllocatorClass {
    GstAllocatorClass parent_class;
};
G_DEFINE_TYPE(ForeignAllocator, g2g_test_foreign_allocator, GST_TYPE_ALLOCATOR)
void g2g_test_foreign_allocator_class_init(ForeignAllocatorClass *klass)
{
    GST_ALLOCATOR_CLASS(klass)->free = [](GstAllocator *, GstMemory *memory) { g_free(memory); };
}
void g2g_test_foreign_allocator_init(ForeignAllocator *)
{
}

// An allocator whose memories map to a host copy of their bytes, as a device memory that downloads
// itself when mapped does (GstCudaMemory), under the memory type it is given.
struct MappedMemory {
    GstMemory parent;
    guint8 *bytes;
};
struct MappedAllocator {
    GstAllocator parent;
};
struct MappedAllocatorClass {
    GstAllocatorClass parent_class;
};
G_DEFINE_TYPE(MappedAllocator, g2g_test_mapped_allocator, GST_TYPE_ALLOCATOR)
void g2g_test_mapped_allocator_class_init(MappedAllocatorClass *klass)
{
    GST_ALLOCATOR_CLASS(klass)->free = [](GstAllocator *, GstMemory *memory) {
        g_free(reinterpret_cast<MappedMemory *>(memory)->bytes);
        g_free(memory);
    };
}
void g2g_test_mapped_allocator_init(MappedAllocator *allocator)
{
    GstAllocator *base = GST_ALLOCATOR(allocator);
    base->mem_map = [](GstMemory *memory, gsize, GstMapFlags) -> gpointer {
        return reinterpret_cast<MappedMemory *>(memory)->bytes;
    };
    base->mem_unmap = [](GstMemory *) {};
    GST_OBJECT_FLAG_SET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

} // namespace

namespace g2g::test {

MemoryRef mapped_memory(const guint8 *bytes, gsize size, const char *mem_type, GstMemoryFlags flags)
{
    Ref<GstAllocator> allocator = Ref<GstAllocator>::adopt(
        GST_ALLOCATOR(gst_object_ref_sink(g_object_new(g2g_test_mapped_allocator_get_type(), nullptr))));
    allocator->mem_type = mem_type;
    auto *memory = g_new0(MappedMemory, 1);
    memory->bytes = static_cast<guint8 *>(g_memdup2(bytes, size));
    gst_memory_init(GST_MEMORY_CAST(memory), flags, allocator.get(), nullptr, size, 0, 0, size);
    return MemoryRef::adopt(GST_MEMORY_CAST(memory));
}

MemoryRef foreign_memory(gsize size, const char *mem_type)
{
    // The memory holds the allocator; it goes with the last memory. The memory type is the
    // allocator instance's (GStreamer reads it from there).
    Ref<GstAllocator> allocator = Ref<GstAllocator>::adopt(
        GST_ALLOCATOR(gst_object_ref_sink(g_object_new(g2g_test_foreign_allocator_get_type(), nullptr))));
    allocator->mem_type = mem_type;
    GstMemory *memory = g_new0(GstMemory, 1);
    gst_memory_init(memory, GST_MEMORY_FLAG_NOT_MAPPABLE, allocator.get(), nullptr, size, 0, 0, size);
    return MemoryRef::adopt(memory);
}

BufferRef foreign_memory_buffer(gsize size)
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(), foreign_memory(size).release());
    return buffer;
}

const guint8 *data_of(GstBuffer *buffer)
{
    GstMapInfo map;
    EXPECT_TRUE(gst_buffer_map(buffer, &map, GST_MAP_READ));
    const guint8 *data = map.data;
    gst_buffer_unmap(buffer, &map);
    return data;
}

Ref<GstBufferPool> no_share_pool(guint size)
{
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(gst_buffer_pool_new());
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, nullptr, size, 1, 1);
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    params.flags = GST_MEMORY_FLAG_NO_SHARE;
    gst_buffer_pool_config_set_allocator(config, nullptr, &params);
    EXPECT_TRUE(gst_buffer_pool_set_config(pool.get(), config));
    EXPECT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));
    return pool;
}

GstFlowReturn try_acquire(GstBufferPool *pool, BufferRef &out)
{
    GstBufferPoolAcquireParams params{};
    params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    return gst_buffer_pool_acquire_buffer(pool, out.out(), &params);
}

} // namespace g2g::test
