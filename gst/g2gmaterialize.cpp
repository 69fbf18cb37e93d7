#include "g2gmaterialize.h"

#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include "view-caps.h"

GST_DEBUG_CATEGORY_STATIC(g2g_materialize_debug);
#define GST_CAT_DEFAULT g2g_materialize_debug

struct _G2gMaterialize {
    GstBaseTransform parent;
    GstVideoInfo *out_info; // negotiated output geometry (streaming thread)
};

G_DEFINE_TYPE(G2gMaterialize, g2g_materialize, GST_TYPE_BASE_TRANSFORM)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE_WITH_FEATURES(
        G2G_VIEW_FEATURES, G2G_VIEW_FORMATS) ";" GST_VIDEO_CAPS_MAKE(G2G_VIEW_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(G2G_VIEW_FORMATS)));

static GstCaps *g2g_materialize_transform_caps(GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                               GstCaps *filter)
{
    // Same format and size on both sides; only the view feature goes away.
    GstCaps *result =
        direction == GST_PAD_SINK ? g2g::caps::without_view(caps) : g2g::caps::with_and_without_view(caps);
    if (filter) {
        GstCaps *filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(result);
        result = filtered;
    }
    return result;
}

static gboolean g2g_materialize_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    if (!gst_video_info_from_caps(self->out_info, outcaps))
        return FALSE;
    // Dense in, dense out: nothing to do, not even a buffer.
    gst_base_transform_set_passthrough(trans, !g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0)));
    return TRUE;
}

// The output is one frame of the output caps, whatever the input buffer holds (a view's buffer
// carries the memory it reads, not a frame of the input caps' size).
static gboolean g2g_materialize_transform_size(GstBaseTransform *, GstPadDirection, GstCaps *, gsize,
                                               GstCaps *othercaps, gsize *othersize)
{
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, othercaps))
        return FALSE;
    *othersize = GST_VIDEO_INFO_SIZE(&info);
    return TRUE;
}

static gboolean g2g_materialize_transform_meta(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
                                               GstBuffer *inbuf)
{
    const GType api = meta->info->api;
    if (api == G2G_TENSOR_VIEW_META_API_TYPE || api == GST_PARENT_BUFFER_META_API_TYPE ||
        api == GST_VIDEO_META_API_TYPE || api == GST_VIDEO_CROP_META_API_TYPE)
        return FALSE;
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)->transform_meta(trans, outbuf, meta, inbuf);
}

static GstFlowReturn g2g_materialize_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    const g2g::FrameView *view = g2g::tensor_view_of(inbuf);
    if (!view) {
        // View caps but a plain frame: it is dense already.
        GstVideoFrame in_frame, out_frame;
        if (!gst_video_frame_map(&in_frame, self->out_info, inbuf, GST_MAP_READ))
            return GST_FLOW_ERROR;
        if (!gst_video_frame_map(&out_frame, self->out_info, outbuf, GST_MAP_WRITE)) {
            gst_video_frame_unmap(&in_frame);
            return GST_FLOW_ERROR;
        }
        gst_video_frame_copy(&out_frame, &in_frame);
        gst_video_frame_unmap(&out_frame);
        gst_video_frame_unmap(&in_frame);
        return GST_FLOW_OK;
    }
    if (view->format() != GST_VIDEO_INFO_FORMAT(self->out_info) ||
        view->width() != static_cast<guint>(GST_VIDEO_INFO_WIDTH(self->out_info)) ||
        view->height() != static_cast<guint>(GST_VIDEO_INFO_HEIGHT(self->out_info))) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                          ("the frame's view is %s %ux%u but the caps say %s %dx%d",
                           gst_video_format_to_string(view->format()), view->width(), view->height(),
                           GST_VIDEO_INFO_NAME(self->out_info), GST_VIDEO_INFO_WIDTH(self->out_info),
                           GST_VIDEO_INFO_HEIGHT(self->out_info)),
                          (nullptr));
        return GST_FLOW_ERROR;
    }
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, self->out_info, outbuf, GST_MAP_WRITE))
        return GST_FLOW_ERROR;
    guint8 *planes[GST_VIDEO_MAX_PLANES];
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p)
        planes[p] = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    g2g::Result<void> written = view->materialize_into(inbuf, planes, frame.info.stride);
    gst_video_frame_unmap(&frame);
    if (!written) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("%s", written.error().message().c_str()), (nullptr));
        return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
}

static void g2g_materialize_finalize(GObject *object)
{
    g_free(G2G_MATERIALIZE(object)->out_info);
    G_OBJECT_CLASS(g2g_materialize_parent_class)->finalize(object);
}

static void g2g_materialize_class_init(G2gMaterializeClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);
    object_class->finalize = g2g_materialize_finalize;

    gst_element_class_set_static_metadata(
        element_class, "g2g materialize", "Filter/Converter/Video",
        "Writes a frame view (meta:G2gTensorView) out as the dense frame in one "
        "cache-blocked pass; dense frames pass through untouched",
        "g2g developers");
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);

    transform_class->transform_caps = g2g_materialize_transform_caps;
    transform_class->set_caps = g2g_materialize_set_caps;
    transform_class->transform_size = g2g_materialize_transform_size;
    transform_class->transform = g2g_materialize_transform;
    transform_class->transform_meta = g2g_materialize_transform_meta;
    transform_class->passthrough_on_same_caps = FALSE;

    GST_DEBUG_CATEGORY_INIT(g2g_materialize_debug, "g2gmaterialize", 0, "g2g materialize");
}

static void g2g_materialize_init(G2gMaterialize *self)
{
    self->out_info = g_new0(GstVideoInfo, 1);
}
