// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview's properties: changes while PLAYING land on a frame boundary (also the ones that keep
// the caps, also one made in the middle of a negotiation), crops that cannot fit are refused
// naming the crop and the frame (at link time, while PLAYING, after upstream's caps change),
// video-direction=custom is refused with a warning, and every property at its limits.
#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frames.h"
#include "log-capture.h"
#include "pipeline.h"

using g2g::BufferRef;
using g2g::test::compare_frames;
using g2g::test::current_sink_info;
using g2g::test::random_frame;
using g2g::test::run_chain;
using g2g::test::run_pipeline;
using g2g::test::video_info;

namespace {

constexpr const char *kViewCaps = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)";
// The stream.
constexpr const char *kNv12 = "video/x-raw,format=NV12,width=32,height=24,framerate=30/1";

// The first error posted on `bus`, or "".
std::string first_error(GstBus *bus)
{
    return g2g::test::pop_message_text(bus, GST_MESSAGE_ERROR);
}

// Every warning posted on `bus` so far, in order.
std::vector<std::string> warnings(GstBus *bus)
{
    return g2g::test::pop_message_texts(bus, GST_MESSAGE_WARNING);
}

// One element of a gst-launch description ("g2gview left=4"), itself (not in a bin).
GstElement *parse_element(const char *description)
{
    GError *error = nullptr;
    GstElement *element = gst_parse_launch(description, &error);
    EXPECT_EQ(error, nullptr) << error->message;
    if (error)
        g_error_free(error);
    return element;
}

// A harness around g2gview (`description`, its element harness->element) posting to a bus of the
// test's. The downstream side reads GstVideoCropMeta and GstVideoMeta when `crop_meta_reader`.
struct ViewHarness {
    explicit ViewHarness(const char *description, const char *src_caps, const char *sink_caps = nullptr,
                         bool crop_meta_reader = false)
        : harness(with_element(description)), bus(gst_bus_new())
    {
        gst_element_set_bus(harness->element, bus);
        if (crop_meta_reader) {
            gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
            gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_CROP_META_API_TYPE, nullptr);
        }
        if (sink_caps)
            gst_harness_set_sink_caps_str(harness, sink_caps);
        gst_harness_set_src_caps_str(harness, src_caps);
    }
    ~ViewHarness()
    {
        gst_bus_set_flushing(bus, TRUE);
        gst_harness_teardown(harness);
        gst_object_unref(bus);
    }
    ViewHarness(const ViewHarness &) = delete;
    ViewHarness &operator=(const ViewHarness &) = delete;

    // Pushes `frame` and pulls what came out (nothing when the push failed: `flow` says why).
    BufferRef push_pull(GstBuffer *frame)
    {
        flow = gst_harness_push(harness, gst_buffer_ref(frame));
        if (flow != GST_FLOW_OK)
            return {};
        return BufferRef::adopt(gst_harness_try_pull(harness));
    }

    GstHarness *harness;
    GstBus *bus;
    GstFlowReturn flow = GST_FLOW_OK;

private:
    static GstHarness *with_element(const char *description)
    {
        GstElement *element = parse_element(description);
        GstHarness *made = gst_harness_new_with_element(element, "sink", "src");
        gst_object_unref(element);
        return made;
    }
};

// The peers' frame for `chain` of `frame` (`info`).
g2g::test::HarnessOutput peer(const std::string &chain, const GstVideoInfo &info, GstBuffer *frame)
{
    auto out = run_chain(chain, info, frame);
    EXPECT_EQ(out.error, "") << chain;
    return out;
}

} // namespace

// ---- Changes while PLAYING land on the next frame ----

// GstBaseTransform skips set_caps when the caps stay the same: identity -> 180 and horiz -> vert
// keep them, and had no effect at all.
TEST(G2gViewSettings, AnOrientationThatKeepsTheCapsLandsOnTheNextFrame)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 1);
    for (const char *sink_caps : {static_cast<const char *>(nullptr), kViewCaps}) {
        SCOPED_TRACE(sink_caps ? "view out" : "dense out");
        ViewHarness h("g2gview", kNv12, sink_caps);
        for (const char *direction : {"identity", "180", "horiz", "vert", "identity", "vert"}) {
            SCOPED_TRACE(direction);
            gst_util_set_object_arg(G_OBJECT(h.harness->element), "video-direction", direction);
            BufferRef out = h.push_pull(frame.get());
            ASSERT_TRUE(out) << gst_flow_get_name(h.flow);
            const GstVideoInfo info = current_sink_info(h.harness);
            if (sink_caps) {
                // The input's memory, read through a view (identity too: dense in, view out).
                EXPECT_EQ(gst_buffer_peek_memory(out.get(), 0), gst_buffer_peek_memory(frame.get(), 0));
                const g2g::FrameView *view = g2g::tensor_view_of(out.get());
                ASSERT_NE(view, nullptr);
                out = view->materialize(out.get()).value();
            } else if (g_str_equal(direction, "identity")) {
                EXPECT_EQ(out.get(), frame.get()); // passthrough: the input itself
            }
            const auto want = peer(std::string("videoflip video-direction=") + direction, in, frame.get());
            EXPECT_EQ(compare_frames(want.info, want.buffer.get(), info, out.get()), "");
        }
        EXPECT_EQ(first_error(h.bus), "");
    }
}

// A pure crop moved by as much on its other side keeps the caps: the crop meta moves with it.
TEST(G2gViewSettings, ACropMovedWithinTheSameCapsLandsOnTheNextFrame)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 2);
    ViewHarness h("g2gview left=6", kNv12, nullptr, true);
    for (const auto &[left, right] : {std::pair{6, 0}, std::pair{0, 6}, std::pair{2, 4}}) {
        g_object_set(h.harness->element, "left", left, "right", right, nullptr);
        BufferRef out = h.push_pull(frame.get());
        ASSERT_TRUE(out);
        EXPECT_EQ(gst_buffer_peek_memory(out.get(), 0), gst_buffer_peek_memory(frame.get(), 0)); // no copy
        const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(out.get());
        ASSERT_NE(crop, nullptr);
        EXPECT_EQ(crop->x, static_cast<guint>(left));
        EXPECT_EQ(crop->width, 26u);
        const auto want = peer("videocrop left=" + std::to_string(left) + " right=" + std::to_string(right),
                               in, frame.get());
        // What the crop meta says, read as a crop-meta reader does.
        const g2g::Result<g2g::FrameView> read =
            g2g::FrameView::of_frame(out.get(), current_sink_info(h.harness));
        ASSERT_TRUE(read.ok());
        const g2g::Result<BufferRef> dense = read->materialize(out.get());
        ASSERT_TRUE(dense.ok());
        EXPECT_EQ(compare_frames(want.info, want.buffer.get(), read->info(), dense->get()), "");
    }
}

// The root cause of not-negotiated under property changes from another thread: one negotiation
// read the settings at several moments (output caps computed with the old ones, checked in
// set_caps against the new). Here the change comes exactly between the two, from the caps query
// the negotiation sends downstream: that frame keeps the settings it started with, the next one
// has the new ones.
TEST(G2gViewSettings, AChangeInTheMiddleOfANegotiationLandsOnTheNextFrame)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 3);
    ViewHarness h("g2gview", kNv12);
    ASSERT_TRUE(h.push_pull(frame.get()));

    struct Armed {
        GstElement *view;
        bool armed = true;
    } change{h.harness->element};
    const gulong probe = gst_pad_add_probe(
        h.harness->sinkpad, GST_PAD_PROBE_TYPE_QUERY_BOTH,
        [](GstPad *, GstPadProbeInfo *info, gpointer data) {
            auto *change = static_cast<Armed *>(data);
            if (change->armed && GST_QUERY_TYPE(GST_PAD_PROBE_INFO_QUERY(info)) == GST_QUERY_CAPS) {
                change->armed = false;
                gst_util_set_object_arg(G_OBJECT(change->view), "video-direction", "90r");
            }
            return GST_PAD_PROBE_OK;
        },
        &change, nullptr);

    g_object_set(h.harness->element, "left", 7, nullptr); // renegotiates at the next frame
    BufferRef cropped = h.push_pull(frame.get());
    ASSERT_TRUE(cropped) << gst_flow_get_name(h.flow);
    EXPECT_FALSE(change.armed); // the negotiation asked downstream, and the direction changed then
    GstVideoInfo info = current_sink_info(h.harness);
    const auto want_cropped = peer("videocrop left=7", in, frame.get());
    EXPECT_EQ(compare_frames(want_cropped.info, want_cropped.buffer.get(), info, cropped.get()), "");

    BufferRef rotated = h.push_pull(frame.get());
    ASSERT_TRUE(rotated) << gst_flow_get_name(h.flow);
    info = current_sink_info(h.harness);
    const auto want_rotated = peer("videocrop left=7 ! videoflip video-direction=90r", in, frame.get());
    EXPECT_EQ(compare_frames(want_rotated.info, want_rotated.buffer.get(), info, rotated.get()), "");
    gst_pad_remove_probe(h.harness->sinkpad, probe);
    EXPECT_EQ(first_error(h.bus), "");
}

// ---- Crops that cannot fit: an element error naming the crop and the frame, every time ----

// At link time the producer has only frames the crop leaves nothing of: the pipeline links and
// the caps event is refused with the reason (it used to be "could not link" from gst-launch, or a
// bare not-negotiated from the source).
TEST(G2gViewSettings, ACropThatCannotFitIsRefusedAtLinkTimeNamingTheCropAndTheFrame)
{
    const std::string source = "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=32,height=24 ! ";
    struct Case {
        const char *props;
        const char *error;
    };
    for (const Case &c : {
             Case{"left=100", "crop left=100 right=0 top=0 bottom=0 leaves no pixels of a 32x24 frame"},
             Case{"left=32", "crop left=32 right=0 top=0 bottom=0 leaves no pixels of a 32x24 frame"},
             Case{"left=20 right=12",
                  "crop left=20 right=12 top=0 bottom=0 leaves no pixels of a 32x24 frame"},
             Case{"top=24 video-direction=90r",
                  "crop left=0 right=0 top=24 bottom=0 leaves no pixels of a 32x24 frame"},
             Case{"bottom=30 video-direction=horiz",
                  "crop left=0 right=0 top=0 bottom=30 leaves no pixels of a 32x24 frame"},
         }) {
        for (const char *sink : {"fakesink", "g2gmaterialize ! appsink name=sink",
                                 "appsink name=sink caps=\"video/x-raw(memory:SystemMemory, "
                                 "meta:G2gTensorView)\""}) {
            const std::string description = source + "g2gview name=view " + c.props + " ! " + sink;
            SCOPED_TRACE(description);
            const g2g::test::PipelineRun run = run_pipeline(description);
            EXPECT_EQ(run.error, c.error);
            EXPECT_EQ(run.error_source, "view");
            EXPECT_TRUE(run.buffers.empty());
        }
    }
    // Behind another transform (its caps query and accept-caps on the way) the same.
    const g2g::test::PipelineRun converted =
        run_pipeline(source + "videoconvert ! g2gview name=view left=40 ! fakesink");
    EXPECT_EQ(converted.error, "crop left=40 right=0 top=0 bottom=0 leaves no pixels of a 32x24 frame");
    EXPECT_EQ(converted.error_source, "view");
}

// A producer that can choose still chooses a size the crop fits (those come first in g2gview's
// caps), and a crop that leaves one column is no error.
TEST(G2gViewSettings, AProducerThatCanChooseGetsASizeTheCropFits)
{
    const g2g::test::PipelineRun run =
        run_pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=[16,400],height=24 ! "
                     "g2gview left=300 ! appsink name=sink");
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.buffers.size(), 1u);
    const GstVideoInfo out = g2g::test::video_info_of_caps(run.sink_caps.at("sink"));
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&out), 20); // videotestsrc's 320, less the crop
    EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&out), 24);

    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 4);
    const auto one_column = run_chain("g2gview left=31", in, frame.get());
    ASSERT_EQ(one_column.error, "");
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&one_column.info), 1);
    const auto want = peer("videocrop left=31", in, frame.get());
    EXPECT_EQ(compare_frames(want.info, want.buffer.get(), one_column.info, one_column.buffer.get()), "");
}

// While PLAYING, a crop the frame cannot fit: the same error, the frame refused (not-negotiated),
// and the stream as it was; a crop that fits again streams again.
TEST(G2gViewSettings, ACropThatCannotFitSetWhilePlayingIsRefusedAndTheStreamKeepsItsGeometry)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 5);
    ViewHarness h("g2gview left=4", kNv12);
    ASSERT_TRUE(h.push_pull(frame.get()));
    g_object_set(h.harness->element, "right", 28, nullptr);
    EXPECT_FALSE(h.push_pull(frame.get()));
    EXPECT_EQ(h.flow, GST_FLOW_NOT_NEGOTIATED);
    EXPECT_EQ(first_error(h.bus), "crop left=4 right=28 top=0 bottom=0 leaves no pixels of a 32x24 frame");
    GstVideoInfo info = current_sink_info(h.harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 28); // the caps of left=4 still

    g_object_set(h.harness->element, "right", 8, nullptr);
    const BufferRef out = h.push_pull(frame.get());
    ASSERT_TRUE(out) << gst_flow_get_name(h.flow);
    info = current_sink_info(h.harness);
    const auto want = peer("videocrop left=4 right=8", in, frame.get());
    EXPECT_EQ(compare_frames(want.info, want.buffer.get(), info, out.get()), "");
}

// Upstream's caps change mid-stream under a crop: a size the crop still fits renegotiates, one it
// does not is refused naming the crop and the new frame.
TEST(G2gViewSettings, UpstreamCapsChangingUnderACropRenegotiateOrAreRefusedByName)
{
    ViewHarness h("g2gview left=20 top=2 video-direction=90l",
                  "video/x-raw,format=NV12,width=64,height=48,framerate=30/1");
    const GstVideoInfo big = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    const BufferRef big_frame = random_frame(big, 6);
    BufferRef out = h.push_pull(big_frame.get());
    ASSERT_TRUE(out);
    GstVideoInfo info = current_sink_info(h.harness);
    auto want = peer("videocrop left=20 top=2 ! videoflip video-direction=90l", big, big_frame.get());
    EXPECT_EQ(compare_frames(want.info, want.buffer.get(), info, out.get()), "");

    // Still fits: 12x22 rotated.
    gst_harness_set_src_caps_str(h.harness, kNv12);
    const GstVideoInfo small = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef small_frame = random_frame(small, 7);
    out = h.push_pull(small_frame.get());
    ASSERT_TRUE(out) << gst_flow_get_name(h.flow);
    info = current_sink_info(h.harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 22);
    EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&info), 12);
    want = peer("videocrop left=20 top=2 ! videoflip video-direction=90l", small, small_frame.get());
    EXPECT_EQ(compare_frames(want.info, want.buffer.get(), info, out.get()), "");
    EXPECT_EQ(first_error(h.bus), "");

    // No longer fits.
    gst_harness_set_src_caps_str(h.harness, "video/x-raw,format=NV12,width=16,height=12,framerate=30/1");
    const GstVideoInfo tiny = video_info(GST_VIDEO_FORMAT_NV12, 16, 12);
    const BufferRef tiny_frame = random_frame(tiny, 8);
    EXPECT_FALSE(h.push_pull(tiny_frame.get()));
    EXPECT_EQ(h.flow, GST_FLOW_NOT_NEGOTIATED);
    EXPECT_EQ(first_error(h.bus), "crop left=20 right=0 top=2 bottom=0 leaves no pixels of a 16x12 frame");
}

// ---- video-direction=custom: refused, with a warning every time it is set ----

TEST(G2gViewSettings, CustomDirectionIsRefusedWithAWarningEveryTimeItIsSet)
{
    // Set in the description (before the element has a bus): said when it goes to READY; the
    // frames pass unchanged.
    const g2g::test::PipelineRun run =
        run_pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=32,height=24 ! "
                     "g2gview video-direction=custom ! appsink name=sink");
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(run.warnings, std::vector<std::string>{
                                "video-direction=custom is not supported; keeping video-direction=identity"});
    ASSERT_EQ(run.buffers.size(), 1u);
    const GstVideoInfo out = g2g::test::video_info_of_caps(run.sink_caps.at("sink"));
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&out), 32);

    // While PLAYING: each time, and the stream keeps its direction.
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 9);
    ViewHarness h("g2gview video-direction=vert", kNv12);
    ASSERT_TRUE(h.push_pull(frame.get()));
    for (int i = 0; i < 2; ++i)
        gst_util_set_object_arg(G_OBJECT(h.harness->element), "video-direction", "custom");
    EXPECT_EQ(warnings(h.bus), (std::vector<std::string>{
                                   "video-direction=custom is not supported; keeping video-direction=vert",
                                   "video-direction=custom is not supported; keeping video-direction=vert"}));
    gint direction = -1;
    g_object_get(h.harness->element, "video-direction", &direction, nullptr);
    EXPECT_EQ(direction, GST_VIDEO_ORIENTATION_VERT);
    const BufferRef flipped = h.push_pull(frame.get());
    ASSERT_TRUE(flipped);
    const auto want = peer("videoflip video-direction=vert", in, frame.get());
    EXPECT_EQ(compare_frames(want.info, want.buffer.get(), current_sink_info(h.harness), flipped.get()), "");
}

// ---- Every property at its limits ----

namespace {

} // namespace

TEST(G2gViewSettings, CropSidesAtTheirLimits)
{
    GstElement *view = gst_element_factory_make("g2gview", nullptr);
    for (const char *side : {"left", "right", "top", "bottom"}) {
        SCOPED_TRACE(side);
        const GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(view), side);
        ASSERT_NE(spec, nullptr);
        ASSERT_EQ(spec->value_type, G_TYPE_INT);
        EXPECT_EQ(G_PARAM_SPEC_INT(spec)->minimum, -1); // videocrop's automatic crop
        EXPECT_EQ(G_PARAM_SPEC_INT(spec)->maximum, G_MAXINT);
        EXPECT_TRUE(spec->flags & GST_PARAM_MUTABLE_PLAYING);

        // Below -1 (automatic): GLib refuses it (the param spec's minimum) and the side keeps its
        // value.
        g_object_set(view, side, 5, nullptr);
        {
            const g2g::test::LogCapture caught(
                {"GLib-GObject"}); // a warning in GLib 2.74, a critical in 2.84
            g_object_set(view, side, -2, nullptr);
            EXPECT_EQ(caught.said(),
                      std::vector<std::string>{std::string("value \"-2\" of type 'gint' is invalid "
                                                           "or out of range for property '") +
                                               side + "' of type 'gint'"});
        }
        gint value = -2;
        g_object_get(view, side, &value, nullptr);
        EXPECT_EQ(value, 5);
        g_object_set(view, side, G_MAXINT, nullptr);
        g_object_get(view, side, &value, nullptr);
        EXPECT_EQ(value, G_MAXINT);
        g_object_set(view, side, 0, nullptr);

        // One past G_MAXINT in a gst-launch description: GStreamer's deserializer wraps it to
        // G_MININT, which GLib refuses; the side stays 0. Beyond 32 bits: a parse error.
        for (const char *too_big : {"2147483648", "99999999999"}) {
            const std::string description = std::string("g2gview ") + side + "=" + too_big;
            const g2g::test::LogCapture caught(
                {"GLib-GObject"}); // a warning in GLib 2.74, a critical in 2.84
            GError *parse_error = nullptr;
            GstElement *parsed = gst_parse_launch(description.c_str(), &parse_error);
            if (g_str_equal(too_big, "2147483648")) {
                ASSERT_EQ(parse_error, nullptr) << parse_error->message;
                EXPECT_EQ(caught.said(), std::vector<std::string>{
                                             std::string("value \"-2147483648\" of type 'gint' is invalid or "
                                                         "out of range for property '") +
                                             side + "' of type 'gint'"});
                g_object_get(parsed, side, &value, nullptr);
                EXPECT_EQ(value, 0);
            } else {
                ASSERT_NE(parse_error, nullptr);
                EXPECT_EQ(std::string(parse_error->message), std::string("could not set property \"") + side +
                                                                 "\" in element \"g2gview\" to \"" + too_big +
                                                                 "\"");
                g_error_free(parse_error);
            }
            if (parsed)
                gst_object_unref(parsed);
        }
    }
    gst_object_unref(view);

    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 10);
    // 0 everywhere: the input itself.
    const auto none = run_chain("g2gview left=0 right=0 top=0 bottom=0", in, frame.get());
    ASSERT_EQ(none.error, "");
    EXPECT_EQ(none.buffer.get(), frame.get());
    // G_MAXINT on each side, and on all four (their sum used to wrap to a crop that widened the
    // frame by 2 pixels per axis).
    const std::string max = std::to_string(G_MAXINT);
    struct Case {
        std::string props, error;
    };
    for (const Case &c : {
             Case{"left=" + max,
                  "crop left=" + max + " right=0 top=0 bottom=0 leaves no pixels of a 32x24 frame"},
             Case{"right=" + max,
                  "crop left=0 right=" + max + " top=0 bottom=0 leaves no pixels of a 32x24 frame"},
             Case{"top=" + max,
                  "crop left=0 right=0 top=" + max + " bottom=0 leaves no pixels of a 32x24 frame"},
             Case{"bottom=" + max,
                  "crop left=0 right=0 top=0 bottom=" + max + " leaves no pixels of a 32x24 frame"},
             Case{"left=" + max + " right=" + max + " top=" + max + " bottom=" + max,
                  "crop left=" + max + " right=" + max + " top=" + max + " bottom=" + max +
                      " leaves no pixels of a 32x24 frame"},
         }) {
        for (const char *sink : {"fakesink", "g2gmaterialize ! appsink name=sink"}) {
            const std::string description =
                "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=32,height=24 ! g2gview "
                "name=view " +
                c.props + " video-direction=90r ! " + sink;
            SCOPED_TRACE(description);
            const g2g::test::PipelineRun run = run_pipeline(description);
            EXPECT_EQ(run.error, c.error);
            EXPECT_EQ(run.error_source, "view");
        }
        // Set while PLAYING: the same.
        ViewHarness h("g2gview", kNv12);
        ASSERT_TRUE(h.push_pull(frame.get()));
        const std::string props = c.props;
        GstElement *element = h.harness->element;
        for (const char *side : {"left", "right", "top", "bottom"}) {
            if (props.find(std::string(side) + "=") != std::string::npos)
                g_object_set(element, side, G_MAXINT, nullptr);
        }
        EXPECT_FALSE(h.push_pull(frame.get()));
        EXPECT_EQ(first_error(h.bus), c.error);
    }
}

TEST(G2gViewSettings, EveryVideoDirectionValue)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 11);
    GEnumClass *methods = static_cast<GEnumClass *>(g_type_class_ref(GST_TYPE_VIDEO_ORIENTATION_METHOD));
    for (guint i = 0; i < methods->n_values; ++i) {
        const GEnumValue &value = methods->values[i];
        SCOPED_TRACE(value.value_nick);
        ViewHarness h("g2gview", kNv12);
        ASSERT_TRUE(h.push_pull(frame.get()));
        gst_util_set_object_arg(G_OBJECT(h.harness->element), "video-direction", value.value_nick);
        gint read = -1;
        g_object_get(h.harness->element, "video-direction", &read, nullptr);
        const BufferRef out = h.push_pull(frame.get());
        ASSERT_TRUE(out);
        const GstVideoInfo info = current_sink_info(h.harness);
        if (value.value == GST_VIDEO_ORIENTATION_CUSTOM) {
            EXPECT_EQ(read, GST_VIDEO_ORIENTATION_IDENTITY); // refused, kept
            EXPECT_EQ(warnings(h.bus).size(), 1u);
            EXPECT_EQ(out.get(), frame.get());
            continue;
        }
        EXPECT_EQ(read, value.value);
        // auto without an image-orientation tag leaves the frame as it is, as videoflip does.
        const auto want = peer(std::string("videoflip video-direction=") + value.value_nick, in, frame.get());
        EXPECT_EQ(compare_frames(want.info, want.buffer.get(), info, out.get()), "");
        EXPECT_TRUE(warnings(h.bus).empty());
        EXPECT_EQ(first_error(h.bus), "");
    }

    // Out of the enum: GLib refuses it, the direction stays.
    GstElement *view = gst_element_factory_make("g2gview", nullptr);
    gst_util_set_object_arg(G_OBJECT(view), "video-direction", "180");
    {
        const g2g::test::LogCapture caught({"GLib-GObject"}); // a warning in GLib 2.74, a critical in 2.84
        g_object_set(view, "video-direction", static_cast<gint>(methods->maximum) + 1, nullptr);
        EXPECT_EQ(caught.said(),
                  std::vector<std::string>{"value \"((GstVideoOrientationMethod) 10)\" of type "
                                           "'GstVideoOrientationMethod' is invalid or out of "
                                           "range for property 'video-direction' of type "
                                           "'GstVideoOrientationMethod'"});
    }
    gint read = -1;
    g_object_get(view, "video-direction", &read, nullptr);
    EXPECT_EQ(read, GST_VIDEO_ORIENTATION_180);
    gst_object_unref(view);
    g_type_class_unref(methods);

    // gst-launch descriptions: an unknown nick is a parse error naming the element and the property.
    for (const auto &[description, error] :
         {std::pair{"g2gview video-direction=sideways",
                    "could not set property \"video-direction\" in element \"g2gview\" to \"sideways\""},
          std::pair{"g2gview method=sideways",
                    "could not set property \"method\" in element \"g2gview\" to \"sideways\""}}) {
        GError *parse_error = nullptr;
        GstElement *parsed = gst_parse_launch(description, &parse_error);
        ASSERT_NE(parse_error, nullptr) << description;
        EXPECT_EQ(std::string(parse_error->message), error);
        g_error_free(parse_error);
        if (parsed)
            gst_object_unref(parsed);
    }
}

// videoflip's deprecated `method` (still in many launch lines): every one of its nicks, set on
// g2gview, gives videoflip's frame for the same value, and reads back as the same video-direction.
// The peer is told by video-direction: GStreamer 1.22.0's videoflip ignores `method` in a launch
// line (it is a construct property there, and video-direction's construct default is applied after
// it: `videoflip method=clockwise` passes frames unrotated; 1.26 rotates them).
TEST(G2gViewSettings, VideoflipsMethodPropertyTakesVideoflipsNicks)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 12);
    GstElement *probe = gst_element_factory_make("videoflip", nullptr);
    ASSERT_NE(probe, nullptr);
    GParamSpec *theirs = g_object_class_find_property(G_OBJECT_GET_CLASS(probe), "method");
    ASSERT_NE(theirs, nullptr);
    GEnumClass *methods = static_cast<GEnumClass *>(g_type_class_ref(theirs->value_type));
    for (guint i = 0; i < methods->n_values; ++i) {
        const GEnumValue &value = methods->values[i];
        SCOPED_TRACE(value.value_nick);
        ViewHarness h("g2gview", kNv12);
        gst_util_set_object_arg(G_OBJECT(h.harness->element), "method", value.value_nick);
        gint method = -1, direction = -1;
        g_object_get(h.harness->element, "method", &method, "video-direction", &direction, nullptr);
        EXPECT_EQ(method, value.value);
        EXPECT_EQ(direction, value.value);
        const BufferRef out = h.push_pull(frame.get());
        ASSERT_TRUE(out);
        GEnumClass *directions =
            static_cast<GEnumClass *>(g_type_class_ref(GST_TYPE_VIDEO_ORIENTATION_METHOD));
        const std::string nick = g_enum_get_value(directions, value.value)->value_nick;
        g_type_class_unref(directions);
        const auto want = peer("videoflip video-direction=" + nick, in, frame.get());
        EXPECT_EQ(compare_frames(want.info, want.buffer.get(), current_sink_info(h.harness), out.get()), "");
        EXPECT_TRUE(warnings(h.bus).empty());
    }
    g_type_class_unref(methods);
    gst_object_unref(gst_object_ref_sink(probe));
}

// ---- videocrop's automatic crop and memory g2gview has no view of ----

// A side of -1 crops what the sizes leave, as videocrop resolves it: two automatic sides share it
// (the odd pixel right or bottom), one takes it alone. Downstream's caps ask the size; the frame
// equals videocrop's with the sides it resolves to.
TEST(G2gViewSettings, AutomaticSidesCropWhatDownstreamAsksAsVideocropDoes)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_I420, 32, 24);
    const BufferRef frame = random_frame(in, 21);
    struct Case {
        const char *props;
        const char *out_size;
        const char *peer; // videocrop with the sides resolved
    };
    for (const Case &c : {
             Case{"left=-1 right=-1 top=-1 bottom=-1", "width=20,height=10", "left=6 right=6 top=7 bottom=7"},
             Case{"left=-1 right=-1", "width=21,height=24", "left=5 right=6"},
             Case{"left=-1 right=3", "width=20,height=24", "left=9 right=3"},
             Case{"left=4 right=-1 top=-1 bottom=2", "width=20,height=16", "left=4 right=8 top=6 bottom=2"},
             Case{"top=-1 video-direction=90r", "width=24,height=32", "top=0"},
             Case{"top=-1 bottom=-1 video-direction=90r", "width=18,height=32", "top=3 bottom=3"},
         }) {
        SCOPED_TRACE(c.props);
        const std::string out_caps = std::string("video/x-raw,format=I420,") + c.out_size + ",framerate=30/1";
        ViewHarness h((std::string("g2gview ") + c.props).c_str(),
                      "video/x-raw,format=I420,width=32,height=24,framerate=30/1", out_caps.c_str());
        const BufferRef out = h.push_pull(frame.get());
        ASSERT_TRUE(out) << gst_flow_get_name(h.flow) << " " << first_error(h.bus);
        const bool turned = std::string(c.props).find("90r") != std::string::npos;
        const auto want =
            peer(std::string("videocrop ") + c.peer + (turned ? " ! videoflip video-direction=90r" : ""), in,
                 frame.get());
        EXPECT_EQ(compare_frames(want.info, want.buffer.get(), current_sink_info(h.harness), out.get()), "");
    }
    // Downstream that leaves the size free gets the widest frame: nothing cropped automatically.
    ViewHarness free("g2gview left=-1 right=2 top=-1",
                     "video/x-raw,format=I420,width=32,height=24,framerate=30/1");
    const BufferRef out = free.push_pull(frame.get());
    ASSERT_TRUE(out);
    const GstVideoInfo got = current_sink_info(free.harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&got), 30);
    EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&got), 24);
}

// A fixed side that crops more than downstream's size leaves: no output caps fit (the automatic
// side's sizes stop at what the fixed one leaves, 12 here), so the stream is not negotiated, as
// with videocrop, whose caps say the same; nothing is posted for a size nothing asked.
TEST(G2gViewSettings, AnAutomaticCropWhoseFixedSideTakesTooMuchIsNotNegotiated)
{
    ViewHarness h("g2gview name=v left=-1 right=20",
                  "video/x-raw,format=I420,width=32,height=24,framerate=30/1",
                  "video/x-raw,format=I420,width=16,height=24,framerate=30/1");
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_I420, 32, 24);
    const BufferRef frame = random_frame(in, 22);
    EXPECT_FALSE(h.push_pull(frame.get()));
    EXPECT_EQ(h.flow, GST_FLOW_NOT_NEGOTIATED);
    EXPECT_EQ(first_error(h.bus), "");
}

// Memory g2gview has no view of (DMABuf here), as videocrop takes it: the frame itself under the
// identity; a crop as a GstVideoCropMeta for a consumer that reads one, refused by name for one
// that does not; an orientation refused by name.
TEST(G2gViewSettings, MemoryWithoutAViewPassesOrLeavesWithACropMetaAsVideocropDoes)
{
    const char *dmabuf = "video/x-raw(memory:DMABuf),format=NV12,width=32,height=24,framerate=30/1";
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    const BufferRef frame = random_frame(in, 23);
    {
        ViewHarness h("g2gview", dmabuf, dmabuf);
        const BufferRef out = h.push_pull(frame.get());
        ASSERT_TRUE(out) << gst_flow_get_name(h.flow) << " " << first_error(h.bus);
        EXPECT_EQ(out.get(), frame.get());
    }
    {
        ViewHarness h("g2gview left=4 top=2 right=6", dmabuf, "video/x-raw(memory:DMABuf)", true);
        const BufferRef out = h.push_pull(frame.get());
        ASSERT_TRUE(out) << gst_flow_get_name(h.flow) << " " << first_error(h.bus);
        const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(out.get());
        ASSERT_NE(crop, nullptr);
        EXPECT_EQ(crop->x, 4u);
        EXPECT_EQ(crop->y, 2u);
        EXPECT_EQ(crop->width, 22u);
        EXPECT_EQ(crop->height, 22u);
        // The same memory, described by its own caps: no GstVideoMeta made up for it.
        EXPECT_EQ(gst_buffer_peek_memory(out.get(), 0), gst_buffer_peek_memory(frame.get(), 0));
        EXPECT_EQ(gst_buffer_get_video_meta(out.get()), nullptr);
        const GstVideoInfo got = current_sink_info(h.harness);
        EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&got), 22);
        EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&got), 22);
    }
    {
        ViewHarness h("g2gview name=v left=4", dmabuf, "video/x-raw(memory:DMABuf)");
        EXPECT_FALSE(h.push_pull(frame.get()));
        EXPECT_EQ(first_error(h.bus),
                  "v can crop memory:DMABuf frames only as a GstVideoCropMeta (it has no view "
                  "of that memory), and downstream reads none; give it a consumer that reads "
                  "GstVideoCropMeta, or convert the frames to system memory before v");
    }
    {
        ViewHarness h("g2gview name=v video-direction=90l", dmabuf, "video/x-raw(memory:DMABuf)");
        EXPECT_FALSE(h.push_pull(frame.get()));
        EXPECT_EQ(first_error(h.bus),
                  "v cannot flip or rotate memory:DMABuf frames (video-direction=90l): it has no "
                  "view of that memory, and a GstVideoCropMeta carries crops only; orient the "
                  "frames before they reach that memory, or convert them to system memory "
                  "before v");
    }
}
