// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gconvert: moves frames out of one GPU domain into another without the host.
//   CUDA <-> Vulkan   on the GPU they share (the CUDA-Vulkan bridge, lib/src/platform/cuda-vulkan/):
//                     one pass on the GPU per frame into memory both APIs address, none for a
//                     frame already there. A view (meta:G2gTensorView) on the way is written by
//                     that one pass: a rotated CUDA view reaches Vulkan materialized by one kernel.
//                     GStreamer alone goes through the host (cudadownload ! vulkanupload).
//   CUDA -> DMABuf    with no copy at all: the CUDA frame's device memory exported as a DMA-BUF
//                     (lib/src/platform/cuda-dmabuf/), not mappable, linear, at the CUDA pitch; each
//                     CUDA memory exported once. Dense frames only (a view: g2gmaterialize first).
//
//   gst-launch-1.0 filesrc location=in.h264 ! h264parse ! nvh264dec ! g2gconvert ! vulkandownload
//       ! fakesink
//   gst-launch-1.0 videotestsrc ! vulkanupload ! g2gconvert ! cudadownload ! autovideosink
//   gst-launch-1.0 ... ! nvh264dec ! g2gview video-direction=90r ! g2gconvert ! vulkandownload ! ...
//   gst-launch-1.0 ... ! nvh264dec ! g2gconvert ! "video/x-raw(memory:DMABuf)" ! <a DMA-BUF importer>
//
// Each direction exists where its platform part is built: the Vulkan ones with the cuda and the
// vulkan feature, the DMABuf one with the cuda and the dmabuf feature (the pad templates say which).
// It always changes domain; to stay in one, use g2gmaterialize. For the Vulkan directions it opens
// the pipeline's Vulkan device itself, on the CUDA context's GPU, with the extension sharing needs
// (VK_KHR_external_memory_fd, which no GStreamer 1.22 element enables), and hands it to the Vulkan
// elements around it through GstContext before they open their own.
// Properties: frames-written, frames-shared, shared-frames-allocated, dmabuf-exports (read-only
// counters).
//
// No settings; the Plan (make_plan: the route and the layouts, from the caps; made at set_caps,
// swapped in whole) is all the per-frame path reads but for the State: the GPU contexts and the
// bridge between them, made at set_caps, and the counters.
#include "g2gconvert.h"

#include <g2g/dmabuf.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "common/context-glue.h"
#include "common/element-docs.h"
#include "common/element-error.h"
#include "common/object-lock.h"
#include "common/plan-slot.h"
#include <g2g-internal/plugin-interface.h>
#include "view-caps.h"
#include "view-output.h"

GST_DEBUG_CATEGORY_STATIC(g2g_convert_debug);
#define GST_CAT_DEFAULT g2g_convert_debug

using g2g::MemoryDomainKind;
using g2g::element::ObjectLock;
using g2g::element::post_error;

namespace {

enum { PROP_0, PROP_FRAMES_WRITTEN, PROP_FRAMES_SHARED, PROP_SHARED_FRAMES_ALLOCATED, PROP_DMABUF_EXPORTS };

// Which way frames go, decided by the negotiated caps.
enum class ConvertRoute {
    CudaToVulkan, // the bridge
    VulkanToCuda, // the bridge
    CudaToDmaBuf, // the CUDA frame's own memory exported
};

const char *route_name(ConvertRoute route)
{
    switch (route) {
    case ConvertRoute::CudaToVulkan:
        return "CUDA to Vulkan";
    case ConvertRoute::VulkanToCuda:
        return "Vulkan to CUDA";
    case ConvertRoute::CudaToDmaBuf:
        return "CUDA to DMA-BUF";
    }
    return "";
}

// What negotiation decided (make_plan, at set_caps); immutable.
struct ConvertPlan {
    GstVideoInfo in_info{};
    GstVideoInfo out_info{};
    ConvertRoute route = ConvertRoute::CudaToVulkan;
    bool in_view = false;
};

// What a start made, and the counters: the GPU contexts (reached from other threads through
// set_context and CONTEXT queries), the bridge between them, the frames counted.
struct ConvertState {
    g2g::element::GpuContexts gpu;
    // Made at set_caps (again if a context changed), dropped at stop, both in the streaming thread,
    // under the object lock (get_property reads it from the application's thread); the per-frame
    // path reads it without.
    std::shared_ptr<g2g::cuda_vulkan::Bridge> bridge;
    std::atomic<guint64> written = 0; // frames a pass on the GPU wrote
    // Frames that went on as another face of their own memory (shared memory, a DMA-BUF export).
    std::atomic<guint64> shared = 0;
    std::atomic<guint64> exports = 0; // CUDA memories exported as DMA-BUFs (each once)
};

// g2gconvert has no settings (its properties are read-only counters): the plan comes from the
// caps alone.
struct ConvertPrivate {
    g2g::element::PlanSlot<ConvertPlan> plan;
    ConvertState state;
};

} // namespace

struct _G2gConvert {
    GstBaseTransform parent;
    ConvertPrivate *priv;
};

G_DEFINE_TYPE(G2gConvert, g2g_convert, GST_TYPE_BASE_TRANSFORM)

// ---- Negotiation ----

// The directions this build has.
static bool has_bridge()
{
    return g2g::platform::cuda_vulkan::built();
}

static bool has_dmabuf()
{
    return g2g::platform::cuda_dmabuf::built();
}

// The formats both a CUDA kernel and the Vulkan shader write (Vulkan's are the fewer).
static std::string bridge_formats()
{
    const g2g::detail::ViewBackend *vulkan = g2g::detail::view_backend(MemoryDomainKind::VulkanTexture);
    return vulkan ? g2g::detail::format_list(*vulkan) : std::string("{ RGBA }");
}

// `caps` restricted to the formats of one route, in the domain `kind` (views too where `views`).
static GstCaps *in_route_formats(GstCaps *caps, MemoryDomainKind kind, const std::string &formats, bool views)
{
    const g2g::CapsRef route = g2g::CapsRef::adopt(g2g::caps::domain_caps(kind, formats, views, true));
    const g2g::CapsRef own = g2g::CapsRef::adopt(caps);
    return gst_caps_intersect_full(own.get(), route.get(), GST_CAPS_INTERSECT_FIRST);
}

// The dense CUDA structures of `caps` in `formats` as memory:DMABuf ones, in GStreamer 1.22's form
// and 1.24's DMA_DRM form.
static GstCaps *cuda_as_dmabuf(GstCaps *caps, const std::string &formats)
{
    const g2g::CapsRef dense = g2g::CapsRef::adopt(gst_caps_copy(caps));
    g2g::caps::keep_structures(dense.get(), false);
    const g2g::CapsRef moved = g2g::CapsRef::adopt(
        g2g::caps::moved_to(dense.get(), MemoryDomainKind::Cuda, MemoryDomainKind::DmaBuf));
    const g2g::CapsRef exported = g2g::CapsRef::adopt(
        in_route_formats(gst_caps_ref(moved.get()), MemoryDomainKind::DmaBuf, formats, false));
    return g2g::dmabuf::caps_with_dma_drm(exported.get()).release();
}

// The memory:DMABuf structures of `caps` (either form) as the dense CUDA ones they come from.
static GstCaps *dmabuf_as_cuda(GstCaps *caps)
{
    const g2g::CapsRef plain = g2g::dmabuf::caps_from_dma_drm(caps);
    return g2g::caps::moved_to(plain.get(), MemoryDomainKind::DmaBuf, MemoryDomainKind::Cuda);
}

// Each route keeps to its own formats: a format only the DMA-BUF route takes (YUY2) offers no
// Vulkan images, so a CUDA producer of it is refused at its link to g2gconvert when only Vulkan
// is downstream, not later by the Vulkan side.
static GstCaps *g2g_convert_transform_caps(GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                           GstCaps *filter)
{
    using g2g::caps::moved_to;
    using g2g::caps::with_and_without_view;
    g2g::CapsRef result = g2g::CapsRef::adopt(gst_caps_new_empty());
    const auto add = [&](GstCaps *more) { result.reset(gst_caps_merge(result.release(), more)); };
    const std::string bridge = has_bridge() ? bridge_formats() : "";
    const std::string exported = has_dmabuf() ? g2g::cuda_dmabuf::formats() : "";
    if (direction == GST_PAD_SINK) {
        // Each domain's frames (views or dense) leave dense in the other; dense CUDA frames also
        // as DMA-BUFs (after the bridge's: a peer that takes both gets Vulkan images, as before).
        if (has_bridge()) {
            add(in_route_formats(moved_to(caps, MemoryDomainKind::Cuda, MemoryDomainKind::VulkanTexture),
                                 MemoryDomainKind::VulkanTexture, bridge, false));
            add(in_route_formats(moved_to(caps, MemoryDomainKind::VulkanTexture, MemoryDomainKind::Cuda),
                                 MemoryDomainKind::Cuda, bridge, false));
        }
        if (has_dmabuf())
            add(cuda_as_dmabuf(caps, exported));
    } else {
        if (has_bridge()) {
            const g2g::CapsRef from_cuda =
                g2g::CapsRef::adopt(moved_to(caps, MemoryDomainKind::VulkanTexture, MemoryDomainKind::Cuda));
            const g2g::CapsRef from_vulkan =
                g2g::CapsRef::adopt(moved_to(caps, MemoryDomainKind::Cuda, MemoryDomainKind::VulkanTexture));
            add(in_route_formats(with_and_without_view(from_cuda.get()), MemoryDomainKind::Cuda, bridge,
                                 true));
            add(in_route_formats(with_and_without_view(from_vulkan.get()), MemoryDomainKind::VulkanTexture,
                                 bridge, true));
        }
        if (has_dmabuf())
            add(in_route_formats(dmabuf_as_cuda(caps), MemoryDomainKind::Cuda, exported, false));
    }
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    return result.release();
}

// The bridge between the negotiated CUDA context and Vulkan engine (made once; again if either changed).
static bool ensure_bridge(G2gConvert *self)
{
    ConvertState &state = self->priv->state;
    GstElement *element = GST_ELEMENT(self);
    if (!state.gpu.cuda.ensure(element) || !state.gpu.vulkan.ensure(element))
        return false;
    if (state.bridge)
        return true;
    g2g::Result<std::shared_ptr<g2g::cuda_vulkan::Bridge>> bridge =
        g2g::cuda_vulkan::Bridge::create(state.gpu.cuda.context(), state.gpu.vulkan.engine());
    if (!bridge) {
        post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, bridge.error());
        return false;
    }
    {
        const ObjectLock lock(self); // get_property reads it from the application's thread
        state.bridge = std::move(*bridge);
    }
    GST_INFO_OBJECT(self, "sharing frames between %s", state.bridge->description().c_str());
    return true;
}

// The route between two negotiated caps; nullopt for a pair no route joins.
static std::optional<ConvertRoute> route_between(GstCaps *incaps, GstCaps *outcaps)
{
    const std::optional<MemoryDomainKind> in = g2g::detail::domain_of(incaps);
    const std::optional<MemoryDomainKind> out = g2g::detail::domain_of(outcaps);
    if (in == MemoryDomainKind::Cuda && out == MemoryDomainKind::VulkanTexture)
        return ConvertRoute::CudaToVulkan;
    if (in == MemoryDomainKind::VulkanTexture && out == MemoryDomainKind::Cuda)
        return ConvertRoute::VulkanToCuda;
    if (in == MemoryDomainKind::Cuda && out == MemoryDomainKind::DmaBuf)
        return ConvertRoute::CudaToDmaBuf;
    return std::nullopt;
}

// The plan for the caps negotiated; refused (no words: GstBaseTransform's not-negotiated) for a
// pair no route joins or caps of no video layout. Pure.
static g2g::element::Planned<ConvertPlan> make_plan(GstCaps *incaps, GstCaps *outcaps)
{
    const std::optional<ConvertRoute> route = route_between(incaps, outcaps);
    if (!route)
        return g2g::element::Planned<ConvertPlan>::refused();
    ConvertPlan plan;
    // memory:DMABuf output caps may be DMA_DRM (1.24's form).
    if (!gst_video_info_from_caps(&plan.in_info, incaps) ||
        !g2g::compat::video_info_from_caps(&plan.out_info, outcaps))
        return g2g::element::Planned<ConvertPlan>::refused();
    plan.route = *route;
    plan.in_view = g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0));
    return plan;
}

static gboolean g2g_convert_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gConvert *self = G2G_CONVERT(trans);
    const std::shared_ptr<const ConvertPlan> plan =
        self->priv->plan.take(GST_ELEMENT(self), make_plan(incaps, outcaps));
    if (!plan)
        return FALSE;
    GST_INFO_OBJECT(self, "%s%s", route_name(plan->route), plan->in_view ? ", views written dense" : "");
    // A DMA-BUF is the CUDA frame's own memory: no device of another API to join.
    return plan->route == ConvertRoute::CudaToDmaBuf || ensure_bridge(self);
}

// The output is the bridge's own frame: no pool.
static gboolean g2g_convert_decide_allocation(GstBaseTransform *, GstQuery *)
{
    return TRUE;
}

static g2g::element::GpuContexts &gpu_of(GstBaseTransform *trans)
{
    return G2G_CONVERT(trans)->priv->state.gpu;
}

static gboolean g2g_convert_stop(GstBaseTransform *trans)
{
    // Before the contexts go (PAUSED->READY); freed outside the object lock get_property takes.
    G2gConvert *self = G2G_CONVERT(trans);
    self->priv->plan.clear();
    std::shared_ptr<g2g::cuda_vulkan::Bridge> gone;
    {
        const ObjectLock lock(self);
        gone.swap(self->priv->state.bridge);
    }
    return TRUE;
}

// ---- Per frame ----

// Flags, timestamps and the metas transform_meta keeps, as for a frame of a pool.
static void copy_metadata(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *frame)
{
    GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS(trans);
    if (klass->copy_metadata && !klass->copy_metadata(trans, inbuf, frame))
        GST_WARNING_OBJECT(trans, "could not copy the frame's metadata");
}

// The CUDA frame as a DMA-BUF of its own memory: no pass, no copy.
static GstFlowReturn export_dmabuf(G2gConvert *self, GstBuffer *inbuf, GstBuffer **outbuf)
{
    ConvertState &state = self->priv->state;
    GstElement *element = GST_ELEMENT(self);
    if (g2g::tensor_view_of(inbuf))
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                          "a CUDA frame with a view (meta:G2gTensorView) reached g2gconvert's memory:DMABuf "
                          "output, which exports frames as they are: insert g2gmaterialize before it");
    g2g::Result<g2g::cuda_dmabuf::Export> exported = g2g::cuda_dmabuf::export_frame(inbuf);
    if (!exported)
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, exported.error());
    state.shared++;
    if (exported->exported)
        state.exports++;
    GstBuffer *frame = exported->frame.release();
    copy_metadata(GST_BASE_TRANSFORM(self), inbuf, frame);
    *outbuf = frame;
    return GST_FLOW_OK;
}

static GstFlowReturn g2g_convert_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *inbuf,
                                                       GstBuffer **outbuf)
{
    G2gConvert *self = G2G_CONVERT(trans);
    ConvertState &state = self->priv->state;
    GstElement *element = GST_ELEMENT(self);
    const ConvertPlan *plan = self->priv->plan.in_effect();
    if (plan && plan->route == ConvertRoute::CudaToDmaBuf)
        return export_dmabuf(self, inbuf, outbuf);
    if (!plan || !state.bridge)
        return post_error(element, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                          "a frame arrived before caps were negotiated");
    const bool to_vulkan = plan->route == ConvertRoute::CudaToVulkan;
    if (!to_vulkan && !state.gpu.vulkan.check_frame(element, inbuf))
        return GST_FLOW_ERROR;
    const g2g::FrameView *carried = g2g::tensor_view_of(inbuf);
    if (plan->in_view && !carried)
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                          g2g::view_of_view_caps_frame(inbuf, GST_OBJECT_NAME(self)).error());
    g2g::Result<g2g::FrameView> identity =
        carried ? g2g::Result<g2g::FrameView>(*carried) : g2g::FrameView::of_frame(inbuf, plan->in_info);
    if (!identity)
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, identity.error());
    const g2g::FrameView &view = *identity;
    if (GstFlowReturn fits = g2g::element::check_view_fits(element, view, &plan->out_info);
        fits != GST_FLOW_OK)
        return fits;
    const bool dense = carried == nullptr;
    g2g::Result<g2g::cuda_vulkan::Conversion> converted =
        to_vulkan ? state.bridge->to_vulkan(inbuf, view, dense) : state.bridge->to_cuda(inbuf, view, dense);
    if (!converted)
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, converted.error());
    (converted->passes > 0 ? state.written : state.shared)++;
    GstBuffer *frame = converted->frame.release();
    copy_metadata(trans, inbuf, frame);
    *outbuf = frame;
    return GST_FLOW_OK;
}

static GstFlowReturn g2g_convert_transform(GstBaseTransform *, GstBuffer *, GstBuffer *)
{
    return GST_FLOW_OK; // prepare_output_buffer's frame is the output
}

// ---- GObject ----

static void g2g_convert_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    G2gConvert *self = G2G_CONVERT(object);
    ConvertState &state = self->priv->state;
    switch (id) {
    case PROP_FRAMES_WRITTEN:
        g_value_set_uint64(value, state.written);
        break;
    case PROP_FRAMES_SHARED:
        g_value_set_uint64(value, state.shared);
        break;
    case PROP_DMABUF_EXPORTS:
        g_value_set_uint64(value, state.exports);
        break;
    case PROP_SHARED_FRAMES_ALLOCATED: {
        const ObjectLock lock(self);
        g_value_set_uint64(value, state.bridge ? state.bridge->frames_allocated() : 0);
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void g2g_convert_finalize(GObject *object)
{
    delete G2G_CONVERT(object)->priv;
    G_OBJECT_CLASS(g2g_convert_parent_class)->finalize(object);
}

static void g2g_convert_class_init(G2gConvertClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);
    object_class->finalize = g2g_convert_finalize;
    object_class->get_property = g2g_convert_get_property;

    const auto counter = [&](guint id, const char *name, const char *nick, const char *blurb) {
        g_object_class_install_property(
            object_class, id,
            g_param_spec_uint64(name, nick, blurb, 0, G_MAXUINT64, 0,
                                static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    };
    counter(PROP_FRAMES_WRITTEN, "frames-written", "Frames written",
            "Frames one pass on the GPU (a copy, a view's kernel or shader) wrote into shared memory");
    counter(PROP_FRAMES_SHARED, "frames-shared", "Frames shared",
            "Frames handed on with no pass at all: already in memory CUDA and Vulkan share, or CUDA frames "
            "exported as DMA-BUFs of their own memory");
    counter(PROP_SHARED_FRAMES_ALLOCATED, "shared-frames-allocated", "Shared frames allocated",
            "Frames of memory shared by CUDA and Vulkan allocated so far (each exported once, then reused)");
    counter(PROP_DMABUF_EXPORTS, "dmabuf-exports", "DMA-BUF exports",
            "CUDA memories exported as DMA-BUF fds so far (each once: a pool's memory coming back is not "
            "exported again)");

    g2g::element::set_metadata(
        element_class, "g2gconvert", "g2g GPU domain converter", "Filter/Converter/Video/Hardware",
        "Moves frames between CUDA and Vulkan, and CUDA frames to DMA-BUFs, on the GPU");
    // Each direction where this build has it.
    g2g::CapsRef sink_caps = g2g::CapsRef::adopt(gst_caps_new_empty());
    g2g::CapsRef src_caps = g2g::CapsRef::adopt(gst_caps_new_empty());
    const auto add = [](g2g::CapsRef &into, GstCaps *more) {
        into.reset(gst_caps_merge(into.release(), more));
    };
    if (has_bridge()) {
        const std::string list = bridge_formats();
        for (MemoryDomainKind kind : {MemoryDomainKind::Cuda, MemoryDomainKind::VulkanTexture}) {
            add(sink_caps, g2g::caps::domain_caps(kind, list, true, true));
            add(src_caps, g2g::caps::domain_caps(kind, list, false, true));
        }
    }
    if (has_dmabuf()) {
        const std::string list = g2g::cuda_dmabuf::formats();
        add(sink_caps, g2g::caps::domain_caps(MemoryDomainKind::Cuda, list, false, true));
        const g2g::CapsRef dmabuf =
            g2g::CapsRef::adopt(g2g::caps::domain_caps(MemoryDomainKind::DmaBuf, list, false, true));
        add(src_caps, g2g::dmabuf::caps_with_dma_drm(dmabuf.get()).release());
    }
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink_caps.get()));
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, src_caps.get()));

    transform_class->transform_caps = g2g_convert_transform_caps;
    transform_class->set_caps = g2g_convert_set_caps;
    transform_class->transform_size = g2g::element::frame_size_of_caps;
    transform_class->transform = g2g_convert_transform;
    transform_class->transform_meta = g2g::element::transform_meta_but_geometry;
    transform_class->passthrough_on_same_caps = FALSE;
    transform_class->decide_allocation = g2g_convert_decide_allocation;
    transform_class->prepare_output_buffer = g2g_convert_prepare_output_buffer;
    transform_class->stop = g2g_convert_stop;
    g2g::element::install_context_glue<gpu_of>(transform_class);

    GST_DEBUG_CATEGORY_INIT(g2g_convert_debug, "g2gconvert", 0, "g2g GPU domain converter");
}

// True when upstream of `element` may send VulkanImage frames (its caps name them, or are ANY).
static bool upstream_may_send_vulkan_images(GstElement *element)
{
    const g2g::CapsRef upstream =
        g2g::CapsRef::adopt(gst_pad_peer_query_caps(GST_BASE_TRANSFORM_SINK_PAD(element), nullptr));
    if (!upstream || gst_caps_is_any(upstream.get()))
        return true;
    for (guint i = 0; i < gst_caps_get_size(upstream.get()); ++i) {
        if (g2g::detail::domain_of(gst_caps_get_features(upstream.get(), i)) ==
            MemoryDomainKind::VulkanTexture)
            return true;
    }
    return false;
}

static void g2g_convert_init(G2gConvert *self)
{
    self->priv = new ConvertPrivate();
    ConvertState *state = &self->priv->state;
    if (!has_bridge())
        return;
    // The Vulkan device is opened by us (with the extension sharing needs) on the CUDA context's
    // GPU: when asked for it, and at READY->PAUSED already when a Vulkan producer upstream would
    // open its own after us. Not for CUDA producers: a CUDA to DMA-BUF stream opens no Vulkan
    // device (and runs where there is none).
    state->gpu.vulkan.provide(
        [state](GstElement *element) -> std::optional<g2g::element::GpuUuid> {
            if (!state->gpu.cuda.join(element))
                return std::nullopt;
            return g2g::cuda_vulkan::gpu_of_cuda_context(state->gpu.cuda.context());
        },
        upstream_may_send_vulkan_images);
}

gboolean g2g_convert_register(GstPlugin *plugin)
{
    return gst_element_register(plugin, "g2gconvert", GST_RANK_NONE, G2G_TYPE_CONVERT);
}
