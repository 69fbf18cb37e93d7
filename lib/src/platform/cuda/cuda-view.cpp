// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA frames (GStreamer's GstCudaMemory): their recognition, their layout, and the view backend
// whose kernels (view-kernels.cu) materialize views on the frame's device.
#include <g2g/cuda-view.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>

#include <memory>
#include <mutex>
#include <string>

#include "compat/cuda-compat.h"
#include "platform/cuda/cuda-driver.h"
#include "platform/platform.h"
#include "view/frame-view-private.h"
#include "view/view-backend.h"

// The kernels nvcc compiled at build time (view-kernels.cu), as a fatbin.
extern "C" const unsigned char g2g_view_kernels_fatbin[];

namespace g2g {
namespace cuda {
namespace {

// Must match view-kernels.cu's PlaneCopy.
struct PlaneCopy {
    long long origin;
    long long col;
    long long row;
    long long dst_offset;
    long long dst_stride;
    unsigned int width;
    unsigned int height;
    unsigned int element;
};

struct Kernels {
    CUmodule module = nullptr;
    CUfunction rows[5] = {};       // by element size 1, 2, 4
    CUfunction transposed[5] = {}; // by element size 1, 2, 4
    CUfunction gather = nullptr;
};

// The kernels of `context` (current), loaded once per GstCudaContext and kept as its qdata:
// a module lives and dies with its CUDA context, and a new context may reuse a destroyed one's
// handle value, so the handle is no key.
Result<const Kernels *> kernels_of_current_context(GstCudaContext *context)
{
    static const GQuark quark = g_quark_from_static_string("g2g-view-kernels");
    static std::mutex lock;
    std::lock_guard<std::mutex> guard(lock);
    if (auto *loaded = static_cast<const Kernels *>(g_object_get_qdata(G_OBJECT(context), quark)))
        return loaded;
    auto kernels = std::make_unique<Kernels>();
    if (CUresult r = CuModuleLoadData(&kernels->module, g2g_view_kernels_fatbin); r != CUDA_SUCCESS)
        return failure("loading g2g's CUDA kernels (built for sm_75 to sm_90 and PTX)", r);
    const std::pair<CUfunction *, const char *> names[] = {
        {&kernels->rows[1], "g2g_rows_1"},
        {&kernels->rows[2], "g2g_rows_2"},
        {&kernels->rows[4], "g2g_rows_4"},
        {&kernels->transposed[1], "g2g_transposed_1"},
        {&kernels->transposed[2], "g2g_transposed_2"},
        {&kernels->transposed[4], "g2g_transposed_4"},
        {&kernels->gather, "g2g_gather"},
    };
    for (const auto &[function, name] : names) {
        if (CUresult r = CuModuleGetFunction(function, kernels->module, name); r != CUDA_SUCCESS) {
            CuModuleUnload(kernels->module);
            return failure(name, r);
        }
    }
    // The module goes with the context (GstCudaContext destroys the CUDA context before its
    // qdata is cleared): only our bookkeeping is freed then.
    const Kernels *kept = kernels.release();
    g_object_set_qdata_full(G_OBJECT(context), quark, const_cast<Kernels *>(kept),
                            [](gpointer data) { delete static_cast<Kernels *>(data); });
    return kept;
}

guint device_of(GstCudaContext *context)
{
    guint device = 0;
    g_object_get(context, "cuda-device-id", &device, nullptr);
    return device;
}

unsigned blocks(unsigned n, unsigned per_block)
{
    return (n + per_block - 1) / per_block;
}

// One plane: the kernel for its shape, launched on the default stream.
CUresult launch(const Kernels &kernels, const PlaneCopy &copy, CUdeviceptr src, CUdeviceptr dst)
{
    void *args[] = {&src, &dst, const_cast<PlaneCopy *>(&copy)};
    const long long e = copy.element;
    const bool vector_size = e == 1 || e == 2 || e == 4;
    if (vector_size && (copy.col == e || copy.col == -e))
        return CuLaunchKernel(kernels.rows[e], blocks(blocks(copy.width, 4), 64), blocks(copy.height, 4), 1,
                              64, 4, 1, 0, nullptr, args, nullptr);
    if (vector_size && (copy.row == e || copy.row == -e))
        return CuLaunchKernel(kernels.transposed[e], blocks(copy.width, 32), blocks(copy.height, 32), 1, 32,
                              8, 1, 0, nullptr, args, nullptr);
    return CuLaunchKernel(kernels.gather, blocks(copy.width, 32), blocks(copy.height, 8), 1, 32, 8, 1, 0,
                          nullptr, args, nullptr);
}

Error refused(std::string message)
{
    return Error(ErrorCode::InvalidArgument, std::move(message));
}

} // namespace

bool available()
{
    static const bool loads = gst_cuda_load_library();
    return loads;
}

bool is_device_frame(GstBuffer *buffer)
{
    const guint n = gst_buffer_n_memory(buffer);
    for (guint i = 0; i < n; ++i) {
        if (!gst_is_cuda_memory(gst_buffer_peek_memory(buffer, i)))
            return false;
    }
    return n > 0;
}

namespace {

// What both entry points check of the view and its source: a strided view of one CUDA memory,
// inside it. The source memory on success.
Result<GstMemory *> checked_source(const FrameView &view, GstBuffer *source)
{
    if (!available())
        return Error(ErrorCode::UnsupportedDomain,
                     "the CUDA driver library is not available on this machine");
    if (!view.strided())
        return refused("this view of " + std::string(gst_video_format_to_string(view.format())) +
                       " has no stride form; CUDA frames materialize only strided views");
    if (gst_buffer_n_memory(source) != 1 || !is_device_frame(source))
        return refused("the source is not one CUDA device memory");
    if (Result<void> inside = view.check_bounds(source); !inside)
        return inside.error();
    return gst_buffer_peek_memory(source, 0);
}

// One kernel per plane of `view` from `src` into plane p at planes[p] + offsets[p], rows strides[p]
// apart, on `context` (pushed here); waited for with `wait`.
Result<void> launch_planes(const FrameView &view, GstCudaContext *context, CUdeviceptr src,
                           const CUdeviceptr planes[], const gsize offsets[], const gint strides[], bool wait)
{
    if (!gst_cuda_context_push(context))
        return Error(ErrorCode::MapFailed, "cannot make the CUDA context current");
    Result<void> result{};
    Result<const Kernels *> kernels = kernels_of_current_context(context);
    if (!kernels)
        result = kernels.error();
    for (unsigned p = 0; kernels && p < view.n_planes(); ++p) {
        const PlaneView &plane = view.plane(p);
        const PlaneCopy copy{
            plane.grid.origin, plane.grid.col,   plane.grid.row,    static_cast<long long>(offsets[p]),
            strides[p],        plane.grid.width, plane.grid.height, plane.element_size};
        if (CUresult r = launch(**kernels, copy, src, planes[p]); r != CUDA_SUCCESS) {
            result = failure("launching the materialize kernel", r);
            break;
        }
    }
    // GStreamer 1.22's CUDA memory carries no stream: the frame must be complete when the
    // next element maps it.
    if (CUresult r = wait ? CuStreamSynchronize(nullptr) : CUDA_SUCCESS; r != CUDA_SUCCESS && result)
        result = failure("waiting for the materialize kernel", r);
    CUcontext popped = nullptr;
    gst_cuda_context_pop(&popped);
    return result;
}

} // namespace

Result<void> materialize_into(const FrameView &view, GstBuffer *source, GstBuffer *destination, bool wait)
{
    Result<GstMemory *> checked = checked_source(view, source);
    if (!checked)
        return checked.error();
    if (gst_buffer_n_memory(destination) != 1 || !is_device_frame(destination))
        return refused("the destination is not one CUDA device memory");
    GstMemory *src_memory = *checked;
    GstMemory *dst_memory = gst_buffer_peek_memory(destination, 0);
    GstCudaContext *src_context = GST_CUDA_MEMORY_CAST(src_memory)->context;
    GstCudaContext *dst_context = GST_CUDA_MEMORY_CAST(dst_memory)->context;
    if (src_context != dst_context && device_of(src_context) != device_of(dst_context))
        return refused("the frame is on CUDA device " + std::to_string(device_of(src_context)) +
                       " but the output is on CUDA device " + std::to_string(device_of(dst_context)));
    const GstVideoInfo &out = GST_CUDA_MEMORY_CAST(dst_memory)->info;
    if (GST_VIDEO_INFO_FORMAT(&out) != view.format() ||
        GST_VIDEO_INFO_WIDTH(&out) != static_cast<gint>(view.width()) ||
        GST_VIDEO_INFO_HEIGHT(&out) != static_cast<gint>(view.height()))
        return refused("the destination is not a " + std::string(gst_video_format_to_string(view.format())) +
                       " " + std::to_string(view.width()) + "x" + std::to_string(view.height()) + " frame");

    GstMapInfo src_map, dst_map;
    if (!compat::cuda_map_for_reading(src_memory, &src_map))
        return Error(ErrorCode::MapFailed, "cannot map the source CUDA memory");
    if (!gst_memory_map(dst_memory, &dst_map, static_cast<GstMapFlags>(GST_MAP_WRITE | GST_MAP_CUDA))) {
        gst_memory_unmap(src_memory, &src_map);
        return Error(ErrorCode::MapFailed, "cannot map the destination CUDA memory");
    }
    CUdeviceptr planes[GST_VIDEO_MAX_PLANES];
    for (CUdeviceptr &plane : planes)
        plane = reinterpret_cast<CUdeviceptr>(dst_map.data);
    const Result<void> result = launch_planes(view, dst_context, reinterpret_cast<CUdeviceptr>(src_map.data),
                                              planes, out.offset, out.stride, wait);
    gst_memory_unmap(dst_memory, &dst_map);
    gst_memory_unmap(src_memory, &src_map);
    return result;
}

Result<void> materialize_into_planes(const FrameView &view, GstBuffer *source, gpointer context,
                                     const std::uint64_t planes[], const gint strides[], bool wait)
{
    Result<GstMemory *> checked = checked_source(view, source);
    if (!checked)
        return checked.error();
    GstCudaContext *dst_context = GST_CUDA_CONTEXT(context);
    GstCudaContext *src_context = GST_CUDA_MEMORY_CAST(*checked)->context;
    if (src_context != dst_context && device_of(src_context) != device_of(dst_context))
        return refused("the frame is on CUDA device " + std::to_string(device_of(src_context)) +
                       " but the output is on CUDA device " + std::to_string(device_of(dst_context)));
    GstMapInfo src_map;
    if (!compat::cuda_map_for_reading(*checked, &src_map))
        return Error(ErrorCode::MapFailed, "cannot map the source CUDA memory");
    CUdeviceptr destinations[GST_VIDEO_MAX_PLANES] = {};
    const gsize offsets[GST_VIDEO_MAX_PLANES] = {};
    for (unsigned p = 0; p < view.n_planes(); ++p)
        destinations[p] = static_cast<CUdeviceptr>(planes[p]);
    const Result<void> result = launch_planes(view, dst_context, reinterpret_cast<CUdeviceptr>(src_map.data),
                                              destinations, offsets, strides, wait);
    gst_memory_unmap(*checked, &src_map);
    return result;
}

} // namespace cuda

namespace {

class CudaBackend final : public detail::ViewBackend {
public:
    MemoryDomainKind domain() const override { return MemoryDomainKind::Cuda; }

    // Every strided format: packed 4:2:2 turned sideways has no stride form.
    bool supports_format(GstVideoFormat format) const override
    {
        return FrameView::supports_format(format) && !detail::is_packed_422(format);
    }

    std::optional<GstVideoInfo> memory_layout(GstBuffer *buffer, GstVideoFormat format) const override
    {
        if (gst_buffer_n_memory(buffer) != 1)
            return {};
        GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
        if (!gst_is_cuda_memory(memory))
            return {};
        const GstVideoInfo &info = GST_CUDA_MEMORY_CAST(memory)->info;
        if (GST_VIDEO_INFO_FORMAT(&info) != format)
            return {};
        return info;
    }

    // The destination's layout is its CUDA memory's own (the pool's pitch).
    Result<void> materialize(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                             const GstVideoInfo &, const WorkerPool *) const override
    {
        return cuda::materialize_into(view, source, destination);
    }
};

} // namespace

namespace platform::cuda {

bool recognises(GstMemory *memory)
{
    return gst_is_cuda_memory(memory);
}

const detail::ViewBackend *view_backend()
{
    static const CudaBackend backend;
    return &backend;
}

} // namespace platform::cuda
} // namespace g2g
