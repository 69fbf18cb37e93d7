// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview: flips, rotates, transposes and crops video as a stride view over the same memory
// (meta:G2gTensorView, zero bytes copied) for peers that name the feature, and materializes once
// for every other peer. Crops apply to the input, then the orientation (videocrop ! videoflip);
// video-direction=auto follows the stream's image-orientation tag. Frames of the platform-handle
// kinds, whose memory nothing writes, leave only as views their payload carries, or are refused
// saying why (view-handles.h).
//
//   gst-launch-1.0 videotestsrc ! g2gview video-direction=90r left=16 ! videoconvert ! autovideosink
//
// The properties (ViewSettings) may change from any thread while PLAYING; each change lands on a
// frame boundary: every frame starts (submit_input_buffer) by comparing the settings with the
// geometry in effect, and a change is applied there, before that frame, renegotiating. One
// negotiation reads the settings once (NegotiationScope), so all its steps agree. It fixes the
// geometry in effect and one OutputMode (view-output-mode.h), refined in decide_allocation;
// prepare_output_buffer and transform switch on that mode. Dense output is written by the CPU on
// n-threads threads (view-threads.h), a change of n-threads taking effect at the next frame without
// renegotiating.
#include "g2gview.h"

#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <optional>
#include <string>
#include <utility>

#include "common/allocation.h"
#include "common/context-glue.h"
#include "common/element-error.h"
#include "common/object-lock.h"
#include <g2g-internal/plugin-interface.h>
#include "view-buffers.h"
#include "view-caps.h"
#include "view-geometry.h"
#include "view-handles.h"
#include "view-output-mode.h"
#include "view-output.h"
#include "view-threads.h"

GST_DEBUG_CATEGORY_STATIC(g2g_view_debug);
#define GST_CAT_DEFAULT g2g_view_debug

using g2g::element::Geometry;
using g2g::element::ObjectLock;
using g2g::element::OutputMode;
using g2g::element::post_error;
using g2g::element::post_warning;

namespace {

enum {
    PROP_0,
    PROP_VIDEO_DIRECTION,
    PROP_METHOD,
    PROP_LEFT,
    PROP_RIGHT,
    PROP_TOP,
    PROP_BOTTOM,
    PROP_N_THREADS,
};

// videoflip's deprecated `method` (still in many launch lines): its enum's values and nicks, which
// are GstVideoOrientationMethod's values under older names. Its own type, as videoflip's is
// registered by videoflip's plugin.
GType flip_method_get_type()
{
    static GType type = 0;
    if (g_once_init_enter(&type)) {
        static const GEnumValue methods[] = {
            {GST_VIDEO_ORIENTATION_IDENTITY, "Identity (no rotation)", "none"},
            {GST_VIDEO_ORIENTATION_90R, "Rotate clockwise 90 degrees", "clockwise"},
            {GST_VIDEO_ORIENTATION_180, "Rotate 180 degrees", "rotate-180"},
            {GST_VIDEO_ORIENTATION_90L, "Rotate counter-clockwise 90 degrees", "counterclockwise"},
            {GST_VIDEO_ORIENTATION_HORIZ, "Flip horizontally", "horizontal-flip"},
            {GST_VIDEO_ORIENTATION_VERT, "Flip vertically", "vertical-flip"},
            {GST_VIDEO_ORIENTATION_UL_LR, "Flip across upper left/lower right diagonal",
             "upper-left-diagonal"},
            {GST_VIDEO_ORIENTATION_UR_LL, "Flip across upper right/lower left diagonal",
             "upper-right-diagonal"},
            {GST_VIDEO_ORIENTATION_AUTO, "Select flip method based on image-orientation tag", "automatic"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_enum_register_static("G2gViewFlipMethod", methods));
    }
    return type;
}

// What negotiation decided. Streaming thread only: set_caps, decide_allocation and the
// per-frame path all run there, under the sink pad's stream lock.
struct ViewState {
    Geometry active; // the geometry in effect: the settings' when they were last applied
    GstVideoInfo in_info{};
    GstVideoInfo out_info{};
    bool negotiated = false; // set_caps succeeded: the infos and features are the stream's
    bool in_view = false;
    bool out_view = false;
    // The last refusal of a crop posted: a refused caps event comes back with every push of
    // upstream's (sticky events are re-sent), and one error says it.
    std::string refusal;
    OutputMode mode = OutputMode::Passthrough; // until set_caps
    bool vulkan = false; // VulkanImage frames (both ways: a view keeps the memory where it is)
    // The pipeline's CUDA context, for dense CUDA output (a kernel writes it), and its Vulkan
    // device and queue, for VulkanImage frames (a shader writes dense ones; views are checked to
    // be of that device). set_context and CONTEXT queries also reach them from their own threads,
    // as in nvcodec's and GStreamer's Vulkan elements.
    g2g::element::GpuContexts gpu;
    // The threads dense frames are written with (n-threads).
    g2g::element::StreamThreads threads;
};

// The settings one negotiation of the streaming thread runs with (NegotiationScope).
struct Negotiation {
    GThread *thread = nullptr; // the thread negotiating now, none outside a negotiation
    Geometry geometry;
};

struct ViewPrivate {
    // The object lock guards the settings, the negotiation and the warnings pending. It is taken
    // on its own (no other lock of ours exists) and only to copy them in or out: never held
    // across a GStreamer call that may take a pad's stream lock (negotiation, posting), so it
    // nests inside those, never around them.
    g2g::element::ViewSettings settings;
    guint n_threads = g2g::element::kDefaultThreads; // n-threads: not geometry, never renegotiates
    Negotiation negotiation;
    guint custom_refusals_unsaid = 0; // video-direction=custom set while the element had no bus
    ViewState state;
    // The orientation tags seen in this stream (sink pad's streaming thread): whether a
    // stream-scoped one gave an orientation, and the global one's.
    struct {
        bool stream_orientation = false;
        GstVideoOrientationMethod global = GST_VIDEO_ORIENTATION_IDENTITY;
        std::string stream_id;
    } tags;
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

// The geometry caps are computed with: the negotiation's on the thread running one, else the
// settings as they are now (another thread's caps query, an accept-caps before a caps event).
static Geometry geometry_for_caps(G2gView *self)
{
    const ObjectLock lock(self);
    const ViewPrivate &priv = *self->priv;
    if (priv.negotiation.thread == g_thread_self())
        return priv.negotiation.geometry;
    return priv.settings.requested();
}

namespace {

// One negotiation's settings, read once: by the streaming thread where something it does may
// negotiate (a caps event, a frame, which renegotiates after a change, an ALLOCATION query, which
// may too), for every step of it on that thread: transform_caps, called several times and from
// the peers' caps queries, and set_caps. A property changed meanwhile from another thread waits
// for the next frame instead of splitting one negotiation between two settings (output caps of
// the old crop checked in set_caps against the new one was a not-negotiated in one run of three
// of a property changed every few hundred microseconds).
class NegotiationScope {
public:
    explicit NegotiationScope(G2gView *self) : self_(self)
    {
        const ObjectLock lock(self_);
        Negotiation &negotiation = self_->priv->negotiation;
        outer_ = negotiation;
        negotiation.thread = g_thread_self();
        negotiation.geometry = self_->priv->settings.requested();
        geometry_ = negotiation.geometry;
    }
    ~NegotiationScope()
    {
        const ObjectLock lock(self_);
        self_->priv->negotiation = outer_;
    }
    NegotiationScope(const NegotiationScope &) = delete;
    NegotiationScope &operator=(const NegotiationScope &) = delete;

    const Geometry &geometry() const { return geometry_; }

private:
    G2gView *self_;
    Negotiation outer_;
    Geometry geometry_;
};

} // namespace

// ---- Negotiation ----

static GstCaps *g2g_view_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
                                        GstCaps *filter)
{
    G2gView *self = G2G_VIEW(trans);
    const Geometry g = geometry_for_caps(self);
    const bool forward = direction == GST_PAD_SINK;
    const g2g::CapsRef mapped = g2g::CapsRef::adopt(gst_caps_new_empty());
    // Frames of the platform-handle kinds, in the forms they can take (view-handles.h).
    const g2g::CapsRef handles = g2g::CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *in = gst_caps_get_structure(caps, i);
        GstCapsFeatures *features = gst_caps_get_features(caps, i);
        // The features travel too: they say which memory (system or CUDA) the frame stays in.
        // A caps query is a question, so nothing is posted here: frames the crop leaves no pixel
        // of link, and are refused saying why when their caps event comes (sink_event).
        GstStructure *out = g2g::element::map_structure(in, g, forward);
        if (!out && forward)
            out = g2g::element::output_of_sizes_left_empty(in, g);
        if (!out)
            continue;
        if (const auto handle = g2g::element::handle_domain_of(features)) {
            g2g::element::append_handle_forms(handles.get(), out, *handle,
                                              g2g::caps::has_view_feature(features), forward, g);
            gst_structure_free(out);
            continue;
        }
        gst_caps_append_structure_full(mapped.get(), out, gst_caps_features_copy(features));
    }

    g2g::CapsRef result = g2g::CapsRef::adopt(
        gst_caps_merge(g2g::caps::with_and_without_view(mapped.get()), gst_caps_ref(handles.get())));
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

// Posts a refusal of the stream's frames, once for the same text.
static void post_refusal(G2gView *self, std::string text)
{
    ViewState &state = self->priv->state;
    if (text == state.refusal)
        return;
    post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, text);
    state.refusal = std::move(text);
}

// Posts that `g`'s crop leaves no pixel of a width x height frame, once for the same crop and frame.
static void refuse_crop(G2gView *self, const Geometry &g, gint width, gint height)
{
    post_refusal(self, g.no_pixels_left(width, height));
}

// Frames of `caps` of a platform-handle kind that `g` cannot be handed on with (view-handles.h):
// posted once, saying why. True when refused.
static bool refuse_handles(G2gView *self, GstCaps *caps, const Geometry &g)
{
    std::optional<std::string> text =
        g2g::element::handle_refusal(GST_ELEMENT(self), GST_BASE_TRANSFORM_SRC_PAD(self), caps, g);
    if (!text)
        return false;
    post_refusal(self, std::move(*text));
    return true;
}

static gboolean g2g_view_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    state.negotiated = false;
    if (!gst_video_info_from_caps(&state.in_info, incaps) ||
        !gst_video_info_from_caps(&state.out_info, outcaps)) {
        GST_ERROR_OBJECT(self, "invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
        return FALSE;
    }
    state.in_view = g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0));
    state.out_view = g2g::caps::has_view_feature(gst_caps_get_features(outcaps, 0));
    const bool out_view = state.out_view;
    // The geometry transform_caps made outcaps with (the negotiation's).
    state.active = geometry_for_caps(self);
    const Geometry &g = state.active;

    const gint in_w = GST_VIDEO_INFO_WIDTH(&state.in_info), in_h = GST_VIDEO_INFO_HEIGHT(&state.in_info);
    const auto size = g.output_size(in_w, in_h);
    if (!size) {
        refuse_crop(self, g, in_w, in_h);
        return FALSE;
    }
    if (GST_VIDEO_INFO_WIDTH(&state.out_info) != size->first ||
        GST_VIDEO_INFO_HEIGHT(&state.out_info) != size->second) {
        GST_ERROR_OBJECT(self, "output caps %" GST_PTR_FORMAT " do not match the view (%dx%d)", outcaps,
                         size->first, size->second);
        return FALSE;
    }
    // VulkanImage frames join the pipeline's Vulkan device now (the first such caps create it if
    // no one has one), for the per-frame device check and the shader of dense output.
    state.vulkan = g2g::detail::domain_of(incaps) == g2g::MemoryDomainKind::VulkanTexture;
    if (state.vulkan && !state.gpu.vulkan.ensure(GST_ELEMENT(self)))
        return FALSE;
    state.mode =
        g2g::element::output_mode_for_caps(g, GST_VIDEO_INFO_FORMAT(&state.in_info), state.in_view, out_view);
    // The caps event refused what a handle kind cannot carry (refuse_handles): nothing writes such
    // memory, so only a view or the frame itself leaves.
    if (g2g::element::handle_domain_of(gst_caps_get_features(incaps, 0)) && state.mode != OutputMode::View &&
        state.mode != OutputMode::Passthrough) {
        GST_ERROR_OBJECT(self, "no view or passthrough for %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps,
                         outcaps);
        return FALSE;
    }
    gst_base_transform_set_passthrough(trans, state.mode == OutputMode::Passthrough);
    state.negotiated = true;
    state.refusal.clear();
    GST_INFO_OBJECT(self, "%s in, %s out (%s), method %d, crop l%u r%u t%u b%u",
                    state.in_view ? "view" : "dense", out_view ? "view" : "dense",
                    g2g::element::output_mode_name(state.mode), g.method, g.left, g.right, g.top, g.bottom);
    return TRUE;
}

// A frame the crop leaves no pixel of is refused by its caps event, naming both (the text of a
// change while PLAYING too); accept-caps takes it so that the caps event comes to say so.
static gboolean g2g_view_accept_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
    if (GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->accept_caps(trans, direction, caps))
        return TRUE;
    if (direction != GST_PAD_SINK)
        return FALSE;
    const g2g::CapsRef sink_template =
        g2g::CapsRef::adopt(gst_pad_get_pad_template_caps(GST_BASE_TRANSFORM_SINK_PAD(trans)));
    GstVideoInfo info;
    return gst_caps_can_intersect(caps, sink_template.get()) && gst_video_info_from_caps(&info, caps) &&
           !geometry_for_caps(G2G_VIEW(trans))
                .output_size(GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
}

// The caps event of a frame the negotiation's crop leaves no pixel of: refused, saying why.
// Returns false then (the event consumed).
static bool refuse_frames_left_empty(G2gView *self, GstEvent *event, const Geometry &g)
{
    GstCaps *caps = nullptr;
    gst_event_parse_caps(event, &caps);
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps) ||
        g.output_size(GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info)))
        return true;
    refuse_crop(self, g, GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
    gst_event_unref(event);
    return false;
}

// A change of the settings, put in effect for the next frame (the stream's caps stay as they
// are until the renegotiation it asks for): a new output size reaches set_caps, which decides
// again from the same geometry; caps that stay the same (identity -> 180, horiz -> vert, a crop
// moved by as much on its other side) do not, since GstBaseTransform skips set_caps for equal
// caps, so the mode and passthrough are set here and the renegotiation decides the allocation
// again for them.
static void apply_geometry(G2gView *self, const Geometry &g)
{
    GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
    ViewState &state = self->priv->state;
    state.active = g;
    state.mode = g2g::element::output_mode_for_caps(g, GST_VIDEO_INFO_FORMAT(&state.in_info), state.in_view,
                                                    state.out_view);
    gst_base_transform_set_passthrough(trans, state.mode == OutputMode::Passthrough);
    gst_pad_mark_reconfigure(GST_BASE_TRANSFORM_SRC_PAD(trans));
    GST_INFO_OBJECT(self, "settings changed: %s, method %d, crop l%u r%u t%u b%u",
                    g2g::element::output_mode_name(state.mode), g.method, g.left, g.right, g.top, g.bottom);
}

// Where every frame starts (GstBaseTransform's chain), before GstBaseTransform renegotiates: a
// change of the settings since the last frame lands here, between two frames.
static GstFlowReturn g2g_view_submit_input_buffer(GstBaseTransform *trans, gboolean is_discont,
                                                  GstBuffer *input)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    const NegotiationScope negotiation(self);
    const Geometry &g = negotiation.geometry();
    if (state.negotiated && g != state.active) {
        const gint in_w = GST_VIDEO_INFO_WIDTH(&state.in_info), in_h = GST_VIDEO_INFO_HEIGHT(&state.in_info);
        if (!g.output_size(in_w, in_h)) {
            gst_buffer_unref(input);
            refuse_crop(self, g, in_w, in_h);
            return GST_FLOW_NOT_NEGOTIATED;
        }
        const g2g::CapsRef in_caps =
            g2g::CapsRef::adopt(gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans)));
        if (refuse_handles(self, in_caps.get(), g)) {
            gst_buffer_unref(input);
            return GST_FLOW_NOT_NEGOTIATED;
        }
        apply_geometry(self, g);
    }
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->submit_input_buffer(trans, is_discont, input);
}

// The sink caps end with the sizes the crop leaves nothing of, after every size it fits (so a
// producer that can choose chooses one that fits): a producer of only such frames links, and
// hears the reason from its caps event. Appended to GstBaseTransform's answer rather than made in
// transform_caps, whose results it reorders to put downstream's own caps first (which made
// videotestsrc choose a frame too small for the crop when it could choose one that fits).
static void add_sizes_left_empty(G2gView *self, GstQuery *query)
{
    GstCaps *filter = nullptr, *answer = nullptr;
    gst_query_parse_caps(query, &filter);
    gst_query_parse_caps_result(query, &answer);
    if (!answer)
        return;
    const Geometry g = geometry_for_caps(self);
    const g2g::CapsRef sink_template =
        g2g::CapsRef::adopt(gst_pad_get_pad_template_caps(GST_BASE_TRANSFORM_SINK_PAD(self)));
    g2g::CapsRef left_empty = g2g::CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(sink_template.get()); ++i)
        g2g::element::append_sizes_left_empty(left_empty.get(),
                                              gst_caps_get_structure(sink_template.get(), i),
                                              gst_caps_get_features(sink_template.get(), i), g);
    if (filter)
        left_empty =
            g2g::CapsRef::adopt(gst_caps_intersect_full(filter, left_empty.get(), GST_CAPS_INTERSECT_FIRST));
    if (gst_caps_is_empty(left_empty.get()))
        return;
    const g2g::CapsRef widened =
        g2g::CapsRef::adopt(gst_caps_merge(gst_caps_ref(answer), left_empty.release()));
    GST_DEBUG_OBJECT(self, "sink caps with the sizes the crop leaves nothing of: %" GST_PTR_FORMAT,
                     widened.get());
    gst_query_set_caps_result(query, widened.get());
}

// The sink caps end with the platform-handle kinds that downstream leaves out (a consumer that
// reads no view of them, under a crop or an orientation): a producer of only such frames links,
// and hears from its caps event why they cannot pass (refuse_handles), not a bare not-negotiated.
static void add_handles_refused(G2gView *self, GstQuery *query)
{
    GstCaps *filter = nullptr, *answer = nullptr;
    gst_query_parse_caps(query, &filter);
    gst_query_parse_caps_result(query, &answer);
    if (!answer || gst_caps_is_any(answer))
        return;
    const g2g::CapsRef handles = g2g::CapsRef::adopt(g2g::element::handle_template_caps());
    g2g::CapsRef refused = g2g::CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(handles.get()); ++i) {
        const auto kind = g2g::element::handle_domain_of(gst_caps_get_features(handles.get(), i));
        bool answered = false;
        for (guint j = 0; j < gst_caps_get_size(answer) && !answered; ++j)
            answered = g2g::element::handle_domain_of(gst_caps_get_features(answer, j)) == kind;
        if (!answered)
            gst_caps_append(refused.get(), gst_caps_copy_nth(handles.get(), i));
    }
    if (filter)
        refused =
            g2g::CapsRef::adopt(gst_caps_intersect_full(filter, refused.get(), GST_CAPS_INTERSECT_FIRST));
    if (gst_caps_is_empty(refused.get()))
        return;
    const g2g::CapsRef widened = g2g::CapsRef::adopt(gst_caps_merge(gst_caps_ref(answer), refused.release()));
    GST_DEBUG_OBJECT(self, "sink caps with the handle frames refused: %" GST_PTR_FORMAT, widened.get());
    gst_query_set_caps_result(query, widened.get());
}

// CONTEXT queries are the context glue's (install_context_glue wraps this function).
static gboolean g2g_view_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
    G2gView *self = G2G_VIEW(trans);
    if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_CAPS) {
        if (!GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->query(trans, direction, query))
            return FALSE;
        add_sizes_left_empty(self, query);
        add_handles_refused(self, query);
        return TRUE;
    }
    // An ALLOCATION query from upstream renegotiates first when a reconfigure is pending: with
    // one reading of the settings too.
    if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION) {
        const NegotiationScope negotiation(self);
        return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->query(trans, direction, query);
    }
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->query(trans, direction, query);
}

// The next stream negotiates afresh (its caps event comes before any frame). The GPU contexts are
// dropped right after, at PAUSED->READY (the context glue).
static gboolean g2g_view_stop(GstBaseTransform *trans)
{
    ViewState &state = G2G_VIEW(trans)->priv->state;
    state.negotiated = false;
    state.mode = OutputMode::Passthrough;
    state.vulkan = false;
    state.refusal.clear();
    state.threads.stop();
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
    const auto domain = g2g::element::domain_of_allocation(query);
    if (dense_out && domain == g2g::MemoryDomainKind::Cuda)
        return state.gpu.cuda.decide_pool(GST_ELEMENT(self), query);
    // Dense VulkanImage output likewise, by a compute shader into images of g2g's storage pool.
    if (dense_out && domain == g2g::MemoryDomainKind::VulkanTexture)
        return state.gpu.vulkan.decide_pool(GST_ELEMENT(self), query);
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

static g2g::element::GpuContexts &gpu_of(GstBaseTransform *trans)
{
    return G2G_VIEW(trans)->priv->state.gpu;
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
    // A view of another device's images would be read (or materialized) on ours: refused.
    if (state.vulkan && !state.gpu.vulkan.check_frame(GST_ELEMENT(self), inbuf))
        return GST_FLOW_ERROR;

    if (state.in_view) {
        if (const auto carried = g2g::view_of_view_caps_frame(inbuf, GST_OBJECT_NAME(self)); !carried)
            return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, carried.error());
    }
    g2g::Result<g2g::FrameView> view = g2g::element::compose_view(inbuf, state.in_info, state.active);
    if (!view)
        return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, view.error());
    {
        const ObjectLock lock(self);
        state.threads.want(self->priv->n_threads);
    }
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
        const g2g::Result<void> attached = g2g::element::attach_materialized(
            outbuf, *view, inbuf, state.threads.pool(GST_ELEMENT(self), GST_VIDEO_INFO_SIZE(&view->info())));
        if (!attached)
            return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, attached.error());
        return GST_FLOW_OK;
    }
    case OutputMode::Dense:
        return g2g::element::write_dense(GST_ELEMENT(self), *view, inbuf, &state.out_info, outbuf,
                                         state.threads);
    case OutputMode::Passthrough:
    case OutputMode::CropMeta:
        break;
    }
    return GST_FLOW_OK;
}

// ---- Settings: the properties and the orientation tag ----

// An image-orientation tag: video-direction=auto follows it from the next frame on (which
// renegotiates when it changed, as for a property), by videoflip 1.28's rules: a stream-scoped
// orientation wins over a global one until a stream-scoped tag without one brings the global one
// back; a global tag without one means identity unless a stream-scoped one holds. Under auto the tag
// goes on saying rotate-0, since the frames leaving are turned already (a sink that honours the tag
// would turn them twice). Returns the event to forward (this one, or its replacement).
static GstEvent *g2g_view_take_orientation_tag(G2gView *self, GstEvent *event)
{
    GstTagList *tags = nullptr;
    gst_event_parse_tag(event, &tags);
    const bool stream_scope = gst_tag_list_get_scope(tags) == GST_TAG_SCOPE_STREAM;
    auto &seen = self->priv->tags;
    GstVideoOrientationMethod method = GST_VIDEO_ORIENTATION_IDENTITY;
    const bool oriented = gst_video_orientation_from_tag(tags, &method);
    std::optional<GstVideoOrientationMethod> follow;
    if (oriented) {
        if (stream_scope)
            seen.stream_orientation = true;
        else
            seen.global = method;
        if (stream_scope || !seen.stream_orientation)
            follow = method;
    } else if (stream_scope) {
        seen.stream_orientation = false;
        follow = seen.global;
    } else {
        seen.global = GST_VIDEO_ORIENTATION_IDENTITY;
        if (!seen.stream_orientation)
            follow = GST_VIDEO_ORIENTATION_IDENTITY;
    }
    bool turned;
    {
        const ObjectLock lock(self);
        if (follow)
            self->priv->settings.tag_method = *follow;
        turned = self->priv->settings.direction == GST_VIDEO_ORIENTATION_AUTO;
    }
    if (!oriented || !turned)
        return event;
    GstTagList *said = gst_tag_list_copy(tags); // the event (and its list) may be shared
    gst_tag_list_add(said, GST_TAG_MERGE_REPLACE, GST_TAG_IMAGE_ORIENTATION, "rotate-0", nullptr);
    gst_event_unref(event);
    return gst_event_new_tag(said);
}

// A new stream (another stream id) starts from identity: its tags come again.
static void g2g_view_take_stream_start(G2gView *self, GstEvent *event)
{
    const gchar *id = nullptr;
    gst_event_parse_stream_start(event, &id);
    auto &seen = self->priv->tags;
    if (id && seen.stream_id == id)
        return;
    seen = {};
    seen.stream_id = id ? id : "";
    const ObjectLock lock(self);
    self->priv->settings.tag_method = GST_VIDEO_ORIENTATION_IDENTITY;
}

static gboolean g2g_view_sink_event(GstBaseTransform *trans, GstEvent *event)
{
    G2gView *self = G2G_VIEW(trans);
    if (GST_EVENT_TYPE(event) == GST_EVENT_TAG)
        event = g2g_view_take_orientation_tag(self, event);
    if (GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START)
        g2g_view_take_stream_start(self, event);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
        const NegotiationScope negotiation(self);
        if (!refuse_frames_left_empty(self, event, negotiation.geometry()))
            return FALSE;
        GstCaps *caps = nullptr;
        gst_event_parse_caps(event, &caps);
        if (refuse_handles(self, caps, negotiation.geometry())) {
            gst_event_unref(event);
            return FALSE;
        }
        return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->sink_event(trans, event);
    }
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->sink_event(trans, event);
}

// video-direction=custom names no orientation g2gview could apply (GstVideoDirection's custom is
// an application's own transform): refused, the direction in effect kept, and said on the bus
// every time it is set. Set before the element has a bus (gst-launch sets properties before it
// adds the element to its pipeline) it is said when the element goes to READY.
static void say_custom_refused(G2gView *self)
{
    GstVideoOrientationMethod kept;
    {
        const ObjectLock lock(self);
        if (!GST_ELEMENT_BUS(self)) {
            ++self->priv->custom_refusals_unsaid;
            return;
        }
        kept = self->priv->settings.direction;
    }
    const GEnumValue *nick = g_enum_get_value(
        static_cast<GEnumClass *>(g_type_class_peek(GST_TYPE_VIDEO_ORIENTATION_METHOD)), kept);
    post_warning(GST_ELEMENT(self), GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
                 std::string("video-direction=custom is not supported; keeping video-direction=") +
                     (nick ? nick->value_nick : "?"));
}

static GstStateChangeReturn g2g_view_change_state(GstElement *element, GstStateChange transition)
{
    G2gView *self = G2G_VIEW(element);
    if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
        guint unsaid = 0;
        {
            const ObjectLock lock(self);
            std::swap(unsaid, self->priv->custom_refusals_unsaid);
        }
        for (guint i = 0; i < unsaid; ++i)
            say_custom_refused(self);
    }
    return GST_ELEMENT_CLASS(g2g_view_parent_class)->change_state(element, transition);
}

// A change takes effect at the next frame's start (submit_input_buffer), which renegotiates.
static void g2g_view_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gView *self = G2G_VIEW(object);
    bool custom_refused = false;
    {
        const ObjectLock lock(self);
        g2g::element::ViewSettings &settings = self->priv->settings;
        switch (prop_id) {
        case PROP_VIDEO_DIRECTION:
        case PROP_METHOD: {
            const auto method = static_cast<GstVideoOrientationMethod>(g_value_get_enum(value));
            if (method == GST_VIDEO_ORIENTATION_CUSTOM)
                custom_refused = true;
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
        case PROP_N_THREADS:
            self->priv->n_threads = g_value_get_uint(value);
            break;
        default:
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
            break;
        }
    }
    if (custom_refused)
        say_custom_refused(self);
}

static void g2g_view_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gView *self = G2G_VIEW(object);
    const ObjectLock lock(self);
    const g2g::element::ViewSettings &settings = self->priv->settings;
    switch (prop_id) {
    case PROP_VIDEO_DIRECTION:
    case PROP_METHOD:
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
    case PROP_N_THREADS:
        g_value_set_uint(value, self->priv->n_threads);
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
    element_class->change_state = g2g_view_change_state;

    g_object_class_override_property(object_class, PROP_VIDEO_DIRECTION, "video-direction");
    const auto flags =
        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(
        object_class, PROP_METHOD,
        g_param_spec_enum("method", "method",
                          "method (deprecated, use video-direction instead), as videoflip's",
                          flip_method_get_type(), GST_VIDEO_ORIENTATION_IDENTITY, flags));
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
    g2g::element::install_n_threads_property(object_class, PROP_N_THREADS);

    gst_element_class_set_static_metadata(
        element_class, "g2g stride view", "Filter/Effect/Video",
        "Flips, rotates, transposes and crops video as a stride view over the same memory (zero bytes "
        "copied) "
        "for peers that take meta:G2gTensorView; materializes once for every other peer. Crops apply to the "
        "input, then the orientation (like videocrop ! videoflip)",
        "g2g developers");
    // Views and dense frames both ways, in every domain this build has a view backend for.
    // And the platform-handle kinds, which leave only as views or passed through (view-handles.h).
    const g2g::CapsRef caps = g2g::CapsRef::adopt(
        gst_caps_merge(g2g::caps::template_caps(true, true), g2g::element::handle_template_caps()));
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps.get()));
    gst_element_class_add_pad_template(element_class,
                                       gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps.get()));

    transform_class->transform_caps = g2g_view_transform_caps;
    transform_class->fixate_caps = g2g_view_fixate_caps;
    transform_class->set_caps = g2g_view_set_caps;
    transform_class->accept_caps = g2g_view_accept_caps;
    transform_class->submit_input_buffer = g2g_view_submit_input_buffer;
    transform_class->prepare_output_buffer = g2g_view_prepare_output_buffer;
    transform_class->transform = g2g_view_transform;
    transform_class->transform_meta = g2g::element::transform_meta_but_geometry;
    transform_class->transform_size = g2g::element::frame_size_of_caps;
    transform_class->propose_allocation = g2g_view_propose_allocation;
    transform_class->decide_allocation = g2g_view_decide_allocation;
    transform_class->query = g2g_view_query;
    transform_class->stop = g2g_view_stop;
    transform_class->sink_event = g2g_view_sink_event;
    g2g::element::install_context_glue<gpu_of>(transform_class);

    GST_DEBUG_CATEGORY_INIT(g2g_view_debug, "g2gview", 0, "g2g stride view");
}

static void g2g_view_init(G2gView *self)
{
    self->priv = new ViewPrivate();
}
