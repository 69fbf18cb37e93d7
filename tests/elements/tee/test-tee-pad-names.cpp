// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's request pad names against GStreamer's tee, the oracle: the same requests on both (taken
// indexes, "src_00", names that are no src_%u, an index past G_MAXUINT, no name at all; through
// gst_element_request_pad_simple, gst_element_request_pad and the element's own request_new_pad)
// must give the same pads, the same num-src-pads and no warning or critical of its own.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "log-capture.h"

namespace {

// How a step asks for a pad.
enum class Ask {
    Simple,  // gst_element_request_pad_simple(element, name): GStreamer checks the name first
    Request, // gst_element_request_pad(element, src_%u template, name, NULL)
    Element, // the element's request_new_pad itself: its own parsing, no check before it
    Release, // gst_element_release_request_pad of the pad named `name`
};

struct Step {
    Ask ask;
    const char *name; // may be NULL (no name)
};

// What one step gave: the new pad's name or "none", and how many warnings it raised.
struct Outcome {
    std::string pad;
    std::size_t complaints = 0;
    std::string said; // the first complaint, for the failure message

    bool operator==(const Outcome &other) const { return pad == other.pad && complaints == other.complaints; }
};

// The element's src pad names, in its pad order, and its num-src-pads.
std::string src_pads_of(GstElement *element)
{
    std::string names;
    GST_OBJECT_LOCK(element);
    for (GList *l = element->srcpads; l; l = l->next)
        names += std::string(names.empty() ? "" : " ") + GST_OBJECT_NAME(l->data);
    GST_OBJECT_UNLOCK(element);
    gint count = -1;
    g_object_get(element, "num-src-pads", &count, nullptr);
    return "[" + names + "] num-src-pads=" + std::to_string(count);
}

Outcome run_step(GstElement *element, const Step &step)
{
    g2g::test::LogCapture log({"GStreamer"});
    Outcome outcome;
    GstPadTemplate *templ = gst_element_get_pad_template(element, "src_%u");
    GstPad *pad = nullptr;
    switch (step.ask) {
    case Ask::Simple:
        pad = gst_element_request_pad_simple(element, step.name);
        break;
    case Ask::Request:
        pad = gst_element_request_pad(element, templ, step.name, nullptr);
        break;
    case Ask::Element:
        // The vfunc answers a pointer the element owns (gst_element_request_pad refs it).
        pad = GST_ELEMENT_GET_CLASS(element)->request_new_pad(element, templ, step.name, nullptr);
        if (pad)
            gst_object_ref(pad);
        break;
    case Ask::Release:
        if (GstPad *named = gst_element_get_static_pad(element, step.name)) {
            gst_element_release_request_pad(element, named);
            gst_object_unref(named);
        }
        break;
    }
    outcome.pad = pad ? GST_OBJECT_NAME(pad) : "none";
    if (pad)
        gst_object_unref(pad);
    const std::vector<std::string> said = log.take();
    outcome.complaints = said.size();
    outcome.said = said.empty() ? "" : said.front();
    return outcome;
}

std::string describe(const Step &step)
{
    static const char *const asks[] = {"request_pad_simple", "request_pad", "request_new_pad", "release"};
    return std::string(asks[static_cast<int>(step.ask)]) + "(" + (step.name ? step.name : "NULL") + ")";
}

// Runs `steps` on a new tee and a new g2gtee; after each, both must have given the same pad,
// raised as many complaints and have the same pads and num-src-pads.
void expect_same_as_tee(const std::vector<Step> &steps)
{
    GstElement *tee = gst_element_factory_make("tee", nullptr);
    GstElement *g2gtee = gst_element_factory_make("g2gtee", nullptr);
    ASSERT_NE(tee, nullptr);
    ASSERT_NE(g2gtee, nullptr);
    for (const Step &step : steps) {
        const Outcome want = run_step(tee, step);
        const Outcome got = run_step(g2gtee, step);
        EXPECT_EQ(got.pad, want.pad) << describe(step);
        EXPECT_EQ(got.complaints, want.complaints)
            << describe(step) << ": g2gtee said \"" << got.said << "\", tee said \"" << want.said << "\"";
        EXPECT_EQ(src_pads_of(g2gtee), src_pads_of(tee)) << "after " << describe(step);
    }
    gst_object_unref(tee);
    gst_object_unref(g2gtee);
}

} // namespace

TEST(G2gTeePadNames, ATakenIndexIsRefusedAsTeeRefusesIt)
{
    expect_same_as_tee({{Ask::Simple, "src_%u"},
                        {Ask::Simple, "src_%u"},
                        {Ask::Simple, "src_1"},
                        {Ask::Request, "src_0"},
                        {Ask::Element, "src_1"},
                        {Ask::Simple, "src_%u"}});
}

TEST(G2gTeePadNames, Src00AsksForIndexZero)
{
    // The issue: "src_00" gave a second src_0 (GStreamer-CRITICAL "Padname src_0 is not unique")
    // and num-src-pads counted a pad that did not exist.
    expect_same_as_tee({{Ask::Simple, "src_%u"},
                        {Ask::Simple, "src_00"},
                        {Ask::Request, "src_00"},
                        {Ask::Element, "src_00"},
                        {Ask::Simple, "src_007"},
                        {Ask::Simple, "src_%u"}});
    // Free, it is src_0.
    expect_same_as_tee({{Ask::Simple, "src_00"}, {Ask::Simple, "src_%u"}});
}

TEST(G2gTeePadNames, ANameThatIsNoIndexTakesTheNextFreeOne)
{
    // request_pad_simple finds no template for "src_abc"; request_pad refuses it (a critical from
    // GStreamer, before the element); the element itself takes the next free index.
    expect_same_as_tee({{Ask::Simple, "src_3"},
                        {Ask::Simple, "src_abc"},
                        {Ask::Request, "src_abc"},
                        {Ask::Element, "src_abc"},
                        {Ask::Element, "sink_2"},
                        {Ask::Element, "src_"},
                        {Ask::Element, "src_5x"},
                        {Ask::Simple, "src_%u"}});
}

TEST(G2gTeePadNames, AnIndexPastGuintIsReadAsTeeReadsIt)
{
    expect_same_as_tee({{Ask::Simple, "src_4294967296"},
                        {Ask::Request, "src_4294967296"},
                        {Ask::Element, "src_4294967296"},
                        {Ask::Element, "src_4294967296"},
                        {Ask::Simple, "src_%u"}});
    // The largest index: the next index wraps to 0, then skips the taken ones.
    expect_same_as_tee({{Ask::Simple, "src_%u"},
                        {Ask::Simple, "src_4294967295"},
                        {Ask::Simple, "src_%u"},
                        {Ask::Simple, "src_%u"},
                        {Ask::Element, "src_-1"}});
}

TEST(G2gTeePadNames, NoNameTakesTheNextFreeIndex)
{
    expect_same_as_tee({{Ask::Request, nullptr},
                        {Ask::Element, nullptr},
                        {Ask::Simple, "src_5"},
                        {Ask::Request, nullptr},
                        {Ask::Element, nullptr}});
}

TEST(G2gTeePadNames, AReleasedIndexIsFreeAgain)
{
    expect_same_as_tee({{Ask::Simple, "src_%u"},
                        {Ask::Simple, "src_%u"},
                        {Ask::Release, "src_0"},
                        {Ask::Simple, "src_00"},
                        {Ask::Release, "src_0"},
                        {Ask::Simple, "src_%u"},
                        {Ask::Simple, "src_0"},
                        {Ask::Simple, "src_%u"},
                        {Ask::Release, "src_1"},
                        {Ask::Release, "src_1"}});
}
