// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gmaterialize: writes a frame view (meta:G2gTensorView) out as the dense frame in one pass
// (CUDA frames: one kernel, in device memory; VulkanImage frames: one compute shader, into Vulkan
// images), for peers that read dense frames only; dense frames pass through untouched, not even a
// new buffer. VulkanImage frames (views or dense) also go to system-memory peers: written dense on
// the GPU when a view, then downloaded with a fence, so that the streaming thread never waits for
// the GPU (the bytes wait, when first mapped).
//
//   gst-launch-1.0 videotestsrc ! g2gview video-direction=vert ! g2gmaterialize ! fakesink
//   gst-launch-1.0 videotestsrc ! vulkanupload ! g2gview video-direction=90r ! g2gmaterialize
//       ! video/x-raw ! videoconvert ! autovideosink   (one command line)
//
// One property, n-threads (view-threads.h): the threads a CPU materialize is split across. A change
// is proposed (the settings) and marks the src pad for reconfigure: it takes effect at the next
// frame, whose reconfigure asks downstream's ALLOCATION again (caps kept) and makes the plan anew.
//
// Settings (n-threads, under the object lock), Plan (make_plan: the route, the layout written and
// the threads, from a settings snapshot, the caps and whether vulkanupload feeds this thread; made
// at set_caps and decide_allocation, swapped in whole; the per-frame path reads only it) and State
// (the staging pool, the GPU contexts, the worker threads: streaming thread only, but for the
// contexts).
#include "g2gmaterialize.h"

#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <memory>
#include <utility>

#include "common/allocation.h"
#include "common/context-glue.h"
#include "common/element-docs.h"
#include "common/element-error.h"
#include "common/plan-slot.h"
#include "common/settings-slot.h"
#include <g2g-internal/plugin-interface.h>
#include "view-caps.h"
#include "view-output.h"
#include "view-threads.h"

GST_DEBUG_CATEGORY_STATIC(g2g_materialize_debug);
#define GST_CAT_DEFAULT g2g_materialize_debug

using g2g::element::post_error;

namespace {

enum {
    PROP_0,
    PROP_N_THREADS,
};

// The properties as the application set them.
struct MaterializeSettings {
    guint n_threads = g2g::element::kDefaultThreads;
};

// What a frame goes through.
enum class MaterializeRoute {
    Passthrough, // dense in, the same memory out: the input buffer itself
    Dense,       // a view in: written densely into a frame of the negotiated pool (its domain's backend)
    Download,    // VulkanImage in, system memory out: Engine::download's buffer (a view written
                 // densely on the GPU first)
};

const char *route_name(MaterializeRoute route)
{
    switch (route) {
    case MaterializeRoute::Passthrough:
        return "passthrough";
    case MaterializeRoute::Dense:
        return "dense";
    case MaterializeRoute::Download:
        return "download";
    }
    return "";
}

// What the peers answered for a decision: asked before make_plan, only where the caps make the
// question matter.
struct MaterializePeers {
    // vulkanupload runs upstream in this thread and races its staging buffer
    // (compat::vulkanupload_races_staging): asked for a download only.
    bool upload_races = false;
};

// What negotiation decided; immutable.
struct MaterializePlan {
    GstVideoInfo out_info{}; // the dense layout written
    MaterializeRoute route = MaterializeRoute::Passthrough;
    bool in_view = false;
    bool vulkan_in = false;
    bool vulkan_out = false;
    // A download behind vulkanupload in this thread: each copy is waited for.
    bool download_waits = false;
    guint n_threads = g2g::element::kDefaultThreads; // the threads dense frames are written with
};

// The route between two negotiated caps.
MaterializeRoute route_between(GstCaps *incaps, GstCaps *outcaps)
{
    using g2g::MemoryDomainKind;
    const auto in_kind = g2g::detail::domain_of(incaps), out_kind = g2g::detail::domain_of(outcaps);
    if (in_kind == MemoryDomainKind::VulkanTexture && out_kind == MemoryDomainKind::System)
        return MaterializeRoute::Download;
    // Dense in, dense out (the same memory): nothing to do, not even a buffer.
    return g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0)) ? MaterializeRoute::Dense
                                                                         : MaterializeRoute::Passthrough;
}

// The plan for `settings` and the caps negotiated, given what the peers answered; refused (no words:
// GstBaseTransform's not-negotiated) when the output caps are no video layout. Pure.
g2g::element::Planned<MaterializePlan> make_plan(const MaterializeSettings &settings, GstCaps *incaps,
                                                 GstCaps *outcaps, const MaterializePeers &peers)
{
    MaterializePlan plan;
    if (!incaps || !outcaps || !gst_video_info_from_caps(&plan.out_info, outcaps))
        return g2g::element::Planned<MaterializePlan>::refused();
    using g2g::MemoryDomainKind;
    plan.route = route_between(incaps, outcaps);
    plan.in_view = g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0));
    plan.vulkan_in = g2g::detail::domain_of(incaps) == MemoryDomainKind::VulkanTexture;
    plan.vulkan_out = g2g::detail::domain_of(outcaps) == MemoryDomainKind::VulkanTexture;
    plan.download_waits = plan.route == MaterializeRoute::Download && peers.upload_races;
    plan.n_threads = settings.n_threads;
    return plan;
}

// Streaming-thread things, but for the contexts.
struct MaterializeState {
    // The last negotiation's caps and answers, which decide_allocation makes the plan from again
    // (with a new settings snapshot).
    g2g::CapsRef incaps, outcaps;
    MaterializePeers peers;
    // Download of a view: the (active) pool of the dense VulkanImage frame it is written into first.
    g2g::Ref<GstBufferPool> staging;
    // The pipeline's CUDA context, for CUDA frames (a kernel writes them), and its Vulkan device
    // and queue, for VulkanImage frames (a shader writes them; the engine downloads them).
    // set_context and CONTEXT queries reach them from their own threads.
    g2g::element::GpuContexts gpu;
    // The threads dense frames are written with (the plan's n_threads).
    g2g::element::StreamThreads threads;

    void drop_staging()
    {
        if (staging)
            gst_buffer_pool_set_active(staging.get(), FALSE);
        staging.reset();
    }
};

struct MaterializePrivate {
    g2g::element::SettingsSlot<MaterializeSettings> settings;
    g2g::element::PlanSlot<MaterializePlan> plan;
    MaterializeState state;
};

} // namespace

struct _G2gMaterialize {
    GstBaseTransform parent;
    MaterializePrivate *priv;
};

G_DEFINE_TYPE(G2gMaterialize, g2g_materialize, GST_TYPE_BASE_TRANSFORM)

// ---- Negotiation ----

// What a frame of the sink caps `caps` leaves as: the same format and size without the view
// feature, in its own memory, then (a download) VulkanImage frames as system memory: the frames that
// stay on the GPU come first.
static GstCaps *src_caps_for(GstCaps *caps)
{
    using g2g::MemoryDomainKind;
    return gst_caps_merge(
        g2g::caps::without_view(caps),
        g2g::caps::moved_to(caps, MemoryDomainKind::VulkanTexture, MemoryDomainKind::System));
}

// What makes the src caps `caps`: views and dense frames in their memory, then for system memory
// also VulkanImage views and dense frames (downloaded).
static GstCaps *sink_caps_for(GstCaps *caps)
{
    using g2g::MemoryDomainKind;
    const g2g::CapsRef images = g2g::CapsRef::adopt(
        g2g::caps::moved_to(caps, MemoryDomainKind::System, MemoryDomainKind::VulkanTexture));
    return gst_caps_merge(g2g::caps::with_and_without_view(caps),
                          g2g::caps::with_and_without_view(images.get()));
}

static GstCaps *g2g_materialize_transform_caps(GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                               GstCaps *filter)
{
    g2g::CapsRef result =
        g2g::CapsRef::adopt(direction == GST_PAD_SINK ? src_caps_for(caps) : sink_caps_for(caps));
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    return result.release();
}

// The plan for the state's caps and answers and the settings now, swapped in; nullptr when refused.
static std::shared_ptr<const MaterializePlan> replan(G2gMaterialize *self)
{
    MaterializePrivate &priv = *self->priv;
    const MaterializeState &state = priv.state;
    return priv.plan.take(GST_ELEMENT(self), make_plan(priv.settings.snapshot(self), state.incaps.get(),
                                                       state.outcaps.get(), state.peers));
}

static gboolean g2g_materialize_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    MaterializeState &state = self->priv->state;
    state.drop_staging();
    state.incaps = g2g::CapsRef::borrow(incaps);
    state.outcaps = g2g::CapsRef::borrow(outcaps);
    state.peers = {};
    if (route_between(incaps, outcaps) == MaterializeRoute::Download)
        state.peers.upload_races = g2g::element::VulkanContextUse::upload_races(GST_ELEMENT(self));
    const std::shared_ptr<const MaterializePlan> plan = replan(self);
    if (!plan)
        return FALSE;
    gst_base_transform_set_passthrough(trans, plan->route == MaterializeRoute::Passthrough);
    GST_INFO_OBJECT(self, "%s", route_name(plan->route));
    // What the plan needs made: the Vulkan device and queue, the staging pool.
    if (plan->vulkan_in || plan->vulkan_out) {
        if (!state.gpu.vulkan.ensure(GST_ELEMENT(self)))
            return FALSE;
    }
    if (plan->download_waits)
        GST_INFO_OBJECT(self,
                        "vulkanupload feeds this thread: each download is waited for (its staging race)");
    if (plan->route == MaterializeRoute::Download && plan->in_view) {
        state.staging = state.gpu.vulkan.storage_pool(GST_ELEMENT(self), outcaps, 0);
        if (!state.staging)
            return FALSE;
        if (!gst_buffer_pool_set_active(state.staging.get(), TRUE)) {
            state.staging.reset();
            post_error(GST_ELEMENT(self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                       "cannot activate g2g's Vulkan storage-image pool");
            return FALSE;
        }
    }
    return TRUE;
}

// Runs after set_caps, and alone at a reconfigure whose caps stay (a property changed, downstream
// asked): the plan is made again from the settings now.
static gboolean g2g_materialize_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    MaterializeState &state = self->priv->state;
    const std::shared_ptr<const MaterializePlan> plan = replan(self);
    if (!plan)
        return FALSE;
    // A download's buffers are the engine's own (host-visible staging memory): no pool is used.
    if (plan->route == MaterializeRoute::Download)
        return TRUE;
    // CUDA output is written by a kernel into frames of a CUDA pool, configured here, whole (the
    // default would hand the pool downstream's system allocator); VulkanImage output by a shader
    // into images of g2g's storage pool (downstream's Vulkan image pool sets no storage usage).
    const auto domain = g2g::element::domain_of_allocation(query);
    if (domain == g2g::MemoryDomainKind::Cuda)
        return state.gpu.cuda.decide_pool(GST_ELEMENT(trans), query);
    if (domain == g2g::MemoryDomainKind::VulkanTexture)
        return state.gpu.vulkan.decide_pool(GST_ELEMENT(trans), query);
    if (g2g::element::decide_line_aligned_pool(query))
        return TRUE;
    g2g::element::ask_line_aligned_memory(query);
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)->decide_allocation(trans, query);
}

static g2g::element::GpuContexts &gpu_of(GstBaseTransform *trans)
{
    return G2G_MATERIALIZE(trans)->priv->state.gpu;
}

// The stream starts afresh (the GPU contexts are dropped right after, at PAUSED->READY).
static gboolean g2g_materialize_stop(GstBaseTransform *trans)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    MaterializeState &state = self->priv->state;
    state.drop_staging();
    self->priv->plan.clear();
    state.incaps.reset();
    state.outcaps.reset();
    state.threads.stop();
    return TRUE;
}

// ---- Per frame (view caps or a download in; passthrough otherwise): the plan only ----

// Writes the view `inbuf` carries (it came in view caps, which a frame without its view does not
// describe: refused) densely into `outbuf`, laid out as the output caps.
static GstFlowReturn write_view(G2gMaterialize *self, const MaterializePlan &plan, GstBuffer *inbuf,
                                GstBuffer *outbuf)
{
    g2g::element::StreamThreads &threads = self->priv->state.threads;
    threads.want(plan.n_threads);
    const g2g::Result<const g2g::FrameView *> carried =
        g2g::view_of_view_caps_frame(inbuf, GST_OBJECT_NAME(self));
    if (!carried)
        return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, carried.error());
    const g2g::FrameView *view = *carried;
    if (GstFlowReturn fits = g2g::element::check_view_fits(GST_ELEMENT(self), *view, &plan.out_info);
        fits != GST_FLOW_OK)
        return fits;
    // write_dense only reads the info (it takes it non-const as gst_video_frame_map does).
    return g2g::element::write_dense(GST_ELEMENT(self), *view, inbuf,
                                     const_cast<GstVideoInfo *>(&plan.out_info), outbuf, threads);
}

// The Download route's output: the buffer Engine::download hands out (its copy recorded with a
// fence, not waited for but behind vulkanupload), of `inbuf` itself when dense, else of the view written
// densely on the GPU into a staging frame first. No pool and no copy of ours.
static GstFlowReturn download(G2gMaterialize *self, const MaterializePlan &plan, GstBuffer *inbuf,
                              GstBuffer **outbuf)
{
    MaterializeState &state = self->priv->state;
    g2g::BufferRef dense = g2g::BufferRef::borrow(inbuf);
    if (plan.in_view) {
        GstFlowReturn flow = gst_buffer_pool_acquire_buffer(state.staging.get(), dense.out(), nullptr);
        if (flow != GST_FLOW_OK)
            return flow;
        flow = write_view(self, plan, inbuf, dense.get());
        if (flow != GST_FLOW_OK)
            return flow;
    }
    g2g::Result<g2g::BufferRef> downloaded =
        state.gpu.vulkan.download(dense.get(), plan.out_info, plan.download_waits);
    if (!downloaded)
        return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, downloaded.error());
    g2g::BufferRef out = std::move(*downloaded);
    if (!gst_buffer_is_writable(out.get()))
        out.reset(gst_buffer_make_writable(out.release()));
    // Flags, timestamps and the metas transform_meta keeps, as for a frame of a pool.
    GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS(self);
    if (klass->copy_metadata && !klass->copy_metadata(GST_BASE_TRANSFORM(self), inbuf, out.get()))
        GST_WARNING_OBJECT(self, "could not copy the frame's metadata to its download");
    *outbuf = out.release();
    return GST_FLOW_OK;
}

static GstFlowReturn g2g_materialize_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *inbuf,
                                                           GstBuffer **outbuf)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    const MaterializePlan *plan = self->priv->plan.in_effect();
    if (!plan)
        return GST_FLOW_NOT_NEGOTIATED;
    // A frame of another device's images would be read on ours: refused, whatever the route does.
    if (plan->route != MaterializeRoute::Passthrough && plan->vulkan_in &&
        !self->priv->state.gpu.vulkan.check_frame(GST_ELEMENT(self), inbuf))
        return GST_FLOW_ERROR;
    if (plan->route == MaterializeRoute::Download)
        return download(self, *plan, inbuf, outbuf);
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)
        ->prepare_output_buffer(trans, inbuf, outbuf);
}

static GstFlowReturn g2g_materialize_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    const MaterializePlan *plan = self->priv->plan.in_effect();
    if (!plan)
        return GST_FLOW_NOT_NEGOTIATED;
    if (plan->route == MaterializeRoute::Download)
        return GST_FLOW_OK; // prepare_output_buffer's download is the output
    return write_view(self, *plan, inbuf, outbuf);
}

// ---- GObject ----

static void g2g_materialize_set_property(GObject *object, guint prop_id, const GValue *value,
                                         GParamSpec *pspec)
{
    G2gMaterialize *self = G2G_MATERIALIZE(object);
    switch (prop_id) {
    case PROP_N_THREADS: {
        const guint n_threads = g_value_get_uint(value);
        const bool changed = self->priv->settings.update(self, [&](MaterializeSettings &settings) {
            return std::exchange(settings.n_threads, n_threads) != n_threads;
        });
        // Proposed; the next frame's reconfigure makes the plan with it (any thread may call this).
        if (changed)
            gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

static void g2g_materialize_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gMaterialize *self = G2G_MATERIALIZE(object);
    switch (prop_id) {
    case PROP_N_THREADS:
        g_value_set_uint(value, self->priv->settings.snapshot(self).n_threads);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

static void g2g_materialize_finalize(GObject *object)
{
    delete G2G_MATERIALIZE(object)->priv;
    G_OBJECT_CLASS(g2g_materialize_parent_class)->finalize(object);
}

static void g2g_materialize_class_init(G2gMaterializeClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);
    object_class->set_property = g2g_materialize_set_property;
    object_class->get_property = g2g_materialize_get_property;
    object_class->finalize = g2g_materialize_finalize;
    g2g::element::install_n_threads_property(object_class, PROP_N_THREADS);

    g2g::element::set_metadata(element_class, "g2gmaterialize", "g2g materialize", "Filter/Converter/Video",
                               "Writes frame views out as dense frames");
    // Views or dense frames in, dense frames out, in every domain this build has a view backend for
    // (and VulkanImage frames out as system memory: transform_caps).
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
    transform_class->transform_meta = g2g::element::transform_meta_but_geometry;
    transform_class->passthrough_on_same_caps = FALSE;
    transform_class->decide_allocation = g2g_materialize_decide_allocation;
    transform_class->prepare_output_buffer = g2g_materialize_prepare_output_buffer;
    transform_class->stop = g2g_materialize_stop;
    g2g::element::install_context_glue<gpu_of>(transform_class);

    GST_DEBUG_CATEGORY_INIT(g2g_materialize_debug, "g2gmaterialize", 0, "g2g materialize");
}

static void g2g_materialize_init(G2gMaterialize *self)
{
    self->priv = new MaterializePrivate();
}
