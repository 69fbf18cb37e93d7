// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for g2gtee in whole pipelines (see tee-pipelines.h).
#include "tee-pipelines.h"

#include <gtest/gtest.h>

#include "frames.h"

namespace g2g::test::tee_pipeline {

std::string source()
{
    return "videotestsrc num-buffers=" + std::to_string(kFrames) + " pattern=smpte ! " + kRgba;
}

PipelineRun run_with_stats(const std::string &description, TeeStats &stats)
{
    return run_pipeline(description, {}, 20 * GST_SECOND, [&](GstBin *pipeline) {
        stats.tee = g2g::ElementRef::adopt(gst_bin_get_by_name(pipeline, "t"));
        ASSERT_TRUE(stats.tee);
    });
}

std::vector<g2g::BufferRef> reference(const std::string &chain)
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

GstMemory *memory_of(const g2g::BufferRef &buffer)
{
    return gst_buffer_peek_memory(buffer.get(), 0);
}

} // namespace g2g::test::tee_pipeline
