// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22's CUDA library (compat/cuda-compat.h), which 1.22 alone needs:
// - gst_cuda_allocator_alloc takes no stream and no NULL allocator;
// - its allocator allocates every CUDA memory itself: wrapping a device pointer came in 1.24. So a
//   GstCudaMemory over memory g2g holds (a Vulkan allocation imported into CUDA) is made by an
//   allocator that derives GStreamer's, so that gst_is_cuda_memory() says yes and every nvcodec
//   element maps it (GST_MAP_CUDA: the device pointer) as its own; mapping it for the CPU
//   downloads it, as GStreamer's does. On 1.24 this subclass would be wrong: 1.24's elements read
//   GstCudaMemory's private part (its stream), which only GStreamer's allocator fills;
// - its CUDA memory carries no stream, so nothing needs waiting for before a read.
#include "compat/cuda-compat.h"

#include <gst/cuda/gstcudaloader.h>

#include "platform/cuda/cuda-driver.h"

namespace {

// GstCudaMemory's public part first (context, info), as nvcodec elements read it; its private
// part stays null: only GStreamer's own allocator functions read it, and ours replace them all.
struct SharedCudaMemory {
    GstCudaMemory cuda;
    CUdeviceptr data;
    guint8 *staging; // the host copy a CPU mapping reads and writes
    GMutex lock;
    gpointer user_data;
    GDestroyNotify notify;
};

// Each plane's rows between device and host memory (their strides are the same).
bool copy_planes(const SharedCudaMemory *memory, bool to_host)
{
    const GstVideoInfo &info = memory->cuda.info;
    if (!gst_cuda_context_push(memory->cuda.context))
        return false;
    bool ok = true;
    for (guint p = 0; ok && p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        CUDA_MEMCPY2D copy{};
        const gsize offset = GST_VIDEO_INFO_PLANE_OFFSET(&info, p);
        const gsize stride = static_cast<gsize>(GST_VIDEO_INFO_PLANE_STRIDE(&info, p));
        copy.srcMemoryType = to_host ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        copy.dstMemoryType = to_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        if (to_host) {
            copy.srcDevice = memory->data + offset;
            copy.dstHost = memory->staging + offset;
        } else {
            copy.srcHost = memory->staging + offset;
            copy.dstDevice = memory->data + offset;
        }
        copy.srcPitch = copy.dstPitch = stride;
        copy.WidthInBytes = stride;
        copy.Height = static_cast<size_t>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p));
        ok = CuMemcpy2D(&copy) == CUDA_SUCCESS;
    }
    CUcontext popped = nullptr;
    gst_cuda_context_pop(&popped);
    return ok;
}

gpointer shared_map(GstMemory *mem, gsize, GstMapFlags flags)
{
    auto *memory = reinterpret_cast<SharedCudaMemory *>(mem);
    if ((flags & GST_MAP_CUDA) == GST_MAP_CUDA)
        return reinterpret_cast<gpointer>(memory->data);
    g_mutex_lock(&memory->lock);
    if (!memory->staging)
        memory->staging = static_cast<guint8 *>(g_malloc(mem->maxsize));
    const bool ok = copy_planes(memory, true);
    g_mutex_unlock(&memory->lock);
    return ok ? memory->staging : nullptr;
}

void shared_unmap(GstMemory *mem, GstMapInfo *info)
{
    auto *memory = reinterpret_cast<SharedCudaMemory *>(mem);
    if ((info->flags & GST_MAP_CUDA) == GST_MAP_CUDA || (info->flags & GST_MAP_WRITE) == 0)
        return;
    g_mutex_lock(&memory->lock);
    if (!copy_planes(memory, false))
        GST_WARNING("could not write a CPU mapping back to CUDA memory");
    g_mutex_unlock(&memory->lock);
}

// A copy in GStreamer's own CUDA memory (offset and size ignored, as GStreamer's copy does).
GstMemory *shared_copy(GstMemory *mem, gssize, gssize)
{
    auto *memory = reinterpret_cast<SharedCudaMemory *>(mem);
    GstMemory *copy = g2g::compat::cuda_alloc(memory->cuda.context, memory->cuda.info);
    if (!copy)
        return nullptr;
    const GstVideoInfo &from = memory->cuda.info;
    const GstVideoInfo &to = GST_CUDA_MEMORY_CAST(copy)->info;
    GstMapInfo map;
    if (!gst_memory_map(copy, &map, static_cast<GstMapFlags>(GST_MAP_WRITE | GST_MAP_CUDA))) {
        gst_memory_unref(copy);
        return nullptr;
    }
    bool ok = gst_cuda_context_push(memory->cuda.context);
    for (guint p = 0; ok && p < GST_VIDEO_INFO_N_PLANES(&from); ++p) {
        CUDA_MEMCPY2D plane{};
        plane.srcMemoryType = plane.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        plane.srcDevice = memory->data + GST_VIDEO_INFO_PLANE_OFFSET(&from, p);
        plane.dstDevice = reinterpret_cast<CUdeviceptr>(map.data) + GST_VIDEO_INFO_PLANE_OFFSET(&to, p);
        plane.srcPitch = static_cast<size_t>(GST_VIDEO_INFO_PLANE_STRIDE(&from, p));
        plane.dstPitch = static_cast<size_t>(GST_VIDEO_INFO_PLANE_STRIDE(&to, p));
        plane.WidthInBytes = static_cast<size_t>(GST_VIDEO_INFO_COMP_WIDTH(&from, p)) *
                             static_cast<size_t>(GST_VIDEO_INFO_COMP_PSTRIDE(&from, p));
        plane.Height = static_cast<size_t>(GST_VIDEO_INFO_COMP_HEIGHT(&from, p));
        ok = CuMemcpy2D(&plane) == CUDA_SUCCESS;
    }
    if (GST_VIDEO_INFO_N_PLANES(&from) > 0) {
        CUcontext popped = nullptr;
        gst_cuda_context_pop(&popped);
    }
    gst_memory_unmap(copy, &map);
    if (!ok) {
        gst_memory_unref(copy);
        return nullptr;
    }
    return copy;
}

} // namespace

// Declared by hand: G_DECLARE_FINAL_TYPE needs an autoptr cleanup of GstCudaAllocator, which 1.22
// does not define (and a later GStreamer may).
struct G2gCudaSharedAllocator {
    GstCudaAllocator parent;
};
struct G2gCudaSharedAllocatorClass {
    GstCudaAllocatorClass parent_class;
};
GType g2g_cuda_shared_allocator_get_type();
#define G2G_TYPE_CUDA_SHARED_ALLOCATOR (g2g_cuda_shared_allocator_get_type())
#define G2G_IS_CUDA_SHARED_ALLOCATOR(object)                                                                 \
    (G_TYPE_CHECK_INSTANCE_TYPE((object), G2G_TYPE_CUDA_SHARED_ALLOCATOR))

G_DEFINE_TYPE(G2gCudaSharedAllocator, g2g_cuda_shared_allocator, GST_TYPE_CUDA_ALLOCATOR)

static GstMemory *g2g_cuda_shared_allocator_alloc(GstAllocator *, gsize, GstAllocationParams *)
{
    return nullptr; // only wrap_cuda_memory makes these memories
}

static void g2g_cuda_shared_allocator_free(GstAllocator *, GstMemory *mem)
{
    auto *memory = reinterpret_cast<SharedCudaMemory *>(mem);
    g_free(memory->staging);
    g_mutex_clear(&memory->lock);
    gst_object_unref(memory->cuda.context);
    if (memory->notify)
        memory->notify(memory->user_data);
    g_free(memory);
}

static void g2g_cuda_shared_allocator_class_init(G2gCudaSharedAllocatorClass *klass)
{
    GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS(klass);
    allocator_class->alloc = g2g_cuda_shared_allocator_alloc;
    allocator_class->free = g2g_cuda_shared_allocator_free;
}

static void g2g_cuda_shared_allocator_init(G2gCudaSharedAllocator *self)
{
    // After GStreamer's CUDA allocator set its own (which read its private memory part).
    GstAllocator *allocator = GST_ALLOCATOR_CAST(self);
    allocator->mem_map = shared_map;
    allocator->mem_unmap_full = shared_unmap;
    allocator->mem_copy = shared_copy;
    GST_OBJECT_FLAG_SET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

namespace g2g::compat {

namespace {

GstAllocator *shared_allocator()
{
    static GstAllocator *allocator = [] {
        gst_cuda_memory_init_once();
        auto *made = GST_ALLOCATOR(g_object_new(G2G_TYPE_CUDA_SHARED_ALLOCATOR, nullptr));
        gst_object_ref_sink(made);
        // Kept for the process, as GStreamer keeps its registered allocators.
        GST_OBJECT_FLAG_SET(made, GST_OBJECT_FLAG_MAY_BE_LEAKED);
        return made;
    }();
    return allocator;
}

} // namespace

GstMemory *cuda_alloc(GstCudaContext *context, const GstVideoInfo &info)
{
    // Registered once by gst_cuda_memory_init_once(); held for the process, as GStreamer holds it.
    static GstCudaAllocator *const allocator = [] {
        gst_cuda_memory_init_once();
        return reinterpret_cast<GstCudaAllocator *>(gst_allocator_find(GST_CUDA_MEMORY_TYPE_NAME));
    }();
    return gst_cuda_allocator_alloc(allocator, context, &info);
}

GstMemory *cuda_wrap(GstCudaContext *context, const GstVideoInfo &info, CUdeviceptr data, gpointer user_data,
                     GDestroyNotify notify)
{
    auto *memory = g_new0(SharedCudaMemory, 1);
    const gsize size = GST_VIDEO_INFO_SIZE(&info);
    gst_memory_init(GST_MEMORY_CAST(memory), static_cast<GstMemoryFlags>(0), shared_allocator(), nullptr,
                    size, 0, 0, size);
    memory->cuda.context = static_cast<GstCudaContext *>(gst_object_ref(context));
    memory->cuda.info = info;
    memory->data = data;
    g_mutex_init(&memory->lock);
    memory->user_data = user_data;
    memory->notify = notify;
    return GST_MEMORY_CAST(memory);
}

gpointer cuda_wrapped_user_data(GstMemory *memory, GDestroyNotify notify)
{
    if (!memory || !memory->allocator || !G2G_IS_CUDA_SHARED_ALLOCATOR(memory->allocator))
        return nullptr;
    auto *shared = reinterpret_cast<SharedCudaMemory *>(memory);
    return shared->notify == notify ? shared->user_data : nullptr;
}

bool cuda_map_for_reading(GstMemory *memory, GstMapInfo *map)
{
    return gst_memory_map(memory, map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA));
}

} // namespace g2g::compat
