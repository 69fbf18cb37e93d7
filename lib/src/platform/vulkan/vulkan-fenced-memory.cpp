// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-fenced-memory.h"

#include <mutex>
#include <optional>
#include <utility>

namespace g2g::vulkan {

namespace {

// The root memory's state; shares point at their root (GstMemory::parent) and use it.
struct FencedMemory {
    GstMemory parent;
    std::optional<StagingBuffer> staging; // the root's; none in shares
    Fence fence;                          // the root's: the copy into the staging buffer
    std::once_flag waited;                // the root's: the fence waited for
    bool copied = false;                  // the root's: the fence signalled
    std::weak_ptr<StagingPool> home;      // the root's
    std::shared_ptr<CopyDue> due;         // the root's: when copies of its size end
    std::uint64_t submitted_ns = 0;       // the root's: when the copy was submitted
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
bool wait_for_copy(FencedMemory *root)
{
    std::call_once(root->waited, [root] {
        root->copied = static_cast<bool>(
            wait_for_copy(root->fence, *root->due, root->parent.maxsize, root->submitted_ns));
    });
    return root->copied;
}

gpointer fenced_map(GstMemory *memory, gsize, GstMapFlags)
{
    FencedMemory *root = root_of(memory);
    return wait_for_copy(root) ? root->staging->data() : nullptr;
}

void fenced_unmap(GstMemory *)
{
    // The staging buffer stays mapped for its life (vulkan-staging.h).
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
        // A frame dropped unread (a fakesink) does not wait here: whoever takes the buffer next does.
        if (std::shared_ptr<StagingPool> home = fenced->home.lock())
            home->give_back(std::move(*fenced->staging), std::move(fenced->fence));
        else
            StagingPool::release(std::move(*fenced->staging), std::move(fenced->fence));
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

GstMemory *fenced_memory_new(StagingBuffer staging, gsize size, Fence fence, std::weak_ptr<StagingPool> home,
                             std::shared_ptr<CopyDue> due, std::uint64_t submitted_ns)
{
    auto *memory = new FencedMemory{};
    gst_memory_init(GST_MEMORY_CAST(memory), static_cast<GstMemoryFlags>(0), fenced_allocator(), nullptr,
                    size, 0, 0, size);
    memory->staging.emplace(std::move(staging));
    memory->fence = std::move(fence);
    memory->home = std::move(home);
    memory->due = std::move(due);
    memory->submitted_ns = submitted_ns;
    return GST_MEMORY_CAST(memory);
}

bool is_fenced_memory(GstMemory *memory)
{
    return memory && memory->allocator &&
           G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, G2G_TYPE_FENCED_ALLOCATOR);
}

bool fenced_memory_wait(GstMemory *memory)
{
    return is_fenced_memory(memory) && wait_for_copy(root_of(memory));
}

bool fenced_memory_ready(GstMemory *memory)
{
    return is_fenced_memory(memory) && root_of(memory)->fence.signaled();
}

} // namespace g2g::vulkan
