// SPDX-License-Identifier: LGPL-2.1-or-later
// VulkanImage views in whole pipelines beyond one chain: g2gtee with Vulkan and system branches
// behind a view (one download per frame shared by the system branches, every branch equal to
// videoflip's frame) and g2g views inside its branches; renegotiation mid-stream (g2gview's
// video-direction and crop changed on a frame boundary, the upstream size changed); bad input
// (formats g2gview does not take on VulkanImage, RGBA that GStreamer puts in an SRGB image, a frame
// of another Vulkan device). Without a Vulkan device every test skips.
#include "g2g-config.h"

#include <gst/video/video.h>
#include <gtest/gtest.h>

#if G2G_HAVE_VULKAN
#include "platform/vulkan/gst-vulkan.h"
#include "platform/vulkan/vulkan-engine.h"
#endif

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "pipeline.h"
#include "tee-stats.h"
#include "vulkan-cases.h"
#include "vulkan-frames.h"
#include "vulkan-upload-wait.h"

using g2g::test::compare_with_peers;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::vulkan_case_source;

namespace {

#define SKIP_WITHOUT_VULKAN()                                                                                \
    do {                                                                                                     \
        if (!g2g::test::have_vulkan_device())                                                                \
            GTEST_SKIP() << "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)";            \
    } while (false)

std::string caps_of(const std::string &format, int width, int height)
{
    return "video/x-raw,format=" + format + ",width=" + std::to_string(width) +
           ",height=" + std::to_string(height) + ",framerate=30/1";
}

std::string sink(const std::string &name, const std::string &caps = "")
{
    return " ! appsink name=" + name + " sync=false" + (caps.empty() ? "" : " caps=\"" + caps + "\"");
}

// Every frame appsink `branch` got equals `peer` of the frame appsink "sent" got.
void expect_branch(const PipelineRun &run, const std::string &branch, const std::string &peer,
                   bool from_vulkandownload)
{
    ASSERT_EQ(run.sinks.at("sent").size(), static_cast<std::size_t>(g2g::test::kVulkanCaseFrames));
    EXPECT_EQ(compare_with_peers(
                  run.sinks.at("sent"), run.frame_caps.at("sent"), run.sinks.at(branch),
                  run.frame_caps.at(branch), [&](std::size_t) { return peer; }, from_vulkandownload),
              "")
        << branch;
}

std::string param_name(std::string name)
{
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

// ---- g2gtee ----

class VulkanViewTee : public testing::TestWithParam<const char *> {};

TEST_P(VulkanViewTee, BranchesOfEveryDomainEqualThePeerAndShareOneDownload)
{
    SKIP_WITHOUT_VULKAN();
    const std::string caps = caps_of(GetParam(), 37, 23);
    g2g::ElementRef tee;
    const PipelineRun run = run_pipeline(
        vulkan_case_source(caps) + " ! vulkanupload ! g2gview video-direction=90r ! g2gtee name=t " +
            "t. ! queue ! g2gmaterialize ! vulkandownload" + sink("vulkan") + " t. ! queue" +
            sink("system1", "video/x-raw") + " t. ! queue" + sink("system2", "video/x-raw") +
            " t. ! queue ! g2gmaterialize" + sink("materialized", "video/x-raw") + " " +
            vulkan_case_source(caps) + sink("sent"),
        {}, 60 * GST_SECOND,
        [&](GstBin *pipeline) { tee = g2g::ElementRef::adopt(gst_bin_get_by_name(pipeline, "t")); },
        g2g::test::wait_for_each_upload);
    ASSERT_EQ(run.error, "") << run.error_source;
    const guint64 frames = g2g::test::kVulkanCaseFrames;
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "frames"), frames);
    // One download per frame, however many system branches share it; the view branches share the view.
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "conversions"), frames);
    EXPECT_EQ(g2g::test::tee_conversions(tee.get(), "VulkanTexture-to-System"), frames);
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "copies"), 0u);
    const std::string peer = "videoflip video-direction=90r";
    expect_branch(run, "vulkan", peer, true);
    expect_branch(run, "system1", peer, false);
    expect_branch(run, "system2", peer, false);
    expect_branch(run, "materialized", peer, false);
    const auto &system1 = run.sinks.at("system1"), &system2 = run.sinks.at("system2");
    for (std::size_t i = 0; i < system1.size() && i < system2.size(); ++i)
        EXPECT_EQ(gst_buffer_peek_memory(system1[i].get(), 0), gst_buffer_peek_memory(system2[i].get(), 0))
            << "frame " << i << ": one download, shared";
}

TEST_P(VulkanViewTee, ViewsInsideTheBranchesOfDenseVulkanFrames)
{
    SKIP_WITHOUT_VULKAN();
    const std::string caps = caps_of(GetParam(), 37, 23);
    g2g::ElementRef tee;
    // A GPU view branch, a view of system frames (the tee downloads for it and the dense branch, once).
    const PipelineRun run = run_pipeline(
        vulkan_case_source(caps) + " ! vulkanupload ! g2gtee name=t " +
            "t. ! queue ! g2gview video-direction=ul-lr ! g2gmaterialize ! vulkandownload" + sink("vulkan") +
            " t. ! queue ! g2gview video-direction=vert" + sink("system_view", "video/x-raw") +
            " t. ! queue" + sink("system", "video/x-raw") + " " + vulkan_case_source(caps) + sink("sent"),
        {}, 60 * GST_SECOND,
        [&](GstBin *pipeline) { tee = g2g::ElementRef::adopt(gst_bin_get_by_name(pipeline, "t")); },
        g2g::test::wait_for_each_upload);
    ASSERT_EQ(run.error, "") << run.error_source;
    EXPECT_EQ(g2g::test::tee_conversions(tee.get(), "VulkanTexture-to-System"),
              static_cast<guint64>(g2g::test::kVulkanCaseFrames));
    expect_branch(run, "vulkan", "videoflip video-direction=ul-lr", true);
    expect_branch(run, "system_view", "videoflip video-direction=vert", false);
    expect_branch(run, "system", "", false);
}

INSTANTIATE_TEST_SUITE_P(Formats, VulkanViewTee, testing::Values("RGBA", "NV12", "I420"),
                         [](const testing::TestParamInfo<const char *> &info) {
                             return param_name(info.param);
                         });

// ---- renegotiation ----

constexpr int kStreamFrames = 12;

std::string stream_source(const std::string &caps, const char *capsfilter_name = nullptr)
{
    return "videotestsrc num-buffers=" + std::to_string(kStreamFrames) + " pattern=snow ! " +
           (capsfilter_name ? std::string("capsfilter name=") + capsfilter_name + " caps=\"" + caps + "\""
                            : caps);
}

// g2gview's settings from frame `first` on, set from a probe on its sink pad just before that frame.
struct Change {
    int first;
    const char *direction;
    int left, top;
    const char *peer; // the peers' chain for those frames
};
const Change kChanges[] = {
    {0, "identity", 0, 0, ""},
    {3, "90r", 0, 0, "videoflip video-direction=90r"},
    {6, "180", 3, 1, "videocrop left=3 top=1 ! videoflip video-direction=180"},
    {9, "ur-ll", 0, 0, "videoflip video-direction=ur-ll"},
};

GstPadProbeReturn apply_change(GstPad *pad, GstPadProbeInfo *, gpointer frames_seen)
{
    int &frame = *static_cast<int *>(frames_seen);
    for (const Change &change : kChanges) {
        if (change.first != frame || frame == 0)
            continue;
        GstElement *view = gst_pad_get_parent_element(pad);
        gst_util_set_object_arg(G_OBJECT(view), "video-direction", change.direction);
        g_object_set(view, "left", change.left, "top", change.top, nullptr);
        gst_object_unref(view);
    }
    ++frame;
    return GST_PAD_PROBE_OK;
}

using StreamCase = std::tuple<const char *, const char *>;
class VulkanViewRenegotiation : public testing::TestWithParam<StreamCase> {};

TEST_P(VulkanViewRenegotiation, ADirectionOrCropChangedMidStreamLandsOnTheNextFrame)
{
    SKIP_WITHOUT_VULKAN();
    const auto [format, tail] = GetParam();
    const std::string caps = caps_of(format, 37, 23);
    int frames_seen = 0;
    const PipelineRun run = run_pipeline(stream_source(caps) + " ! vulkanupload ! g2gview name=v ! " + tail +
                                             sink("sink") + " " + stream_source(caps) + sink("sent"),
                                         {}, 60 * GST_SECOND, {}, [&](GstBin *pipeline) {
                                             g2g::test::wait_for_each_upload(pipeline);
                                             GstElement *view = gst_bin_get_by_name(pipeline, "v");
                                             GstPad *pad = gst_element_get_static_pad(view, "sink");
                                             gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, apply_change,
                                                               &frames_seen, nullptr);
                                             gst_object_unref(pad);
                                             gst_object_unref(view);
                                         });
    ASSERT_EQ(run.error, "") << run.error_source;
    ASSERT_EQ(run.sinks.at("sent").size(), static_cast<std::size_t>(kStreamFrames));
    const auto peer = [](std::size_t frame) {
        const char *chain = "";
        for (const Change &change : kChanges)
            if (static_cast<int>(frame) >= change.first)
                chain = change.peer;
        return std::string(chain);
    };
    EXPECT_EQ(compare_with_peers(run.sinks.at("sent"), run.frame_caps.at("sent"), run.sinks.at("sink"),
                                 run.frame_caps.at("sink"), peer,
                                 std::string(tail).ends_with("vulkandownload")),
              "");
}

// A capsfilter's caps changed to `caps` from a probe on its src pad once frame `after` - 1 left it:
// the source renegotiates at frame `after`.
struct CapsChange {
    int after;
    std::string caps;
    int frames = 0;
};

GstPadProbeReturn change_caps(GstPad *pad, GstPadProbeInfo *, gpointer data)
{
    auto *change = static_cast<CapsChange *>(data);
    if (++change->frames == change->after) {
        GstElement *filter = gst_pad_get_parent_element(pad);
        GstCaps *caps = gst_caps_from_string(change->caps.c_str());
        g_object_set(filter, "caps", caps, nullptr);
        gst_caps_unref(caps);
        gst_object_unref(filter);
    }
    return GST_PAD_PROBE_OK;
}

// Adds change_caps on the src pad of the capsfilter `name` of `pipeline`.
void change_caps_of(GstBin *pipeline, const char *name, CapsChange *change)
{
    GstElement *filter = gst_bin_get_by_name(pipeline, name);
    GstPad *pad = gst_element_get_static_pad(filter, "src");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, change_caps, change, nullptr);
    gst_object_unref(pad);
    gst_object_unref(filter);
}

TEST_P(VulkanViewRenegotiation, TheUpstreamSizeChangedMidStream)
{
    SKIP_WITHOUT_VULKAN();
    const auto [format, tail] = GetParam();
    const std::string caps = caps_of(format, 37, 23);
    const auto run_with = [&](const std::string &chain) {
        CapsChange ours{4, caps_of(format, 24, 20)}, sent = ours;
        return run_pipeline(stream_source(caps, "size") + " ! vulkanupload ! " + chain + sink("sink") + " " +
                                stream_source(caps, "sentsize") + sink("sent"),
                            {}, 60 * GST_SECOND, {}, [&](GstBin *pipeline) {
                                g2g::test::wait_for_each_upload(pipeline);
                                change_caps_of(pipeline, "size", &ours);
                                change_caps_of(pipeline, "sentsize", &sent);
                            });
    };
    // GStreamer's own elements first: whether 1.22's vulkanupload renegotiates a size at all.
    const PipelineRun theirs = run_with("vulkandownload");
    if (!theirs.error.empty())
        GTEST_SKIP() << "vulkanupload ! vulkandownload does not renegotiate the size here: " << theirs.error;
    ASSERT_NE(theirs.frame_caps.at("sink").front(), theirs.frame_caps.at("sink").back());
    EXPECT_EQ(compare_with_peers(
                  theirs.sinks.at("sent"), theirs.frame_caps.at("sent"), theirs.sinks.at("sink"),
                  theirs.frame_caps.at("sink"), [](std::size_t) { return std::string(); }, true),
              "")
        << "GStreamer's own elements, before ours";
    const PipelineRun run = run_with(std::string("g2gview left=1 video-direction=90l ! ") + tail);
    ASSERT_EQ(run.error, "") << run.error_source;
    const auto &sent_caps = run.frame_caps.at("sent");
    ASSERT_EQ(sent_caps.size(), static_cast<std::size_t>(kStreamFrames));
    ASSERT_NE(sent_caps.front(), sent_caps.back()) << "the source never changed its size";
    EXPECT_EQ(compare_with_peers(
                  run.sinks.at("sent"), sent_caps, run.sinks.at("sink"), run.frame_caps.at("sink"),
                  [](std::size_t) { return std::string("videocrop left=1 ! videoflip video-direction=90l"); },
                  std::string(tail).ends_with("vulkandownload")),
              "");
}

INSTANTIATE_TEST_SUITE_P(FormatsAndOutputs, VulkanViewRenegotiation,
                         testing::Combine(testing::Values("RGBA", "NV12"),
                                          testing::Values("g2gmaterialize ! vulkandownload", "vulkandownload",
                                                          "g2gmaterialize ! video/x-raw")),
                         [](const testing::TestParamInfo<StreamCase> &info) {
                             return param_name(std::string(std::get<0>(info.param)) + "_" +
                                               std::get<1>(info.param));
                         });

// ---- bad input ----

// Upstream switching mid-stream to a format g2gview does not take on VulkanImage: refused in caps
// (not-negotiated), the frames before it right.
TEST(VulkanViewBadInput, ASwitchToAFormatG2gviewDoesNotTakeIsNotNegotiated)
{
    SKIP_WITHOUT_VULKAN();
    const std::string caps = caps_of("RGBA", 64, 48);
    CapsChange change{4, caps_of("YUY2", 64, 48)};
    const PipelineRun run =
        run_pipeline(stream_source(caps, "f") +
                         " ! vulkanupload ! g2gview video-direction=90r ! g2gmaterialize ! "
                         "vulkandownload" +
                         sink("sink") + " " + stream_source(caps) + sink("sent"),
                     {}, 60 * GST_SECOND, {}, [&](GstBin *pipeline) {
                         g2g::test::wait_for_each_upload(pipeline);
                         change_caps_of(pipeline, "f", &change);
                     });
    // Refused in caps: videotestsrc cannot renegotiate (debug: "streaming stopped, reason
    // not-negotiated (-4)"); the four frames before the switch came through, right.
    EXPECT_EQ(run.error, "Internal data stream error.");
    EXPECT_EQ(run.error_source.rfind("videotestsrc", 0), 0u) << run.error_source;
    const auto &got = run.sinks.at("sink");
    ASSERT_EQ(got.size(), 4u);
    ASSERT_GE(run.sinks.at("sent").size(), got.size());
    const std::vector<g2g::BufferRef> sent(run.sinks.at("sent").begin(),
                                           run.sinks.at("sent").begin() + got.size());
    EXPECT_EQ(compare_with_peers(
                  sent, std::vector<std::string>(got.size(), caps), got, run.frame_caps.at("sink"),
                  [](std::size_t) { return std::string("videoflip video-direction=90r"); }, true),
              "");
}

// Formats vulkanupload makes images of that g2gview does not take on VulkanImage are refused in
// caps: the caps query answers nothing, accept-caps says no, and a stream gets not-negotiated.
TEST(VulkanViewBadInput, FormatsG2gviewDoesNotTakeOnVulkanImageAreRefusedInCaps)
{
    SKIP_WITHOUT_VULKAN();
    const std::set<std::string> offered = g2g::test::vulkan_image_formats("g2gview");
    ASSERT_FALSE(offered.empty()) << "g2gview takes no VulkanImage frames at all";
    for (const char *format : {"YUY2", "UYVY", "GRAY16_LE", "AYUV", "Y42B"}) {
        SCOPED_TRACE(format);
        if (offered.count(format))
            continue;
        for (const char *factory : {"g2gview", "g2gmaterialize"}) {
            for (const char *features : {"memory:VulkanImage", "memory:VulkanImage, meta:G2gTensorView"}) {
                GstElement *element = gst_element_factory_make(factory, nullptr);
                GstPad *pad = gst_element_get_static_pad(element, "sink");
                GstCaps *caps = gst_caps_from_string(
                    (std::string("video/x-raw(") + features + ")" + caps_of(format, 64, 48).substr(11))
                        .c_str());
                GstCaps *answer = gst_pad_query_caps(pad, caps);
                EXPECT_TRUE(gst_caps_is_empty(answer)) << factory << " " << features;
                EXPECT_FALSE(gst_pad_query_accept_caps(pad, caps)) << factory << " " << features;
                gst_caps_unref(answer);
                gst_caps_unref(caps);
                gst_object_unref(pad);
                gst_object_unref(element);
            }
        }
        const PipelineRun run =
            run_pipeline("videotestsrc num-buffers=2 ! " + caps_of(format, 64, 48) +
                             " ! vulkanupload ! video/x-raw(memory:VulkanImage) ! "
                             "g2gview video-direction=90r ! g2gmaterialize ! vulkandownload ! "
                             "fakesink",
                         {}, 20 * GST_SECOND, {}, g2g::test::wait_for_each_upload);
        // gst_parse_launch's own refusal to link (caps): the same intersection a running stream gets.
        EXPECT_NE(run.error.find("could not link vulkanupload"), std::string::npos) << run.error;
        EXPECT_NE(run.error.find("with caps video/x-raw(memory:VulkanImage)"), std::string::npos)
            << run.error;
    }
}

TEST(VulkanViewBadInput, RgbaThatGStreamerPutsInAnSrgbImageIsRefusedNotMisread)
{
    SKIP_WITHOUT_VULKAN();
    // GStreamer 1.22 picks an SRGB image for RGBA whose transfer is not sRGB (docs/design-notes.md).
    const PipelineRun run = run_pipeline(
        "videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48,colorimetry=bt709 ! "
        "vulkanupload ! g2gview video-direction=90r ! g2gmaterialize ! vulkandownload ! appsink name=sink",
        {}, 20 * GST_SECOND, {}, g2g::test::wait_for_each_upload);
    EXPECT_NE(
        run.error.find("cannot write R8G8B8A8_SRGB images from a shader (plane 0 of RGBA), so g2g cannot "
                       "materialize RGBA views on it"),
        std::string::npos)
        << run.error;
    EXPECT_TRUE(run.buffers.empty());
}

#if G2G_HAVE_VULKAN
// A Vulkan device of its own (a second logical device of the first physical device) and the
// contexts that hand it to an element, as an application does.
struct OwnDevice {
    OwnDevice()
    {
        instance = gst_vulkan_instance_new();
        opened = gst_vulkan_instance_open(instance, nullptr);
        device = opened ? gst_vulkan_device_new_with_index(instance, 0) : nullptr;
        opened = device && gst_vulkan_device_open(device, nullptr);
        instance_context = gst_context_new(GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR, TRUE);
        gst_context_set_vulkan_instance(instance_context, instance);
        device_context = gst_context_new(GST_VULKAN_DEVICE_CONTEXT_TYPE_STR, TRUE);
        gst_context_set_vulkan_device(device_context, device);
    }
    ~OwnDevice()
    {
        gst_context_unref(device_context);
        gst_context_unref(instance_context);
        if (opened)
            vkDeviceWaitIdle(device->device);
        if (device)
            gst_object_unref(device);
        gst_object_unref(instance);
    }
    OwnDevice(const OwnDevice &) = delete;
    OwnDevice &operator=(const OwnDevice &) = delete;

    void hand_to(GstBin *pipeline, const char *name) const
    {
        GstElement *element = gst_bin_get_by_name(pipeline, name);
        gst_element_set_context(element, instance_context);
        gst_element_set_context(element, device_context);
        gst_object_unref(element);
    }

    GstVulkanInstance *instance = nullptr;
    GstVulkanDevice *device = nullptr;
    bool opened = false;
    GstContext *instance_context = nullptr, *device_context = nullptr;
};

GstPadProbeReturn unanswered_context(GstPad *, GstPadProbeInfo *info, gpointer)
{
    return GST_QUERY_TYPE(GST_PAD_PROBE_INFO_QUERY(info)) == GST_QUERY_CONTEXT ? GST_PAD_PROBE_DROP
                                                                               : GST_PAD_PROBE_OK;
}

// Runs `chain` behind vulkanupload, whose context queries go unanswered (GStreamer 1.22's
// vulkanupload takes no device from the application, only an instance: the same one, as a second
// instance in the process made lavapipe crash in 3 of 8 runs), so it opens a device of its own,
// while the application hands g2gmaterialize ("dense") another. Ends the process as soon as the
// first error comes: 0 when `refuser` posted it naming both devices, else 1. Lavapipe crashes in its
// queue thread in a few of the runs that tear such a pipeline down after the refusal (1 of 16
// alone, 1 of 3 after other Vulkan pipelines of the same process), so the refusal is checked in a
// child process that never tears it down.
[[noreturn]] void refuse_a_frame_of_another_device(const std::string &chain, const std::string &refuser)
{
    const OwnDevice materialize;
    GstElement *pipeline =
        gst_parse_launch(("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                          "vulkanupload name=up ! " +
                          chain + " ! video/x-raw ! fakesink")
                             .c_str(),
                         nullptr);
    materialize.hand_to(GST_BIN(pipeline), "dense");
    GstElement *up = gst_bin_get_by_name(GST_BIN(pipeline), "up");
    gst_element_set_context(up, materialize.instance_context);
    GstPad *pad = gst_element_get_static_pad(up, "src");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_QUERY_BOTH, unanswered_context, nullptr, nullptr);
    g2g::test::wait_for_each_upload(GST_BIN(pipeline));
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    const std::string text = message ? g2g::test::message_with_source(message) : "no error, no EOS";
    std::fprintf(stderr, "%s\n", text.c_str());
    // Named both: g2g's device after "works on", and another before it.
    const bool named = text.rfind(refuser + ": the frame's Vulkan images are of device ", 0) == 0 &&
                       text.find("but this element works on the pipeline's device " +
                                 g2g::vulkan::Engine::describe(materialize.device)) != std::string::npos &&
                       text.find(g2g::vulkan::Engine::describe(materialize.device)) ==
                           text.rfind(g2g::vulkan::Engine::describe(materialize.device));
    std::fflush(stderr);
    _exit(named ? 0 : 1);
}

TEST(VulkanViewBadInput, AFrameOfAnotherDeviceIsRefusedNamingBoth)
{
    // The child (GoogleTest runs this body again in it) runs no other pipeline first.
    if (GTEST_FLAG_GET(internal_run_death_test).empty())
        SKIP_WITHOUT_VULKAN();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // The first g2g element the frame reaches refuses it: g2gview, or g2gmaterialize on dense frames.
    EXPECT_EXIT(refuse_a_frame_of_another_device(
                    "g2gview name=view video-direction=90r ! g2gmaterialize name=dense", "view"),
                testing::ExitedWithCode(0),
                "view: the frame's Vulkan images are of device .* but this element works on "
                "the pipeline's device");
    EXPECT_EXIT(
        refuse_a_frame_of_another_device("g2gmaterialize name=dense", "dense"), testing::ExitedWithCode(0),
        "dense: the frame's Vulkan images are of device .* but this element works on the pipeline's device");
}
#endif

} // namespace
