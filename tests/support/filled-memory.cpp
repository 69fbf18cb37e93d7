// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: pre-filled output memory (see filled-memory.h).
#include "filled-memory.h"

#include <cstring>

namespace {

struct FilledAllocator {
    GstAllocator parent;
    guint8 fill;
};
struct FilledAllocatorClass {
    GstAllocatorClass parent_class;
};

GType filled_allocator_get_type();
G_DEFINE_TYPE(FilledAllocator, filled_allocator, GST_TYPE_ALLOCATOR)

// The memory is the default system allocator's (which frees it too); only its first bytes are
// ours to choose.
GstMemory *filled_alloc(GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
    GstMemory *memory = gst_allocator_alloc(nullptr, size, params);
    if (!memory)
        return nullptr;
    GstMapInfo map;
    if (gst_memory_map(memory, &map, GST_MAP_WRITE)) {
        std::memset(map.data, reinterpret_cast<FilledAllocator *>(allocator)->fill, map.size);
        gst_memory_unmap(memory, &map);
    }
    return memory;
}

void filled_free(GstAllocator *, GstMemory *memory)
{
    // Never reached: the memories belong to the system allocator.
    gst_memory_unref(memory);
}

void filled_allocator_class_init(FilledAllocatorClass *klass)
{
    GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS(klass);
    allocator_class->alloc = filled_alloc;
    allocator_class->free = filled_free;
}

void filled_allocator_init(FilledAllocator *)
{
}

} // namespace

namespace g2g::test {

Ref<GstAllocator> filled_allocator(guint8 fill)
{
    auto *allocator = static_cast<FilledAllocator *>(g_object_new(filled_allocator_get_type(), nullptr));
    allocator->fill = fill;
    gst_object_ref_sink(allocator);
    return Ref<GstAllocator>::adopt(GST_ALLOCATOR(allocator));
}

} // namespace g2g::test
