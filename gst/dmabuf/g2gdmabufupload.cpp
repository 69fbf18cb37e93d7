// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gdmabufupload: raw video frames out as DMA-BUF frames of g2g's allocator (dma-heap, udmabuf or
// memfd: whichever this machine has). Upstream is offered g2g's DMA-BUF pool, so a producer that
// takes its downstream's pool (videotestsrc, videoconvert, decoders) writes each frame into a
// DMA-BUF itself and the frame passes with no copy; any other frame is copied once. DMA-BUF frames
// that arrive pass as they are.
//
//   gst-launch-1.0 videotestsrc ! g2gdmabufupload ! g2gprobe ! kmssink
//   gst-launch-1.0 videotestsrc ! g2gdmabufupload ! "video/x-raw(memory:DMABuf)" ! ...
//
// Output caps: system memory (the frames map: GStreamer 1.22's rule for mappable DMA-BUFs) and
// memory:DMABuf, both in 1.22's form and in GStreamer 1.24's DMA_DRM form, for consumers that ask
// for those. Properties: frames-shared, frames-copied (read-only counters).
//
// No settings; the Plan (make_plan: the input layout, from the caps; made at set_caps, swapped in
// whole) and the State (the pool copies go into, the counters).
//
// A copy is g2g::dmabuf::export_frame's, the same as g2g_dmabuf_export's: of the frame the caps
// describe, in every format the caps advertise; a GstVideoMeta larger than the caps and a
// GstVideoCropMeta are read as GStreamer's elements read them, one smaller than the caps is refused
// naming both, the element's name opening the text.
#include "g2gdmabufupload.h"

#include <g2g/dmabuf.h>
#include <g2g/gst-ref.h>

#include <gst/allocators/allocators.h>
#include <gst/video/video.h>

#include <atomic>
#include <memory>
#include <string>

#include "common/element-docs.h"
#include "common/element-error.h"
#include "common/plan-slot.h"

GST_DEBUG_CATEGORY_STATIC(g2g_dmabuf_upload_debug);
#define GST_CAT_DEFAULT g2g_dmabuf_upload_debug

namespace {

enum { PROP_0, PROP_FRAMES_SHARED, PROP_FRAMES_COPIED };

// What negotiation decided (make_plan, at set_caps); immutable.
struct UploadPlan {
    GstVideoInfo in_info{};
};

// The plan for the negotiated input caps; refused (no words: GstBaseTransform's not-negotiated)
// for caps of no video layout. Pure.
g2g::element::Planned<UploadPlan> make_plan(GstCaps *incaps)
{
    UploadPlan plan;
    if (!gst_video_info_from_caps(&plan.in_info, incaps))
        return g2g::element::Planned<UploadPlan>::refused();
    return plan;
}

struct UploadState {
    // The frames copies go into, made at set_caps for the negotiated caps (streaming thread only):
    // one DMA-BUF per frame a stream reuses, rather than a new memfd, mapping and page faults
    // per frame.
    g2g::Ref<GstBufferPool> copies;

    void drop_copies()
    {
        if (copies)
            gst_buffer_pool_set_active(copies.get(), FALSE);
        copies.reset();
    }
    std::atomic<guint64> shared = 0; // frames that arrived in DMA-BUFs (g2g's pool's among them)
    std::atomic<guint64> copied = 0; // frames copied into one
};

// No settings (the properties are read-only counters, in the state).
struct UploadPrivate {
    g2g::element::PlanSlot<UploadPlan> plan;
    UploadState state;
};

// Every raw format with a DRM fourcc, as a caps list ("{ NV12, I420, ... }").
std::string drm_formats()
{
    std::string list;
    for (GstVideoFormat format : g2g::dmabuf::drm_video_formats())
        list += (list.empty() ? "{ " : ", ") + std::string(gst_video_format_to_string(format));
    return list + " }";
}

GstCaps *raw_caps(const char *features)
{
    const std::string text =
        std::string("video/x-raw") + (features ? std::string("(") + features + ")" : "") +
        ", format=(string)" + drm_formats() +
        ", width=(int)[ 1, max ], height=(int)[ 1, max ], framerate=(fraction)[ 0, max ]";
    return gst_caps_from_string(text.c_str());
}

// `caps` (system memory or not) in system memory, and, after it, as memory:DMABuf in both forms.
GstCaps *as_output(GstCaps *caps)
{
    g2g::CapsRef system = g2g::CapsRef::adopt(gst_caps_new_empty());
    const g2g::CapsRef dmabuf = g2g::CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        GstStructure *s = gst_caps_get_structure(caps, i);
        gst_caps_append_structure_full(system.get(), gst_structure_copy(s),
                                       gst_caps_features_new_single(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY));
        gst_caps_append_structure_full(dmabuf.get(), gst_structure_copy(s),
                                       gst_caps_features_new_single(GST_CAPS_FEATURE_MEMORY_DMABUF));
    }
    const g2g::CapsRef both = g2g::dmabuf::caps_with_dma_drm(dmabuf.get());
    return gst_caps_merge(system.release(), gst_caps_copy(both.get()));
}

// The system-memory frames an output of `caps` (either form, either memory) comes from.
GstCaps *as_input(GstCaps *caps)
{
    const g2g::CapsRef plain = g2g::dmabuf::caps_from_dma_drm(caps);
    GstCaps *system = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(plain.get()); ++i)
        gst_caps_append_structure_full(system, gst_structure_copy(gst_caps_get_structure(plain.get(), i)),
                                       gst_caps_features_new_single(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY));
    return gst_caps_simplify(system);
}

bool all_dmabuf(GstBuffer *buffer)
{
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i) {
        if (!gst_is_dmabuf_memory(gst_buffer_peek_memory(buffer, i)))
            return false;
    }
    return gst_buffer_n_memory(buffer) > 0;
}

} // namespace

struct _G2gDmaBufUpload {
    GstBaseTransform parent;
    UploadPrivate *priv;
};

G_DEFINE_TYPE(G2gDmaBufUpload, g2g_dmabuf_upload, GST_TYPE_BASE_TRANSFORM)

static GstCaps *g2g_dmabuf_upload_transform_caps(GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                                 GstCaps *filter)
{
    g2g::CapsRef result = g2g::CapsRef::adopt(direction == GST_PAD_SINK ? as_output(caps) : as_input(caps));
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    return result.release();
}

static gboolean g2g_dmabuf_upload_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *)
{
    G2gDmaBufUpload *self = G2G_DMABUF_UPLOAD(trans);
    UploadState &state = self->priv->state;
    if (!self->priv->plan.take(GST_ELEMENT(self), make_plan(incaps)))
        return FALSE;
    state.drop_copies();
    state.copies = g2g::Ref<GstBufferPool>::adopt(g2g::dmabuf::pool_new(incaps));
    return state.copies && gst_buffer_pool_set_active(state.copies.get(), TRUE);
}

static gboolean g2g_dmabuf_upload_stop(GstBaseTransform *trans)
{
    G2gDmaBufUpload *self = G2G_DMABUF_UPLOAD(trans);
    self->priv->state.drop_copies();
    self->priv->plan.clear();
    return TRUE;
}

// Upstream writes into g2g's DMA-BUFs: the pool is what makes the upload free.
static gboolean g2g_dmabuf_upload_propose_allocation(GstBaseTransform *trans, GstQuery *decide_query,
                                                     GstQuery *query)
{
    if (!GST_BASE_TRANSFORM_CLASS(g2g_dmabuf_upload_parent_class)
             ->propose_allocation(trans, decide_query, query))
        return FALSE;
    GstCaps *caps = nullptr;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &caps, &need_pool);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return FALSE;
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    gst_query_add_allocation_param(query, g2g::dmabuf::allocator(), nullptr);
    if (need_pool) {
        g2g::Ref<GstBufferPool> pool = g2g::Ref<GstBufferPool>::adopt(g2g::dmabuf::pool_new(caps));
        if (pool)
            gst_query_add_allocation_pool(query, pool.get(), static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)),
                                          2, 0);
    }
    return TRUE;
}

static GstFlowReturn g2g_dmabuf_upload_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *inbuf,
                                                             GstBuffer **outbuf)
{
    G2gDmaBufUpload *self = G2G_DMABUF_UPLOAD(trans);
    UploadState &state = self->priv->state;
    if (all_dmabuf(inbuf)) {
        ++state.shared;
        *outbuf = inbuf; // GstBaseTransform hands inbuf's reference on when outbuf is inbuf
        return GST_FLOW_OK;
    }
    // A frame of other memory, into a frame of the copies pool: a view (a G2gTensorView meta, which
    // only g2g's API attaches: these caps do not carry the feature) written densely, any other
    // frame plane by plane, the region its metas and caps say; a refusal names this element.
    const UploadPlan *plan = self->priv->plan.in_effect();
    if (!plan)
        return GST_FLOW_NOT_NEGOTIATED;
    g2g::Result<g2g::BufferRef> exported =
        g2g::dmabuf::export_frame(inbuf, plan->in_info, state.copies.get(), GST_OBJECT_NAME(self));
    if (!exported)
        return g2g::element::post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                                        exported.error());
    ++state.copied;
    *outbuf = exported->release();
    return GST_FLOW_OK;
}

static GstFlowReturn g2g_dmabuf_upload_transform(GstBaseTransform *, GstBuffer *, GstBuffer *)
{
    return GST_FLOW_OK; // prepare_output_buffer's frame is the output
}

static void g2g_dmabuf_upload_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    UploadState &state = G2G_DMABUF_UPLOAD(object)->priv->state;
    switch (id) {
    case PROP_FRAMES_SHARED:
        g_value_set_uint64(value, state.shared);
        break;
    case PROP_FRAMES_COPIED:
        g_value_set_uint64(value, state.copied);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void g2g_dmabuf_upload_finalize(GObject *object)
{
    G2G_DMABUF_UPLOAD(object)->priv->state.drop_copies();
    delete G2G_DMABUF_UPLOAD(object)->priv;
    G_OBJECT_CLASS(g2g_dmabuf_upload_parent_class)->finalize(object);
}

static void g2g_dmabuf_upload_class_init(G2gDmaBufUploadClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);
    object_class->get_property = g2g_dmabuf_upload_get_property;
    object_class->finalize = g2g_dmabuf_upload_finalize;
    g_object_class_install_property(
        object_class, PROP_FRAMES_SHARED,
        g_param_spec_uint64("frames-shared", "Frames shared",
                            "Frames that arrived in DMA-BUFs (written by upstream into the pool this element "
                            "offers, or DMA-BUFs already) and went on with no copy",
                            0, G_MAXUINT64, 0,
                            static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    g_object_class_install_property(
        object_class, PROP_FRAMES_COPIED,
        g_param_spec_uint64("frames-copied", "Frames copied",
                            "Frames that arrived in other memory and were copied once into a DMA-BUF", 0,
                            G_MAXUINT64, 0,
                            static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

    g2g::element::set_metadata(element_class, "g2gdmabufupload", "g2g DMA-BUF upload",
                               "Filter/Converter/Video", "Uploads raw video frames into DMA-BUF memory");
    const g2g::CapsRef sink_caps = g2g::CapsRef::adopt(raw_caps(nullptr));
    const g2g::CapsRef src_caps = g2g::CapsRef::adopt(as_output(sink_caps.get()));
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink_caps.get()));
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, src_caps.get()));

    transform_class->transform_caps = g2g_dmabuf_upload_transform_caps;
    transform_class->set_caps = g2g_dmabuf_upload_set_caps;
    transform_class->propose_allocation = g2g_dmabuf_upload_propose_allocation;
    transform_class->prepare_output_buffer = g2g_dmabuf_upload_prepare_output_buffer;
    transform_class->transform = g2g_dmabuf_upload_transform;
    transform_class->passthrough_on_same_caps = FALSE;
    transform_class->stop = g2g_dmabuf_upload_stop;

    GST_DEBUG_CATEGORY_INIT(g2g_dmabuf_upload_debug, "g2gdmabufupload", 0, "g2g DMA-BUF upload");
}

static void g2g_dmabuf_upload_init(G2gDmaBufUpload *self)
{
    self->priv = new UploadPrivate();
}

gboolean g2g_dmabuf_upload_register(GstPlugin *plugin)
{
    return gst_element_register(plugin, "g2gdmabufupload", GST_RANK_NONE, G2G_TYPE_DMABUF_UPLOAD);
}
