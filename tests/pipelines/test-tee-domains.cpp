// g2gtee with branches in different memory domains, in real pipelines: one conversion per
// frame per target domain shared by every branch of that domain, the pixels GStreamer's own
// converters give, fan-out-policy, copy-budget, views through the tee.
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "frames.h"
#include "pipeline.h"
#include "tee-stats.h"

#include <string>

using g2g::test::compare_frames;
using g2g::test::have_vulkan_device;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::video_info_of_caps;

namespace {

constexpr int kFrames = 12;
constexpr const char *kRgba = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

std::string source()
{
    return "videotestsrc num-buffers=" + std::to_string(kFrames) + " pattern=smpte ! " + kRgba;
}

// The run's g2gtee (named "t"), kept past the run to read its stats.
struct TeeStats {
    g2g::ElementRef tee;

    guint64 get(const char *field) const { return g2g::test::tee_stat(tee.get(), field); }
    guint64 pair(const char *name) const { return g2g::test::tee_conversions(tee.get(), name); }
};

// Runs `description` and keeps its tee in `stats`.
PipelineRun run_with_stats(const std::string &description, TeeStats &stats)
{
    return run_pipeline(description, {}, 20 * GST_SECOND, [&](GstBin *pipeline) {
        stats.tee = g2g::ElementRef::adopt(gst_bin_get_by_name(pipeline, "t"));
        ASSERT_TRUE(stats.tee);
    });
}

// The frames `chain` makes of the source on its own (GStreamer's elements as the oracle).
std::vector<g2g::BufferRef> reference(const std::string &chain = "")
{
    PipelineRun run = run_pipeline(source() + (chain.empty() ? "" : " ! " + chain) + " ! appsink name=sink");
    EXPECT_EQ(run.error, "");
    return run.buffers;
}

void expect_frames_equal(const std::vector<g2g::BufferRef> &got, const std::vector<g2g::BufferRef> &want,
                         const GstVideoInfo &info, const char *branch)
{
    ASSERT_EQ(got.size(), want.size()) << branch;
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(compare_frames(info, got[i].get(), info, want[i].get()), "") << branch << " frame " << i;
}

// A system branch and a branch that takes only Cuda, linked before the source (when linked
// after it, GStreamer's own link check already refuses the Cuda branch, as it does with tee).
std::string cuda_only_branch_first(const std::string &tee)
{
    return tee + " t. ! queue ! appsink name=sink t. ! queue ! video/x-raw(memory:CUDAMemory) ! fakesink " +
           source() + " ! t.";
}

GstMemory *memory_of(const g2g::BufferRef &buffer)
{
    return gst_buffer_peek_memory(buffer.get(), 0);
}

} // namespace

TEST(G2gTeeDomains, OneVulkanDownloadPerFrameFeedsEverySystemBranch)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device (lavapipe) on this machine";
    TeeStats stats;
    PipelineRun run =
        run_with_stats(source() + " ! vulkanupload ! g2gtee name=t "
                                  "t. ! queue ! vulkandownload ! appsink name=vulkan "
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
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device (lavapipe) on this machine";
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

TEST(G2gTeeDomains, ViewsFanOutAsViewsAndAsOneSharedMaterializedFrame)
{
    TeeStats stats;
    PipelineRun run = run_with_stats(
        source() + " ! g2gview video-direction=90r ! g2gtee name=t "
                   "t. ! queue ! video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! appsink name=view "
                   "t. ! queue ! appsink name=dense1 caps=video/x-raw "
                   "t. ! queue ! appsink name=dense2 caps=video/x-raw",
        stats);
    ASSERT_EQ(run.error, "");
    const auto &views = run.sinks["view"];
    const auto &dense1 = run.sinks["dense1"];
    const auto &dense2 = run.sinks["dense2"];
    ASSERT_EQ(views.size(), static_cast<std::size_t>(kFrames));
    ASSERT_EQ(dense1.size(), static_cast<std::size_t>(kFrames));
    for (int i = 0; i < kFrames; ++i) {
        EXPECT_NE(g2g::tensor_view_of(views[i].get()), nullptr) << "the view branch gets the view";
        EXPECT_EQ(g2g::tensor_view_of(dense1[i].get()), nullptr) << "dense branches get dense frames";
        EXPECT_EQ(memory_of(dense1[i]), memory_of(dense2[i])) << "one materialized frame, shared";
    }
    EXPECT_EQ(stats.pair("SystemView-to-System"), static_cast<guint64>(kFrames));
    EXPECT_EQ(stats.get("conversions"), static_cast<guint64>(kFrames));
    expect_frames_equal(dense1, reference("videoflip video-direction=90r"),
                        video_info_of_caps("video/x-raw,format=RGBA,width=48,height=64"), "dense1");
}

TEST(G2gTeeDomains, AllSystemBranchesMakeTheViewMaterializeUpstreamNotInTheTee)
{
    TeeStats stats;
    PipelineRun run = run_with_stats(source() + " ! g2gview video-direction=vert ! g2gtee name=t "
                                                "t. ! queue ! appsink name=a caps=video/x-raw "
                                                "t. ! queue ! appsink name=b caps=video/x-raw",
                                     stats);
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(stats.get("conversions"), 0u);
    ASSERT_EQ(run.sinks["a"].size(), static_cast<std::size_t>(kFrames));
    EXPECT_EQ(memory_of(run.sinks["a"][0]), memory_of(run.sinks["b"][0]));
}

TEST(G2gTeeDomains, FailPolicyNamesTheBranchTheDomainAndTheConverter)
{
    PipelineRun run = run_pipeline(cuda_only_branch_first("g2gtee name=t"));
    EXPECT_EQ(run.error_source, "t");
    EXPECT_NE(run.error.find("branch src_1 of t"), std::string::npos) << run.error;
    EXPECT_NE(run.error.find("Cuda"), std::string::npos) << run.error;
    EXPECT_NE(run.error.find("System frame"), std::string::npos) << run.error;
    EXPECT_NE(run.error.find("insert cudaupload"), std::string::npos) << run.error;
}

TEST(G2gTeeDomains, DropBranchPolicyFeedsTheOthersAndSaysSoOnce)
{
    PipelineRun run = run_pipeline(cuda_only_branch_first("g2gtee name=t fan-out-policy=drop-branch"));
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(run.buffers.size(), static_cast<std::size_t>(kFrames));
    int about_branch = 0;
    for (const std::string &warning : run.warnings)
        about_branch += warning.find("branch src_1 of t") != std::string::npos;
    EXPECT_EQ(about_branch, 1);
}

TEST(G2gTeeDomains, CopyBudgetRefusesConversionsBeyondIt)
{
    const std::string branches =
        "t. ! queue ! video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! fakesink "
        "t. ! queue ! appsink name=sink caps=video/x-raw";
    PipelineRun refused =
        run_pipeline(source() + " ! g2gview video-direction=180 ! g2gtee name=t copy-budget=0 " + branches);
    EXPECT_EQ(refused.error_source, "t");
    EXPECT_NE(refused.error.find("copy-budget 0 exceeded"), std::string::npos) << refused.error;
    EXPECT_NE(refused.error.find("SystemView to System by g2gmaterialize for src_1"), std::string::npos)
        << refused.error;

    PipelineRun allowed =
        run_pipeline(source() + " ! g2gview video-direction=180 ! g2gtee name=t copy-budget=1 " + branches);
    EXPECT_EQ(allowed.error, "");
    EXPECT_EQ(allowed.buffers.size(), static_cast<std::size_t>(kFrames));
}

TEST(G2gTeeDomains, VulkanCopyBudgetNamesTheDownload)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device (lavapipe) on this machine";
    PipelineRun run = run_pipeline(source() + " ! vulkanupload ! g2gtee name=t copy-budget=0 "
                                              "t. ! queue ! vulkandownload ! fakesink "
                                              "t. ! queue ! appsink name=sink caps=video/x-raw");
    EXPECT_EQ(run.error_source, "t");
    EXPECT_NE(run.error.find("copy-budget 0 exceeded: 1 conversion per frame, VulkanTexture to System by "
                             "vulkandownload for src_1"),
              std::string::npos)
        << run.error;
}
