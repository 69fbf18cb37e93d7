// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee behind vulkanupload (on lavapipe), in real pipelines: one download (g2gmaterialize) per frame
// shared by every system branch, with the pixels GStreamer's own elements give; upstream offered
// VulkanImage when one branch takes it; copy-budget naming the download it refuses.
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "frames.h"
#include "pipeline.h"
#include "tee-pipelines.h"

#include <string>

using g2g::test::have_vulkan_device;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::video_info_of_caps;
using namespace g2g::test::tee_pipeline;

TEST(G2gTeeDomains, OneDownloadPerFrameFeedsEverySystemBranch)
{
    SKIP_WITHOUT_VULKAN();
    // The Vulkan branch downloads in the streaming thread (its queue comes after the download):
    // vulkanupload (GStreamer 1.22 to 1.28: compat::vulkanupload_races_staging) hands its staging
    // buffer back to its pool before its copy has run, and only a wait for the GPU before the next
    // frame is filled keeps the frames right.
    // vulkandownload waits; g2gtee's download (g2gmaterialize) does not, by design. On lavapipe, with
    // the Vulkan branch behind a queue, every frame but the first came out as the last one.
    TeeStats stats;
    PipelineRun run =
        run_with_stats(source() + " ! vulkanupload ! g2gtee name=t "
                                  "t. ! vulkandownload ! queue ! appsink name=vulkan "
                                  "t. ! queue ! appsink name=system1 caps=video/x-raw "
                                  "t. ! queue ! identity ! appsink name=system2 caps=video/x-raw",
                       stats);
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(stats.get("frames"), static_cast<guint64>(kFrames));
    // Exactly one download per frame, however many system branches share it.
    EXPECT_EQ(stats.get("conversions"), static_cast<guint64>(kFrames));
    EXPECT_EQ(stats.pair("VulkanTexture-to-System"), static_cast<guint64>(kFrames));
    EXPECT_EQ(stats.get("copies"), 0u);
    EXPECT_EQ(stats.get("shares"), 3u * kFrames);
    EXPECT_GE(stats.get("bytes-converted"), static_cast<guint64>(kFrames) * 64 * 48 * 4);

    const auto &system1 = run.sinks["system1"];
    const auto &system2 = run.sinks["system2"];
    ASSERT_EQ(system1.size(), static_cast<std::size_t>(kFrames));
    ASSERT_EQ(system2.size(), static_cast<std::size_t>(kFrames));
    for (int i = 0; i < kFrames; ++i)
        EXPECT_EQ(memory_of(system1[i]), memory_of(system2[i])) << "frame " << i << ": one download, shared";
    const GstVideoInfo info = video_info_of_caps(kRgba);
    const auto want = reference();
    expect_frames_equal(system1, want, info, "system1");
    expect_frames_equal(run.sinks["vulkan"], want, info, "vulkan");
}

TEST(G2gTeeDomains, UpstreamIsOfferedTheGpuDomainWhenOneBranchTakesIt)
{
    SKIP_WITHOUT_VULKAN();
    GstElement *pipeline = gst_parse_launch("g2gtee name=t t. ! vulkandownload ! fakesink "
                                            "t. ! queue ! video/x-raw ! fakesink",
                                            nullptr);
    GstElement *tee = gst_bin_get_by_name(GST_BIN(pipeline), "t");
    GstPad *sink = gst_element_get_static_pad(tee, "sink");
    GstCaps *caps = gst_pad_query_caps(sink, nullptr);
    ASSERT_FALSE(gst_caps_is_empty(caps));
    // The Vulkan branch takes VulkanImage as it is; the system branch through a download.
    EXPECT_TRUE(gst_caps_features_contains(gst_caps_get_features(caps, 0), "memory:VulkanImage"))
        << gst_caps_to_string(caps);
    gst_caps_unref(caps);
    gst_object_unref(sink);
    gst_object_unref(tee);
    gst_object_unref(pipeline);
}

TEST(G2gTeeDomains, VulkanCopyBudgetNamesTheDownload)
{
    SKIP_WITHOUT_VULKAN();
    PipelineRun run = run_pipeline(source() + " ! vulkanupload ! g2gtee name=t copy-budget=0 "
                                              "t. ! queue ! vulkandownload ! fakesink "
                                              "t. ! queue ! appsink name=sink caps=video/x-raw");
    EXPECT_EQ(run.error_source, "t");
    EXPECT_NE(run.error.find("copy-budget 0 exceeded: 1 conversion per frame, VulkanTexture to System by "
                             "g2gmaterialize for src_1"),
              std::string::npos)
        << run.error;
}

// vulkanupload hands its staging buffer back before its copy has run (GStreamer 1.22 to 1.28:
// compat::vulkanupload_races_staging; on 1.26.2 without the wait, frames came out with the next
// frame's pixels); a download that does not wait lets the next frame be written into it first
// (docs/design-notes.md). Behind vulkanupload in its own thread, g2gmaterialize's download waits for
// each copy: readers queued after it (here mapping only after EOS) get every frame right, through
// g2gtee and without it.
TEST(G2gTeeDomains, DownloadsBehindVulkanuploadInItsThreadGiveEveryFrameToAQueuedReader)
{
    SKIP_WITHOUT_VULKAN();
    const std::string snow = "videotestsrc num-buffers=12 pattern=snow ! " + std::string(kRgba);
    PipelineRun want = run_pipeline(snow + " ! appsink name=sink");
    ASSERT_EQ(want.error, "");
    ASSERT_EQ(want.buffers.size(), 12u);
    const GstVideoInfo info = video_info_of_caps(kRgba);
    for (const char *tail : {"g2gmaterialize ! video/x-raw ! queue ! appsink name=sink",
                             "g2gtee name=t t. ! queue ! appsink name=sink caps=video/x-raw"}) {
        for (int run = 0; run < 3; ++run) {
            PipelineRun got = run_pipeline(snow + " ! vulkanupload ! " + tail);
            ASSERT_EQ(got.error, "") << tail;
            ASSERT_EQ(got.buffers.size(), 12u) << tail;
            for (std::size_t i = 0; i < 12; ++i)
                EXPECT_EQ(g2g::test::compare_frames(info, got.buffers[i].get(), info, want.buffers[i].get()),
                          "")
                    << tail << ", run " << run << ", frame " << i;
        }
    }
}
