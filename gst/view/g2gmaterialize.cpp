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
// takes effect at the next frame, without renegotiating; the negotiated route and layout and the
// GPU contexts are the rest of its state.
#include "g2gmaterialize.h"

#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include "common/allocation.h"
#include "common/context-glue.h"
#include "common/element-error.h"
#include "common/object-lock.h"
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

// What a frame goes through, decided at set_caps.
enum class MaterializeRoute {
    Passthrough, // dense in, the same memory out: the input buffer itself
    Dense,       // a view in: written densely into a frame of the negotiated pool (its domain's backend)
    Download,    // VulkanImage in, system memory out: Engine::download's buffer (a view written
                 // densely on the GPU first)
};

// What negotiation decided. Streaming thread only (set_caps, decide_allocation, the per-frame
// path), but for the contexts.
struct MaterializeState {
    GstVideoInfo out_info{}; // the dense layout written
    MaterializeRoute route = MaterializeRoute::Passthrough;
    bool in_view = false;
    bool vulkan_in = false;
    // Download route behind vulkanupload in this thread, which races its staging buffer
    // (compat::vulkanupload_races_staging): each copy is waited for.
    bool download_waits = false;
    // Download of a view: the (active) pool of the dense VulkanImage frame it is written into first.
    g2g::Ref<GstBufferPool> staging;
    // The pipeline's CUDA context, for CUDA frames (a kernel writes them), and its Vulkan device
    // and queue, for VulkanImage frames (a shader writes them; the engine downloads them).
    // set_context and CONTEXT queries reach them from their own threads.
    g2g::element::GpuContexts gpu;
    // The threads dense frames are written with (n-threads).
    g2g::element::StreamThreads threads;

    void drop_staging()
    {
        if (staging)
            gst_buffer_pool_set_active(staging.get(), FALSE);
        staging.reset();
    }
};

} // namespace

struct _G2gMaterialize {
    GstBaseTransform parent;
    MaterializeState *state;
    guint n_threads; // n-threads, under the object lock
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

static gboolean g2g_materialize_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    MaterializeState &state = *self->state;
    state.drop_staging();
    if (!gst_video_info_from_caps(&state.out_info, outcaps))
        return FALSE;
    using g2g::MemoryDomainKind;
    const auto in_kind = g2g::detail::domain_of(incaps), out_kind = g2g::detail::domain_of(outcaps);
    state.in_view = g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0));
    state.vulkan_in = in_kind == MemoryDomainKind::VulkanTexture;
    if (state.vulkan_in && out_kind == MemoryDomainKind::System)
        state.route = MaterializeRoute::Download;
    else // dense in, dense out (the same memory): nothing to do, not even a buffer
        state.route = state.in_view ? MaterializeRoute::Dense : MaterializeRoute::Passthrough;
    gst_base_transform_set_passthrough(trans, state.route == MaterializeRoute::Passthrough);
    GST_INFO_OBJECT(self, "%s",
                    state.route == MaterializeRoute::Download ? "download"
                    : state.in_view                           ? "dense"
                                                              : "passthrough");
    if (state.vulkan_in || out_kind == MemoryDomainKind::VulkanTexture) {
        if (!state.gpu.vulkan.ensure(GST_ELEMENT(self)))
            return FALSE;
    }
    state.download_waits = state.route == MaterializeRoute::Download &&
                           g2g::element::VulkanContextUse::upload_races(GST_ELEMENT(self));
    if (state.download_waits)
        GST_INFO_OBJECT(self,
                        "vulkanupload feeds this thread: each download is waited for (its staging race)");
    if (state.route == MaterializeRoute::Download && state.in_view) {
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

static gboolean g2g_materialize_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    MaterializeState &state = *G2G_MATERIALIZE(trans)->state;
    // A download's buffers are the engine's own (host-visible staging memory): no pool is used.
    if (state.route == MaterializeRoute::Download)
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
    return G2G_MATERIALIZE(trans)->state->gpu;
}

// The stream starts afresh (the GPU contexts are dropped right after, at PAUSED->READY).
static gboolean g2g_materialize_stop(GstBaseTransform *trans)
{
    MaterializeState &state = *G2G_MATERIALIZE(trans)->state;
    state.drop_staging();
    state.route = MaterializeRoute::Passthrough;
    state.threads.stop();
    return TRUE;
}

// ---- Per frame (view caps or a download in; passthrough otherwise) ----

// Writes the view `inbuf` carries (it came in view caps, which a frame without its view does not
// describe: refused) densely into `outbuf`, laid out as the output caps.
static GstFlowReturn write_view(G2gMaterialize *self, GstBuffer *inbuf, GstBuffer *outbuf)
{
    GstVideoInfo *info = &self->state->out_info;
    g2g::element::StreamThreads &threads = self->state->threads;
    {
        const g2g::element::ObjectLock lock(self);
        threads.want(self->n_threads);
    }
    const g2g::Result<const g2g::FrameView *> carried =
        g2g::view_of_view_caps_frame(inbuf, GST_OBJECT_NAME(self));
    if (!carried)
        return post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, carried.error());
    const g2g::FrameView *view = *carried;
    if (GstFlowReturn fits = g2g::element::check_view_fits(GST_ELEMENT(self), *view, info);
        fits != GST_FLOW_OK)
        return fits;
    return g2g::element::write_dense(GST_ELEMENT(self), *view, inbuf, info, outbuf, threads);
}

// The Download route's output: the buffer Engine::download hands out (its copy recorded with a
// fence, not waited for but behind vulkanupload), of `inbuf` itself when dense, else of the view written
// densely on the GPU into a staging frame first. No pool and no copy of ours.
static GstFlowReturn download(G2gMaterialize *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
    MaterializeState &state = *self->state;
    g2g::BufferRef dense = g2g::BufferRef::borrow(inbuf);
    if (state.in_view) {
        GstFlowReturn flow = gst_buffer_pool_acquire_buffer(state.staging.get(), dense.out(), nullptr);
        if (flow != GST_FLOW_OK)
            return flow;
        flow = write_view(self, inbuf, dense.get());
        if (flow != GST_FLOW_OK)
            return flow;
    }
    g2g::Result<g2g::BufferRef> downloaded =
        state.gpu.vulkan.download(dense.get(), state.out_info, state.download_waits);
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
    MaterializeState &state = *self->state;
    // A frame of another device's images would be read on ours: refused, whatever the route does.
    if (state.route != MaterializeRoute::Passthrough && state.vulkan_in &&
        !state.gpu.vulkan.check_frame(GST_ELEMENT(self), inbuf))
        return GST_FLOW_ERROR;
    if (state.route == MaterializeRoute::Download)
        return download(self, inbuf, outbuf);
    return GST_BASE_TRANSFORM_CLASS(g2g_materialize_parent_class)
        ->prepare_output_buffer(trans, inbuf, outbuf);
}

static GstFlowReturn g2g_materialize_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    G2gMaterialize *self = G2G_MATERIALIZE(trans);
    if (self->state->route == MaterializeRoute::Download)
        return GST_FLOW_OK; // prepare_output_buffer's download is the output
    return write_view(self, inbuf, outbuf);
}

// ---- GObject ----

static void g2g_materialize_set_property(GObject *object, guint prop_id, const GValue *value,
                                         GParamSpec *pspec)
{
    G2gMaterialize *self = G2G_MATERIALIZE(object);
    switch (prop_id) {
    case PROP_N_THREADS: {
        const g2g::element::ObjectLock lock(self);
        self->n_threads = g_value_get_uint(value);
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
    case PROP_N_THREADS: {
        const g2g::element::ObjectLock lock(self);
        g_value_set_uint(value, self->n_threads);
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

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
    object_class->set_property = g2g_materialize_set_property;
    object_class->get_property = g2g_materialize_get_property;
    object_class->finalize = g2g_materialize_finalize;
    g2g::element::install_n_threads_property(object_class, PROP_N_THREADS);

    gst_element_class_set_static_metadata(
        element_class, "g2g materialize", "Filter/Converter/Video",
        "Writes a frame view (meta:G2gTensorView) out as the dense frame in one "
        "cache-blocked pass (CUDA frames: one kernel, in device memory; VulkanImage frames: one compute "
        "shader, in Vulkan images, or downloaded to system memory with a fence); dense frames pass through "
        "untouched",
        "g2g developers");
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
    self->state = new MaterializeState();
    self->n_threads = g2g::element::kDefaultThreads;
}
