#include "g2gmaterialize.h"

#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include "common/allocation.h"
#include "common/cuda-context.h"
#include "view-caps.h"
#include "view-output.h"

GST_DEBUG_CATEGORY_STATIC(g2g_materialize_debug);
#define GST_CAT_DEFAULT g2g_materialize_debug

struct _G2gMaterialize {
    GstBaseTransform parent;
    GstVideoInfo *out_info;             // negotiated output geometry (streaming thread)
    g2g::element::CudaContextUse *cuda; // the pipeline's CUDA context, for CUDA frames
};

G_DEFINE_TYPE(G2gMaterialize, g2g_materialize, GST_TYPE_BASE_TRANSFORM)

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

static gboolean g2g_materialize_transform_meta(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
                                               GstBuffer *inbuf)
{
    if (g2g::element::describes_geometry(meta->info->api))
        return FALSE;
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)->transform_meta(trans, outbuf, meta, inbuf);
}

static GstFlowReturn g2g_materialize_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    const g2g::FrameView *view = g2g::tensor_view_of(inbuf);
    if (!view) {
        // View caps but a plain frame (or a GstVideoMeta / crop meta one): its identity view.
        g2g::Result<g2g::FrameView> identity = g2g::FrameView::of_frame(inbuf, *self->out_info);
        if (!identity) {
            GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("%s", identity.error().message().c_str()), (nullptr));
            return GST_FLOW_ERROR;
        }
        return g2g::element::write_dense(GST_ELEMENT(self), *identity, inbuf, self->out_info, outbuf);
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
    return g2g::element::write_dense(GST_ELEMENT(self), *view, inbuf, self->out_info, outbuf);
}

static gboolean g2g_materialize_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    // CUDA output is written by a kernel into frames of a CUDA pool, configured here, whole (the
    // default would hand the pool downstream's system allocator).
    if (g2g::element::allocation_domain(query) == g2g::MemoryDomainKind::Cuda)
        return G2G_MATERIALIZE(trans)->cuda->decide_pool(GST_ELEMENT(trans), query);
    if (g2g::element::decide_line_aligned_pool(query))
        return TRUE;
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)->decide_allocation(trans, query);
}

static g2g::element::CudaContextUse &cuda_of(GstBaseTransform *trans)
{
    return *G2G_MATERIALIZE(trans)->cuda;
}

static void g2g_materialize_finalize(GObject *object)
{
    delete G2G_MATERIALIZE(object)->cuda;
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
        "cache-blocked pass (CUDA frames: one kernel, in device memory); dense frames pass through untouched",
        "g2g developers");
    // Views or dense frames in, dense frames out, in every domain this build has a view backend for.
    const g2g::CapsRef sink_caps = g2g::CapsRef::adopt(g2g::caps::template_caps(true, true));
    const g2g::CapsRef src_caps = g2g::CapsRef::adopt(g2g::caps::template_caps(false, true));
    gst_element_class_add_pad_template(element_class,
                                       gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink_caps.get()));
    gst_element_class_add_pad_template(element_class,
                                       gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, src_caps.get()));

    transform_class->transform_caps = g2g_materialize_transform_caps;
    transform_class->set_caps = g2g_materialize_set_caps;
    transform_class->transform_size = g2g::element::frame_size_of_caps;
    transform_class->transform = g2g_materialize_transform;
    transform_class->transform_meta = g2g_materialize_transform_meta;
    transform_class->passthrough_on_same_caps = FALSE;
    transform_class->decide_allocation = g2g_materialize_decide_allocation;
    g2g::element::install_cuda_glue<cuda_of>(transform_class);

    GST_DEBUG_CATEGORY_INIT(g2g_materialize_debug, "g2gmaterialize", 0, "g2g materialize");
}

static void g2g_materialize_init(G2gMaterialize *self)
{
    self->out_info = g_new0(GstVideoInfo, 1);
    self->cuda = new g2g::element::CudaContextUse();
}
