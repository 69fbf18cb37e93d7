// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee behind system-memory producers (videotestsrc, g2gview's views), in real pipelines: views
// fanned out as views and as one shared materialized frame with the pixels videoflip gives, or
// materialized upstream when no branch takes views; fan-out-policy (fail, drop-branch) for a
// branch that takes only Cuda; copy-budget refusing the conversions beyond it.
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "frames.h"
#include "pipeline.h"
#include "tee-pipelines.h"

#include <string>
#include <vector>

using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::video_info_of_caps;
using namespace g2g::test::tee_pipeline;

namespace {

// A system branch and a branch that takes only Cuda, linked before the source (linked after it,
// the refusal is the same: tests/elements/tee/test-tee-report.cpp LinkOrder).
std::string cuda_only_branch_first(const std::string &tee)
{
    return tee + " t. ! queue ! appsink name=sink t. ! queue ! video/x-raw(memory:CUDAMemory) ! fakesink " +
           source() + " ! t.";
}

} // namespace

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

namespace {

// 90r of the source: what every branch of the view tests below must see, densely.
constexpr const char *kRotated = "video/x-raw,format=RGBA,width=48,height=64";

// True when the caps string of an appsink's sample carries the view feature.
bool names_view(const std::string &caps)
{
    return caps.find(G2G_CAPS_FEATURE_META_TENSOR_VIEW) != std::string::npos;
}

} // namespace

// The issue: a caps-less appsink beside a branch that names the view got the unrotated bytes
// under the rotated caps.
TEST(G2gTeeDomains, ACapslessAppsinkBesideAViewBranchGetsTheRotatedDenseFrame)
{
    TeeStats stats;
    PipelineRun run = run_with_stats(
        source() +
            " ! g2gview video-direction=90r ! g2gtee name=t "
            "t. ! queue ! video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! g2gmaterialize ! fakesink "
            "t. ! queue ! appsink name=sink",
        stats);
    ASSERT_EQ(run.error, "");
    for (const g2g::BufferRef &frame : run.buffers)
        ASSERT_EQ(g2g::tensor_view_of(frame.get()), nullptr);
    EXPECT_FALSE(names_view(run.sink_caps["sink"])) << run.sink_caps["sink"];
    expect_frames_equal(run.buffers, reference("videoflip video-direction=90r"), video_info_of_caps(kRotated),
                        "the caps-less appsink");
    EXPECT_EQ(stats.pair("SystemView-to-System"), static_cast<guint64>(kFrames));
}

// Every branch that does not name the view (a caps-less appsink, fakesink, a capsfilter without the
// feature) shares one materialized frame per frame, with videoflip's pixels; the branches that
// name the view share the view itself.
TEST(G2gTeeDomains, EveryBranchThatDoesNotNameTheViewSharesOneDenseFrame)
{
    TeeStats stats;
    std::vector<g2g::BufferRef> to_fakesink;
    PipelineRun run = run_pipeline(
        source() + " ! g2gview video-direction=90r ! g2gtee name=t "
                   "t. ! queue ! appsink name=view1 caps=video/x-raw(memory:SystemMemory,meta:G2gTensorView) "
                   "t. ! queue ! video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! appsink name=view2 "
                   "t. ! queue ! appsink name=anycaps "
                   "t. ! queue ! fakesink name=tap "
                   "t. ! queue ! video/x-raw ! appsink name=filtered",
        [&](GstBuffer *buffer) { to_fakesink.push_back(g2g::BufferRef::borrow(buffer)); }, 20 * GST_SECOND,
        [&](GstBin *pipeline) { stats.tee = g2g::ElementRef::adopt(gst_bin_get_by_name(pipeline, "t")); });
    ASSERT_EQ(run.error, "");
    const std::vector<g2g::BufferRef> want = reference("videoflip video-direction=90r");
    const GstVideoInfo info = video_info_of_caps(kRotated);
    const auto &anycaps = run.sinks["anycaps"];
    const auto &filtered = run.sinks["filtered"];
    ASSERT_EQ(anycaps.size(), static_cast<std::size_t>(kFrames));
    ASSERT_EQ(filtered.size(), static_cast<std::size_t>(kFrames));
    ASSERT_EQ(to_fakesink.size(), static_cast<std::size_t>(kFrames));
    for (const char *dense : {"anycaps", "filtered"})
        EXPECT_FALSE(names_view(run.sink_caps[dense])) << dense << ": " << run.sink_caps[dense];
    for (const char *view : {"view1", "view2"})
        EXPECT_TRUE(names_view(run.sink_caps[view])) << view << ": " << run.sink_caps[view];
    for (int i = 0; i < kFrames; ++i) {
        EXPECT_EQ(g2g::tensor_view_of(to_fakesink[i].get()), nullptr) << "fakesink frame " << i;
        EXPECT_EQ(memory_of(anycaps[i]), memory_of(filtered[i])) << "one materialized frame, shared";
        EXPECT_EQ(memory_of(anycaps[i]), memory_of(to_fakesink[i])) << "one materialized frame, shared";
        EXPECT_NE(g2g::tensor_view_of(run.sinks["view1"][i].get()), nullptr) << "view frame " << i;
        EXPECT_EQ(run.sinks["view1"][i].get(), run.sinks["view2"][i].get()) << "one view, shared";
    }
    expect_frames_equal(anycaps, want, info, "anycaps");
    expect_frames_equal(filtered, want, info, "filtered");
    expect_frames_equal(to_fakesink, want, info, "fakesink");
    // One materialize per frame for all three dense branches.
    ASSERT_TRUE(stats.tee);
    EXPECT_EQ(stats.pair("SystemView-to-System"), static_cast<guint64>(kFrames));
    EXPECT_EQ(stats.get("conversions"), static_cast<guint64>(kFrames));
    EXPECT_EQ(stats.get("copies"), 0u);
}

// With no branch that names the view, the tee asks for dense frames: g2gview materializes once,
// upstream, and the tee converts nothing (ANY-caps peers included).
TEST(G2gTeeDomains, AnyCapsBranchesAloneMakeTheViewMaterializeUpstream)
{
    TeeStats stats;
    PipelineRun run = run_with_stats(source() + " ! g2gview video-direction=90r ! g2gtee name=t "
                                                "t. ! queue ! appsink name=sink "
                                                "t. ! queue ! fakesink",
                                     stats);
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(stats.get("conversions"), 0u);
    EXPECT_FALSE(names_view(run.sink_caps["sink"])) << run.sink_caps["sink"];
    expect_frames_equal(run.buffers, reference("videoflip video-direction=90r"), video_info_of_caps(kRotated),
                        "the caps-less appsink");
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
