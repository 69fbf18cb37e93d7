// SPDX-License-Identifier: LGPL-2.1-or-later
// Fuzz target: property values, in any order, on every element while it streams. A GstHarness
// (in-process, synchronous: every push returns when the frame has gone through, so a run is
// bounded and deterministic) holds
//   g2gview v1 ! g2gprobe p1 ! g2gtee t   t. ! g2gmaterialize m ! fakesink
//                                         t. ! g2gview v2 ! g2gprobe p2 ! (the harness's sink)
// PLAYING. The input chooses the stream (format, size, what the harness's sink takes and whether
// it proposes GstVideoMeta), then steps: set a writable property of one element to a value its
// param spec allows (out-of-range picks are clamped by g_param_value_validate, as g_object_set
// would refuse them), push a frame, or renegotiate; then EOS and teardown. No crash, no GLib
// critical or warning (fatal here), no leak. Element errors are fine (the harness's bin has no bus:
// one set on a top-level bin keeps its children's messages, and the bin with them, alive; with
// GST_DEBUG=2 each error shows as the element's warning line); the stream goes on being pushed.
// G2G_FUZZ_VERBOSE=1 prints each step.
//
// Left out: g2gtee has-chain=false (as GStreamer's tee, it removes the sink pad's chain function,
// so the next push is GStreamer's own "chain on pad ... but it has no chainfunction" critical:
// a property for applications that pull, not one to flip while pushing).
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <g2g/gst-ref.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz-input.h"
#include "fuzz-main.h"

namespace {

using g2g::fuzz::FuzzInput;

constexpr const char *kChain = "g2gview name=v1 ! g2gprobe name=p1 ! g2gtee name=t "
                               "t. ! g2gmaterialize name=m ! fakesink name=f sync=false "
                               "t. ! g2gview name=v2 ! g2gprobe name=p2";
constexpr const char *kElements[] = {"v1", "p1", "t", "m", "v2", "p2"};

bool verbose()
{
    static const bool on = g_getenv("G2G_FUZZ_VERBOSE") != nullptr;
    return on;
}

// The writable properties of an element that may change at any time (not construct-only; not
// GstObject's name and parent).
std::vector<GParamSpec *> writable_properties(GObject *object)
{
    guint n = 0;
    g_autofree GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(object), &n);
    std::vector<GParamSpec *> out;
    for (guint i = 0; i < n; ++i) {
        GParamSpec *spec = specs[i];
        if (!(spec->flags & G_PARAM_WRITABLE) || (spec->flags & G_PARAM_CONSTRUCT_ONLY))
            continue;
        if (spec->owner_type == GST_TYPE_OBJECT)
            continue;
        out.push_back(spec);
    }
    return out;
}

// An integer the way fuzzers find bugs: a boundary, a small number, or any 32-bit value.
std::int64_t interesting(FuzzInput &in, std::int64_t low, std::int64_t high)
{
    switch (in.range(0, 5)) {
    case 0:
        return low;
    case 1:
        return high;
    case 2:
        return in.range(-2, 2);
    case 3:
        return in.range(0, 100);
    case 4:
        return high - in.range(0, 2);
    default:
        return in.range(G_MININT, G_MAXINT);
    }
}

// A value for `spec` from the input, made valid for it (clamped, or the default where it has no
// order), or false when the type is not one the elements use.
bool value_for(GParamSpec *spec, FuzzInput &in, GstElement *element, GValue *value)
{
    g_value_init(value, spec->value_type);
    const GType type = G_PARAM_SPEC_TYPE(spec);
    if (type == G_TYPE_PARAM_BOOLEAN) {
        g_value_set_boolean(value, in.flag());
    } else if (type == G_TYPE_PARAM_INT) {
        auto *s = G_PARAM_SPEC_INT(spec);
        g_value_set_int(value, static_cast<gint>(std::clamp<std::int64_t>(
                                   interesting(in, s->minimum, s->maximum), G_MININT, G_MAXINT)));
    } else if (type == G_TYPE_PARAM_UINT) {
        auto *s = G_PARAM_SPEC_UINT(spec);
        g_value_set_uint(value, static_cast<guint>(interesting(in, s->minimum, s->maximum)));
    } else if (type == G_TYPE_PARAM_INT64) {
        g_value_set_int64(value, interesting(in, G_MININT64 / 2, G_MAXINT64 / 2));
    } else if (type == G_TYPE_PARAM_UINT64) {
        g_value_set_uint64(value, static_cast<guint64>(interesting(in, 0, G_MAXINT64 / 2)));
    } else if (type == G_TYPE_PARAM_ENUM) {
        GEnumClass *klass = G_PARAM_SPEC_ENUM(spec)->enum_class;
        // A value of the enum, or any number (validate turns it into the default).
        const gint v = in.range(0, 3) ? klass->values[in.range(0, klass->n_values - 1)].value
                                      : static_cast<gint>(interesting(in, -1, 64));
        g_value_set_enum(value, v);
    } else if (type == G_TYPE_PARAM_FLAGS) {
        g_value_set_flags(value, static_cast<guint>(in.range(0, G_MAXUINT32)));
    } else if (type == G_TYPE_PARAM_STRING) {
        const std::string s = in.string(16);
        g_value_set_string(value, in.flag() ? nullptr : s.c_str());
    } else if (type == G_TYPE_PARAM_OBJECT) {
        // alloc-pad: nothing, or one of the element's own pads.
        GstPad *pad = nullptr;
        if (in.flag() && GST_IS_PAD_CLASS(g_type_class_peek(spec->value_type))) {
            GList *pads = GST_ELEMENT(element)->pads;
            const guint n = g_list_length(pads);
            if (n)
                pad = GST_PAD(g_list_nth_data(pads, static_cast<guint>(in.range(0, n - 1))));
        }
        g_value_set_object(value, pad);
    } else {
        g_value_unset(value);
        return false;
    }
    g_param_value_validate(spec, value);
    return true;
}

std::string value_text(const GValue *value)
{
    g_autofree gchar *s = g_strdup_value_contents(value);
    return s;
}

GstBuffer *frame(const GstVideoInfo &info, guint64 index)
{
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (gsize i = 0; i < map.size; ++i)
        map.data[i] = static_cast<guint8>(i * 7 + index);
    gst_buffer_unmap(buffer, &map);
    GST_BUFFER_PTS(buffer) = index * GST_SECOND / 30;
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    return buffer;
}

void drain(GstHarness *h)
{
    while (GstBuffer *out = gst_harness_try_pull(h))
        gst_buffer_unref(out);
    while (GstEvent *event = gst_harness_try_pull_event(h))
        gst_event_unref(event);
    while (GstEvent *event = gst_harness_try_pull_upstream_event(h))
        gst_event_unref(event);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    g2g::fuzz::init_gstreamer(argc, argv);
    for (const char *name : {"g2gview", "g2gmaterialize", "g2gprobe", "g2gtee", "fakesink"}) {
        GstElement *element = gst_element_factory_make(name, nullptr);
        if (!element) {
            std::fprintf(stderr, "fuzz-properties: no %s element (GST_PLUGIN_PATH?)\n", name);
            std::abort();
        }
        gst_object_unref(element);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    FuzzInput in(data, size);
    static const GstVideoFormat formats[] = {
        GST_VIDEO_FORMAT_RGBA,  GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
        GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGB};
    const GstVideoFormat format = in.pick(formats);
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, static_cast<gint>(in.range(1, 48)),
                              static_cast<gint>(in.range(1, 48)));
    static const char *const sink_caps[] = {nullptr, "video/x-raw",
                                            "video/x-raw(memory:SystemMemory, meta:G2gTensorView)"};
    const char *sink = in.pick(sink_caps);
    const bool propose_video_meta = in.flag();

    const g2g::fuzz::FatalWarnings fatal;
    GstHarness *h = gst_harness_new_parse(kChain);
    if (sink)
        gst_harness_set_sink_caps_str(h, sink);
    if (propose_video_meta)
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_META_API_TYPE, nullptr);
    gst_harness_play(h);

    g2g::CapsRef caps = g2g::CapsRef::adopt(gst_video_info_to_caps(&info));
    gst_harness_push_event(h, gst_event_new_stream_start("fuzz"));
    gst_harness_push_event(h, gst_event_new_caps(caps.get()));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));

    std::vector<GstElement *> elements;
    for (const char *name : kElements)
        elements.push_back(gst_bin_get_by_name(GST_BIN(h->element), name));

    guint64 pushed = 0;
    const int n_steps = static_cast<int>(in.range(1, 24));
    for (int step = 0; step < n_steps && !in.empty(); ++step) {
        switch (in.range(0, 3)) {
        case 0:
        case 1: { // a property of one element
            const int e = static_cast<int>(in.range(0, static_cast<std::int64_t>(elements.size()) - 1));
            GstElement *element = elements[e];
            std::vector<GParamSpec *> specs = writable_properties(G_OBJECT(element));
            GParamSpec *spec = specs[in.range(0, static_cast<std::int64_t>(specs.size()) - 1)];
            g_auto(GValue) value = G_VALUE_INIT;
            if (!value_for(spec, in, element, &value))
                break;
            if (GST_IS_BIN(element) && std::strcmp(spec->name, "has-chain") == 0 &&
                !g_value_get_boolean(&value))
                break;
            if (verbose())
                std::fprintf(stderr, "set %s %s=%s\n", kElements[e], spec->name, value_text(&value).c_str());
            g_object_set_property(G_OBJECT(element), spec->name, &value);
            break;
        }
        case 2: { // frames
            const int n = static_cast<int>(in.range(1, 3));
            for (int i = 0; i < n; ++i) {
                const GstFlowReturn flow = gst_harness_push(h, frame(info, pushed++));
                if (verbose())
                    std::fprintf(stderr, "push frame %" G_GUINT64_FORMAT ": %s\n", pushed - 1,
                                 gst_flow_get_name(flow));
            }
            drain(h);
            break;
        }
        default: { // a new stream size or format (caps event), as a source's renegotiation does
            gst_video_info_set_format(&info, in.pick(formats), static_cast<gint>(in.range(1, 48)),
                                      static_cast<gint>(in.range(1, 48)));
            caps = g2g::CapsRef::adopt(gst_video_info_to_caps(&info));
            const gboolean handled = gst_harness_push_event(h, gst_event_new_caps(caps.get()));
            if (verbose()) {
                g_autofree gchar *text = gst_caps_to_string(caps.get());
                std::fprintf(stderr, "caps %s: %s\n", text, handled ? "taken" : "refused");
            }
            break;
        }
        }
    }
    gst_harness_push(h, frame(info, pushed++));
    gst_harness_push_event(h, gst_event_new_eos());
    drain(h);
    for (GstElement *element : elements)
        gst_object_unref(element);
    gst_harness_teardown(h);
    return 0;
}
