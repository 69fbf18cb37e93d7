// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtesthandlesink: a consumer of one platform-handle kind that recovers each frame's payload
// and keep-alive by type and checks them (see handle-elements.h).
#include "handle-elements.h"

#include <g2g/classify.h>
#include <g2g/g2g.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain.h>
#include <g2g/platform-handles.h>
#include <g2g/tensor-view-meta.h>

#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace {

using K = g2g::MemoryDomainKind;

enum {
    PROP_0,
    PROP_KIND,
    PROP_VIEWS,
    PROP_HOLD,
    PROP_REQUIRE_SYSTEM,
};

struct SinkSettings {
    K kind = K::D3D11Texture;
    bool views = false;          // takes meta:G2gTensorView too
    bool hold = false;           // keeps every frame until release_held() or stop
    bool require_system = false; // reads the frame as a CPU would (refused, loudly)
};

struct SinkPrivate {
    // The object lock guards the settings and what was seen (the test reads it from its thread).
    SinkSettings settings;
    std::vector<g2g::test::FrameSeen> seen;
    std::vector<std::string> system_refusals;
    std::vector<g2g::BufferRef> held;
    // Streaming thread: the negotiated frames.
    GstVideoInfo info{};
    bool caps_view = false;
};

} // namespace

struct G2gTestHandleSink {
    GstBaseSink parent;
    SinkPrivate *priv;
};
struct G2gTestHandleSinkClass {
    GstBaseSinkClass parent_class;
};

G_DEFINE_TYPE(G2gTestHandleSink, g2g_test_handle_sink, GST_TYPE_BASE_SINK)

#define SELF(object) (reinterpret_cast<G2gTestHandleSink *>(object))

namespace {

SinkSettings settings_of(G2gTestHandleSink *self)
{
    GST_OBJECT_LOCK(self);
    SinkSettings settings = self->priv->settings;
    GST_OBJECT_UNLOCK(self);
    return settings;
}

GstCaps *sink_get_caps(GstBaseSink *sink, GstCaps *filter)
{
    const SinkSettings s = settings_of(SELF(sink));
    const std::string memory(g2g::memory_caps_feature(s.kind));
    std::string text;
    if (s.views)
        text = "video/x-raw(" + memory + ", " G2G_CAPS_FEATURE_META_TENSOR_VIEW "); ";
    text += "video/x-raw(" + memory + ")";
    GstCaps *caps = gst_caps_from_string(text.c_str());
    if (filter) {
        GstCaps *both = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(caps);
        caps = both;
    }
    return caps;
}

gboolean sink_set_caps(GstBaseSink *sink, GstCaps *caps)
{
    SinkPrivate &priv = *SELF(sink)->priv;
    GstCapsFeatures *features = gst_caps_get_features(caps, 0);
    priv.caps_view = features && gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW);
    return gst_video_info_from_caps(&priv.info, caps);
}

// The payload of `memory` recovered by each payload type: exactly the one of `kind` gives it.
// Returns the handle it carries and its size as the payload says it (width, height; a buffer's
// bytes as width), or a problem.
struct Recovered {
    const void *handle = nullptr;
    guint width = 0, height = 0; // 0 for buffers
    std::uint64_t bytes = 0;     // buffers: their size or valid length
    std::string problem;
};

template <typename Payload> int recovers(GstMemory *memory)
{
    return g2g::handles::payload_of<Payload>(memory) ? 1 : 0;
}

Recovered recover(GstMemory *memory, K kind)
{
    Recovered r;
    const int types = recovers<G2gD3D11Texture>(memory) + recovers<G2gCvPixelBuffer>(memory) +
                      recovers<G2gWebGPUBuffer>(memory) + recovers<G2gWebGPUExternalTexture>(memory) +
                      recovers<G2gWgpuTexture>(memory) + recovers<G2gWgpuBuffer>(memory);
    if (types != 1)
        r.problem = std::to_string(types) + " payload types recover the memory (one should)";
    using g2g::handles::payload_of;
    switch (kind) {
    case K::D3D11Texture:
        if (const auto *p = payload_of<G2gD3D11Texture>(memory))
            r = {p->texture, p->width, p->height, 0, r.problem};
        break;
    case K::CvPixelBuffer:
        if (const auto *p = payload_of<G2gCvPixelBuffer>(memory))
            r = {p->pixel_buffer, p->width, p->height, 0, r.problem};
        break;
    case K::WebGPUBuffer:
        if (const auto *p = payload_of<G2gWebGPUBuffer>(memory))
            r = {reinterpret_cast<const void *>(static_cast<std::uintptr_t>(p->buffer_id)), 0, 0, p->size,
                 r.problem};
        break;
    case K::WebGPUExternalTexture:
        if (const auto *p = payload_of<G2gWebGPUExternalTexture>(memory))
            r = {p->video_frame, p->width, p->height, 0, r.problem};
        break;
    case K::WgpuTexture:
        if (const auto *p = payload_of<G2gWgpuTexture>(memory))
            r = {p->texture, p->width, p->height, 0, r.problem};
        break;
    case K::WgpuBuffer:
        if (const auto *p = payload_of<G2gWgpuBuffer>(memory))
            r = {p->buffer, 0, 0, p->valid_length, r.problem};
        break;
    default:
        break;
    }
    if (!r.handle && r.problem.empty())
        r.problem = "its payload does not recover as a " + std::string(g2g::name(kind)) + "'s";
    return r;
}

// "a WgpuTexture frame: WgpuTexture 0x..., 64x48, format 18", or the domain of other memory.
std::string what_came(GstBuffer *buffer)
{
    GstMemory *memory = gst_buffer_n_memory(buffer) ? gst_buffer_peek_memory(buffer, 0) : nullptr;
    if (const auto kind = memory ? g2g::handles::handle_domain_of(memory) : std::nullopt)
        return "a " + std::string(g2g::name(*kind)) + " frame: " + g2g::handles::describe(memory);
    const g2g::Result<K> kind = g2g::classify_buffer(buffer);
    return kind ? "a " + std::string(g2g::name(*kind)) + " frame" : "a frame in " + kind.error().message();
}

GstFlowReturn refuse(G2gTestHandleSink *self, const std::string &text)
{
    GST_ELEMENT_ERROR(self, STREAM, WRONG_TYPE, ("%s", text.c_str()), (nullptr));
    return GST_FLOW_ERROR;
}

// The frame as a CPU reader would ask for it: refused, the texts of each way of asking kept.
GstFlowReturn read_as_system(G2gTestHandleSink *self, GstBuffer *buffer)
{
    const char *name = GST_OBJECT_NAME(self);
    std::vector<std::string> texts;
    g2g::Result<g2g::MemoryDomain> domain = g2g::MemoryDomain::from_buffer(buffer);
    if (!domain)
        return refuse(self, domain.error().message());
    g2g::Result<g2g::SystemBytes> slice = domain->require_system_slice(name);
    g2g::Result<g2g::SystemBytes> bytes = domain->require_system_bytes(name);
    texts.push_back(slice ? "" : slice.error().message());
    texts.push_back(bytes ? "" : bytes.error().message());
    GError *error = nullptr;
    GBytes *c_bytes = g2g_buffer_require_system_bytes(buffer, name, &error);
    texts.push_back(error ? error->message : "");
    g_clear_error(&error);
    if (c_bytes)
        g_bytes_unref(c_bytes);
    GST_OBJECT_LOCK(self);
    self->priv->system_refusals.insert(self->priv->system_refusals.end(), texts.begin(), texts.end());
    GST_OBJECT_UNLOCK(self);
    if (bytes)
        return GST_FLOW_OK;
    return refuse(self, bytes.error().message());
}

GstFlowReturn sink_render(GstBaseSink *sink, GstBuffer *buffer)
{
    G2gTestHandleSink *self = SELF(sink);
    SinkPrivate &priv = *self->priv;
    const SinkSettings s = settings_of(self);
    const std::string me = GST_OBJECT_NAME(self);
    if (s.require_system)
        return read_as_system(self, buffer);

    if (gst_buffer_n_memory(buffer) != 1)
        return refuse(self,
                      me + " takes frames of one memory, got " + std::to_string(gst_buffer_n_memory(buffer)));
    GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
    if (g2g::handles::handle_domain_of(memory) != s.kind)
        return refuse(self, me + " takes " + std::string(g2g::name(s.kind)) + " frames but received " +
                                what_came(buffer));
    const g2g::Result<K> classified = g2g::classify_buffer(buffer);
    if (!classified || *classified != s.kind)
        return refuse(self,
                      me + ": the frame classifies as " +
                          (classified ? std::string(g2g::name(*classified)) : classified.error().message()));

    const Recovered payload = recover(memory, s.kind);
    if (!payload.problem.empty())
        return refuse(self, me + ": " + payload.problem);
    const std::shared_ptr<g2g::handles::KeepAlive> keep = g2g::handles::keep_alive_of(memory);
    const auto *ledger = keep ? keep->as<g2g::test::LedgerKeepAlive>() : nullptr;
    if (!ledger)
        return refuse(self, me + ": the frame's keep-alive is not a LedgerKeepAlive");
    if (payload.handle != ledger->object())
        return refuse(self, me + ": the payload's handle is not its keep-alive's object");
    if (ledger->object()->releases != 0)
        return refuse(self, me + ": the frame's object was released already");

    // The frame's geometry: a dense frame is the caps'; a view is the caps' size over the source
    // frame the payload holds.
    const g2g::FrameView *view = g2g::tensor_view_of(buffer);
    if (priv.caps_view != (view != nullptr))
        return refuse(self, me + (view ? ": a view in caps without meta:G2gTensorView"
                                       : ": no view meta under "
                                         "view caps"));
    const guint caps_w = static_cast<guint>(GST_VIDEO_INFO_WIDTH(&priv.info));
    const guint caps_h = static_cast<guint>(GST_VIDEO_INFO_HEIGHT(&priv.info));
    g2g::test::FrameSeen seen;
    seen.kind = s.kind;
    seen.handle = payload.handle;
    seen.memory = memory;
    seen.object = ledger->index();
    seen.size = memory->size;
    seen.pts = GST_BUFFER_PTS(buffer);
    if (view) {
        if (view->width() != caps_w || view->height() != caps_h ||
            view->format() != GST_VIDEO_INFO_FORMAT(&priv.info))
            return refuse(self, me + ": the view is not the caps' frame");
        const g2g::Result<void> inside = view->check_bounds(buffer);
        if (!inside)
            return refuse(self, me + ": " + inside.error().message());
        // A texture's view is sampled: every view pixel must be a pixel of the payload's frame.
        const auto &px = view->pixels();
        for (std::int64_t x : {std::int64_t{0}, std::int64_t{px.width} - 1}) {
            for (std::int64_t y : {std::int64_t{0}, std::int64_t{px.height} - 1}) {
                const g2g::PixelStep at = px.at(x, y);
                if (payload.width &&
                    (at.x < 0 || at.y < 0 || at.x >= payload.width || at.y >= payload.height))
                    return refuse(self, me + ": the view samples outside the texture");
            }
        }
        seen.view = g2g::test::ViewSeen{view->width(), view->height(), px, view->plane(0)};
    } else {
        if (payload.width && (payload.width != caps_w || payload.height != caps_h))
            return refuse(self, me + ": the payload is " + std::to_string(payload.width) + "x" +
                                    std::to_string(payload.height) + " but the caps say " +
                                    std::to_string(caps_w) + "x" + std::to_string(caps_h));
    }
    if (memory->size < GST_VIDEO_INFO_SIZE(&priv.info) && !view)
        return refuse(self, me + ": the memory is smaller than the caps' frame");
    if (!payload.width && payload.bytes > memory->maxsize)
        return refuse(self, me + ": the buffer's payload says more bytes than its memory holds");

    GST_OBJECT_LOCK(self);
    priv.seen.push_back(std::move(seen));
    if (s.hold)
        priv.held.push_back(g2g::BufferRef::borrow(buffer));
    GST_OBJECT_UNLOCK(self);
    return GST_FLOW_OK;
}

gboolean sink_stop(GstBaseSink *sink)
{
    g2g::test::release_held(GST_ELEMENT(sink));
    return TRUE;
}

void sink_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gTestHandleSink *self = SELF(object);
    GST_OBJECT_LOCK(self);
    SinkSettings &s = self->priv->settings;
    switch (prop_id) {
    case PROP_KIND:
        s.kind = static_cast<K>(g_value_get_enum(value));
        break;
    case PROP_VIEWS:
        s.views = g_value_get_boolean(value);
        break;
    case PROP_HOLD:
        s.hold = g_value_get_boolean(value);
        break;
    case PROP_REQUIRE_SYSTEM:
        s.require_system = g_value_get_boolean(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

void sink_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    const SinkSettings s = settings_of(SELF(object));
    switch (prop_id) {
    case PROP_KIND:
        g_value_set_enum(value, static_cast<gint>(s.kind));
        break;
    case PROP_VIEWS:
        g_value_set_boolean(value, s.views);
        break;
    case PROP_HOLD:
        g_value_set_boolean(value, s.hold);
        break;
    case PROP_REQUIRE_SYSTEM:
        g_value_set_boolean(value, s.require_system);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

void sink_finalize(GObject *object)
{
    delete SELF(object)->priv;
    G_OBJECT_CLASS(g2g_test_handle_sink_parent_class)->finalize(object);
}

} // namespace

static void g2g_test_handle_sink_class_init(G2gTestHandleSinkClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseSinkClass *base_class = GST_BASE_SINK_CLASS(klass);
    object_class->set_property = sink_set_property;
    object_class->get_property = sink_get_property;
    object_class->finalize = sink_finalize;

    const auto rw = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_property(object_class, PROP_KIND,
                                    g_param_spec_enum("kind", "Kind", "The memory domain it takes",
                                                      G2G_TYPE_MEMORY_DOMAIN_KIND,
                                                      G2G_MEMORY_DOMAIN_D3D11_TEXTURE, rw));
    g_object_class_install_property(object_class, PROP_VIEWS,
                                    g_param_spec_boolean("views", "Views",
                                                         "Takes views (meta:G2gTensorView) of its kind too",
                                                         FALSE, rw));
    g_object_class_install_property(
        object_class, PROP_HOLD,
        g_param_spec_boolean("hold", "Hold", "Keeps every frame until released or stopped", FALSE, rw));
    g_object_class_install_property(
        object_class, PROP_REQUIRE_SYSTEM,
        g_param_spec_boolean("require-system", "Require system",
                             "Reads each frame's system bytes, as a CPU reader would", FALSE, rw));

    static GstStaticPadTemplate sink_template =
        GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_set_static_metadata(
        element_class, "g2g test handle sink", "Sink/Video",
        "Takes frames of one platform-handle kind and checks their payloads (tests)", "g2g developers");
    base_class->get_caps = sink_get_caps;
    base_class->set_caps = sink_set_caps;
    base_class->render = sink_render;
    base_class->stop = sink_stop;
}

static void g2g_test_handle_sink_init(G2gTestHandleSink *self)
{
    self->priv = new SinkPrivate();
    // The last sample would hold a frame past the test's release of the held ones.
    gst_base_sink_set_last_sample_enabled(GST_BASE_SINK(self), FALSE);
    gst_base_sink_set_sync(GST_BASE_SINK(self), FALSE);
}

namespace g2g::test {

std::vector<FrameSeen> frames_seen(GstElement *sink)
{
    GST_OBJECT_LOCK(sink);
    std::vector<FrameSeen> seen = SELF(sink)->priv->seen;
    GST_OBJECT_UNLOCK(sink);
    return seen;
}

std::vector<std::string> system_refusals(GstElement *sink)
{
    GST_OBJECT_LOCK(sink);
    std::vector<std::string> texts = SELF(sink)->priv->system_refusals;
    GST_OBJECT_UNLOCK(sink);
    return texts;
}

std::size_t held_frames(GstElement *sink)
{
    GST_OBJECT_LOCK(sink);
    const std::size_t held = SELF(sink)->priv->held.size();
    GST_OBJECT_UNLOCK(sink);
    return held;
}

void release_held(GstElement *sink)
{
    std::vector<BufferRef> dropped;
    GST_OBJECT_LOCK(sink);
    std::swap(dropped, SELF(sink)->priv->held);
    GST_OBJECT_UNLOCK(sink);
    // Unreffed outside the lock: the last share releases its platform object.
}

} // namespace g2g::test
