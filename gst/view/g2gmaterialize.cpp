// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gmaterialize: writes a frame view (meta:G2gTensorView) out as the dense frame in one pass
// (CUDA frames: one kernel, in device memory), for peers that read dense frames only; dense
// frames pass through untouched, not even a new buffer.
//
//   gst-launch-1.0 videotestsrc ! g2gview video-direction=vert ! g2gmaterialize ! fakesink
//
// No properties: the negotiated output layout and the CUDA context are all its state.
#include "g2gmaterialize.h"

#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include "common/allocation.h"
#include "common/cuda-context.h"
#include "common/element-error.h"
#include "view-caps.h"
#include "view-output.h"

GST_DEBUG_CATEGORY_STATIC(g2g_materialize_debug);
#define GST_CAT_DEFAULT g2g_materialize_debug

using g2g::element::post_error;

namespace {

// What negotiation decided. Streaming thread only (set_caps, decide_allocation, transform).
struct MaterializeState {
    GstVideoInfo out_info{}; // the dense layout written
    // The pipeline's CUDA context, for CUDA frames (a kernel writes them).
    g2g::element::CudaContextUse cuda;
};

} // namespace

struct _G2gMaterialize {
    GstBaseTransform parent;
    MaterializeState *state;
};

G_DEFINE_TYPE(G2gMaterialize, g2g_materialize, GST_TYPE_BASE_TRANSFORM)

// ---- Negotiation ----

static GstCaps *g2g_materialize_transform_caps(GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                               GstCaps *filter)
{
    // Same format and size on both sides; only the view feature goes away.
    g2g::CapsRef result = g2g::CapsRef::adopt(
        direction == GST_PAD_SINK ? g2g::caps::without_view(caps) : g2g::caps::with_and_without_view(caps));
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    return result.release();
}

static gboolean g2g_materialize_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    if (!gst_video_info_from_caps(&self->state->out_info, outcaps))
        return FALSE;
    // Dense in, dense out: nothing to do, not even a buffer.
    gst_base_transform_set_passthrough(trans, !g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0)));
    return TRUE;
}

static gboolean g2g_materialize_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    // CUDA output is written by a kernel into frames of a CUDA pool, configured here, whole (the
    // default would hand the pool downstream's system allocator).
    if (g2g::element::allocation_domain(query) == g2g::MemoryDomainKind::Cuda)
        return G2G_MATERIALIZE(trans)->state->cuda.decide_pool(GST_ELEMENT(trans), query);
    if (g2g::element::decide_line_aligned_pool(query))
        return TRUE;
    g2g::element::ask_line_aligned_memory(query);
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)->decide_allocation(trans, query);
}

static g2g::element::CudaContextUse &cuda_of(GstBaseTransform *trans)
{
    return G2G_MATERIALIZE(trans)->state->cuda;
}

// ---- Per frame (view caps in; passthrough otherwise) ----

static GstFlowReturn g2g_materialize_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    GstVideoInfo *info = &self->state->out_info;
    const g2g::FrameView *view = g2g::tensor_view_of(inbuf);
    if (!view) {
        // View caps but a plain frame (or a GstVideoMeta / crop meta one): its identity view.
        g2g::Result<g2g::FrameView> identity = g2g::FrameView::of_frame(inbuf, *info);
        if (!identity)
            return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, identity.error());
        return g2g::element::write_dense(GST_ELEMENT(self), *identity, inbuf, info, outbuf);
    }
    if (view->format() != GST_VIDEO_INFO_FORMAT(info) ||
        view->width() != static_cast<guint>(GST_VIDEO_INFO_WIDTH(info)) ||
        view->height() != static_cast<guint>(GST_VIDEO_INFO_HEIGHT(info))) {
        g_autofree gchar *message = g_strdup_printf("the frame's view is %s %ux%u but the caps say %s %dx%d",
                                                    gst_video_format_to_string(view->format()), view->width(),
                                                    view->height(), GST_VIDEO_INFO_NAME(info),
                                                    GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info));
        return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, message);
    }
    return g2g::element::write_dense(GST_ELEMENT(self), *view, inbuf, info, outbuf);
}

static gboolean g2g_materialize_transform_meta(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
                                               GstBuffer *inbuf)
{
    // Video, crop and view metas describe the input geometry; the dense frame's are the pool's.
    if (g2g::element::describes_geometry(meta->info->api))
        return FALSE;
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)->transform_meta(trans, outbuf, meta, inbuf);
}

// ---- GObject ----

static void g2g_materialize_finalize(GObject *object)
{
    delete G2G_MATERIALIZE(object)->state;
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
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink_caps.get()));
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, src_caps.get()));

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
    self->state = new MaterializeState();
}
