// SPDX-License-Identifier: LGPL-2.1-or-later
// The C API of frames for applications (g2g/frame.h, g2g/dlpack.h) over g2g::TensorFrame.
#include <g2g/dlpack.h>
#include <g2g/frame.h>
#include <g2g/tensor-frame.h>
#include <g2g/tensor-view-meta.h>

#include <atomic>
#include <string>

#include "core/c-api-error.h"
#include "core/caps-video-info.h"
#include "view/layout-check.h"

using g2g::detail::set_error;

// A reference-counted handle on the C++ frame; tensors made of it hold the frame itself, so they
// outlive the last G2gFrame reference as they must.
struct _G2gFrame {
    std::atomic<int> refs{1};
    std::shared_ptr<const g2g::TensorFrame> frame;
};

namespace {

G2gFrame *wrap(std::shared_ptr<const g2g::TensorFrame> frame)
{
    auto *handle = new G2gFrame;
    handle->frame = std::move(frame);
    return handle;
}

G2gPlaneLayout *copy_layout(const G2gPlaneLayout *layout)
{
    return static_cast<G2gPlaneLayout *>(g_memdup2(layout, sizeof *layout));
}

// What a G2gTensorExportFlags asks, or an error for flags that contradict each other.
g2g::Result<g2g::TensorExport> export_options(G2gTensorExportFlags flags)
{
    const bool never = flags & G2G_TENSOR_EXPORT_NEVER_COPY;
    const bool always = flags & G2G_TENSOR_EXPORT_ALWAYS_COPY;
    if (never && always)
        return g2g::Error(
            g2g::ErrorCode::InvalidArgument,
            "G2G_TENSOR_EXPORT_NEVER_COPY and G2G_TENSOR_EXPORT_ALWAYS_COPY exclude each other");
    using Copy = g2g::TensorExport::Copy;
    return g2g::TensorExport{never    ? Copy::Never
                             : always ? Copy::Always
                                      : Copy::IfNeeded,
                             (flags & G2G_TENSOR_EXPORT_KEEP_NEGATIVE_STRIDES) != 0};
}

// Plane `plane` of `frame` through `to_tensor` (one of TensorFrame's DLPack exports).
template <typename Tensor, typename Export>
Tensor *plane_to_dlpack(G2gFrame *frame, guint plane, G2gTensorExportFlags flags, GError **error,
                        Export to_tensor)
{
    g_return_val_if_fail(frame, nullptr);
    g2g::Result<g2g::TensorExport> options = export_options(flags);
    if (!options) {
        set_error(error, options.error());
        return nullptr;
    }
    g2g::Result<Tensor *> tensor = to_tensor(*frame->frame, plane, *options);
    if (!tensor) {
        set_error(error, tensor.error());
        return nullptr;
    }
    return *tensor;
}

} // namespace

extern "C" {

G_DEFINE_BOXED_TYPE(G2gFrame, g2g_frame, g2g_frame_ref, g2g_frame_unref)
G_DEFINE_BOXED_TYPE(G2gPlaneLayout, g2g_plane_layout, copy_layout, g_free)

GType g2g_device_type_get_type(void)
{
    static const GEnumValue values[] = {
        {G2G_DEVICE_TYPE_CPU, "G2G_DEVICE_TYPE_CPU", "cpu"},
        {G2G_DEVICE_TYPE_CUDA, "G2G_DEVICE_TYPE_CUDA", "cuda"},
        {0, nullptr, nullptr},
    };
    static GType type = g_enum_register_static("G2gDeviceType", values);
    return type;
}

G2gFrame *g2g_frame_new(GstBuffer *buffer, GstCaps *caps, GError **error)
{
    if (!buffer) {
        set_error(error,
                  g2g::Error(g2g::ErrorCode::InvalidArgument, "g2g_frame_new needs a buffer, got none"));
        return nullptr;
    }
    g2g::Result<GstVideoInfo> info = g2g::detail::video_info_of_caps("g2g_frame_new", caps);
    if (!info) {
        set_error(error, info.error());
        return nullptr;
    }
    // View caps describe the view, not the bytes: a frame that lost its view is no frame of them.
    const GstCapsFeatures *features = gst_caps_get_features(caps, 0);
    if (features && !gst_caps_features_is_any(features) &&
        gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW)) {
        if (const auto carried = g2g::view_of_view_caps_frame(buffer, "g2g_frame_new"); !carried) {
            set_error(error, carried.error());
            return nullptr;
        }
    }
    g2g::Result<std::shared_ptr<g2g::TensorFrame>> frame =
        g2g::TensorFrame::of(buffer, *info, "g2g_frame_new");
    if (!frame) {
        set_error(error, frame.error());
        return nullptr;
    }
    return wrap(std::move(*frame));
}

G2gFrame *g2g_frame_ref(G2gFrame *frame)
{
    g_return_val_if_fail(frame, nullptr);
    frame->refs.fetch_add(1, std::memory_order_relaxed);
    return frame;
}

void g2g_frame_unref(G2gFrame *frame)
{
    g_return_if_fail(frame);
    if (frame->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        delete frame;
}

GstBuffer *g2g_frame_get_buffer(G2gFrame *frame)
{
    g_return_val_if_fail(frame, nullptr);
    return frame->frame->buffer();
}

G2gMemoryDomainKind g2g_frame_get_memory_domain(G2gFrame *frame)
{
    g_return_val_if_fail(frame, G2G_MEMORY_DOMAIN_SYSTEM);
    return static_cast<G2gMemoryDomainKind>(frame->frame->kind());
}

GstVideoFormat g2g_frame_get_format(G2gFrame *frame)
{
    g_return_val_if_fail(frame, GST_VIDEO_FORMAT_UNKNOWN);
    return frame->frame->view().format();
}

guint g2g_frame_get_width(G2gFrame *frame)
{
    g_return_val_if_fail(frame, 0);
    return frame->frame->view().width();
}

guint g2g_frame_get_height(G2gFrame *frame)
{
    g_return_val_if_fail(frame, 0);
    return frame->frame->view().height();
}

guint g2g_frame_get_n_planes(G2gFrame *frame)
{
    g_return_val_if_fail(frame, 0);
    return frame->frame->n_planes();
}

gboolean g2g_frame_is_strided(G2gFrame *frame)
{
    g_return_val_if_fail(frame, FALSE);
    return frame->frame->strided();
}

gboolean g2g_frame_is_copy(G2gFrame *frame)
{
    g_return_val_if_fail(frame, FALSE);
    return frame->frame->is_copy();
}

gboolean g2g_frame_get_plane(G2gFrame *frame, guint plane, G2gPlaneLayout *layout, GError **error)
{
    g_return_val_if_fail(frame && layout, FALSE);
    g2g::Result<g2g::PlaneTensor> tensor = frame->frame->plane(plane);
    if (!tensor)
        return set_error(error, tensor.error());
    *layout = {reinterpret_cast<guintptr>(tensor->data),
               static_cast<G2gDeviceType>(tensor->device),
               tensor->device_id,
               tensor->rows,
               tensor->columns,
               tensor->components,
               tensor->component_size,
               tensor->little_endian,
               tensor->row_stride,
               tensor->column_stride,
               tensor->memory_index,
               tensor->offset};
    return TRUE;
}

G2gFrame *g2g_frame_dense(G2gFrame *frame, GError **error)
{
    g_return_val_if_fail(frame, nullptr);
    g2g::Result<std::shared_ptr<const g2g::TensorFrame>> dense = frame->frame->dense();
    if (!dense) {
        set_error(error, dense.error());
        return nullptr;
    }
    return wrap(std::move(*dense));
}

gboolean g2g_frame_materialize_into(G2gFrame *frame, const guintptr *dst, const gint *dst_stride,
                                    const gsize *dst_size, guint n_planes, guint n_threads, GError **error)
{
    g_return_val_if_fail(frame, FALSE);
    if (!dst || !dst_stride || !dst_size || n_planes != frame->frame->n_planes())
        return set_error(
            error,
            g2g::Error(g2g::ErrorCode::InvalidArgument,
                       "g2g_frame_materialize_into needs a destination, a stride and a size for each of "
                       "the frame's " +
                           std::to_string(frame->frame->n_planes()) + " planes, got " +
                           std::to_string(n_planes)));
    void *planes[GST_VIDEO_MAX_PLANES] = {};
    for (guint p = 0; p < n_planes; ++p)
        planes[p] = reinterpret_cast<void *>(dst[p]);
    // The check TensorFrame::materialize_into makes, in this function's name.
    if (g2g::Result<void> fits = g2g::detail::check_destination(
            "g2g_frame_materialize_into", frame->frame->view().info(), planes, dst_stride, dst_size);
        !fits)
        return set_error(error, fits.error());
    g2g::Result<void> written = frame->frame->materialize_into(planes, dst_stride, dst_size, n_threads);
    return written ? TRUE : set_error(error, written.error());
}

DLManagedTensor *g2g_frame_plane_to_dlpack(G2gFrame *frame, guint plane, G2gTensorExportFlags flags,
                                           GError **error)
{
    return plane_to_dlpack<DLManagedTensor>(
        frame, plane, flags, error, [](const g2g::TensorFrame &f, guint p, const g2g::TensorExport &options) {
            return f.to_dlpack(p, options);
        });
}

G2gDLManagedTensorVersioned *g2g_frame_plane_to_dlpack_versioned(G2gFrame *frame, guint plane,
                                                                 G2gTensorExportFlags flags, GError **error)
{
    return plane_to_dlpack<G2gDLManagedTensorVersioned>(
        frame, plane, flags, error, [](const g2g::TensorFrame &f, guint p, const g2g::TensorExport &options) {
            return f.to_dlpack_versioned(p, options);
        });
}

} // extern "C"
