// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gconvert: moves frames between CUDA and Vulkan on the GPU they share (the CUDA-Vulkan bridge,
// lib/src/platform/cuda-vulkan/): one pass on the GPU per frame into memory both APIs address,
// none for a frame already there. A view (meta:G2gTensorView) on the way is written by that one
// pass: a rotated CUDA view reaches Vulkan materialized by one kernel. GStreamer alone goes through
// the host (cudadownload ! vulkanupload).
//
//   gst-launch-1.0 filesrc location=in.h264 ! h264parse ! nvh264dec ! g2gconvert ! vulkandownload
//       ! fakesink
//   gst-launch-1.0 videotestsrc ! vulkanupload ! g2gconvert ! cudadownload ! autovideosink
//   gst-launch-1.0 ... ! nvh264dec ! g2gview video-direction=90r ! g2gconvert ! vulkandownload ! ...
//
// It always changes domain (CUDAMemory in, VulkanImage out, and the reverse); to stay in one, use
// g2gmaterialize. It opens the pipeline's Vulkan device itself, on the CUDA context's GPU, with
// the extension sharing needs (VK_KHR_external_memory_fd, which no GStreamer 1.22 element enables),
// and hands it to the Vulkan elements around it through GstContext before they open their own.
// Properties: frames-written, frames-shared, shared-frames-allocated (read-only counters).
#include "g2gconvert.h"

#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <atomic>
#include <memory>

#include "common/context-glue.h"
#include "common/element-error.h"
#include "core/caps-domain.h"
#include "platform/cuda-vulkan/cuda-vulkan-bridge.h"
#include "view/view-backend.h"
#include "view-caps.h"
#include "view-output.h"

GST_DEBUG_CATEGORY_STATIC(g2g_convert_debug);
#define GST_CAT_DEFAULT g2g_convert_debug

using g2g::MemoryDomainKind;
using g2g::element::post_error;

namespace {

enum { PROP_0, PROP_FRAMES_WRITTEN, PROP_FRAMES_SHARED, PROP_SHARED_FRAMES_ALLOCATED };

// Negotiated state (set_caps) and the GPU contexts (reached from other threads through
// set_context and CONTEXT queries).
struct ConvertState {
    GstVideoInfo in_info{};
    GstVideoInfo out_info{};
    bool to_vulkan = true; // CUDA in, VulkanImage out; else the reverse
    bool in_view = false;
    g2g::element::GpuContexts gpu;
    std::shared_ptr<g2g::cuda_vulkan::Bridge> bridge; // written under the object lock (get_property reads it)
    std::atomic<guint64> written = 0;                 // frames a pass on the GPU wrote
    std::atomic<guint64> shared = 0; // frames that went on as the other face of shared memory
};

} // namespace

struct _G2gConvert {
    GstBaseTransform parent;
    ConvertState *state;
};

G_DEFINE_TYPE(G2gConvert, g2g_convert, GST_TYPE_BASE_TRANSFORM)

// ---- Negotiation ----

// The formats both a CUDA kernel and the Vulkan shader write (Vulkan's are the fewer).
static std::string formats()
{
    const g2g::detail::ViewBackend *vulkan = g2g::detail::view_backend(MemoryDomainKind::VulkanTexture);
    return vulkan ? g2g::detail::format_list(*vulkan) : std::string("{ RGBA }");
}

static GstCaps *g2g_convert_transform_caps(GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                           GstCaps *filter)
{
    using g2g::caps::moved_to;
    using g2g::caps::with_and_without_view;
    g2g::CapsRef result;
    if (direction == GST_PAD_SINK) {
        // Each domain's frames (views or dense) leave dense in the other.
        result = g2g::CapsRef::adopt(
            gst_caps_merge(moved_to(caps, MemoryDomainKind::Cuda, MemoryDomainKind::VulkanTexture),
                           moved_to(caps, MemoryDomainKind::VulkanTexture, MemoryDomainKind::Cuda)));
    } else {
        const g2g::CapsRef from_cuda =
            g2g::CapsRef::adopt(moved_to(caps, MemoryDomainKind::VulkanTexture, MemoryDomainKind::Cuda));
        const g2g::CapsRef from_vulkan =
            g2g::CapsRef::adopt(moved_to(caps, MemoryDomainKind::Cuda, MemoryDomainKind::VulkanTexture));
        result = g2g::CapsRef::adopt(
            gst_caps_merge(with_and_without_view(from_cuda.get()), with_and_without_view(from_vulkan.get())));
    }
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    return result.release();
}

// The bridge between the negotiated CUDA context and Vulkan engine (made once; again if either changed).
static bool ensure_bridge(G2gConvert *self)
{
    ConvertState &state = *self->state;
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
    GST_OBJECT_LOCK(self); // get_property reads it from the application's thread
    state.bridge = std::move(*bridge);
    GST_OBJECT_UNLOCK(self);
    GST_INFO_OBJECT(self, "sharing frames between %s", state.bridge->description().c_str());
    return true;
}

static gboolean g2g_convert_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
    G2gConvert *self = G2G_CONVERT(trans);
    ConvertState &state = *self->state;
    if (!gst_video_info_from_caps(&state.in_info, incaps) ||
        !gst_video_info_from_caps(&state.out_info, outcaps))
        return FALSE;
    state.to_vulkan = g2g::detail::kind_of_caps(incaps) == MemoryDomainKind::Cuda;
    state.in_view = g2g::caps::has_view_feature(gst_caps_get_features(incaps, 0));
    GST_INFO_OBJECT(self, "%s%s", state.to_vulkan ? "CUDA to Vulkan" : "Vulkan to CUDA",
                    state.in_view ? ", views written dense" : "");
    return ensure_bridge(self);
}

// The output is the bridge's own frame: no pool.
static gboolean g2g_convert_decide_allocation(GstBaseTransform *, GstQuery *)
{
    return TRUE;
}

static g2g::element::GpuContexts &gpu_of(GstBaseTransform *trans)
{
    return G2G_CONVERT(trans)->state->gpu;
}

static gboolean g2g_convert_stop(GstBaseTransform *trans)
{
    // Before the contexts go (PAUSED->READY); freed outside the object lock get_property takes.
    std::shared_ptr<g2g::cuda_vulkan::Bridge> gone;
    GST_OBJECT_LOCK(trans);
    gone.swap(G2G_CONVERT(trans)->state->bridge);
    GST_OBJECT_UNLOCK(trans);
    return TRUE;
}

// ---- Per frame ----

static GstFlowReturn g2g_convert_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *inbuf,
                                                       GstBuffer **outbuf)
{
    G2gConvert *self = G2G_CONVERT(trans);
    ConvertState &state = *self->state;
    GstElement *element = GST_ELEMENT(self);
    if (!state.bridge)
        return post_error(element, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                          "a frame arrived before caps were negotiated");
    if (!state.to_vulkan && !state.gpu.vulkan.check_frame(element, inbuf))
        return GST_FLOW_ERROR;
    const g2g::FrameView *carried = g2g::tensor_view_of(inbuf);
    g2g::Result<g2g::FrameView> identity =
        carried ? g2g::Result<g2g::FrameView>(*carried) : g2g::FrameView::of_frame(inbuf, state.in_info);
    if (!identity)
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, identity.error());
    const g2g::FrameView &view = *identity;
    if (GstFlowReturn fits = g2g::element::check_view_fits(element, view, &state.out_info);
        fits != GST_FLOW_OK)
        return fits;
    const bool dense = carried == nullptr;
    g2g::Result<g2g::cuda_vulkan::Conversion> converted = state.to_vulkan
                                                              ? state.bridge->to_vulkan(inbuf, view, dense)
                                                              : state.bridge->to_cuda(inbuf, view, dense);
    if (!converted)
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, converted.error());
    (converted->passes > 0 ? state.written : state.shared)++;
    GstBuffer *frame = converted->frame.release();
    // Flags, timestamps and the metas transform_meta keeps, as for a frame of a pool.
    GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS(trans);
    if (klass->copy_metadata && !klass->copy_metadata(trans, inbuf, frame))
        GST_WARNING_OBJECT(self, "could not copy the frame's metadata");
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
    ConvertState &state = *G2G_CONVERT(object)->state;
    switch (id) {
    case PROP_FRAMES_WRITTEN:
        g_value_set_uint64(value, state.written);
        break;
    case PROP_FRAMES_SHARED:
        g_value_set_uint64(value, state.shared);
        break;
    case PROP_SHARED_FRAMES_ALLOCATED: {
        GST_OBJECT_LOCK(object);
        g_value_set_uint64(value, state.bridge ? state.bridge->frames_allocated() : 0);
        GST_OBJECT_UNLOCK(object);
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void g2g_convert_finalize(GObject *object)
{
    delete G2G_CONVERT(object)->state;
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
            "Frames already in memory CUDA and Vulkan share, handed on with no pass at all");
    counter(PROP_SHARED_FRAMES_ALLOCATED, "shared-frames-allocated", "Shared frames allocated",
            "Frames of memory shared by CUDA and Vulkan allocated so far (each exported once, then reused)");

    gst_element_class_set_static_metadata(
        element_class, "g2g CUDA-Vulkan converter", "Filter/Converter/Video/Hardware",
        "Moves frames between CUDA memory and Vulkan images on the GPU they share, with one pass on the "
        "GPU (a view written by it) or none, never through host memory",
        "g2g developers");
    const std::string list = formats();
    const auto both = [&](bool views) {
        return gst_caps_merge(g2g::caps::domain_caps(MemoryDomainKind::Cuda, list, views, true),
                              g2g::caps::domain_caps(MemoryDomainKind::VulkanTexture, list, views, true));
    };
    const g2g::CapsRef sink_caps = g2g::CapsRef::adopt(both(true));
    const g2g::CapsRef src_caps = g2g::CapsRef::adopt(both(false));
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

    GST_DEBUG_CATEGORY_INIT(g2g_convert_debug, "g2gconvert", 0, "g2g CUDA-Vulkan converter");
}

static void g2g_convert_init(G2gConvert *self)
{
    self->state = new ConvertState();
    ConvertState *state = self->state;
    // The Vulkan device is opened by us (with the extension sharing needs) on the CUDA context's GPU.
    state->gpu.vulkan.provide(
        [state](GstElement *element) -> std::optional<g2g::element::GpuUuid> {
            if (!state->gpu.cuda.join(element))
                return std::nullopt;
            return g2g::cuda_vulkan::gpu_of_cuda_context(state->gpu.cuda.context());
        },
        true);
}

gboolean g2g_convert_register(GstPlugin *plugin)
{
    return gst_element_register(plugin, "g2gconvert", GST_RANK_NONE, G2G_TYPE_CONVERT);
}
