// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe in whole pipelines whose producers make system memory: videotestsrc's frames pass
// require=system, and a producer of no video at all (audiotestsrc) runs as long as nothing is
// required.
#include <gtest/gtest.h>

#include "pipeline.h"

using g2g::test::run_pipeline;

TEST(ProbePipeline, VideotestsrcIsSystemAndPassesRequireSystem)
{
    auto run = run_pipeline("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 "
                            "! g2gprobe name=p require=system ! appsink name=sink");
    EXPECT_EQ(run.error, "");
    EXPECT_EQ(run.buffers.size(), 5u);
}

TEST(ProbePipeline, UnknownPipelinesStillRunWithoutRequire)
{
    auto run = run_pipeline("audiotestsrc num-buffers=2 ! g2gprobe ! fakesink");
    EXPECT_EQ(run.error, "");
}
