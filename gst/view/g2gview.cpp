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
// The properties (ViewSettings) may change from any thread while PLAYING. As in videoflip, a
// change is proposed, then applied at the next negotiation: every frame starts
// (submit_input_buffer, on the streaming thread) by comparing what the settings ask with what the
// caps are computed from (the configured GeometryRequest), and a change is configured there,
// between two frames, and negotiated. Every caps computation, from any thread, reads the configured
// request once: a caps query answers from one reading (answer_caps_query), never half from the old
// settings and half from the new. Negotiation makes one ViewPlan (view-plan.h), refined by
// downstream's ALLOCATION answer and swapped in whole; prepare_output_buffer and transform read
// only the plan. Dense output is written by the CPU on n-threads threads (view-threads.h), a change
// of n-threads taking effect at the next frame without renegotiating.
//
// A side of -1 crops automatically, as videocrop's: what the input's and the output's sizes leave.
// Memory g2gview has no view of (DMABuf...) passes through under the identity and leaves with a
// GstVideoCropMeta under a crop, for a consumer that reads one; an orientation of it is refused.
#include "g2gview.h"

#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "common/allocation.h"
#include "common/context-glue.h"
#include "common/element-docs.h"
#include "common/element-error.h"
#include "common/object-lock.h"
#include <g2g-internal/plugin-interface.h>
#include "view-buffers.h"
#include "view-caps.h"
#include "view-geometry.h"
#include "view-handles.h"
#include "view-output-mode.h"
#include "view-output.h"
#include "view-plan.h"
#include "view-threads.h"

GST_DEBUG_CATEGORY_STATIC(g2g_view_debug);
#define GST_CAT_DEFAULT g2g_view_debug

using g2g::element::Geometry;
using g2g::element::GeometryRequest;
using g2g::element::ObjectLock;
using g2g::element::OutputMode;
using g2g::element::post_error;
using g2g::element::post_warning;
using g2g::element::ViewPlan;

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

// What negotiation decided, and what the stream needs. Streaming thread only: set_caps,
// decide_allocation and the per-frame path all run there, under the sink pad's stream lock.
struct ViewState {
    // The plan in effect (none before the first caps): replaced whole, never changed in place.
    std::shared_ptr<const ViewPlan> plan;
    // The last refusal posted: a refused caps event comes back with every push of upstream's
    // (sticky events are re-sent), and one error says it.
    std::string refusal;
    // The pipeline's CUDA context, for dense CUDA output (a kernel writes it), and its Vulkan
    // device and queue, for VulkanImage frames (a shader writes dense ones; views are checked to
    // be of that device). set_context and CONTEXT queries also reach them from their own threads,
    // as in nvcodec's and GStreamer's Vulkan elements.
    g2g::element::GpuContexts gpu;
    // The threads dense frames are written with (n-threads).
    g2g::element::StreamThreads threads;
};

struct ViewPrivate {
    // The object lock guards the settings, the configured request and the warnings pending. It is
    // taken on its own (no other lock of ours exists) and only to copy them in or out: never held
    // across a GStreamer call that may take a pad's stream lock (negotiation, posting), so it
    // nests inside those, never around them.
    g2g::element::ViewSettings settings;
    guint n_threads = g2g::element::kDefaultThreads; // n-threads: not geometry, never renegotiates
    // What caps are computed from. It follows the settings until a stream's first caps event; from
    // then on only the streaming thread configures it (configure_request), at a caps event and at
    // a frame that finds the settings changed, so one negotiation never sees two.
    GeometryRequest configured;
    bool streaming = false;
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

// The request caps are computed from now (any thread).
static GeometryRequest configured_request(G2gView *self)
{
    const ObjectLock lock(self);
    const ViewPrivate &priv = *self->priv;
    return priv.streaming ? priv.configured : priv.settings.requested();
}

// Streaming thread: configures what the settings ask now, and says it.
static GeometryRequest configure_request(G2gView *self)
{
    const ObjectLock lock(self);
    ViewPrivate &priv = *self->priv;
    priv.streaming = true;
    priv.configured = priv.settings.requested();
    return priv.configured;
}

// What the settings ask now, compared with the configured request (streaming thread).
static std::pair<GeometryRequest, GeometryRequest> asked_and_configured(G2gView *self)
{
    const ObjectLock lock(self);
    return {self->priv->settings.requested(), self->priv->configured};
}

// ---- Negotiation ----

// The caps of the view domains' frames g2gview takes: every format their backends describe, views
// and dense (made once: the domains are the build's).
static GstCaps *view_domain_caps()
{
    static GstCaps *caps = [] {
        GstCaps *made = g2g::caps::template_caps(true, true);
        GST_MINI_OBJECT_FLAG_SET(made, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
        return made;
    }();
    return caps;
}

// `caps` mapped across `request` (forward: sink to src), filtered by `filter`. A structure of any
// memory (the template's own) stands for the view domains' frames, which read it as system memory;
// with `any_memory_passes` (a linked peer takes ANY caps) it also stands for memory g2gview has no view
// of, which passes as it is: a peer that names none gets no `video/x-raw(ANY)` from g2gview, which
// would link frames of a view domain in formats no view describes (VulkanImage YUY2) only to refuse
// them later.
static GstCaps *transform_caps_with(G2gView *self, const GeometryRequest &request, bool forward,
                                    GstCaps *caps, GstCaps *filter, bool any_memory_passes = false)
{
    const g2g::CapsRef mapped = g2g::CapsRef::adopt(gst_caps_new_empty());
    // Frames of the platform-handle kinds, in the forms they can take (view-handles.h), and of
    // memory g2gview has no view of, which keep their memory and features as they are.
    const g2g::CapsRef kept = g2g::CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *in = gst_caps_get_structure(caps, i);
        GstCapsFeatures *features = gst_caps_get_features(caps, i);
        // The features travel too: they say which memory (system or CUDA) the frame stays in.
        // A caps query is a question, so nothing is posted here: frames the crop leaves no pixel
        // of link, and are refused saying why when their caps event comes (sink_event).
        GstStructure *out = g2g::element::map_structure(in, request, forward);
        if (!out && forward)
            out = g2g::element::output_of_sizes_left_empty(in, request);
        if (!out)
            continue;
        if (const auto handle = g2g::element::handle_domain_of(features)) {
            g_autoptr(GstStructure) mapped = out; // the forms are copies of it
            g2g::element::append_handle_forms(
                kept.get(), mapped, *handle, g2g::caps::has_view_feature(features), forward, request.fixed());
            continue;
        }
        if (g2g::element::is_opaque_memory(features)) {
            gst_caps_append_structure_full(kept.get(), out, gst_caps_features_copy(features));
            continue;
        }
        if (any_memory_passes && features && gst_caps_features_is_any(features))
            gst_caps_append_structure_full(kept.get(), gst_structure_copy(out), gst_caps_features_new_any());
        gst_caps_append_structure_full(mapped.get(), out, gst_caps_features_copy(features));
    }

    // Frames of the view domains only in the formats their backends describe (the template's
    // any-memory structure would take any).
    const g2g::CapsRef viewed = g2g::CapsRef::adopt(
        gst_caps_intersect_full(g2g::CapsRef::adopt(g2g::caps::with_and_without_view(mapped.get())).get(),
                                view_domain_caps(), GST_CAPS_INTERSECT_FIRST));
    g2g::CapsRef result =
        g2g::CapsRef::adopt(gst_caps_merge(gst_caps_ref(viewed.get()), gst_caps_ref(kept.get())));
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    GST_DEBUG_OBJECT(self, "transformed %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, caps, result.get());
    return result.release();
}

static GstCaps *g2g_view_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
                                        GstCaps *filter)
{
    G2gView *self = G2G_VIEW(trans);
    return transform_caps_with(self, configured_request(self), direction == GST_PAD_SINK, caps, filter);
}

static GstCaps *g2g_view_fixate_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
                                     GstCaps *othercaps)
{
    g2g::CapsRef other = g2g::CapsRef::adopt(othercaps);
    if (direction != GST_PAD_SINK)
        return gst_caps_fixate(gst_caps_make_writable(other.release()));
    // A view goes to a peer that names the feature, and only to one: ANY-caps sinks (fakesink,
    // filesink, a caps-less appsink) get dense frames.
    g2g::CapsRef kept = g2g::CapsRef::adopt(gst_caps_copy(other.get()));
    g2g::caps::keep_structures(kept.get(), g2g::caps::peer_names_view(GST_BASE_TRANSFORM_SRC_PAD(trans)));
    if (!gst_caps_is_empty(kept.get()))
        other = std::move(kept);
    other = g2g::CapsRef::adopt(gst_caps_truncate(gst_caps_make_writable(other.release())));
    // An automatic crop crops what downstream asks, and nothing where downstream leaves the size
    // free: the size nearest the input's less the fixed sides.
    const GeometryRequest request = configured_request(G2G_VIEW(trans));
    GstVideoInfo in;
    if ((request.automatic_width() || request.automatic_height()) && gst_caps_is_fixed(caps) &&
        gst_video_info_from_caps(&in, caps)) {
        if (const auto widest =
                request.fixed().output_size(GST_VIDEO_INFO_WIDTH(&in), GST_VIDEO_INFO_HEIGHT(&in))) {
            GstStructure *s = gst_caps_get_structure(other.get(), 0);
            gst_structure_fixate_field_nearest_int(s, "width", widest->first);
            gst_structure_fixate_field_nearest_int(s, "height", widest->second);
        }
    }
    return gst_caps_fixate(other.release());
}

// Posts a refusal of the stream's frames, once for the same text: the one place g2gview refuses.
static void post_refusal(G2gView *self, std::string text)
{
    ViewState &state = self->priv->state;
    if (text == state.refusal)
        return;
    post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, text);
    state.refusal = std::move(text);
}

// Frames of `caps` refused under `request` whatever their output (view-plan.h): posted. True when
// refused.
static bool refuse_input(G2gView *self, const GeometryRequest &request, GstCaps *caps)
{
    std::optional<std::string> text =
        g2g::element::refusal_of_input(GST_ELEMENT(self), GST_BASE_TRANSFORM_SRC_PAD(self), request, caps);
    if (!text)
        return false;
    post_refusal(self, std::move(*text));
    return true;
}

// Puts `plan` in effect: the per-frame path reads it from the next frame on.
static void adopt_plan(G2gView *self, ViewPlan plan)
{
    ViewState &state = self->priv->state;
    const g2g::element::Geometry &g = plan.geometry;
    GST_INFO_OBJECT(self, "%s in, %s out (%s), method %d, crop l%u r%u t%u b%u",
                    plan.in_view ? "view" : "dense", plan.out_view ? "view" : "dense",
                    g2g::element::output_mode_name(plan.mode), g.method, g.left, g.right, g.top, g.bottom);
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), plan.mode == OutputMode::Passthrough);
    state.plan = std::make_shared<const ViewPlan>(std::move(plan));
    state.refusal.clear();
}

static gboolean g2g_view_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    // The request transform_caps made outcaps with: configured on this thread, unchanged since.
    g2g::Result<ViewPlan> plan = g2g::element::plan_for_caps(
        GST_ELEMENT(self), GST_BASE_TRANSFORM_SRC_PAD(trans), configured_request(self), incaps, outcaps);
    if (!plan) {
        post_refusal(self, plan.error().message());
        return FALSE;
    }
    // VulkanImage frames join the pipeline's Vulkan device now (the first such caps create it if
    // no one has one), for the per-frame device check and the shader of dense output.
    if (plan->vulkan && !state.gpu.vulkan.ensure(GST_ELEMENT(self)))
        return FALSE;
    adopt_plan(self, std::move(*plan));
    return TRUE;
}

// A frame the crop leaves no pixel of is refused by its caps event, naming both (the text of a
// change while PLAYING too); accept-caps takes it so that the caps event comes to say so.
static gboolean g2g_view_accept_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
    G2gView *self = G2G_VIEW(trans);
    const GeometryRequest request = configured_request(self);
    GstPad *pad =
        direction == GST_PAD_SINK ? GST_BASE_TRANSFORM_SINK_PAD(trans) : GST_BASE_TRANSFORM_SRC_PAD(trans);
    GstPad *other =
        direction == GST_PAD_SINK ? GST_BASE_TRANSFORM_SRC_PAD(trans) : GST_BASE_TRANSFORM_SINK_PAD(trans);
    const g2g::CapsRef templ = g2g::CapsRef::adopt(gst_pad_get_pad_template_caps(pad));
    if (!gst_caps_can_intersect(caps, templ.get()))
        return FALSE;
    // GstBaseTransform's rule, with one reading of the request.
    const g2g::CapsRef other_templ = g2g::CapsRef::adopt(gst_pad_get_pad_template_caps(other));
    const g2g::CapsRef across = g2g::CapsRef::adopt(
        transform_caps_with(self, request, direction == GST_PAD_SINK, caps, other_templ.get()));
    if (!gst_caps_is_empty(across.get()))
        return TRUE;
    GstVideoInfo info;
    return direction == GST_PAD_SINK && gst_video_info_from_caps(&info, caps) &&
           !request.fixed().output_size(GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
}

// Whether frames of `plan` are read here or by the view's reader (a view or a dense frame), rather
// than handed on as they are (the identity) or with a crop meta: only those need host bytes under
// system-memory caps.
static bool reads_pixels(const ViewPlan &plan)
{
    return plan.host_in && plan.mode != OutputMode::Passthrough && plan.mode != OutputMode::CropMeta;
}

// Where every frame starts (GstBaseTransform's chain), before GstBaseTransform renegotiates: a
// change of the settings since the last frame is configured here, between two frames. Caps that
// stay the same (identity -> 180, horiz -> vert, a crop moved by as much on its other side) do not
// reach set_caps (GstBaseTransform skips it for equal caps), so their plan is made here; other
// changes are planned by the renegotiation the marked src pad asks for.
static GstFlowReturn g2g_view_submit_input_buffer(GstBaseTransform *trans, gboolean is_discont,
                                                  GstBuffer *input)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    const auto [asked, configured] = asked_and_configured(self);
    if (state.plan && asked != configured) {
        const g2g::CapsRef in_caps =
            g2g::CapsRef::adopt(gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans)));
        const g2g::CapsRef out_caps =
            g2g::CapsRef::adopt(gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(trans)));
        // Refused for the stream's frames: this frame is, the configured request stays.
        if (refuse_input(self, asked, in_caps.get())) {
            const g2g::BufferRef dropped = g2g::BufferRef::adopt(input);
            return GST_FLOW_NOT_NEGOTIATED;
        }
        configure_request(self);
        g2g::Result<ViewPlan> same_caps = g2g::element::plan_for_caps(
            GST_ELEMENT(self), GST_BASE_TRANSFORM_SRC_PAD(trans), asked, in_caps.get(), out_caps.get());
        if (same_caps)
            adopt_plan(self, std::move(*same_caps));
        // Decided again downstream's way: new caps, or the allocation for the new mode.
        gst_pad_mark_reconfigure(GST_BASE_TRANSFORM_SRC_PAD(trans));
        GST_INFO_OBJECT(self, "settings changed: method %d, crop l%d r%d t%d b%d", asked.method, asked.left,
                        asked.right, asked.top, asked.bottom);
    }
    if (state.plan && reads_pixels(*state.plan)) {
        // GstCudaMemory under system-memory caps (cudadownload passes its input through when
        // downstream reads GstVideoMeta, as g2gview does): read once through its mapping, as any
        // GStreamer element of such caps reads it, and viewed there.
        g2g::Result<g2g::BufferRef> host = g2g::detail::host_copy_of(input);
        if (!host) {
            gst_buffer_unref(input);
            return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, host.error());
        }
        if (*host) {
            gst_buffer_unref(input);
            input = host->release();
        }
    }
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->submit_input_buffer(trans, is_discont, input);
}

// The sink caps end with the sizes the crop leaves nothing of, after every size it fits (so a
// producer that can choose chooses one that fits): a producer of only such frames links, and
// hears the reason from its caps event. After GstBaseTransform's preference for downstream's own
// caps, which put them first (and made videotestsrc choose a frame too small for the crop when it
// could choose one that fits).
static void add_sizes_left_empty(GstCaps *answer, GstCaps *filter, GstCaps *sink_template,
                                 const GeometryRequest &request)
{
    g2g::CapsRef left_empty = g2g::CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(sink_template); ++i) {
        // Not the template's any-memory structure: caps of ANY features are no answer.
        if (gst_caps_features_is_any(gst_caps_get_features(sink_template, i)))
            continue;
        g2g::element::append_sizes_left_empty(left_empty.get(), gst_caps_get_structure(sink_template, i),
                                              gst_caps_get_features(sink_template, i), request);
    }
    if (filter)
        left_empty =
            g2g::CapsRef::adopt(gst_caps_intersect_full(filter, left_empty.get(), GST_CAPS_INTERSECT_FIRST));
    gst_caps_append(answer, left_empty.release());
}

// The sink caps end with the platform-handle kinds that downstream leaves out (a consumer that
// reads no view of them, under a crop or an orientation): a producer of only such frames links,
// and hears from its caps event why they cannot pass (refusal_of_input), not a bare not-negotiated.
static void add_handles_refused(GstCaps *answer, GstCaps *filter)
{
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
    gst_caps_append(answer, refused.release());
}

// A CAPS query on either pad, answered as GstBaseTransform would (the filter carried across to the
// peer, the peer's answer carried back, downstream's own caps first), from one reading of the
// configured request: a query that read the settings twice while another thread changed them
// answered nothing (not-negotiated in 2 to 8 runs of 15 of a direction flipped every 30 us).
static GstCaps *answer_caps_query(G2gView *self, GstPadDirection direction, GstCaps *filter)
{
    const GeometryRequest request = configured_request(self);
    GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
    const bool sink = direction == GST_PAD_SINK;
    GstPad *pad = sink ? GST_BASE_TRANSFORM_SINK_PAD(trans) : GST_BASE_TRANSFORM_SRC_PAD(trans);
    GstPad *other = sink ? GST_BASE_TRANSFORM_SRC_PAD(trans) : GST_BASE_TRANSFORM_SINK_PAD(trans);
    const g2g::CapsRef templ = g2g::CapsRef::adopt(gst_pad_get_pad_template_caps(pad));
    const g2g::CapsRef other_templ = g2g::CapsRef::adopt(gst_pad_get_pad_template_caps(other));

    g2g::CapsRef peer_filter;
    if (filter) {
        const g2g::CapsRef ours =
            g2g::CapsRef::adopt(gst_caps_intersect_full(filter, templ.get(), GST_CAPS_INTERSECT_FIRST));
        const g2g::CapsRef across =
            g2g::CapsRef::adopt(transform_caps_with(self, request, sink, ours.get(), nullptr));
        peer_filter = g2g::CapsRef::adopt(
            gst_caps_intersect_full(across.get(), other_templ.get(), GST_CAPS_INTERSECT_FIRST));
    }
    g2g::CapsRef answer;
    if (!peer_filter || !gst_caps_is_empty(peer_filter.get())) {
        const g2g::CapsRef peer = g2g::CapsRef::adopt(gst_pad_peer_query_caps(other, peer_filter.get()));
        const g2g::CapsRef peer_ours = g2g::CapsRef::adopt(
            peer ? gst_caps_intersect_full(peer.get(), other_templ.get(), GST_CAPS_INTERSECT_FIRST)
                 : gst_caps_ref(other_templ.get()));
        // An unlinked pad's peer answers ANY too (gst_pad_peer_query_caps): not a peer that takes any.
        const bool peer_takes_any = gst_pad_is_linked(other) && peer && gst_caps_is_any(peer.get());
        const g2g::CapsRef back = g2g::CapsRef::adopt(
            transform_caps_with(self, request, !sink, peer_ours.get(), filter, peer_takes_any));
        answer =
            g2g::CapsRef::adopt(gst_caps_intersect_full(back.get(), templ.get(), GST_CAPS_INTERSECT_FIRST));
        // Downstream's own caps first where they pass as they are (GstBaseTransform's
        // prefer-passthrough).
        if (peer && !gst_caps_is_empty(answer.get())) {
            g2g::CapsRef same = g2g::CapsRef::adopt(
                gst_caps_intersect_full(peer.get(), answer.get(), GST_CAPS_INTERSECT_FIRST));
            if (!gst_caps_is_empty(same.get()))
                answer = g2g::CapsRef::adopt(gst_caps_merge(same.release(), answer.release()));
        }
    } else {
        answer = g2g::CapsRef::adopt(gst_caps_new_empty());
    }
    if (sink && !gst_caps_is_any(answer.get())) {
        answer = g2g::CapsRef::adopt(gst_caps_make_writable(answer.release()));
        add_sizes_left_empty(answer.get(), filter, templ.get(), request);
        add_handles_refused(answer.get(), filter);
    }
    GST_DEBUG_OBJECT(self, "%s caps: %" GST_PTR_FORMAT, sink ? "sink" : "src", answer.get());
    return answer.release();
}

// CONTEXT queries are the context glue's (install_context_glue wraps this function).
static gboolean g2g_view_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
    if (GST_QUERY_TYPE(query) == GST_QUERY_CAPS) {
        GstCaps *filter = nullptr;
        gst_query_parse_caps(query, &filter);
        const g2g::CapsRef answer =
            g2g::CapsRef::adopt(answer_caps_query(G2G_VIEW(trans), direction, filter));
        gst_query_set_caps_result(query, answer.get());
        return TRUE;
    }
    return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->query(trans, direction, query);
}

// The next stream negotiates afresh (its caps event comes before any frame); the settings are
// what its caps are computed from until then. The GPU contexts are dropped right after, at
// PAUSED->READY (the context glue).
static gboolean g2g_view_stop(GstBaseTransform *trans)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    state.plan.reset();
    state.refusal.clear();
    state.threads.stop();
    const ObjectLock lock(self);
    self->priv->streaming = false;
    return TRUE;
}

// Not called in passthrough (GstBaseTransform proxies downstream's pool then).
static gboolean g2g_view_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    if (!state.plan)
        return FALSE;
    g2g::Result<ViewPlan> refined = g2g::element::plan_for_allocation(GST_ELEMENT(self), *state.plan, query);
    if (!refined) {
        post_refusal(self, refined.error().message());
        return FALSE;
    }
    const OutputMode mode = refined->mode;
    if (mode != state.plan->mode)
        adopt_plan(self, std::move(*refined));
    GST_DEBUG_OBJECT(self, "output mode %s", g2g::element::output_mode_name(mode));
    // View output reads the input's memory: downstream's pool is never written. Dense output
    // (CropMeta too, which keeps its pool as GstBaseTransform would) gets one of the right kind.
    const bool dense_out = mode == OutputMode::Dense || mode == OutputMode::CropMeta;
    // Dense CUDA output is written by a kernel into frames of a CUDA pool, configured here, whole
    // (the default would hand the pool downstream's system allocator).
    const auto domain = g2g::element::domain_of_allocation(query);
    if (dense_out && !state.plan->opaque && domain == g2g::MemoryDomainKind::Cuda)
        return state.gpu.cuda.decide_pool(GST_ELEMENT(self), query);
    // Dense VulkanImage output likewise, by a compute shader into images of g2g's storage pool.
    if (dense_out && !state.plan->opaque && domain == g2g::MemoryDomainKind::VulkanTexture)
        return state.gpu.vulkan.decide_pool(GST_ELEMENT(self), query);
    if (dense_out && !state.plan->opaque && g2g::element::decide_line_aligned_pool(query))
        return TRUE;
    if (dense_out && !state.plan->opaque)
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
    // Views and crop metas hand downstream the input's own memory: the memory downstream asked for
    // (g2gipcsink's memfds, g2gdmabufupload's DMA-BUFs) is upstream's to write, so that the frames
    // reach it with no copy. Its pools are for the output's caps, not the input's: its allocators
    // are passed on, and a pool of exportable Vulkan images (g2gipcsink's) is made again for the
    // input's caps.
    const ViewState &state = G2G_VIEW(trans)->priv->state;
    const bool hands_on_input =
        state.plan && (state.plan->mode == OutputMode::View || state.plan->mode == OutputMode::CropMeta);
    if (!hands_on_input)
        return TRUE;
    // Before this element's first frame it has not asked downstream yet: asked now, in its caps.
    g2g::Ref<GstQuery> asked;
    if (!decide_query) {
        g2g::CapsRef out_caps =
            g2g::CapsRef::adopt(gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(trans)));
        if (!out_caps)
            return TRUE;
        asked = g2g::Ref<GstQuery>::adopt(gst_query_new_allocation(out_caps.get(), FALSE));
        if (!gst_pad_peer_query(GST_BASE_TRANSFORM_SRC_PAD(trans), asked.get()))
            return TRUE;
        decide_query = asked.get();
    }
    g2g::element::VulkanContextUse::pass_export_pool(decide_query, query);
    const guint n_params = gst_query_get_n_allocation_params(decide_query);
    for (guint i = 0; i < n_params; ++i) {
        GstAllocator *allocator = nullptr;
        GstAllocationParams params;
        gst_query_parse_nth_allocation_param(decide_query, i, &allocator, &params);
        gst_query_add_allocation_param(query, allocator, &params);
        if (allocator)
            gst_object_unref(allocator);
    }
    // A pool of the input's frames in downstream's first allocator, for producers that take a pool
    // and not an allocator (videotestsrc).
    GstCaps *in_caps = nullptr;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &in_caps, &need_pool);
    GstVideoInfo in_info;
    if (!need_pool || n_params == 0 || !in_caps || !gst_video_info_from_caps(&in_info, in_caps))
        return TRUE;
    GstAllocator *allocator = nullptr;
    GstAllocationParams params;
    gst_query_parse_nth_allocation_param(decide_query, 0, &allocator, &params);
    if (!allocator)
        return TRUE;
    g2g::Ref<GstAllocator> owned = g2g::Ref<GstAllocator>::adopt(allocator);
    g2g::Ref<GstBufferPool> pool = g2g::Ref<GstBufferPool>::adopt(gst_video_buffer_pool_new());
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, in_caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&in_info)), 0,
                                      0);
    gst_buffer_pool_config_set_allocator(config, allocator, &params);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (gst_buffer_pool_set_config(pool.get(), config))
        gst_query_add_allocation_pool(query, pool.get(), static_cast<guint>(GST_VIDEO_INFO_SIZE(&in_info)), 0,
                                      0);
    return TRUE;
}

static g2g::element::GpuContexts &gpu_of(GstBaseTransform *trans)
{
    return G2G_VIEW(trans)->priv->state.gpu;
}

// ---- Per frame: the output buffer, then what goes into it, by the plan's mode ----

static GstFlowReturn g2g_view_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *input,
                                                    GstBuffer **outbuf)
{
    const ViewState &state = G2G_VIEW(trans)->priv->state;
    if (!state.plan)
        return GST_FLOW_NOT_NEGOTIATED;
    const ViewPlan &plan = *state.plan;
    switch (plan.mode) {
    case OutputMode::Passthrough: // the input itself
    case OutputMode::Dense:       // a frame of the negotiated pool
        return GST_BASE_TRANSFORM_CLASS(g2g_view_parent_class)->prepare_output_buffer(trans, input, outbuf);
    case OutputMode::CropMeta:
        *outbuf =
            g2g::element::crop_meta_buffer(input, plan.in_info, plan.geometry, plan.out_info, !plan.opaque)
                .release();
        return GST_FLOW_OK;
    case OutputMode::View:
    case OutputMode::PackedThroughDense:
        // One kind of buffer for both: PackedThroughDense's transform puts the materialized
        // frame's memory in place of the input's, as View's does for a frame that lost its stride
        // form.
        *outbuf = g2g::detail::buffer_over_memories(input).release();
        return GST_FLOW_OK;
    }
    return GST_FLOW_NOT_NEGOTIATED;
}

static GstFlowReturn g2g_view_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gView *self = G2G_VIEW(trans);
    ViewState &state = self->priv->state;
    if (!state.plan)
        return GST_FLOW_NOT_NEGOTIATED;
    const ViewPlan &plan = *state.plan;
    // Passthrough never gets here (GstBaseTransform hands the input on); CropMeta is all said by
    // the crop meta prepare_output_buffer put on the buffer.
    if (plan.mode == OutputMode::Passthrough || plan.mode == OutputMode::CropMeta)
        return GST_FLOW_OK;
    // A view of another device's images would be read (or materialized) on ours: refused.
    if (plan.vulkan && !state.gpu.vulkan.check_frame(GST_ELEMENT(self), inbuf))
        return GST_FLOW_ERROR;

    if (plan.in_view) {
        if (const auto carried = g2g::view_of_view_caps_frame(inbuf, GST_OBJECT_NAME(self)); !carried)
            return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, carried.error());
    }
    g2g::Result<g2g::FrameView> view = g2g::element::compose_view(inbuf, plan.in_info, plan.geometry);
    if (!view)
        return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, view.error());
    {
        const ObjectLock lock(self);
        state.threads.want(self->priv->n_threads);
    }
    switch (plan.mode) {
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
        return g2g::element::write_dense(GST_ELEMENT(self), *view, inbuf, &plan.out_info, outbuf,
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
    const g2g::Ref<GstEvent> replaced = g2g::Ref<GstEvent>::adopt(event);
    GstTagList *said = gst_tag_list_copy(tags); // the event (and its list) may be shared
    gst_tag_list_add(said, GST_TAG_MERGE_REPLACE, GST_TAG_IMAGE_ORIENTATION, "rotate-0", nullptr);
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
    // A stream's caps are negotiated with what the settings ask now, configured for every step.
    // Frames refused whatever their output are refused here, saying why (the event consumed).
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
        const GeometryRequest request = configure_request(self);
        GstCaps *caps = nullptr;
        gst_event_parse_caps(event, &caps);
        if (refuse_input(self, request, caps)) {
            const g2g::Ref<GstEvent> consumed = g2g::Ref<GstEvent>::adopt(event);
            return FALSE;
        }
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
            settings.left = g_value_get_int(value);
            break;
        case PROP_RIGHT:
            settings.right = g_value_get_int(value);
            break;
        case PROP_TOP:
            settings.top = g_value_get_int(value);
            break;
        case PROP_BOTTOM:
            settings.bottom = g_value_get_int(value);
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
        g_value_set_int(value, settings.left);
        break;
    case PROP_RIGHT:
        g_value_set_int(value, settings.right);
        break;
    case PROP_TOP:
        g_value_set_int(value, settings.top);
        break;
    case PROP_BOTTOM:
        g_value_set_int(value, settings.bottom);
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
    // GstVideoDirection declares video-direction changeable only in NULL or READY; g2gview takes it
    // while PLAYING. As videoflip does, the flag goes on the spec find_property returns, the
    // interface's: videoflip's class_init sets it there too, so without this what gst-inspect-1.0
    // and the element page said depended on whether videoflip's class was made first.
    GParamSpec *direction = g_object_class_find_property(object_class, "video-direction");
    direction->flags = static_cast<GParamFlags>(direction->flags | GST_PARAM_MUTABLE_PLAYING);
    const auto flags =
        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(
        object_class, PROP_METHOD,
        g_param_spec_enum("method", "method",
                          "method (deprecated, use video-direction instead), as videoflip's",
                          flip_method_get_type(), GST_VIDEO_ORIENTATION_IDENTITY, flags));
    // videocrop's ranges: -1 crops automatically (what the input's and the output's sizes leave).
    struct Side {
        guint id;
        const char *name, *nick, *blurb;
    };
    for (const Side &side :
         {Side{PROP_LEFT, "left", "Left", "Pixels to crop at the left of the input (-1 to auto-crop)"},
          Side{PROP_RIGHT, "right", "Right", "Pixels to crop at the right of the input (-1 to auto-crop)"},
          Side{PROP_TOP, "top", "Top", "Pixels to crop at the top of the input (-1 to auto-crop)"},
          Side{PROP_BOTTOM, "bottom", "Bottom",
               "Pixels to crop at the bottom of the input (-1 to auto-crop)"}})
        g_object_class_install_property(object_class, side.id,
                                        g_param_spec_int(side.name, side.nick, side.blurb,
                                                         g2g::element::kAutomaticCrop, G_MAXINT, 0, flags));
    g2g::element::install_n_threads_property(object_class, PROP_N_THREADS);

    g2g::element::set_metadata(element_class, "g2gview", "g2g stride view", "Filter/Effect/Video",
                               "Flips, rotates and crops video as a zero-copy stride view");
    // Views and dense frames both ways, in every domain this build has a view backend for.
    // And the platform-handle kinds, which leave only as views or passed through (view-handles.h);
    // and, as videocrop's, raw video in any other memory, passed through or cropped by meta.
    const g2g::CapsRef caps = g2g::CapsRef::adopt(gst_caps_merge(
        gst_caps_merge(g2g::caps::template_caps(true, true), g2g::element::handle_template_caps()),
        gst_caps_from_string("video/x-raw(ANY), width=(int)[ 1, max ], height=(int)[ 1, max ], "
                             "framerate=(fraction)[ 0, max ]")));
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
    transform_class->get_unit_size = g2g::element::frame_size_of;
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
