// SPDX-License-Identifier: LGPL-2.1-or-later
// A plane of a TensorFrame as DLPack: DLManagedTensor (0.6, Debian's dlpack.h) or DLPack 1.0's
// versioned tensor (g2g/dlpack-versioned.h), each holding the frame it points into until its
// deleter runs. Strides go out in elements, data points at element (0, 0) and byte_offset is 0
// (PyTorch 1.13 ignores byte_offset).
#include <g2g/tensor-frame.h>

#include <string>

namespace g2g {
namespace {

// What a tensor's manager_ctx holds: the frame (its buffer and mappings) and the shape and strides
// the DLTensor points at.
template <typename Managed> struct Exported {
    std::shared_ptr<const TensorFrame> frame;
    std::int64_t shape[3] = {};
    std::int64_t strides[3] = {};
    Managed managed{};
};

template <typename Managed> void delete_exported(Managed *self)
{
    delete static_cast<Exported<Managed> *>(self->manager_ctx);
}

// Plane `index` of `frame` as a DLTensor inside a new Exported.
template <typename Managed>
Result<Exported<Managed> *> export_plane(std::shared_ptr<const TensorFrame> frame, unsigned index)
{
    Result<PlaneTensor> plane = frame->plane(index);
    if (!plane)
        return plane.error();
    const char *format = gst_video_format_to_string(frame->view().format());
    if (!plane->little_endian)
        return Error(
            ErrorCode::InvalidArgument,
            std::string("DLPack has no byte order and its consumers read this machine's: the big-endian "
                        "components of ") +
                format + " would be misread (videoconvert to the little-endian format first)");
    const std::int64_t unit = plane->component_size;
    if (plane->row_stride % unit != 0 || plane->column_stride % unit != 0)
        return Error(ErrorCode::InvalidArgument, "plane " + std::to_string(index) + " of this " + format +
                                                     " frame has strides that are not whole " +
                                                     std::to_string(unit) + "-byte components");

    auto *exported = new Exported<Managed>;
    exported->frame = std::move(frame);
    exported->shape[0] = plane->rows;
    exported->shape[1] = plane->columns;
    exported->shape[2] = plane->components;
    exported->strides[0] = plane->row_stride / unit;
    exported->strides[1] = plane->column_stride / unit;
    exported->strides[2] = 1;

    DLTensor &tensor = exported->managed.dl_tensor;
    tensor.data = plane->data;
    tensor.device = {static_cast<DLDeviceType>(plane->device), plane->device_id};
    tensor.ndim = static_cast<int>(plane->ndim());
    tensor.dtype = {static_cast<std::uint8_t>(kDLUInt), static_cast<std::uint8_t>(8 * unit), 1};
    tensor.shape = exported->shape;
    tensor.strides = exported->strides;
    tensor.byte_offset = 0;
    exported->managed.manager_ctx = exported;
    exported->managed.deleter = delete_exported<Managed>;
    return exported;
}

} // namespace

Result<TensorFrame::Export> TensorFrame::exported_frame(unsigned index, const TensorExport &options) const
{
    if (index >= n_planes())
        return plane(index).error();
    using Copy = TensorExport::Copy;
    // A copy the consumer asked for is its own: not shared with any other export, so writable.
    if (options.copy == Copy::Always) {
        Result<std::shared_ptr<const TensorFrame>> own = write_dense();
        if (!own)
            return own.error();
        return Export{std::move(*own), Export::Source::OwnCopy};
    }
    const PlaneView &plane = view_.plane(index);
    const bool negative = plane.grid.row < 0 || plane.grid.col < 0;
    if (strided() && (!negative || options.keep_negative_strides))
        return Export{shared_from_this(), Export::Source::Frame};
    const std::string why = strided()
                                ? "has negative strides (a flipped or rotated view), which the consumer "
                                  "was not said to read"
                                : "has no stride form (packed 4:2:2 moved sideways)";
    if (options.copy == Copy::Never)
        return Error(ErrorCode::InvalidArgument,
                     "plane " + std::to_string(index) + " of this " +
                         gst_video_format_to_string(view_.format()) + " view " + why +
                         ": only a copy can go out, and the consumer asked for none");
    Result<std::shared_ptr<const TensorFrame>> shared = dense();
    if (!shared)
        return shared.error();
    return Export{std::move(*shared), Export::Source::SharedCopy};
}

Result<DLManagedTensor *> TensorFrame::to_dlpack(unsigned index, const TensorExport &options) const
{
    Result<Export> frame = exported_frame(index, options);
    if (!frame)
        return frame.error();
    Result<Exported<DLManagedTensor> *> exported =
        export_plane<DLManagedTensor>(std::move(frame->frame), index);
    if (!exported)
        return exported.error();
    return &(*exported)->managed;
}

Result<G2gDLManagedTensorVersioned *> TensorFrame::to_dlpack_versioned(unsigned index,
                                                                       const TensorExport &options) const
{
    Result<Export> frame = exported_frame(index, options);
    if (!frame)
        return frame.error();
    const Export::Source source = frame->source;
    Result<Exported<G2gDLManagedTensorVersioned> *> exported =
        export_plane<G2gDLManagedTensorVersioned>(std::move(frame->frame), index);
    if (!exported)
        return exported.error();
    G2gDLManagedTensorVersioned &managed = (*exported)->managed;
    managed.version = {G2G_DLPACK_MAJOR_VERSION, G2G_DLPACK_MINOR_VERSION};
    // A frame's memory, and the dense copy every export of it shares, are read-only: the frame may
    // be in other branches too, or back in its pool. Only a copy made for this tensor alone is not.
    managed.flags = source == Export::Source::OwnCopy ? G2G_DLPACK_FLAG_IS_COPIED
                    : source == Export::Source::SharedCopy
                        ? G2G_DLPACK_FLAG_READ_ONLY | G2G_DLPACK_FLAG_IS_COPIED
                        : G2G_DLPACK_FLAG_READ_ONLY;
    return &managed;
}

} // namespace g2g
