// SPDX-License-Identifier: LGPL-2.1-or-later
// Fuzz target: caps through every element's caps handling. The input chooses an element
// (g2gview with its properties, g2gmaterialize, g2gprobe, g2gtee with two branches) and three caps
// strings: a filter (also the stream's caps when fixed), what upstream offers and what
// downstream takes. Strings that do not parse are skipped. The element sits between test pads
// that answer caps and accept-caps queries with those caps, linked but not playing:
//   - a caps query on each of its pads, with and without the filter: the filtered answer is a
//     subset of the filter and (but for g2gtee, see query_pads) of the unfiltered answer;
//   - accept-caps of each fixed caps on each pad;
//   - for the GstBaseTransforms, transform_caps both ways with and without the filter (the
//     result a subset of the filter), and fixate_caps of fixed caps against what they transform
//     to, as negotiation calls them (the result a fixed subset of what it was offered);
//   - when the filter is fixed, the element goes to PAUSED and gets it as a caps event (its real
//     negotiation, the tee's route decisions), then back to NULL.
// No crash, no GLib critical or warning (fatal here), no leak.
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include <g2g/gst-ref.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz-input.h"
#include "fuzz-main.h"

namespace {

using g2g::CapsRef;
using g2g::fuzz::FuzzInput;

[[noreturn]] void fail(const std::string &what, const std::string &context)
{
    std::fprintf(stderr, "fuzz-caps: %s\n  %s\n", what.c_str(), context.c_str());
    std::abort();
}

std::string text(GstCaps *caps)
{
    if (!caps)
        return "(null)";
    g_autofree gchar *s = gst_caps_to_string(caps);
    return s;
}

// The caps a test pad answers with, on the pad as qdata.
GQuark caps_quark()
{
    static const GQuark quark = g_quark_from_static_string("g2g-fuzz-peer-caps");
    return quark;
}

gboolean answer_query(GstPad *pad, GstObject *, GstQuery *query)
{
    auto *own = static_cast<GstCaps *>(g_object_get_qdata(G_OBJECT(pad), caps_quark()));
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
        GstCaps *filter = nullptr;
        gst_query_parse_caps(query, &filter);
        CapsRef answer = CapsRef::adopt(
            filter ? gst_caps_intersect_full(filter, own, GST_CAPS_INTERSECT_FIRST) : gst_caps_ref(own));
        gst_query_set_caps_result(query, answer.get());
        return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS: {
        GstCaps *caps = nullptr;
        gst_query_parse_accept_caps(query, &caps);
        gst_query_set_accept_caps_result(query, gst_caps_is_subset(caps, own));
        return TRUE;
    }
    default:
        return FALSE;
    }
}

gboolean take_event(GstPad *, GstObject *, GstEvent *event)
{
    gst_event_unref(event);
    return TRUE;
}

GstFlowReturn take_buffer(GstPad *, GstObject *, GstBuffer *buffer)
{
    gst_buffer_unref(buffer);
    return GST_FLOW_OK;
}

// A test pad of `direction` that answers with `caps`.
GstPad *test_pad(const char *name, GstPadDirection direction, GstCaps *caps)
{
    GstPad *pad = gst_pad_new(name, direction);
    g_object_set_qdata_full(G_OBJECT(pad), caps_quark(), gst_caps_ref(caps),
                            reinterpret_cast<GDestroyNotify>(gst_caps_unref));
    gst_pad_set_query_function(pad, answer_query);
    if (direction == GST_PAD_SINK) {
        gst_pad_set_event_function(pad, take_event);
        gst_pad_set_chain_function(pad, take_buffer);
    }
    return pad;
}

// True when every list in `value` holds values of one type, as GstValueList requires. The parser
// takes "{ 48p, 3 }" (a string and an int), and GStreamer 1.22's own gst_caps_is_subset then
// crashes comparing them (strcmp on the int): such caps are not caps an element can be handed.
gboolean homogeneous(GQuark, const GValue *value, gpointer)
{
    const bool list = GST_VALUE_HOLDS_LIST(value), array = GST_VALUE_HOLDS_ARRAY(value);
    if (!list && !array)
        return TRUE;
    const guint n = list ? gst_value_list_get_size(value) : gst_value_array_get_size(value);
    for (guint i = 0; i < n; ++i) {
        const GValue *item = list ? gst_value_list_get_value(value, i) : gst_value_array_get_value(value, i);
        const GValue *first = list ? gst_value_list_get_value(value, 0) : gst_value_array_get_value(value, 0);
        if (G_VALUE_TYPE(item) != G_VALUE_TYPE(first) || !homogeneous(0, item, nullptr))
            return FALSE;
    }
    return TRUE;
}

// The caps of a string, or nullptr when it does not parse or is not valid caps (skipped, with the
// fatal warnings off: what GStreamer's parser says of garbage is not the elements' business).
GstCaps *parse(const std::string &s)
{
    if (s.find('\0') != std::string::npos)
        return nullptr;
    GstCaps *caps = gst_caps_from_string(s.c_str());
    for (guint i = 0; caps && i < gst_caps_get_size(caps); ++i) {
        if (!gst_structure_foreach(gst_caps_get_structure(caps, i), homogeneous, nullptr)) {
            gst_caps_unref(caps);
            return nullptr;
        }
    }
    return caps;
}

class Checker {
public:
    explicit Checker(std::string context) : context_(std::move(context)) {}

    void subset(GstCaps *result, GstCaps *of, const char *what)
    {
        if (!result)
            fail(std::string(what) + " returned no caps", context_);
        if (!gst_caps_is_subset(result, of))
            fail(std::string(what) + " returned " + text(result) + ", not a subset of " + text(of), context_);
    }

    const std::string &context() const { return context_; }

private:
    std::string context_;
};

void query_pads(GstElement *element, GstCaps *filter, const std::vector<GstCaps *> &fixed, Checker &check)
{
    g_autoptr(GstIterator) pads = gst_element_iterate_pads(element);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(pads, &item) == GST_ITERATOR_OK) {
        GstPad *pad = GST_PAD(g_value_get_object(&item));
        CapsRef all = CapsRef::adopt(gst_pad_query_caps(pad, nullptr));
        CapsRef filtered = CapsRef::adopt(gst_pad_query_caps(pad, filter));
        check.subset(filtered.get(), filter, "a filtered caps query");
        // Not for g2gtee: by design (docs/design-notes.md) a branch that would leave nothing of
        // what upstream offers (the filter) is left out of the answer, so that the stream starts
        // and the caps event names the branch; the filter then widens the answer.
        if (GST_IS_BASE_TRANSFORM(element))
            check.subset(filtered.get(), all.get(), "a filtered caps query (against the unfiltered answer)");
        for (GstCaps *caps : fixed)
            gst_pad_query_accept_caps(pad, caps);
        g_value_reset(&item);
    }
    g_value_unset(&item);
}

void transform_vfuncs(GstBaseTransform *trans, const std::vector<GstCaps *> &all, GstCaps *filter,
                      GstCaps *up, GstCaps *down, Checker &check)
{
    GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS(trans);
    for (GstPadDirection direction : {GST_PAD_SINK, GST_PAD_SRC}) {
        for (GstCaps *caps : all) {
            if (gst_caps_is_empty(caps))
                continue;
            CapsRef plain = CapsRef::adopt(klass->transform_caps(trans, direction, caps, nullptr));
            if (!plain)
                fail("transform_caps returned no caps for " + text(caps), check.context());
            CapsRef filtered = CapsRef::adopt(klass->transform_caps(trans, direction, caps, filter));
            check.subset(filtered.get(), filter, "transform_caps with a filter");
            if (!gst_caps_is_fixed(caps) || !klass->fixate_caps)
                continue;
            // As negotiation does: what the caps transform to, as far as the peer takes it.
            GstCaps *peer = direction == GST_PAD_SINK ? down : up;
            CapsRef offered = CapsRef::adopt(gst_caps_intersect(plain.get(), peer));
            if (gst_caps_is_empty(offered.get()))
                continue;
            CapsRef fixated =
                CapsRef::adopt(klass->fixate_caps(trans, direction, caps, gst_caps_copy(offered.get())));
            check.subset(fixated.get(), offered.get(), "fixate_caps");
            if (!gst_caps_is_fixed(fixated.get()))
                fail("fixate_caps returned caps that are not fixed: " + text(fixated.get()), check.context());
        }
    }
}

// The stream's caps as a caps event, with the element PAUSED between the active test pads.
void negotiate(GstElement *element, GstPad *up, const std::vector<GstPad *> &downs, GstCaps *caps)
{
    gst_pad_set_active(up, TRUE);
    for (GstPad *down : downs)
        gst_pad_set_active(down, TRUE);
    if (gst_element_set_state(element, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE) {
        gst_pad_push_event(up, gst_event_new_stream_start("fuzz"));
        gst_pad_push_event(up, gst_event_new_caps(caps));
    }
    gst_element_set_state(element, GST_STATE_NULL);
    gst_pad_set_active(up, FALSE);
    for (GstPad *down : downs)
        gst_pad_set_active(down, FALSE);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    g2g::fuzz::init_gstreamer(argc, argv);
    // The plugin loads once, here, not within the first input.
    for (const char *name : {"g2gview", "g2gmaterialize", "g2gprobe", "g2gtee"}) {
        GstElement *element = gst_element_factory_make(name, nullptr);
        if (!element) {
            std::fprintf(stderr, "fuzz-caps: no %s element (GST_PLUGIN_PATH?)\n", name);
            std::abort();
        }
        gst_object_unref(element);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    FuzzInput in(data, size);
    static const char *const elements[] = {"g2gview", "g2gmaterialize", "g2gprobe", "g2gtee"};
    const char *name = in.pick(elements);
    std::string context = name;
    // g2gview's settings: an orientation (custom aside: it is refused with a warning, as
    // documented) and crops from none to G_MAXINT.
    gint direction = 0, crops[4] = {};
    if (name == std::string("g2gview")) {
        direction = static_cast<gint>(in.range(0, 8));
        for (gint &crop : crops) {
            switch (in.range(0, 3)) {
            case 0:
                crop = 0;
                break;
            case 1:
                crop = static_cast<gint>(in.range(0, 64));
                break;
            case 2:
                crop = static_cast<gint>(in.range(0, 70000));
                break;
            default:
                crop = static_cast<gint>(in.range(G_MAXINT - 70000, G_MAXINT));
                break;
            }
        }
        context += " video-direction=" + std::to_string(direction) + " left=" + std::to_string(crops[0]) +
                   " right=" + std::to_string(crops[1]) + " top=" + std::to_string(crops[2]) +
                   " bottom=" + std::to_string(crops[3]);
    }
    const std::string filter_s = in.string(600), up_s = in.string(600), down_s = in.rest().substr(0, 600);
    CapsRef filter = CapsRef::adopt(parse(filter_s));
    if (!filter)
        return 0;
    CapsRef up = CapsRef::adopt(up_s.empty() ? gst_caps_new_any() : parse(up_s));
    CapsRef down = CapsRef::adopt(down_s.empty() ? gst_caps_new_any() : parse(down_s));
    if (!up || !down)
        return 0;
    context += "\n  filter: " + text(filter.get()) + "\n  upstream: " + text(up.get()) +
               "\n  downstream: " + text(down.get());

    const g2g::fuzz::FatalWarnings fatal;
    GstElement *element = gst_element_factory_make(name, nullptr);
    if (name == std::string("g2gview"))
        g_object_set(element, "video-direction", direction, "left", crops[0], "right", crops[1], "top",
                     crops[2], "bottom", crops[3], nullptr);
    gst_object_ref_sink(element);

    GstPad *upstream = test_pad("fuzz-src", GST_PAD_SRC, up.get());
    std::vector<GstPad *> downstream;
    std::vector<GstPad *> requested;
    g_autoptr(GstPad) sink = gst_element_get_static_pad(element, "sink");
    gst_pad_link_full(upstream, sink, GST_PAD_LINK_CHECK_NOTHING);
    if (GST_IS_BASE_TRANSFORM(element)) {
        g_autoptr(GstPad) src = gst_element_get_static_pad(element, "src");
        downstream.push_back(test_pad("fuzz-sink", GST_PAD_SINK, down.get()));
        gst_pad_link_full(src, downstream.back(), GST_PAD_LINK_CHECK_NOTHING);
    } else {
        // g2gtee: one branch that takes what downstream takes, one that takes system memory.
        CapsRef system = CapsRef::adopt(gst_caps_from_string("video/x-raw"));
        for (GstCaps *branch : {down.get(), system.get()}) {
            GstPad *src = gst_element_request_pad_simple(element, "src_%u");
            requested.push_back(src);
            downstream.push_back(test_pad("fuzz-sink", GST_PAD_SINK, branch));
            gst_pad_link_full(src, downstream.back(), GST_PAD_LINK_CHECK_NOTHING);
        }
    }

    Checker check(context);
    std::vector<GstCaps *> all{filter.get(), up.get(), down.get()};
    std::vector<GstCaps *> fixed;
    for (GstCaps *caps : all) {
        if (gst_caps_is_fixed(caps))
            fixed.push_back(caps);
    }
    query_pads(element, filter.get(), fixed, check);
    if (GST_IS_BASE_TRANSFORM(element))
        transform_vfuncs(GST_BASE_TRANSFORM(element), all, filter.get(), up.get(), down.get(), check);
    if (gst_caps_is_fixed(filter.get()))
        negotiate(element, upstream, downstream, filter.get());

    for (GstPad *src : requested) {
        gst_element_release_request_pad(element, src);
        gst_object_unref(src);
    }
    gst_object_unref(element);
    gst_object_unref(upstream);
    for (GstPad *pad : downstream)
        gst_object_unref(pad);
    return 0;
}
