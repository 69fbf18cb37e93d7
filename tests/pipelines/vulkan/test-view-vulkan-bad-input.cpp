// SPDX-License-Identifier: LGPL-2.1-or-later
// Bad input to g2gview and g2gmaterialize on VulkanImage: formats g2gview does not take there
// (refused in caps), RGBA that GStreamer 1.22 and 1.24 put in an SRGB image (refused by name, never
// misread; 1.26's UNORM image comes out right), a frame of another Vulkan device (refused naming
// both). Without a Vulkan device every test skips.
#include "g2g-config.h"

#include <gst/video/video.h>
#include <gtest/gtest.h>

#if G2G_HAVE_VULKAN
#include "compat/vulkan-format-compat.h"
#include "platform/vulkan/gst-vulkan.h"
#include "platform/vulkan/vulkan-engine.h"
#endif

#include <unistd.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "frames.h"
#include "pipeline.h"
#include "vulkan-cases.h"
#include "vulkan-frames.h"
#include "vulkan-upload-wait.h"

using g2g::test::PipelineRun;
using g2g::test::run_pipeline;

namespace {

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
                GstCaps *caps = gst_caps_from_string((std::string("video/x-raw(") + features + ")" +
                                                      g2g::test::raw_caps(format, 64, 48).substr(11))
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
            run_pipeline("videotestsrc num-buffers=2 ! " + g2g::test::raw_caps(format, 64, 48) +
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

#if G2G_HAVE_VULKAN
// The Vulkan format of the first memory of `buffer` when it is an image, else VK_FORMAT_UNDEFINED.
VkFormat first_image_format(GstBuffer *buffer)
{
    GstMemory *memory = gst_buffer_n_memory(buffer) > 0 ? gst_buffer_peek_memory(buffer, 0) : nullptr;
    return memory && gst_is_vulkan_image_memory(memory)
               ? reinterpret_cast<GstVulkanImageMemory *>(memory)->create_info.format
               : VK_FORMAT_UNDEFINED;
}

// RGBA whose colorimetry's transfer is not sRGB: GStreamer 1.22 and 1.24 put it in an
// R8G8B8A8_SRGB image, which a shader reads converted to linear light and cannot write (no SRGB
// format is a storage format), so g2g refuses it by name; 1.26 puts it in a UNORM image
// (compat/vulkan-format-compat-1.24.cpp), which g2g turns as videoflip does. Never misread: the
// test asserts what this version's vulkanupload makes (g2g's model of it,
// compat::vulkan_plane_format), then the refusal or the right frames accordingly.
TEST(VulkanViewBadInput, RgbaOfANonSrgbTransferIsRefusedInAnSrgbImageAndRightInAUnormOne)
{
    SKIP_WITHOUT_VULKAN();
    const std::string caps = g2g::test::raw_caps("RGBA", 64, 48) + ",colorimetry=bt709";
    const GstVideoInfo info = g2g::test::video_info_of_caps(caps);
    const VkFormat model = g2g::compat::vulkan_plane_format(info, 0);
    std::vector<VkFormat> made;
    const PipelineRun peer = run_pipeline(
        g2g::test::vulkan_case_source(caps) +
            " ! vulkanupload ! identity name=tap ! vulkandownload ! appsink name=sink",
        [&](GstBuffer *buffer) { made.push_back(first_image_format(buffer)); }, 20 * GST_SECOND, {},
        g2g::test::wait_for_each_upload);
    ASSERT_EQ(peer.error, "") << peer.error_source;
    ASSERT_FALSE(made.empty());
    EXPECT_EQ(made.front(), model) << "vulkanupload's image format is not the one g2g's compatibility layer "
                                      "says this GStreamer picks";

    const PipelineRun run = run_pipeline(g2g::test::vulkan_case_source(caps) +
                                             " ! vulkanupload ! g2gview video-direction=90r ! g2gmaterialize "
                                             "! vulkandownload ! appsink name=sink " +
                                             g2g::test::vulkan_case_source(caps) + " ! appsink name=sent",
                                         {}, 20 * GST_SECOND, {}, g2g::test::wait_for_each_upload);
    if (model == VK_FORMAT_R8G8B8A8_SRGB) {
        EXPECT_NE(run.error.find("cannot write R8G8B8A8_SRGB images from a shader (plane 0 of RGBA), so g2g "
                                 "cannot materialize RGBA views on it"),
                  std::string::npos)
            << run.error;
        EXPECT_TRUE(run.buffers.empty());
    } else {
        ASSERT_EQ(run.error, "") << run.error_source;
        EXPECT_EQ(model, VK_FORMAT_R8G8B8A8_UNORM);
        EXPECT_EQ(g2g::test::compare_with_peers(
                      run.sinks.at("sent"), run.frame_caps.at("sent"), run.sinks.at("sink"),
                      run.frame_caps.at("sink"),
                      [](std::size_t) { return std::string("videoflip video-direction=90r"); }, true),
                  "");
    }
}
#endif

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
