// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview: flips, rotates, transposes and crops video as a stride view over the same memory
// (meta:G2gTensorView, zero bytes copied) for peers that name the feature, and materializes once
// for every other peer. Crops apply to the input, then the orientation (videocrop ! videoflip);
// video-direction=auto follows the stream's image-orientation tag.
//
//   gst-launch-1.0 videotestsrc ! g2gview video-direction=90r left=16 ! videoconvert ! autovideosink
//
// The properties (ViewSettings) are copied out under the object lock; negotiation fixes the
// geometry in effect and one OutputMode (view-output-mode.h) in set_caps, refined in
// decide_allocation; prepare_output_buffer and transform switch on that mode.
#include "g2gview.h"

#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <utility>

#include "common/allocation.h"
#include "common/cuda-context.h"
#include "common/element-error.h"
#include "common/object-lock.h"
#include "view-buffers.h"
#include "view-caps.h"
#include "view-geometry.h"
#include "view-output-mode.h"
#include "view-output.h"

GST_DEBUG_CATEGORY_STATIC(g2g_view_debug);
#define GST_CAT_DEFAULT g2g_view_debug

using g2g::element::Geometry;
using g2g::element::ObjectLock;
using g2g::element::OutputMode;
using g2g::element::post_error;

namespace {

enum {
    PROP_0,
    PROP_VIDEO_DIRECTION,
    PROP_LEFT,
    PROP_RIGHT,
    PROP_TOP,
    PROP_BOTTOM,
};

// What negotiation decided. Streaming thread only: set_caps, decide_allocation and the
// per-frame path all run there, under the sink pad's stream lock.
struct ViewState {
    Geometry active; // the settings' geometry when the caps were set
    GstVideoInfo in_info{};
    GstVideoInfo out_info{};
    bool in_view = false;
    OutputMode mode = OutputMode::Passthrough; // until set_caps
    // The pipeline's CUDA context, for dense CUDA output (a kernel writes it). set_context and
    // CONTEXT queries also reach it from their own threads, as in nvcodec's elements.
    g2g::element::CudaContextUse cuda;
};

struct ViewPrivate {
    // The object lock guards the settings. It is taken on its own (no other lock of ours exists)
    // and only to copy them in or out: never held across a GStreamer call that may take a pad's
    // stream lock (reconfigure, negotiation), so it nests inside those, never around them.
    g2g::element::ViewSettings settings;
    ViewState state;
};

} // namespace

struct _G2gView {
    GstBaseTransform parent;
    ViewPrivate *priv;
};

static void g2g_view_direction_interface_init(GstVideoDirectionInterface *)
{
}

G_DEFINE_TYPE_WITH_CODE(G2gView, g2g_view, GST_TYPE_BASE_TRANSFORM,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_VIDEO_DIRECTION, g2g_view_direction_interface_init))

static Geometry requested_geometry(G2gView *self)
{
    const ObjectLock lock(self);
    return self->priv->settings.requested();
}

// ---- Negotiation ----

static GstCaps *g2g_view_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
                                        GstCaps *filter)
{
    G2gView *self = G2G_VIEW(trans);
    const Geometry g = requested_geometry(self);
    const bool forward = direction == GST_PAD_SINK;
    const g2g::CapsRef mapped = g2g::CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *in = gst_caps_get_structure(caps, i);
        // The features travel too: they say which memory (system or CUDA) the frame stays in.
        if (GstStructure *out = g2g::element::map_structure(in, g, forward)) {
            gst_caps_append_structure_full(mapped.get(), out,
                                           gst_caps_features_copy(gst_caps_get_features(caps, i)));
            continue;
        }
        // A fixed input size the crop leaves nothing of: say so now, before set_caps is refused.
        gint width = 0, height = 0;
        if (forward && gst_structure_get_int(in, "width", &width) &&
            gst_structure_get_int(in, "height", &height))
            post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                       g.no_pixels_left(width, height));
    }

    g2g::CapsRef result = g2g::CapsRef::adopt(g2g::caps::with_and_without_view(mapped.get()));
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    GST_DEBUG_OBJECT(self, "transformed %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, caps, result.get());
    return result.release();
}

static GstCaps *g2g_view_fixate_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *,
                                     GstCaps *othercaps)
{
    g2g::CapsRef other = g2g::CapsRef::adopt(othercaps);
    // A view goes to a peer that names the feature, and only to one: ANY-caps sinks (fakesink,
    // filesink, a caps-less appsink) get dense frames.
    if (direction == GST_PAD_SINK) {
        g2g::CapsRef kept = g2g::CapsRef::adopt(gst_caps_copy(other.get()));
        g2g::caps::keep_structures(kept.get(), g2g::caps::peer_names_view(GST_BASE_TRANSFORM_SRC_PAD(trans)));
        if (!gst_caps_is_empty(kept.get()))
            other = std::move(kept);
    }
    return gst_caps_fixate(gst_caps_make_writable(other.release()));
}

static gboolean g2g_view_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    if (!gst_video_info_from_caps(&state.in_info, incaps) ||
        !gst_video_info_from_caps(&state.out_info, outcaps)) {
        GST_ERROR_OBJECT(self, "invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
        return FALSE;
    }
    state.in_view = g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0));
    const bool out_view = g2g::caps::has_view_feature(gst_caps_get_features(outcaps, 0));
    state.active = requested_geometry(self);
    const Geometry &g = state.active;

    const gint in_w = GST_VIDEO_INFO_WIDTH(&state.in_info), in_h = GST_VIDEO_INFO_HEIGHT(&state.in_info);
    const auto size = g.output_size(in_w, in_h);
    if (!size) {
        post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                   g.no_pixels_left(in_w, in_h));
        return FALSE;
    }
    if (GST_VIDEO_INFO_WIDTH(&state.out_info) != size->first ||
        GST_VIDEO_INFO_HEIGHT(&state.out_info) != size->second) {
        GST_ERROR_OBJECT(self, "output caps %" GST_PTR_FORMAT " do not match the view (%dx%d)", outcaps,
                         size->first, size->second);
        return FALSE;
    }
    state.mode =
        g2g::element::output_mode_for_caps(g, GST_VIDEO_INFO_FORMAT(&state.in_info), state.in_view, out_view);
    gst_base_transform_set_passthrough(trans, state.mode == OutputMode::Passthrough);
    GST_INFO_OBJECT(self, "%s in, %s out (%s), method %d, crop l%u r%u t%u b%u",
                    state.in_view ? "view" : "dense", out_view ? "view" : "dense",
                    g2g::element::output_mode_name(state.mode), g.method, g.left, g.right, g.top, g.bottom);
    return TRUE;
}

// Not called in passthrough (GstBaseTransform proxies downstream's pool then).
static gboolean g2g_view_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    state.mode = g2g::element::output_mode_for_allocation(state.mode, state.active, state.in_view, query);
    GST_DEBUG_OBJECT(self, "output mode %s", g2g::element::output_mode_name(state.mode));
    // View output reads the input's memory: downstream's pool is never written. Dense output
    // (CropMeta too, which keeps its pool as GstBaseTransform would) gets one of the right kind.
    const bool dense_out = state.mode == OutputMode::Dense || state.mode == OutputMode::CropMeta;
    // Dense CUDA output is written by a kernel into frames of a CUDA pool, configured here, whole
    // (the default would hand the pool downstream's system allocator).
    if (dense_out && g2g::element::allocation_domain(query) == g2g::MemoryDomainKind::Cuda)
        return state.cuda.decide_pool(GST_ELEMENT(self), query);
    if (dense_out && g2g::element::decide_line_aligned_pool(query))
        return TRUE;
    if (dense_out)
        g2g::element::ask_line_aligned_memory(query);
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->decide_allocation(trans, query);
}

static gboolean g2g_view_propose_allocation(GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
    if (!GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->propose_allocation(trans, decide_query, query))
        return FALSE;
    // Any stride and offset upstream likes, and crops as meta: a view reads them in place.
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    gst_query_add_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
    return TRUE;
}

static g2g::element::CudaContextUse &cuda_of(GstBaseTransform *trans)
{
    return G2G_VIEW(trans)->priv->state.cuda;
}

// ---- Per frame: the output buffer, then what goes into it, by the negotiated mode ----

static GstFlowReturn g2g_view_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *input,
                                                    GstBuffer **outbuf)
{
    const ViewState &state = G2G_VIEW(trans)->priv->state;
    switch (state.mode) {
    case OutputMode::Passthrough: // the input itself
    case OutputMode::Dense:       // a frame of the negotiated pool
        return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->prepare_output_buffer(trans, input, outbuf);
    case OutputMode::CropMeta:
        *outbuf =
            g2g::element::crop_meta_buffer(input, state.in_info, state.active, state.out_info).release();
        return GST_FLOW_OK;
    case OutputMode::View:
    case OutputMode::PackedThroughDense:
        // One kind of buffer for both: PackedThroughDense's transform puts the materialized
        // frame's memory in place of the input's, as View's does for a frame that lost its stride
        // form.
        *outbuf = g2g::element::buffer_over_memories(input).release();
        return GST_FLOW_OK;
    }
    return GST_FLOW_NOT_NEGOTIATED;
}

static GstFlowReturn g2g_view_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    // Passthrough never gets here (GstBaseTransform hands the input on); CropMeta is all said by
    // the crop meta prepare_output_buffer put on the buffer.
    if (state.mode == OutputMode::Passthrough || state.mode == OutputMode::CropMeta)
        return GST_FLOW_OK;

    g2g::Result<g2g::FrameView> view = g2g::element::compose_view(inbuf, state.in_info, state.active);
    if (!view)
        return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, view.error());
    switch (state.mode) {
    case OutputMode::View:
        if (view->strided()) {
            g2g::attach_tensor_view(outbuf, std::move(*view));
            return GST_FLOW_OK;
        }
        // The caps promised a stride form, but this frame's view had lost it before ours: a view
        // that arrived without one, or a packed 4:2:2 frame whose GstVideoCropMeta starts at an
        // odd column. Only a materialized frame can say what such a view reads.
        [[fallthrough]];
    case OutputMode::PackedThroughDense: {
        const g2g::Result<void> attached = g2g::element::attach_materialized(outbuf, *view, inbuf);
        if (!attached)
            return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, attached.error());
        return GST_FLOW_OK;
    }
    case OutputMode::Dense:
        return g2g::element::write_dense(GST_ELEMENT(self), *view, inbuf, &state.out_info, outbuf);
    case OutputMode::Passthrough:
    case OutputMode::CropMeta:
        break;
    }
    return GST_FLOW_OK;
}

static gboolean g2g_view_transform_meta(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
                                        GstBuffer *inbuf)
{
    // Video, crop and view metas describe the input geometry; the output's are made here.
    if (g2g::element::describes_geometry(meta->info->api))
        return FALSE;
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->transform_meta(trans, outbuf, meta, inbuf);
}

// ---- Settings: the properties and the orientation tag ----

// An image-orientation tag: video-direction=auto follows it, renegotiating when it changed.
static void g2g_view_take_orientation_tag(G2gView *self, GstEvent *event)
{
    GstTagList *tags = nullptr;
    gst_event_parse_tag(event, &tags);
    GstVideoOrientationMethod method;
    if (!gst_video_orientation_from_tag(tags, &method))
        return;
    bool follow = false;
    {
        const ObjectLock lock(self);
        g2g::element::ViewSettings &settings = self->priv->settings;
        follow = settings.tag_method != method && settings.direction == GST_VIDEO_ORIENTATION_AUTO;
        settings.tag_method = method;
    }
    if (follow)
        gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
}

static gboolean g2g_view_sink_event(GstBaseTransform *trans, GstEvent *event)
{
    if (GST_EVENT_TYPE(event) == GST_EVENT_TAG)
        g2g_view_take_orientation_tag(G2G_VIEW(trans), event);
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->sink_event(trans, event);
}

static void g2g_view_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gView *self = G2G_VIEW(object);
    {
        const ObjectLock lock(self);
        g2g::element::ViewSettings &settings = self->priv->settings;
        switch (prop_id) {
        case PROP_VIDEO_DIRECTION: {
            const auto method = static_cast<GstVideoOrientationMethod>(g_value_get_enum(value));
            if (method == GST_VIDEO_ORIENTATION_CUSTOM)
                GST_WARNING_OBJECT(self, "video-direction=custom is not supported; keeping the current one");
            else
                settings.direction = method;
            break;
        }
        case PROP_LEFT:
            settings.left = static_cast<guint>(g_value_get_int(value));
            break;
        case PROP_RIGHT:
            settings.right = static_cast<guint>(g_value_get_int(value));
            break;
        case PROP_TOP:
            settings.top = static_cast<guint>(g_value_get_int(value));
            break;
        case PROP_BOTTOM:
            settings.bottom = static_cast<guint>(g_value_get_int(value));
            break;
        default:
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
            break;
        }
    }
    // Sizes change under rotations and crops: renegotiate before the next frame.
    gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
}

static void g2g_view_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gView *self = G2G_VIEW(object);
    const ObjectLock lock(self);
    const g2g::element::ViewSettings &settings = self->priv->settings;
    switch (prop_id) {
    case PROP_VIDEO_DIRECTION:
        g_value_set_enum(value, settings.direction);
        break;
    case PROP_LEFT:
        g_value_set_int(value, static_cast<gint>(settings.left));
        break;
    case PROP_RIGHT:
        g_value_set_int(value, static_cast<gint>(settings.right));
        break;
    case PROP_TOP:
        g_value_set_int(value, static_cast<gint>(settings.top));
        break;
    case PROP_BOTTOM:
        g_value_set_int(value, static_cast<gint>(settings.bottom));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

// ---- GObject ----

static void g2g_view_finalize(GObject *object)
{
    delete G2G_VIEW(object)->priv;
    G_OBJECT_CLASS(g2g_view_parent_class)->finalize(object);
}

static void g2g_view_class_init(G2gViewClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);

    object_class->set_property = g2g_view_set_property;
    object_class->get_property = g2g_view_get_property;
    object_class->finalize = g2g_view_finalize;

    g_object_class_override_property(object_class, PROP_VIDEO_DIRECTION, "video-direction");
    const auto flags =
        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(
        object_class, PROP_LEFT,
        g_param_spec_int("left", "Left", "Pixels to crop at the left of the input", 0, G_MAXINT, 0, flags));
    g_object_class_install_property(object_class, PROP_RIGHT,
                                    g_param_spec_int("right", "Right",
                                                     "Pixels to crop at the right of the input", 0, G_MAXINT,
                                                     0, flags));
    g_object_class_install_property(
        object_class, PROP_TOP,
        g_param_spec_int("top", "Top", "Pixels to crop at the top of the input", 0, G_MAXINT, 0, flags));
    g_object_class_install_property(object_class, PROP_BOTTOM,
                                    g_param_spec_int("bottom", "Bottom",
                                                     "Pixels to crop at the bottom of the input", 0, G_MAXINT,
                                                     0, flags));

    gst_element_class_set_static_metadata(
        element_class, "g2g stride view", "Filter/Effect/Video",
        "Flips, rotates, transposes and crops video as a stride view over the same memory (zero bytes "
        "copied) "
        "for peers that take meta:G2gTensorView; materializes once for every other peer. Crops apply to the "
        "input, then the orientation (like videocrop ! videoflip)",
        "g2g developers");
    // Views and dense frames both ways, in every domain this build has a view backend for.
    const g2g::CapsRef caps = g2g::CapsRef::adopt(g2g::caps::template_caps(true, true));
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps.get()));
    gst_element_class_add_pad_template(element_class,
                                       gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps.get()));

    transform_class->transform_caps = g2g_view_transform_caps;
    transform_class->fixate_caps = g2g_view_fixate_caps;
    transform_class->set_caps = g2g_view_set_caps;
    transform_class->prepare_output_buffer = g2g_view_prepare_output_buffer;
    transform_class->transform = g2g_view_transform;
    transform_class->transform_meta = g2g_view_transform_meta;
    transform_class->transform_size = g2g::element::frame_size_of_caps;
    transform_class->propose_allocation = g2g_view_propose_allocation;
    transform_class->decide_allocation = g2g_view_decide_allocation;
    g2g::element::install_cuda_glue<cuda_of>(transform_class);
    transform_class->sink_event = g2g_view_sink_event;

    GST_DEBUG_CATEGORY_INIT(g2g_view_debug, "g2gview", 0, "g2g stride view");
}

static void g2g_view_init(G2gView *self)
{
    self->priv = new ViewPrivate();
}
