// SPDX-License-Identifier: LGPL-2.1-or-later
// What tensor frames need of CUDA memory: its device pointer and device, and a view written
// densely on the device (into a new CUDA memory, or into an application's device memory).
#include <g2g/cuda-view.h>

#include <gst/cuda/gstcudamemory.h>

#include <string>

#include "compat/cuda-compat.h"
#include "platform/cuda/cuda-driver.h"
#include "platform/platform.h"

namespace g2g::platform::cuda {
namespace {

// The device ordinal of the device memory at `pointer`, or -1 for an address the driver does not
// know as device memory (a host address, a freed allocation): an application's destination is
// checked before a kernel writes there, since a kernel's fault would leave the frame's CUDA context
// unusable for the whole pipeline.
int device_of_pointer(std::uint64_t pointer)
{
    using GetAttribute = CUresult (*)(void *, CUpointer_attribute, CUdeviceptr);
    static GetAttribute get_attribute = nullptr;
    static const bool loaded = g2g::cuda::load_driver_symbol("cuPointerGetAttribute", get_attribute);
    int ordinal = -1;
    if (!loaded || get_attribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, pointer) != CUDA_SUCCESS)
        return -1;
    return ordinal;
}

} // namespace

bool map_device_pointer(GstMemory *memory, GstMapInfo *map)
{
    return gst_is_cuda_memory(memory) && g2g::compat::cuda_map_for_reading(memory, map);
}

int device_ordinal(GstMemory *memory)
{
    return gst_is_cuda_memory(memory) ? g2g::cuda::device_id_of(GST_CUDA_MEMORY_CAST(memory)->context) : -1;
}

Result<BufferRef> dense_frame(const FrameView &view, GstBuffer *source)
{
    if (gst_buffer_n_memory(source) != 1 || !gst_is_cuda_memory(gst_buffer_peek_memory(source, 0)))
        return Error(ErrorCode::InvalidArgument, "a dense CUDA frame is made of one CUDA memory");
    GstCudaContext *context = GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(source, 0))->context;
    // The allocator pitches the rows as the driver likes; the memory's own info says how, and the
    // kernel writes to that layout.
    GstMemory *memory = g2g::compat::cuda_alloc(context, view.info());
    if (!memory)
        return Error(ErrorCode::MapFailed, "cannot allocate a " + std::to_string(view.width()) + "x" +
                                               std::to_string(view.height()) + " " +
                                               gst_video_format_to_string(view.format()) + " frame on " +
                                               g2g::cuda::describe(context));
    BufferRef dense = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(dense.get(), memory);
    gst_buffer_copy_into(dense.get(), source, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    if (Result<void> written = g2g::cuda::materialize_into(view, source, dense.get()); !written)
        return written.error();
    return dense;
}

Result<void> materialize_into_device(const FrameView &view, GstBuffer *source, void *const planes[],
                                     const gint strides[])
{
    if (gst_buffer_n_memory(source) != 1 || !gst_is_cuda_memory(gst_buffer_peek_memory(source, 0)))
        return Error(ErrorCode::InvalidArgument, "the frame is not one CUDA memory");
    const int device = device_ordinal(gst_buffer_peek_memory(source, 0));
    std::uint64_t pointers[GST_VIDEO_MAX_PLANES] = {};
    for (unsigned p = 0; p < view.n_planes(); ++p) {
        pointers[p] = reinterpret_cast<std::uint64_t>(planes[p]);
        if (const int where = device_of_pointer(pointers[p]); where != device)
            return Error(ErrorCode::InvalidArgument,
                         "destination plane " + std::to_string(p) + " is " +
                             (where < 0 ? std::string("not CUDA device memory")
                                        : "memory of CUDA device " + std::to_string(where)) +
                             ": the frame is on CUDA device " + std::to_string(device) +
                             ", whose kernel writes it");
    }
    return g2g::cuda::materialize_into_planes(
        view, source, GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(source, 0))->context, pointers, strides);
}

} // namespace g2g::platform::cuda
