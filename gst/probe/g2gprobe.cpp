// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe: passes every frame through untouched and says which memory domain it lives in
// (last-domain; with silent=false also a last-message line per frame, which gst-launch-1.0 -v
// prints). With require set, a frame outside those domains is an element error that names the
// converter to insert. DMABuf caps link in either form on either side (GStreamer 1.22's
// format=NV12, 1.24's DMA_DRM drm-format=NV12): the frames pass untouched whatever the caps say.
//
// require takes the names last-domain prints (DmaBuf, VulkanTexture), the flags' nicks (dma-buf),
// any case, hyphens optional, and `vulkan` (probe-require.h).
//
//   gst-launch-1.0 -v videotestsrc num-buffers=3 ! g2gprobe silent=false require=system ! fakesink
#include "g2gprobe.h"

#include "probe-require.h"

#include <g2g/classify.h>
#include <g2g/converters.h>
#include <g2g/dmabuf.h>
#include <g2g/domain-set.h>
#include <g2g/g2g.h>

#include <string>
#include <string_view>
#include <utility>

#include "common/allocation.h"
#include "common/element-docs.h"
#include "common/element-error.h"
#include "common/object-lock.h"

GST_DEBUG_CATEGORY(g2g_probe_debug);
#define GST_CAT_DEFAULT g2g_probe_debug

using g2g::element::ObjectLock;

namespace {

enum {
    PROP_0,
    PROP_LAST_DOMAIN,
    PROP_REQUIRE,
    PROP_SILENT,
    PROP_LAST_MESSAGE,
};

constexpr gboolean kDefaultSilent = TRUE;

// The properties the application sets.
struct ProbeSettings {
    g2g::DomainSet require; // empty: any domain passes
    bool silent = kDefaultSilent;
};

// What the probe reports: written by the streaming thread, read as properties from any thread.
struct ProbeReport {
    std::string_view last_domain; // "" until the first frame; "unknown" for memory g2g does not know
    std::string last_message;     // per-frame line when silent is off
};

struct ProbePrivate {
    // The object lock guards settings and report. It is the only lock the probe takes, and only
    // to copy values in or out: never held across a notify or a posted message.
    ProbeSettings settings;
    ProbeReport report;
    // Streaming thread only (reset by start, before streaming begins): an unknown memory type is
    // warned about once per stream.
    bool warned_unknown = false;
};

// The element's name, for the error lines only.
std::string name_of(G2gProbe *self)
{
    g_autofree gchar *name = gst_object_get_name(GST_OBJECT(self));
    return name ? name : "";
}

} // namespace

struct _G2gProbe {
    GstBaseTransform parent;
    ProbePrivate *priv;
};

G_DEFINE_TYPE(G2gProbe, g2g_probe, GST_TYPE_BASE_TRANSFORM)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

// ---- Negotiation: the caps as they are, DMABuf caps in both forms ----

// Each side takes what the other does, and DMABuf frames also in the other form (GStreamer 1.22's
// format=NV12, 1.24's DMA_DRM drm-format=NV12): a probe between a producer of one form and a
// consumer of the other links, and the frames pass untouched either way. Every other caps stay
// the same, as GstBaseTransform's identity.
static GstCaps *g2g_probe_transform_caps(GstBaseTransform *, GstPadDirection, GstCaps *caps, GstCaps *filter)
{
    g2g::CapsRef result = g2g::dmabuf::caps_with_dma_drm(caps);
    if (filter)
        result = g2g::CapsRef::adopt(gst_caps_intersect_full(filter, result.get(), GST_CAPS_INTERSECT_FIRST));
    return result.release();
}

// Downstream answers for the frames it gets (passthrough), asked in the caps it negotiated: those
// of the query, unless the probe restated DMABuf caps (a 1.22 peer cannot read DMA_DRM caps).
static gboolean g2g_probe_propose_allocation(GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    const g2g::CapsRef out = g2g::CapsRef::adopt(gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(trans)));
    if (decide_query || !caps || !out || gst_caps_is_equal(caps, out.get()))
        return GST_BASE_TRANSFORM_CLASS(g2g_probe_parent_class)
            ->propose_allocation(trans, decide_query, query);
    return g2g::element::peer_allocation_in(GST_BASE_TRANSFORM_SRC_PAD(trans), out.get(), query);
}

// ---- Per frame: classify, report, check ----

static GstFlowReturn g2g_probe_transform_ip(GstBaseTransform *trans, GstBuffer *buffer)
{
    G2gProbe *self = G2G_PROBE(trans);
    ProbePrivate &priv = *self->priv;
    const g2g::Result<g2g::MemoryDomainKind> kind = g2g::classify_buffer(buffer);
    // Static names: the per-frame path allocates nothing unless silent is off.
    const std::string_view domain = kind ? g2g::name(*kind) : std::string_view("unknown");

    ProbeSettings settings;
    {
        const ObjectLock lock(self);
        settings = priv.settings;
        priv.report.last_domain = domain;
        if (!settings.silent) {
            g_autofree gchar *line =
                g_strdup_printf("pts %" GST_TIME_FORMAT ": %s", GST_TIME_ARGS(GST_BUFFER_PTS(buffer)),
                                kind ? domain.data() : kind.error().message().c_str());
            priv.report.last_message = line;
        }
    }
    if (!settings.silent)
        g_object_notify(G_OBJECT(self), "last-message");

    if (!kind) {
        // Counted even when require refuses the frame: one warning per stream at most.
        const bool first_unknown = !std::exchange(priv.warned_unknown, true);
        if (!settings.require.empty())
            return g2g::element::post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                                            name_of(self) + " requires " + settings.require.to_string() +
                                                " but received a frame in " + kind.error().message());
        if (first_unknown)
            g2g::element::post_warning(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                                       kind.error().message());
        return GST_FLOW_OK;
    }

    GST_LOG_OBJECT(self, "frame %" GST_PTR_FORMAT " lives in %s", buffer, domain.data());
    if (!settings.require.empty() && !settings.require.contains(*kind))
        return g2g::element::post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                                        g2g::wrong_domain_error(name_of(self), settings.require, *kind));
    return GST_FLOW_OK;
}

static gboolean g2g_probe_start(GstBaseTransform *trans)
{
    G2gProbe *self = G2G_PROBE(trans);
    self->priv->warned_unknown = false;
    const ObjectLock lock(self);
    self->priv->report.last_domain = {};
    return TRUE;
}

// ---- Properties ----

static void g2g_probe_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gProbe *self = G2G_PROBE(object);
    const ObjectLock lock(self);
    ProbeSettings &settings = self->priv->settings;
    switch (prop_id) {
    case PROP_REQUIRE:
        settings.require = g2g::DomainSet::from_bits(g_value_get_flags(value));
        break;
    case PROP_SILENT:
        settings.silent = g_value_get_boolean(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

static void g2g_probe_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gProbe *self = G2G_PROBE(object);
    const ObjectLock lock(self);
    const ProbePrivate &priv = *self->priv;
    switch (prop_id) {
    case PROP_LAST_DOMAIN:
        g_value_set_string(value, std::string(priv.report.last_domain).c_str());
        break;
    case PROP_REQUIRE:
        g_value_set_flags(value, priv.settings.require.bits());
        break;
    case PROP_SILENT:
        g_value_set_boolean(value, priv.settings.silent);
        break;
    case PROP_LAST_MESSAGE:
        g_value_set_string(value, priv.report.last_message.c_str());
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

// ---- GObject ----

static void g2g_probe_finalize(GObject *object)
{
    delete G2G_PROBE(object)->priv;
    G_OBJECT_CLASS(g2g_probe_parent_class)->finalize(object);
}

static void g2g_probe_class_init(G2gProbeClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);

    object_class->set_property = g2g_probe_set_property;
    object_class->get_property = g2g_probe_get_property;
    object_class->finalize = g2g_probe_finalize;

    const auto readable = static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    const auto writable =
        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(
        object_class, PROP_LAST_DOMAIN,
        g_param_spec_string("last-domain", "Last domain",
                            "Memory domain of the last frame (System, Cuda, VulkanTexture, ...); "
                            "empty before the first frame, 'unknown' for memory g2g does not know",
                            "", readable));
    g_object_class_install_property(
        object_class, PROP_REQUIRE,
        g_param_spec_flags("require", "Require",
                           "Domains a frame must live in, by the names last-domain prints or the flags' "
                           "nicks, any case, hyphens optional, joined by '+' (e.g. dmabuf+VulkanTexture, "
                           "system+system-view; vulkan names VulkanTexture); a frame in another domain is "
                           "an element error naming the converter to insert (none: any domain passes)",
                           G2G_TYPE_MEMORY_DOMAIN_KINDS, 0, writable));
    g_object_class_install_property(
        object_class, PROP_SILENT,
        g_param_spec_boolean("silent", "Silent",
                             "Do not update last-message for every frame (gst-launch-1.0 -v prints it)",
                             kDefaultSilent, writable));
    g_object_class_install_property(
        object_class, PROP_LAST_MESSAGE,
        g_param_spec_string("last-message", "Last message",
                            "Per-frame line: timestamp and domain (only when silent is off)", "", readable));

    g2g::element::set_metadata(element_class, "g2gprobe", "g2g memory-domain probe", "Generic/Debug",
                               "Reports the memory domain of each frame passing through");
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);

    transform_class->transform_ip = g2g_probe_transform_ip;
    transform_class->start = g2g_probe_start;
    transform_class->transform_caps = g2g_probe_transform_caps;
    transform_class->propose_allocation = g2g_probe_propose_allocation;
    // Always passthrough (set in _init), also when the two sides restate DMABuf caps: the frame
    // is never copied or written, whatever the caps say.
    transform_class->passthrough_on_same_caps = FALSE;

    gst_type_mark_as_plugin_api(G2G_TYPE_MEMORY_DOMAIN_KINDS, static_cast<GstPluginAPIFlags>(0));
    GST_DEBUG_CATEGORY_INIT(g2g_probe_debug, "g2gprobe", 0, "g2g memory-domain probe");
    // require=DmaBuf, require=vulkan: the names g2gprobe prints, from gst-launch too.
    g2g::probe::register_require_parser();
}

static void g2g_probe_init(G2gProbe *self)
{
    self->priv = new ProbePrivate();
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
}
