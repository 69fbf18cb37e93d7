// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/tensor-view-meta.h>

#include <string>

struct _G2gTensorViewMeta {
    GstMeta meta;
    g2g::FrameView *view;
};

namespace {

gboolean meta_init(GstMeta *meta, gpointer, GstBuffer *)
{
    reinterpret_cast<G2gTensorViewMeta *>(meta)->view = nullptr;
    return TRUE;
}

void meta_free(GstMeta *meta, GstBuffer *)
{
    auto *self = reinterpret_cast<G2gTensorViewMeta *>(meta);
    delete self->view;
    self->view = nullptr;
}

gboolean meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *source, GQuark type, gpointer data)
{
    if (!GST_META_TRANSFORM_IS_COPY(type))
        return FALSE; // any other transform changes what the memory holds: the view is gone
    auto *copy = static_cast<GstMetaTransformCopy *>(data);
    // The view names memories by index and offset: it survives a copy of the whole buffer only.
    if (copy->region && (copy->offset != 0 || copy->size != gst_buffer_get_size(source)))
        return TRUE;
    const auto *self = reinterpret_cast<G2gTensorViewMeta *>(meta);
    if (self->view)
        g2g::attach_tensor_view(dest, *self->view);
    return TRUE;
}

} // namespace

extern "C" GType g2g_tensor_view_meta_api_get_type(void)
{
    static GType type = [] {
        static const gchar *tags[] = {GST_META_TAG_MEMORY_STR, GST_META_TAG_VIDEO_STR, nullptr};
        return gst_meta_api_type_register("G2gTensorViewMetaAPI", tags);
    }();
    return type;
}

extern "C" const GstMetaInfo *g2g_tensor_view_meta_get_info(void)
{
    static const GstMetaInfo *info =
        gst_meta_register(G2G_TENSOR_VIEW_META_API_TYPE, "G2gTensorViewMeta", sizeof(G2gTensorViewMeta),
                          meta_init, meta_free, meta_transform);
    return info;
}

namespace g2g {

const FrameView *tensor_view_of(GstBuffer *buffer)
{
    auto *meta =
        reinterpret_cast<G2gTensorViewMeta *>(gst_buffer_get_meta(buffer, G2G_TENSOR_VIEW_META_API_TYPE));
    return meta ? meta->view : nullptr;
}

Result<const FrameView *> view_of_view_caps_frame(GstBuffer *buffer, std::string_view reader)
{
    if (const FrameView *carried = buffer ? tensor_view_of(buffer) : nullptr)
        return carried;
    return Error(ErrorCode::InvalidArgument,
                 std::string(reader) +
                     " received a frame in view caps (" G2G_CAPS_FEATURE_META_TENSOR_VIEW
                     ") without its G2gTensorViewMeta: an element upstream dropped the view "
                     "(unixfdsink and every element that does not declare " G2G_CAPS_FEATURE_META_TENSOR_VIEW
                     " lose it), so its bytes are not the frame its caps describe; insert "
                     "g2gmaterialize before that element");
}

Result<FrameView> view_of_frame(GstBuffer *buffer, const GstVideoInfo &info)
{
    const FrameView *carried = buffer ? tensor_view_of(buffer) : nullptr;
    Result<FrameView> view = carried ? Result<FrameView>(*carried) : FrameView::of_frame(buffer, info);
    if (!view)
        return view;
    // A carried view was checked against the memory it was made of; the buffer may hold other,
    // smaller memory now (an element replaced it and kept the meta): every reader checks again here.
    if (carried) {
        if (Result<void> inside = view->check_bounds(buffer); !inside)
            return inside.error();
    }
    if (view->format() != GST_VIDEO_INFO_FORMAT(&info) ||
        view->width() != static_cast<std::uint32_t>(GST_VIDEO_INFO_WIDTH(&info)) ||
        view->height() != static_cast<std::uint32_t>(GST_VIDEO_INFO_HEIGHT(&info)))
        return Error(ErrorCode::InvalidArgument,
                     std::string("the buffer's ") + (carried ? "view" : "frame") + " is " +
                         gst_video_format_to_string(view->format()) + " " + std::to_string(view->width()) +
                         "x" + std::to_string(view->height()) + " but the video info says " +
                         GST_VIDEO_INFO_NAME(&info) + " " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) +
                         "x" + std::to_string(GST_VIDEO_INFO_HEIGHT(&info)));
    return view;
}

void attach_tensor_view(GstBuffer *buffer, FrameView view)
{
    auto *meta =
        reinterpret_cast<G2gTensorViewMeta *>(gst_buffer_get_meta(buffer, G2G_TENSOR_VIEW_META_API_TYPE));
    if (!meta)
        meta = reinterpret_cast<G2gTensorViewMeta *>(
            gst_buffer_add_meta(buffer, g2g_tensor_view_meta_get_info(), nullptr));
    delete meta->view;
    meta->view = new FrameView(std::move(view));
    while (GstMeta *video = gst_buffer_get_meta(buffer, GST_VIDEO_META_API_TYPE))
        gst_buffer_remove_meta(buffer, video);
    while (GstMeta *crop = gst_buffer_get_meta(buffer, GST_VIDEO_CROP_META_API_TYPE))
        gst_buffer_remove_meta(buffer, crop);
}

} // namespace g2g
