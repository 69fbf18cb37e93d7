#include "g2gview.h"

#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <string>

#include "common/allocation.h"
#include "common/cuda-context.h"
#include "view-caps.h"
#include "view-output.h"

GST_DEBUG_CATEGORY_STATIC(g2g_view_debug);
#define GST_CAT_DEFAULT g2g_view_debug

namespace {

enum {
    PROP_0,
    PROP_VIDEO_DIRECTION,
    PROP_LEFT,
    PROP_RIGHT,
    PROP_TOP,
    PROP_BOTTOM,
};

// What the element does to a frame: crop in input pixels first (as videocrop before videoflip),
// then the orientation.
struct Geometry {
    GstVideoOrientationMethod method = GST_VIDEO_ORIENTATION_IDENTITY;
    guint left = 0, right = 0, top = 0, bottom = 0;

    bool is_identity() const
    {
        return method == GST_VIDEO_ORIENTATION_IDENTITY && !left && !right && !top && !bottom;
    }
};

struct ViewState {
    // Properties (object lock).
    GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;  // may be AUTO
    GstVideoOrientationMethod tag_method = GST_VIDEO_ORIENTATION_IDENTITY; // from image-orientation
    guint left = 0, right = 0, top = 0, bottom = 0;

    // Negotiated (streaming thread, set in set_caps).
    Geometry active;
    GstVideoInfo in_info{};
    GstVideoInfo out_info{};
    bool in_view = false;
    bool out_view = false;
    bool downstream_crops = false; // downstream takes GstVideoCropMeta and GstVideoMeta (allocation)

    // The pipeline's CUDA context, for dense CUDA output (a kernel writes it).
    g2g::element::CudaContextUse cuda;

    Geometry requested() const
    {
        Geometry g;
        g.method = direction == GST_VIDEO_ORIENTATION_AUTO ? tag_method : direction;
        if (g.method == GST_VIDEO_ORIENTATION_AUTO || g.method == GST_VIDEO_ORIENTATION_CUSTOM)
            g.method = GST_VIDEO_ORIENTATION_IDENTITY;
        g.left = left;
        g.right = right;
        g.top = top;
        g.bottom = bottom;
        return g;
    }
};

} // namespace

struct _G2gView {
    GstBaseTransform parent;
    ViewState *state;
};

static void g2g_view_direction_interface_init(GstVideoDirectionInterface *)
{
}

G_DEFINE_TYPE_WITH_CODE(G2gView, g2g_view, GST_TYPE_BASE_TRANSFORM,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_VIDEO_DIRECTION, g2g_view_direction_interface_init))

static Geometry requested_geometry(G2gView *self)
{
    GST_OBJECT_LOCK(self);
    Geometry g = self->state->requested();
    GST_OBJECT_UNLOCK(self);
    return g;
}

// Maps one width or height value across the element. forward: input -> output (minus the crop);
// else output -> input. Returns false when nothing of the frame would be left.
static bool map_dimension(const GValue *in, GValue *out, gint crop, bool forward)
{
    auto map = [&](gint v) -> gint {
        if (forward)
            return v - crop;
        return v >= G_MAXINT - crop ? G_MAXINT : v + crop;
    };
    if (G_VALUE_HOLDS_INT(in)) {
        const gint v = map(g_value_get_int(in));
        if (v < 1)
            return false;
        g_value_init(out, G_TYPE_INT);
        g_value_set_int(out, v);
        return true;
    }
    if (GST_VALUE_HOLDS_INT_RANGE(in)) {
        gint lo = map(gst_value_get_int_range_min(in));
        const gint hi = map(gst_value_get_int_range_max(in));
        if (hi < 1)
            return false;
        lo = std::max(lo, 1);
        g_value_init(out, lo == hi ? G_TYPE_INT : GST_TYPE_INT_RANGE);
        if (lo == hi)
            g_value_set_int(out, lo);
        else
            gst_value_set_int_range(out, lo, hi);
        return true;
    }
    if (GST_VALUE_HOLDS_LIST(in)) {
        g_value_init(out, GST_TYPE_LIST);
        for (guint i = 0; i < gst_value_list_get_size(in); ++i) {
            GValue item = G_VALUE_INIT;
            if (map_dimension(gst_value_list_get_value(in, i), &item, crop, forward))
                gst_value_list_append_and_take_value(out, &item);
        }
        return gst_value_list_get_size(out) > 0;
    }
    return false;
}

static GstCaps *g2g_view_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
                                        GstCaps *filter)
{
    G2gView *self = G2G_VIEW(trans);
    const Geometry g = requested_geometry(self);
    const bool forward = direction == GST_PAD_SINK;
    const bool transposes = g2g::orientation_transposes(g.method);
    GstCaps *mapped = gst_caps_new_empty();

    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *in = gst_caps_get_structure(caps, i);
        GstStructure *out = gst_structure_copy(in);
        // Input axes crop by left+right (width) and top+bottom (height); a transposing orientation
        // swaps the axes on the output side.
        const char *in_w = (!forward && transposes) ? "height" : "width";
        const char *in_h = (!forward && transposes) ? "width" : "height";
        const char *out_w = (forward && transposes) ? "height" : "width";
        const char *out_h = (forward && transposes) ? "width" : "height";
        const GValue *w = gst_structure_get_value(in, in_w);
        const GValue *h = gst_structure_get_value(in, in_h);
        bool ok = true;
        if (w && h) {
            GValue nw = G_VALUE_INIT;
            GValue nh = G_VALUE_INIT;
            ok = map_dimension(w, &nw, static_cast<gint>(g.left + g.right), forward) &&
                 map_dimension(h, &nh, static_cast<gint>(g.top + g.bottom), forward);
            if (ok) {
                gst_structure_take_value(out, out_w, &nw);
                gst_structure_take_value(out, out_h, &nh);
            } else {
                g_value_unset(&nw);
                g_value_unset(&nh);
            }
            if (!ok && forward && G_VALUE_HOLDS_INT(w) && G_VALUE_HOLDS_INT(h)) {
                gint fw = 0, fh = 0;
                gst_structure_get_int(in, "width", &fw);
                gst_structure_get_int(in, "height", &fh);
                GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                                  ("crop left=%u right=%u top=%u bottom=%u leaves no pixels of a %dx%d frame",
                                   g.left, g.right, g.top, g.bottom, fw, fh),
                                  (nullptr));
            }
        }
        gint par_n = 0, par_d = 0;
        if (ok && transposes && gst_structure_get_fraction(in, "pixel-aspect-ratio", &par_n, &par_d))
            gst_structure_set(out, "pixel-aspect-ratio", GST_TYPE_FRACTION, par_d, par_n, nullptr);
        // The features travel too: they say which memory (system or CUDA) the frame stays in.
        if (ok)
            gst_caps_append_structure_full(mapped, out,
                                           gst_caps_features_copy(gst_caps_get_features(caps, i)));
        else
            gst_structure_free(out);
    }

    GstCaps *result = g2g::caps::with_and_without_view(mapped);
    gst_caps_unref(mapped);
    if (filter) {
        GstCaps *filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(result);
        result = filtered;
    }
    GST_DEBUG_OBJECT(self, "transformed %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, caps, result);
    return result;
}

static GstCaps *g2g_view_fixate_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
                                     GstCaps *othercaps)
{
    othercaps = gst_caps_make_writable(othercaps);
    // A view goes to a peer that names the feature, and only to one: ANY-caps sinks (fakesink,
    // filesink, a caps-less appsink) get dense frames.
    if (direction == GST_PAD_SINK) {
        GstCaps *kept = gst_caps_copy(othercaps);
        g2g::caps::keep_structures(kept, g2g::caps::peer_names_view(GST_BASE_TRANSFORM_SRC_PAD(trans)));
        if (!gst_caps_is_empty(kept)) {
            gst_caps_unref(othercaps);
            othercaps = kept;
        } else {
            gst_caps_unref(kept);
        }
    }
    (void)caps;
    return gst_caps_fixate(othercaps);
}

static gboolean g2g_view_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = *self->state;
    if (!gst_video_info_from_caps(&state.in_info, incaps) ||
        !gst_video_info_from_caps(&state.out_info, outcaps)) {
        GST_ERROR_OBJECT(self, "invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
        return FALSE;
    }
    state.in_view = g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0));
    state.out_view = g2g::caps::has_view_feature(gst_caps_get_features(outcaps, 0));
    state.active = requested_geometry(self);
    const Geometry &g = state.active;

    const gint in_w = GST_VIDEO_INFO_WIDTH(&state.in_info), in_h = GST_VIDEO_INFO_HEIGHT(&state.in_info);
    gint crop_w = in_w - static_cast<gint>(g.left + g.right);
    gint crop_h = in_h - static_cast<gint>(g.top + g.bottom);
    if (crop_w < 1 || crop_h < 1) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                          ("crop left=%u right=%u top=%u bottom=%u leaves no pixels of a %dx%d frame", g.left,
                           g.right, g.top, g.bottom, in_w, in_h),
                          (nullptr));
        return FALSE;
    }
    if (g2g::orientation_transposes(g.method))
        std::swap(crop_w, crop_h);
    if (GST_VIDEO_INFO_WIDTH(&state.out_info) != crop_w || GST_VIDEO_INFO_HEIGHT(&state.out_info) != crop_h) {
        GST_ERROR_OBJECT(self, "output caps %" GST_PTR_FORMAT " do not match the view (%dx%d)", outcaps,
                         crop_w, crop_h);
        return FALSE;
    }
    gst_base_transform_set_passthrough(trans, g.is_identity() && state.in_view == state.out_view);
    GST_INFO_OBJECT(self, "%s in, %s out, method %d, crop l%u r%u t%u b%u", state.in_view ? "view" : "dense",
                    state.out_view ? "view" : "dense", g.method, g.left, g.right, g.top, g.bottom);
    return TRUE;
}

static gboolean g2g_view_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    G2gView *self = G2G_VIEW(trans);
    self->state->downstream_crops =
        gst_query_find_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr) &&
        gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    // Dense CUDA output is written by a kernel into frames of a CUDA pool, configured here, whole
    // (the default would hand the pool downstream's system allocator).
    if (!self->state->out_view && g2g::element::allocation_domain(query) == g2g::MemoryDomainKind::Cuda)
        return self->state->cuda.decide_pool(GST_ELEMENT(self), query);
    if (!self->state->out_view && g2g::element::decide_line_aligned_pool(query))
        return TRUE;
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->decide_allocation(trans, query);
}

static g2g::element::CudaContextUse &cuda_of(GstBaseTransform *trans)
{
    return G2G_VIEW(trans)->state->cuda;
}

// A pure crop of a dense frame towards a peer that reads GstVideoCropMeta: the input frame
// with a crop meta, as videocrop does, instead of a copy.
static bool crops_as_meta(const ViewState &state)
{
    const Geometry &g = state.active;
    return state.downstream_crops && !state.in_view && !state.out_view &&
           g.method == GST_VIDEO_ORIENTATION_IDENTITY && !g.is_identity();
}

static GstFlowReturn g2g_view_crop_as_meta(G2gView *self, GstBuffer *input, GstBuffer **outbuf)
{
    const ViewState &state = *self->state;
    const Geometry &g = state.active;
    *outbuf = gst_buffer_copy(input); // metadata copy; the memory is shared
    if (!gst_buffer_get_video_meta(*outbuf)) {
        const GstVideoInfo &info = state.in_info;
        gst_buffer_add_video_meta_full(*outbuf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                       GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                       GST_VIDEO_INFO_N_PLANES(&info), const_cast<gsize *>(info.offset),
                                       const_cast<gint *>(info.stride));
    }
    GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(*outbuf);
    if (!crop) {
        crop = gst_buffer_add_video_crop_meta(*outbuf);
        crop->x = crop->y = 0;
    }
    crop->x += g.left;
    crop->y += g.top;
    crop->width = GST_VIDEO_INFO_WIDTH(&state.out_info);
    crop->height = GST_VIDEO_INFO_HEIGHT(&state.out_info);
    return GST_FLOW_OK;
}

static GstFlowReturn g2g_view_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *input,
                                                    GstBuffer **outbuf)
{
    G2gView *self = G2G_VIEW(trans);
    if (!gst_base_transform_is_passthrough(trans) && crops_as_meta(*self->state))
        return g2g_view_crop_as_meta(self, input, outbuf);
    if (gst_base_transform_is_passthrough(trans) || !self->state->out_view)
        return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->prepare_output_buffer(trans, input, outbuf);
    // A view out: a new GstBuffer over the input's memories (refcounts only, zero bytes, also for
    // NO_SHARE pool memory). It holds the input as parent so a pool cannot recycle those bytes
    // while the view lives.
    *outbuf = gst_buffer_new();
    gst_buffer_copy_into(*outbuf, input, GST_BUFFER_COPY_METADATA, 0, static_cast<gsize>(-1));
    for (guint i = 0; i < gst_buffer_n_memory(input); ++i)
        gst_buffer_append_memory(*outbuf, gst_memory_ref(gst_buffer_peek_memory(input, i)));
    gst_buffer_add_parent_buffer_meta(*outbuf, input);
    return GST_FLOW_OK;
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

static gboolean g2g_view_transform_meta(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
                                        GstBuffer *inbuf)
{
    // Video, crop and view metas describe the input geometry; the output's are made here.
    if (g2g::element::describes_geometry(meta->info->api))
        return FALSE;
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->transform_meta(trans, outbuf, meta, inbuf);
}

static GstFlowReturn g2g_view_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = *self->state;
    const Geometry &g = state.active;
    if (crops_as_meta(state))
        return GST_FLOW_OK; // prepare_output_buffer expressed it as GstVideoCropMeta

    // Compose on the view the input carries (a chain of g2gview is one view), or on the frame.
    const g2g::FrameView *incoming = g2g::tensor_view_of(inbuf);
    g2g::Result<g2g::FrameView> built =
        incoming ? g2g::Result<g2g::FrameView>(*incoming) : g2g::FrameView::of_frame(inbuf, state.in_info);
    if (!built) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("%s", built.error().message().c_str()), (nullptr));
        return GST_FLOW_ERROR;
    }
    g2g::FrameView &view = *built;
    if (g.left || g.right || g.top || g.bottom) {
        g2g::Result<void> cropped =
            view.crop(g.left, g.top, view.width() - g.left - g.right, view.height() - g.top - g.bottom);
        if (!cropped) {
            GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("%s", cropped.error().message().c_str()), (nullptr));
            return GST_FLOW_ERROR;
        }
    }
    view.orient(g.method);

    if (state.out_view && view.strided()) {
        g2g::attach_tensor_view(outbuf, std::move(view));
        return GST_FLOW_OK;
    }
    if (state.out_view) {
        // Packed 4:2:2 turned sideways has no stride form: materialize once and hand out the
        // identity view of the dense frame.
        g2g::Result<g2g::BufferRef> dense = view.materialize(inbuf);
        g2g::Result<g2g::FrameView> identity = dense ? g2g::FrameView::of_frame(dense->get(), view.info())
                                                     : g2g::Result<g2g::FrameView>(dense.error());
        if (!identity) {
            GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("%s", identity.error().message().c_str()), (nullptr));
            return GST_FLOW_ERROR;
        }
        gst_buffer_remove_all_memory(outbuf);
        gst_buffer_copy_into(outbuf, dense->get(), GST_BUFFER_COPY_MEMORY, 0, static_cast<gsize>(-1));
        g2g::attach_tensor_view(outbuf, std::move(*identity));
        return GST_FLOW_OK;
    }

    return g2g::element::write_dense(GST_ELEMENT(self), view, inbuf, &state.out_info, outbuf);
}

static gboolean g2g_view_sink_event(GstBaseTransform *trans, GstEvent *event)
{
    G2gView *self = G2G_VIEW(trans);
    if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) {
        GstTagList *tags = nullptr;
        gst_event_parse_tag(event, &tags);
        GstVideoOrientationMethod method;
        if (gst_video_orientation_from_tag(tags, &method)) {
            GST_OBJECT_LOCK(self);
            const bool changed = self->state->tag_method != method;
            self->state->tag_method = method;
            const bool automatic = self->state->direction == GST_VIDEO_ORIENTATION_AUTO;
            GST_OBJECT_UNLOCK(self);
            if (changed && automatic)
                gst_base_transform_reconfigure_src(trans);
        }
    }
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->sink_event(trans, event);
}

static void g2g_view_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gView *self = G2G_VIEW(object);
    GST_OBJECT_LOCK(self);
    ViewState &state = *self->state;
    switch (prop_id) {
    case PROP_VIDEO_DIRECTION: {
        const auto method = static_cast<GstVideoOrientationMethod>(g_value_get_enum(value));
        if (method == GST_VIDEO_ORIENTATION_CUSTOM)
            GST_WARNING_OBJECT(self, "video-direction=custom is not supported; keeping the current one");
        else
            state.direction = method;
        break;
    }
    case PROP_LEFT:
        state.left = static_cast<guint>(g_value_get_int(value));
        break;
    case PROP_RIGHT:
        state.right = static_cast<guint>(g_value_get_int(value));
        break;
    case PROP_TOP:
        state.top = static_cast<guint>(g_value_get_int(value));
        break;
    case PROP_BOTTOM:
        state.bottom = static_cast<guint>(g_value_get_int(value));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
    // Sizes change under rotations and crops: renegotiate before the next frame.
    gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
}

static void g2g_view_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gView *self = G2G_VIEW(object);
    GST_OBJECT_LOCK(self);
    const ViewState &state = *self->state;
    switch (prop_id) {
    case PROP_VIDEO_DIRECTION:
        g_value_set_enum(value, state.direction);
        break;
    case PROP_LEFT:
        g_value_set_int(value, static_cast<gint>(state.left));
        break;
    case PROP_RIGHT:
        g_value_set_int(value, static_cast<gint>(state.right));
        break;
    case PROP_TOP:
        g_value_set_int(value, static_cast<gint>(state.top));
        break;
    case PROP_BOTTOM:
        g_value_set_int(value, static_cast<gint>(state.bottom));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void g2g_view_finalize(GObject *object)
{
    delete G2G_VIEW(object)->state;
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
    gst_element_class_add_pad_template(element_class,
                                       gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps.get()));
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
    self->state = new ViewState();
}
