// SPDX-License-Identifier: LGPL-2.1-or-later
// TensorFrame: a frame's memory mapped once for as long as any tensor of it lives, its planes as
// strided tensors, and its dense copy (tensor/dlpack-export.cpp sends planes out as DLPack).
#include <g2g/tensor-frame.h>

#include <g2g/converters.h>
#include <g2g/cuda-view.h>
#include <g2g/memory-domain.h>
#include <g2g/tensor-view-meta.h>

#include <string>

#include "platform/platform.h"
#include "view/layout-check.h"

namespace g2g {
namespace {

Error invalid(std::string message)
{
    return Error(ErrorCode::InvalidArgument, std::move(message));
}

// The domains whose frames a tensor can address: host memory, and CUDA memory where this build and
// this machine run CUDA.
DomainSet addressable_domains()
{
    DomainSet domains{MemoryDomainKind::System, MemoryDomainKind::SystemView, MemoryDomainKind::DmaBuf};
    if (cuda::available())
        domains.insert(MemoryDomainKind::Cuda);
    return domains;
}

// Bytes of one component: 1 for 8-bit formats, 2 for deeper ones (10 bits live in 16).
std::uint32_t component_size_of(GstVideoFormat format)
{
    return GST_VIDEO_FORMAT_INFO_DEPTH(gst_video_format_get_info(format), 0) > 8 ? 2 : 1;
}

} // namespace

TensorFrame::TensorFrame(BufferRef buffer, MemoryDomainKind kind, FrameView view, bool is_copy)
    : buffer_(std::move(buffer)), kind_(kind), view_(std::move(view)), is_copy_(is_copy)
{
}

TensorFrame::~TensorFrame()
{
    for (GstMapInfo &map : maps_) {
        GstMemory *memory = map.memory;
        gst_memory_unmap(memory, &map);
        platform::dmabuf::end_cpu_read(memory);
    }
}

Result<std::shared_ptr<TensorFrame>> TensorFrame::of(GstBuffer *buffer, const GstVideoInfo &info,
                                                     std::string_view category)
{
    Result<MemoryDomain> domain = MemoryDomain::from_buffer(buffer);
    if (!domain)
        return domain.error();
    const MemoryDomainKind kind = domain->kind();
    if (!addressable_domains().contains(kind))
        return wrong_domain_error(category, addressable_domains(), kind);
    Result<FrameView> view = view_of_frame(buffer, info);
    if (!view)
        return Error(view.error().code(), std::string(category) + ": " + view.error().message());

    std::shared_ptr<TensorFrame> frame(new TensorFrame(domain->buffer_ref(), kind, std::move(*view), false));
    const bool on_device = kind == MemoryDomainKind::Cuda;
    for (guint i = 0, n = gst_buffer_n_memory(buffer); i < n; ++i) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, i);
        GstMapInfo map = GST_MAP_INFO_INIT;
        if (on_device) {
            if (!platform::cuda::map_device_pointer(memory, &map))
                return Error(ErrorCode::MapFailed, std::string(category) + " could not map CUDA memory " +
                                                       std::to_string(i) +
                                                       " of the frame for its device pointer");
            frame->device_id_ = platform::cuda::device_ordinal(memory);
        } else {
            platform::dmabuf::begin_cpu_read(memory);
            if (GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NOT_MAPPABLE) ||
                !gst_memory_map(memory, &map, GST_MAP_READ)) {
                platform::dmabuf::end_cpu_read(memory);
                // What a CPU reader is told about this memory (a tiled DMA-BUF says why).
                Result<SystemBytes> refusal = domain->require_system_slice(category);
                return refusal
                           ? Error(ErrorCode::MapFailed, std::string(category) + " could not map memory " +
                                                             std::to_string(i) + " of the frame")
                           : refusal.error();
            }
        }
        frame->maps_.push_back(map);
    }
    return frame;
}

Result<PlaneTensor> TensorFrame::plane(unsigned index) const
{
    if (index >= n_planes())
        return invalid("plane " + std::to_string(index) + " of a " +
                       gst_video_format_to_string(view_.format()) + " frame: it has " +
                       std::to_string(n_planes()) + (n_planes() == 1 ? " plane" : " planes"));
    if (!strided())
        return invalid(std::string("this view of ") + gst_video_format_to_string(view_.format()) +
                       " has no stride form (packed 4:2:2 moved sideways): its planes exist only in its "
                       "dense copy");
    const PlaneView &source = view_.plane(index);
    PlaneTensor tensor;
    tensor.device = kind_ == MemoryDomainKind::Cuda ? TensorDevice::Cuda : TensorDevice::Cpu;
    tensor.device_id = device_id_;
    tensor.rows = source.grid.height;
    tensor.columns = source.grid.width;
    tensor.component_size = component_size_of(view_.format());
    tensor.components = source.element_size / tensor.component_size;
    tensor.little_endian =
        tensor.component_size == 1 || GST_VIDEO_FORMAT_INFO_IS_LE(gst_video_format_get_info(view_.format()));
    tensor.row_stride = source.grid.row;
    tensor.column_stride = source.grid.col;
    tensor.memory_index = source.memory_index;
    tensor.offset = source.grid.origin;
    tensor.data = maps_.at(source.memory_index).data + source.grid.origin;
    return tensor;
}

Result<std::shared_ptr<const TensorFrame>> TensorFrame::dense() const
{
    if (is_copy_)
        return shared_from_this();
    std::lock_guard<std::mutex> lock(dense_lock_);
    if (!dense_) {
        Result<std::shared_ptr<const TensorFrame>> written = write_dense();
        if (!written)
            return written.error();
        dense_ = std::move(*written);
    }
    return dense_;
}

Result<std::shared_ptr<const TensorFrame>> TensorFrame::write_dense() const
{
    Result<BufferRef> written = kind_ == MemoryDomainKind::Cuda
                                    ? platform::cuda::dense_frame(view_, buffer_.get())
                                    : view_.materialize(buffer_.get());
    if (!written)
        return Error(written.error().code(),
                     "could not write the frame densely: " + written.error().message());
    Result<std::shared_ptr<TensorFrame>> copy = of(written->get(), view_.info(), "the dense copy");
    if (!copy)
        return copy.error();
    (*copy)->is_copy_ = true;
    return std::shared_ptr<const TensorFrame>(std::move(*copy));
}

Result<void> TensorFrame::materialize_into(void *const dst[], const gint dst_stride[], const gsize dst_size[],
                                           unsigned n_threads) const
{
    if (Result<void> fits = detail::check_destination("TensorFrame::materialize_into", view_.info(), dst,
                                                      dst_stride, dst_size);
        !fits)
        return fits;
    if (kind_ == MemoryDomainKind::Cuda)
        return platform::cuda::materialize_into_device(view_, buffer_.get(), dst, dst_stride);
    return view_.materialize_into(buffer_.get(), reinterpret_cast<guint8 *const *>(dst), dst_stride,
                                  n_threads);
}

} // namespace g2g
