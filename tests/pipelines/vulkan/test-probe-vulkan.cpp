// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe in whole pipelines whose producer is vulkanupload (on lavapipe): its frames pass
// require=vulkan-texture and come back identical, and one reaching a system-memory reader is a
// loud error naming g2gmaterialize (the download that fits a system-memory reader).
#include <gtest/gtest.h>

#include <cstring>

#include "pipeline.h"

using g2g::test::run_pipeline;

TEST(ProbePipeline, VulkanFramesPassRequireVulkanTextureAndComeBackIdentical)
{
    SKIP_WITHOUT_VULKAN();
    auto reference =
        run_pipeline("videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=RGBA,width=64,height=48 "
                     "! appsink name=sink");
    auto run =
        run_pipeline("videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=RGBA,width=64,height=48 "
                     "! vulkanupload ! video/x-raw(memory:VulkanImage) ! g2gprobe require=vulkan-texture "
                     "! vulkandownload ! appsink name=sink");
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.buffers.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        GstMapInfo a;
        GstMapInfo b;
        ASSERT_TRUE(gst_buffer_map(reference.buffers[i].get(), &a, GST_MAP_READ));
        ASSERT_TRUE(gst_buffer_map(run.buffers[i].get(), &b, GST_MAP_READ));
        ASSERT_EQ(a.size, b.size);
        EXPECT_EQ(0, memcmp(a.data, b.data, a.size)) << "frame " << i;
        gst_buffer_unmap(reference.buffers[i].get(), &a);
        gst_buffer_unmap(run.buffers[i].get(), &b);
    }
}

TEST(ProbePipeline, VulkanFrameIntoASystemReaderIsALoudErrorNamingTheDownload)
{
    SKIP_WITHOUT_VULKAN();
    // A tee keeps a vulkandownload branch so lavapipe is waited for at teardown (see pipeline.cpp).
    auto run =
        run_pipeline("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload "
                     "! video/x-raw(memory:VulkanImage) ! g2gprobe name=cpureader require=system+system-view "
                     "! vulkandownload ! fakesink");
    EXPECT_EQ(run.error_source, "cpureader");
    EXPECT_EQ(run.error,
              "cpureader reads system memory but received a VulkanTexture frame: insert g2gmaterialize "
              "before it, or let caps negotiation settle on system memory");
}
