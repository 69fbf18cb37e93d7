// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-fenced-memory.h"

#include <mutex>
#include <utility>

namespace g2g::vulkan {

namespace {

// The root memory's state; shares point at their root (GstMemory::parent) and use it.
struct FencedMemory {
    GstMemory parent;
    GstMemory *staging;     // the root's: a GstVulkanBufferMemory; null in shares
    GstVulkanFence *fence;  // the root's
    std::once_flag waited;  // the root's: the fence waited for and the staging buffer mapped
    GstMapInfo staging_map; // the root's: mapped on first use, unmapped when freed
    bool mapped;
    StagingRecycler recycle;
};

GstAllocator *fenced_allocator();

FencedMemory *root_of(GstMemory *memory)
{
    while (memory->parent)
        memory = memory->parent;
    return reinterpret_cast<FencedMemory *>(memory);
}

// The first map of the frame (of any share of it) waits for the copy; the staging buffer is the
// GPU's until then and the reader's after.
gpointer fenced_map(GstMemory *memory, gsize, GstMapFlags)
{
    FencedMemory *root = root_of(memory);
    std::call_once(root->waited, [root] {
        VkFence vk = GST_VULKAN_FENCE_FENCE(root->fence);
        vkWaitForFences(root->fence->device->device, 1, &vk, VK_TRUE, G_MAXUINT64);
        root->mapped = gst_memory_map(root->staging, &root->staging_map,
                                      static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_WRITE));
    });
    return root->mapped ? root->staging_map.data : nullptr;
}

void fenced_unmap(GstMemory *)
{
    // The staging buffer stays mapped (host-visible memory maps persistently) until it is freed.
}

GstMemory *fenced_share(GstMemory *memory, gssize offset, gssize size)
{
    FencedMemory *root = root_of(memory);
    if (size == -1)
        size = static_cast<gssize>(memory->size) - offset;
    auto *share = new FencedMemory{};
    gst_memory_init(
        GST_MEMORY_CAST(share),
        static_cast<GstMemoryFlags>(GST_MINI_OBJECT_FLAGS(memory) | GST_MINI_OBJECT_FLAG_LOCK_READONLY),
        fenced_allocator(), GST_MEMORY_CAST(root), memory->maxsize, memory->align, memory->offset + offset,
        static_cast<gsize>(size));
    return GST_MEMORY_CAST(share);
}

void fenced_free(GstAllocator *, GstMemory *memory)
{
    auto *fenced = reinterpret_cast<FencedMemory *>(memory);
    if (fenced->staging) {
        if (fenced->mapped)
            gst_memory_unmap(fenced->staging, &fenced->staging_map);
        if (fenced->recycle) {
            // A frame dropped unread (a fakesink) does not wait here: whoever reuses the buffer does.
            fenced->recycle(fenced->staging, fenced->fence);
        } else {
            VkFence vk = GST_VULKAN_FENCE_FENCE(fenced->fence);
            vkWaitForFences(fenced->fence->device->device, 1, &vk, VK_TRUE, G_MAXUINT64);
            gst_memory_unref(fenced->staging);
            gst_vulkan_fence_unref(fenced->fence);
        }
    }
    delete fenced;
}

} // namespace

} // namespace g2g::vulkan

// The allocator: a GstAllocator subclass whose alloc refuses (its memories come only from a
// download) and whose mem_map waits for the fence.
#define G2G_TYPE_FENCED_ALLOCATOR (g2g_fenced_allocator_get_type())
G_DECLARE_FINAL_TYPE(G2gFencedAllocator, g2g_fenced_allocator, G2G, FENCED_ALLOCATOR, GstAllocator)
struct _G2gFencedAllocator {
    GstAllocator parent;
};
G_DEFINE_TYPE(G2gFencedAllocator, g2g_fenced_allocator, GST_TYPE_ALLOCATOR)

static void g2g_fenced_allocator_class_init(G2gFencedAllocatorClass *klass)
{
    GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS(klass);
    allocator_class->alloc = [](GstAllocator *, gsize, GstAllocationParams *) -> GstMemory * {
        return nullptr;
    };
    allocator_class->free = g2g::vulkan::fenced_free;
}

static void g2g_fenced_allocator_init(G2gFencedAllocator *self)
{
    GstAllocator *allocator = GST_ALLOCATOR_CAST(self);
    allocator->mem_type = g2g::vulkan::kFencedMemoryType;
    allocator->mem_map = g2g::vulkan::fenced_map;
    allocator->mem_unmap = g2g::vulkan::fenced_unmap;
    allocator->mem_share = g2g::vulkan::fenced_share;
    GST_OBJECT_FLAG_SET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

namespace g2g::vulkan {

namespace {

GstAllocator *fenced_allocator()
{
    // One for the process, as GStreamer's own allocators are (never freed, hence flagged for the
    // leaks tracer).
    static GstAllocator *allocator = [] {
        GstAllocator *made = GST_ALLOCATOR_CAST(g_object_new(G2G_TYPE_FENCED_ALLOCATOR, nullptr));
        gst_object_ref_sink(made);
        GST_OBJECT_FLAG_SET(made, GST_OBJECT_FLAG_MAY_BE_LEAKED);
        return made;
    }();
    return allocator;
}

} // namespace

GstMemory *fenced_memory_new(GstMemory *staging, gsize size, GstVulkanFence *fence, StagingRecycler recycle)
{
    auto *memory = new FencedMemory{};
    gst_memory_init(GST_MEMORY_CAST(memory), static_cast<GstMemoryFlags>(0), fenced_allocator(), nullptr,
                    size, 0, 0, size);
    memory->staging = staging;
    memory->fence = gst_vulkan_fence_ref(fence);
    memory->recycle = std::move(recycle);
    return GST_MEMORY_CAST(memory);
}

bool is_fenced_memory(GstMemory *memory)
{
    return memory && memory->allocator &&
           G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, G2G_TYPE_FENCED_ALLOCATOR);
}

} // namespace g2g::vulkan
