// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtesthandlesrc: frames of a platform-handle kind over counted platform objects (see
// handle-elements.h).
#include "handle-elements.h"

#include <g2g/g2g.h>
#include <g2g/gst-ref.h>

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include <mutex>
#include <string>

namespace {

using K = g2g::MemoryDomainKind;

enum {
    PROP_0,
    PROP_KIND,
    PROP_FRAME_KIND,
    PROP_FORMAT,
    PROP_WIDTH,
    PROP_HEIGHT,
    PROP_FRAMES_MADE,
    PROP_LIVE,
};

// The properties (the object lock guards them).
struct SrcSettings {
    K kind = K::D3D11Texture;
    std::string frame_kind; // "" : the frames are of `kind`
    std::string format = "NV12";
    gint width = 64;
    gint height = 48;
};

struct SrcPrivate {
    SrcSettings settings;
    // Streaming thread: the negotiated frames, the next frame's number.
    GstVideoInfo info{};
    guint64 next = 0;
    // Alive as long as the element or any of its frames (their keep-alives hold it).
    std::shared_ptr<g2g::test::HandleLedger> ledger = std::make_shared<g2g::test::HandleLedger>();
};

} // namespace

struct G2gTestHandleSrc {
    GstPushSrc parent;
    SrcPrivate *priv;
};
struct G2gTestHandleSrcClass {
    GstPushSrcClass parent_class;
};

G_DEFINE_TYPE(G2gTestHandleSrc, g2g_test_handle_src, GST_TYPE_PUSH_SRC)

#define SELF(object) (reinterpret_cast<G2gTestHandleSrc *>(object))

namespace {

SrcSettings settings_of(G2gTestHandleSrc *self)
{
    GST_OBJECT_LOCK(self);
    SrcSettings settings = self->priv->settings;
    GST_OBJECT_UNLOCK(self);
    return settings;
}

GstCaps *src_get_caps(GstBaseSrc *src, GstCaps *filter)
{
    const SrcSettings s = settings_of(SELF(src));
    g_autofree gchar *text =
        g_strdup_printf("video/x-raw(%s), format=%s, width=%d, height=%d, framerate=30/1",
                        std::string(g2g::caps_feature(s.kind)).c_str(), s.format.c_str(), s.width, s.height);
    GstCaps *caps = gst_caps_from_string(text);
    if (filter) {
        GstCaps *both = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(caps);
        caps = both;
    }
    return caps;
}

gboolean src_set_caps(GstBaseSrc *src, GstCaps *caps)
{
    return gst_video_info_from_caps(&SELF(src)->priv->info, caps);
}

// Nothing to allocate: each frame wraps a platform object of its own.
gboolean src_decide_allocation(GstBaseSrc *, GstQuery *)
{
    return TRUE;
}

gboolean src_start(GstBaseSrc *src)
{
    SELF(src)->priv->next = 0;
    return TRUE;
}

GstFlowReturn src_create(GstPushSrc *src, GstBuffer **out)
{
    G2gTestHandleSrc *self = SELF(src);
    SrcPrivate &priv = *self->priv;
    const SrcSettings s = settings_of(self);
    const std::optional<K> frame_kind = s.frame_kind.empty() ? s.kind : g2g::kind_from_name(s.frame_kind);
    if (!frame_kind) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("no kind named %s", s.frame_kind.c_str()), (nullptr));
        return GST_FLOW_ERROR;
    }
    g2g::test::HandleLedger::Made made = priv.ledger->make();
    g2g::MemoryRef memory = g2g::test::handle_memory(*frame_kind, *made.object, std::move(made.keep_alive),
                                                     GST_VIDEO_INFO_SIZE(&priv.info),
                                                     static_cast<guint>(GST_VIDEO_INFO_WIDTH(&priv.info)),
                                                     static_cast<guint>(GST_VIDEO_INFO_HEIGHT(&priv.info)));
    if (!memory) {
        GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("cannot wrap frame %zu", made.index), (nullptr));
        return GST_FLOW_ERROR;
    }
    GstBuffer *buffer = gst_buffer_new();
    gst_buffer_append_memory(buffer, memory.release());
    const GstClockTime duration = gst_util_uint64_scale_int(GST_SECOND, 1, 30);
    GST_BUFFER_PTS(buffer) = priv.next * duration;
    GST_BUFFER_DURATION(buffer) = duration;
    GST_BUFFER_OFFSET(buffer) = priv.next++;
    *out = buffer;
    return GST_FLOW_OK;
}

void src_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gTestHandleSrc *self = SELF(object);
    GST_OBJECT_LOCK(self);
    SrcSettings &s = self->priv->settings;
    switch (prop_id) {
    case PROP_KIND:
        s.kind = static_cast<K>(g_value_get_enum(value));
        break;
    case PROP_FRAME_KIND:
        s.frame_kind = g_value_get_string(value) ? g_value_get_string(value) : "";
        break;
    case PROP_FORMAT:
        s.format = g_value_get_string(value) ? g_value_get_string(value) : "NV12";
        break;
    case PROP_WIDTH:
        s.width = g_value_get_int(value);
        break;
    case PROP_HEIGHT:
        s.height = g_value_get_int(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

void src_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gTestHandleSrc *self = SELF(object);
    const SrcSettings s = settings_of(self);
    switch (prop_id) {
    case PROP_KIND:
        g_value_set_enum(value, static_cast<gint>(s.kind));
        break;
    case PROP_FRAME_KIND:
        g_value_set_string(value, s.frame_kind.c_str());
        break;
    case PROP_FORMAT:
        g_value_set_string(value, s.format.c_str());
        break;
    case PROP_WIDTH:
        g_value_set_int(value, s.width);
        break;
    case PROP_HEIGHT:
        g_value_set_int(value, s.height);
        break;
    case PROP_FRAMES_MADE:
        g_value_set_uint64(value, self->priv->ledger->made());
        break;
    case PROP_LIVE:
        g_value_set_uint64(value, self->priv->ledger->live());
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

void src_finalize(GObject *object)
{
    delete SELF(object)->priv;
    G_OBJECT_CLASS(g2g_test_handle_src_parent_class)->finalize(object);
}

} // namespace

static void g2g_test_handle_src_class_init(G2gTestHandleSrcClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseSrcClass *base_class = GST_BASE_SRC_CLASS(klass);
    object_class->set_property = src_set_property;
    object_class->get_property = src_get_property;
    object_class->finalize = src_finalize;

    const auto rw = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    const auto ro = static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_property(object_class, PROP_KIND,
                                    g_param_spec_enum("kind", "Kind", "The frames' memory domain (caps)",
                                                      G2G_TYPE_MEMORY_DOMAIN_KIND,
                                                      G2G_MEMORY_DOMAIN_D3D11_TEXTURE, rw));
    g_object_class_install_property(
        object_class, PROP_FRAME_KIND,
        g_param_spec_string("frame-kind", "Frame kind",
                            "The kind the frames are really of (a producer that lies); empty: kind", "", rw));
    g_object_class_install_property(object_class, PROP_FORMAT,
                                    g_param_spec_string("format", "Format", "Video format", "NV12", rw));
    g_object_class_install_property(object_class, PROP_WIDTH,
                                    g_param_spec_int("width", "Width", "Frame width", 1, G_MAXINT, 64, rw));
    g_object_class_install_property(
        object_class, PROP_HEIGHT, g_param_spec_int("height", "Height", "Frame height", 1, G_MAXINT, 48, rw));
    g_object_class_install_property(
        object_class, PROP_FRAMES_MADE,
        g_param_spec_uint64("frames-made", "Frames made", "Platform objects made", 0, G_MAXUINT64, 0, ro));
    g_object_class_install_property(
        object_class, PROP_LIVE,
        g_param_spec_uint64("live", "Live", "Platform objects not released yet", 0, G_MAXUINT64, 0, ro));

    static GstStaticPadTemplate src_template =
        GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "g2g test handle source", "Source/Video",
        "Frames of a platform-handle kind over counted stand-in objects (tests)", "g2g developers");
    base_class->get_caps = src_get_caps;
    base_class->set_caps = src_set_caps;
    base_class->decide_allocation = src_decide_allocation;
    base_class->start = src_start;
    GST_PUSH_SRC_CLASS(klass)->create = src_create;
}

static void g2g_test_handle_src_init(G2gTestHandleSrc *self)
{
    self->priv = new SrcPrivate();
    gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_TIME);
}

namespace g2g::test {

std::shared_ptr<HandleLedger> handle_ledger(GstElement *src)
{
    return SELF(src)->priv->ledger;
}

} // namespace g2g::test
