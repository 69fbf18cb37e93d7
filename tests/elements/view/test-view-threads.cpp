// SPDX-License-Identifier: LGPL-2.1-or-later
// n-threads on g2gview and g2gmaterialize: the frames written with 4 threads are byte for byte
// those written with 1 and videoflip's (every method, crops, planar, semi-planar, packed and
// 4:2:2 formats, frames large enough to be split); the threads start at the first frame the CPU
// writes (none for an element that hands views on), follow a change while PLAYING at the next
// frame and are joined at stop; values out of the property's range are refused, the value kept.
#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frames.h"
#include "log-capture.h"
#include "worker-threads.h"

using g2g::BufferRef;
using g2g::test::compare_frames;
using g2g::test::random_frame;
using g2g::test::run_chain;
using g2g::test::video_info;
using g2g::test::worker_threads;
using g2g::test::worker_threads_settled;

namespace {

const char *kMethods[] = {"identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"};

// Frames of 1 MiB and more, which the elements split (smaller ones take one thread).
struct Stream {
    GstVideoFormat format;
    int width, height;
};
const Stream kStreams[] = {{GST_VIDEO_FORMAT_NV12, 1920, 1080},
                           {GST_VIDEO_FORMAT_RGBA, 1280, 720},
                           {GST_VIDEO_FORMAT_I420, 1283, 723},  // odd: chroma planes of rounded-up sizes
                           {GST_VIDEO_FORMAT_YUY2, 1281, 720}}; // odd: a padded last macropixel

std::string stream_name(const Stream &s)
{
    return std::string(gst_video_format_to_string(s.format)) + " " + std::to_string(s.width) + "x" +
           std::to_string(s.height);
}

// `description` run on `frame`: its output, which must have come without an error.
g2g::test::HarnessOutput output_of(const std::string &description, const GstVideoInfo &in, GstBuffer *frame)
{
    g2g::test::HarnessOutput out = run_chain(description, in, frame);
    EXPECT_EQ(out.error, "") << description;
    EXPECT_TRUE(out.buffer) << description;
    return out;
}

// A harness around `description` whose sink takes what `sink_caps` says (dense frames without it),
// fed `in` frames; `element` is its element made by `factory`.
struct Harness {
    GstHarness *h;
    GstElement *element;
    Harness(const char *description, const char *factory, const GstVideoInfo &in,
            const char *sink_caps = nullptr)
        : h(gst_harness_new_parse(description)), element(gst_harness_find_element(h, factory))
    {
        GstCaps *caps = gst_video_info_to_caps(&in);
        gst_caps_set_simple(caps, "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
        gst_harness_set_src_caps(h, caps);
        if (sink_caps)
            gst_harness_set_sink_caps_str(h, sink_caps);
    }
    ~Harness()
    {
        gst_object_unref(element);
        gst_harness_teardown(h);
    }
    Harness(const Harness &) = delete;
    Harness &operator=(const Harness &) = delete;

    BufferRef push(GstBuffer *frame)
    {
        return BufferRef::adopt(gst_harness_push_and_pull(h, gst_buffer_ref(frame)));
    }
};

} // namespace

TEST(ViewThreads, FourThreadsWriteTheFramesOneThreadAndVideoflipWrite)
{
    for (const Stream &stream : kStreams) {
        const GstVideoInfo in = video_info(stream.format, stream.width, stream.height);
        const BufferRef frame = random_frame(in, static_cast<guint32>(stream.width));
        for (const char *method : kMethods) {
            SCOPED_TRACE(stream_name(stream) + " " + method);
            const std::string direction = std::string("video-direction=") + method;
            // The peer: the input itself for identity (videoflip's identity copy drops the last chroma
            // byte of odd-width packed 4:2:2 rows), else videoflip.
            const auto peer = output_of("videoflip " + direction, in, frame.get());
            const bool identity = std::string(method) == "identity";
            const GstVideoInfo &want_info = identity ? in : peer.info;
            GstBuffer *want = identity ? frame.get() : peer.buffer.get();
            for (const std::string &chain : {"g2gview " + direction + " n-threads=4",
                                             "g2gview " + direction + " ! g2gmaterialize n-threads=4",
                                             "g2gview " + direction + " n-threads=1",
                                             "g2gview " + direction + " ! g2gmaterialize n-threads=1"}) {
                const auto ours = output_of(chain, in, frame.get());
                ASSERT_TRUE(ours.buffer) << chain;
                EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), want_info, want), "") << chain;
            }
        }
    }
}

TEST(ViewThreads, FourThreadsWriteCropsAsVideocropThenVideoflip)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 1920, 1080);
    const BufferRef frame = random_frame(in, 3);
    const std::string crop = "left=3 right=2 top=1 bottom=4";
    for (const char *method : {"90r", "horiz", "ur-ll"}) {
        SCOPED_TRACE(method);
        const std::string direction = std::string("video-direction=") + method;
        const auto peer = output_of("videocrop " + crop + " ! videoflip " + direction, in, frame.get());
        for (const std::string &chain :
             {"g2gview " + crop + " " + direction + " n-threads=4",
              "g2gview " + crop + " " + direction + " ! g2gmaterialize n-threads=4"}) {
            const auto ours = output_of(chain, in, frame.get());
            ASSERT_TRUE(ours.buffer) << chain;
            EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), peer.info, peer.buffer.get()), "")
                << chain;
        }
    }
}

TEST(ViewThreads, ThreadsStartAtTheFirstFrameTheCpuWritesAndFollowChangesWhilePlaying)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 1920, 1080);
    const BufferRef frame = random_frame(in, 5);
    const auto want = output_of("videoflip video-direction=90r", in, frame.get());
    for (auto [description, factory] :
         {std::pair{"g2gview video-direction=90r n-threads=4", "g2gview"},
          std::pair{"g2gview video-direction=90r ! g2gmaterialize n-threads=4", "g2gmaterialize"}}) {
        SCOPED_TRACE(description);
        const unsigned before = worker_threads();
        {
            Harness harness(description, factory, in);
            EXPECT_EQ(worker_threads(), before) << "no thread before the first frame";
            // (n-threads, the workers then running besides the streaming thread.)
            for (auto [n_threads, workers] : {std::pair{4u, 3u}, {4u, 3u}, {2u, 1u}, {1u, 0u}, {3u, 2u}}) {
                g_object_set(harness.element, "n-threads", n_threads, nullptr);
                const BufferRef out = harness.push(frame.get());
                ASSERT_TRUE(out);
                EXPECT_EQ(compare_frames(want.info, want.buffer.get(), want.info, out.get()), "")
                    << n_threads << " threads";
                EXPECT_EQ(worker_threads_settled(before + workers), before + workers)
                    << n_threads << " threads";
            }
        }
        EXPECT_EQ(worker_threads_settled(before), before) << "joined at teardown";
    }
}

// A stream run to EOS, stopped (PAUSED to READY: GstBaseTransform's stop) and run again.
TEST(ViewThreads, ThreadsAreJoinedAtStopAndMadeAgainForTheNextStream)
{
    for (const char *element : {"g2gview video-direction=90r n-threads=4",
                                "g2gview video-direction=90r ! g2gmaterialize n-threads=4"}) {
        SCOPED_TRACE(element);
        const std::string description =
            std::string("videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=1920,height=1080 ! ") +
            element + " ! fakesink";
        GError *error = nullptr;
        GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
        ASSERT_EQ(error, nullptr) << error->message;
        GstBus *bus = gst_element_get_bus(pipeline);
        const unsigned before = worker_threads();
        auto run_to_eos = [&] {
            ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
            GstMessage *end = gst_bus_timed_pop_filtered(
                bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
            ASSERT_NE(end, nullptr);
            EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
            gst_message_unref(end);
        };
        for (int stream = 0; stream < 2; ++stream) {
            run_to_eos();
            EXPECT_EQ(worker_threads_settled(before + 3), before + 3) << "stream " << stream;
            ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
            EXPECT_EQ(worker_threads_settled(before), before) << "stream " << stream << " stopped";
        }
        gst_element_set_state(pipeline, GST_STATE_NULL);
        gst_object_unref(bus);
        gst_object_unref(pipeline);
    }
}

TEST(ViewThreads, AViewHandedOnStartsNoThread)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 1920, 1080);
    const BufferRef frame = random_frame(in, 6);
    const unsigned before = worker_threads();
    Harness harness("g2gview video-direction=90r n-threads=4", "g2gview", in,
                    "video/x-raw(memory:SystemMemory, meta:G2gTensorView)");
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(harness.push(frame.get()));
    EXPECT_EQ(worker_threads(), before);
}

TEST(ViewThreads, FramesTooSmallToBeSplitStartNoThread)
{
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_RGBA, 320, 240); // 300 KiB
    const BufferRef frame = random_frame(in, 8);
    const auto want = output_of("videoflip video-direction=90r", in, frame.get());
    const unsigned before = worker_threads();
    for (auto [description, factory] :
         {std::pair{"g2gview video-direction=90r n-threads=4", "g2gview"},
          std::pair{"g2gview video-direction=90r ! g2gmaterialize n-threads=4", "g2gmaterialize"}}) {
        SCOPED_TRACE(description);
        Harness harness(description, factory, in);
        for (int i = 0; i < 3; ++i) {
            const BufferRef out = harness.push(frame.get());
            ASSERT_TRUE(out);
            EXPECT_EQ(compare_frames(want.info, want.buffer.get(), want.info, out.get()), "");
        }
        EXPECT_EQ(worker_threads(), before);
    }
}

TEST(ViewThreads, NThreadsOutsideItsRangeIsRefusedAndTheValueKept)
{
    for (const char *factory : {"g2gview", "g2gmaterialize"}) {
        SCOPED_TRACE(factory);
        GstElement *element = gst_element_factory_make(factory, nullptr);
        const GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "n-threads");
        ASSERT_NE(spec, nullptr);
        ASSERT_EQ(spec->value_type, G_TYPE_UINT);
        EXPECT_EQ(G_PARAM_SPEC_UINT(spec)->minimum, 0u);
        EXPECT_EQ(G_PARAM_SPEC_UINT(spec)->maximum, 64u);
        EXPECT_EQ(G_PARAM_SPEC_UINT(spec)->default_value, 1u);
        EXPECT_TRUE(spec->flags & GST_PARAM_MUTABLE_PLAYING);

        g_object_set(element, "n-threads", 4u, nullptr);
        {
            const g2g::test::LogCapture caught(
                {"GLib-GObject"}); // a warning in GLib 2.74, a critical in 2.84
            g_object_set(element, "n-threads", 1000u, nullptr);
            EXPECT_EQ(caught.said(),
                      std::vector<std::string>{"value \"1000\" of type 'guint' is invalid or out "
                                               "of range for property 'n-threads' of type 'guint'"});
        }
        guint value = 0;
        g_object_get(element, "n-threads", &value, nullptr);
        EXPECT_EQ(value, 4u);
        gst_object_unref(element);

        // In a gst-launch description: the same refusal, the default kept (GStreamer's deserializer
        // reads unsigned values modulo 2^32: -1 as 2^32 - 1, 99999999999 as 1215752191); what is not
        // a number is a parse error naming the element.
        for (auto [text, read] :
             {std::pair{"65", "65"}, std::pair{"-1", "4294967295"}, std::pair{"99999999999", "1215752191"}}) {
            const g2g::test::LogCapture caught(
                {"GLib-GObject"}); // a warning in GLib 2.74, a critical in 2.84
            GError *error = nullptr;
            GstElement *parsed =
                gst_parse_launch((std::string(factory) + " n-threads=" + text).c_str(), &error);
            ASSERT_EQ(error, nullptr) << error->message;
            EXPECT_EQ(caught.said(), std::vector<std::string>{std::string("value \"") + read +
                                                              "\" of type 'guint' is invalid or out of range "
                                                              "for property 'n-threads' of type 'guint'"});
            g_object_get(parsed, "n-threads", &value, nullptr);
            EXPECT_EQ(value, 1u);
            gst_object_unref(parsed);
        }
        GError *error = nullptr;
        GstElement *parsed = gst_parse_launch((std::string(factory) + " n-threads=many").c_str(), &error);
        ASSERT_NE(error, nullptr);
        EXPECT_EQ(std::string(error->message),
                  std::string("could not set property \"n-threads\" in element \"") + factory +
                      "\" to \"many\"");
        g_error_free(error);
        if (parsed)
            gst_object_unref(parsed);
    }
}
