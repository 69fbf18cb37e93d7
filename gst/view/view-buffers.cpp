// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-buffers.h"

#include <g2g/tensor-view-meta.h>

#include <utility>

namespace g2g::element {

BufferRef crop_meta_buffer(GstBuffer *input, const GstVideoInfo &in_info, const Geometry &g,
                           const GstVideoInfo &out_info, bool describe_layout)
{
    BufferRef output = BufferRef::adopt(gst_buffer_copy(input)); // metadata copy; the memory is shared
    if (describe_layout && !gst_buffer_get_video_meta(output.get())) {
        gst_buffer_add_video_meta_full(output.get(), GST_VIDEO_FRAME_FLAG_NONE,
                                       GST_VIDEO_INFO_FORMAT(&in_info), GST_VIDEO_INFO_WIDTH(&in_info),
                                       GST_VIDEO_INFO_HEIGHT(&in_info), GST_VIDEO_INFO_N_PLANES(&in_info),
                                       const_cast<gsize *>(in_info.offset),
                                       const_cast<gint *>(in_info.stride));
    }
    GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(output.get());
    if (!crop) {
        crop = gst_buffer_add_video_crop_meta(output.get());
        crop->x = crop->y = 0;
    }
    crop->x += g.left;
    crop->y += g.top;
    crop->width = GST_VIDEO_INFO_WIDTH(&out_info);
    crop->height = GST_VIDEO_INFO_HEIGHT(&out_info);
    return output;
}

Result<FrameView> compose_view(GstBuffer *input, const GstVideoInfo &in_info, const Geometry &g)
{
    const FrameView *incoming = tensor_view_of(input);
    Result<FrameView> view = incoming ? Result<FrameView>(*incoming) : FrameView::of_frame(input, in_info);
    if (!view)
        return view;
    if (g.crops()) {
        Result<void> cropped =
            view->crop(g.left, g.top, view->width() - g.left - g.right, view->height() - g.top - g.bottom);
        if (!cropped)
            return cropped.error();
    }
    view->orient(g.method);
    return view;
}

Result<void> attach_materialized(GstBuffer *output, const FrameView &view, GstBuffer *input,
                                 const WorkerPool *workers)
{
    Result<BufferRef> dense = workers ? view.materialize(input, *workers) : view.materialize(input);
    if (!dense)
        return dense.error();
    Result<FrameView> identity = FrameView::of_frame(dense->get(), view.info());
    if (!identity)
        return identity.error();
    gst_buffer_remove_all_memory(output);
    gst_buffer_copy_into(output, dense->get(), GST_BUFFER_COPY_MEMORY, 0, static_cast<gsize>(-1));
    attach_tensor_view(output, std::move(*identity));
    return {};
}

} // namespace g2g::element
