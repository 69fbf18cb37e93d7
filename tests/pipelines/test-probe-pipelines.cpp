// g2gprobe in whole pipelines with real producers: videotestsrc, vulkanupload on lavapipe.
#include <g2g/classify.h>

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

TEST(ProbePipeline, VulkanFramesPassRequireVulkanTextureAndComeBackIdentical)
{
    if (!g2g::test::have_vulkan_device())
        GTEST_SKIP() << "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)";
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

TEST(ProbePipeline, VulkanFrameIntoASystemReaderIsALoudErrorNamingVulkandownload)
{
    if (!g2g::test::have_vulkan_device())
        GTEST_SKIP() << "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)";
    // A tee keeps a vulkandownload branch so lavapipe is waited for at teardown (see pipeline.cpp).
    auto run =
        run_pipeline("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload "
                     "! video/x-raw(memory:VulkanImage) ! g2gprobe name=cpureader require=system+system-view "
                     "! vulkandownload ! fakesink");
    EXPECT_EQ(run.error_source, "cpureader");
    EXPECT_EQ(run.error,
              "cpureader reads system memory but received a VulkanTexture frame: insert vulkandownload "
              "before it, or let caps negotiation settle on system memory");
}

TEST(ProbePipeline, Nvh264decFramesAreCudaAndPassRequireCuda)
{
    if (!g2g::test::have_cuda_device() || !g2g::test::have_element("nvh264dec"))
        GTEST_SKIP() << "no CUDA device with NVDEC (runs on the GPU machine)";
    std::string stream = g2g::test::media_path("ball-1920x1080-300f.h264");
    if (stream.empty())
        GTEST_SKIP() << "sample stream ball-1920x1080-300f.h264 not found";
    std::vector<g2g::MemoryDomainKind> kinds;
    auto run =
        run_pipeline("filesrc location=" + stream +
                         " ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory) ! identity name=tap "
                         "! g2gprobe require=cuda ! cudadownload ! fakesink",
                     [&](GstBuffer *buffer) {
                         auto kind = g2g::classify_buffer(buffer);
                         ASSERT_TRUE(kind.ok()) << kind.error().message();
                         kinds.push_back(*kind);
                     });
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(kinds.size(), 300u);
    for (g2g::MemoryDomainKind kind : kinds)
        ASSERT_EQ(kind, g2g::MemoryDomainKind::Cuda);
}

TEST(ProbePipeline, CudaFrameIntoASystemReaderNamesCudadownload)
{
    if (!g2g::test::have_cuda_device())
        GTEST_SKIP() << "no CUDA device (runs on the GPU machine)";
    auto run = run_pipeline("videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,height=48 ! "
                            "cudaupload ! video/x-raw(memory:CUDAMemory) "
                            "! g2gprobe name=cpureader require=system ! cudadownload ! fakesink");
    EXPECT_EQ(run.error,
              "cpureader reads system memory but received a Cuda frame: insert cudadownload before it, "
              "or let caps negotiation settle on system memory");
}

TEST(ProbePipeline, UnknownPipelinesStillRunWithoutRequire)
{
    auto run = run_pipeline("audiotestsrc num-buffers=2 ! g2gprobe ! fakesink");
    EXPECT_EQ(run.error, "");
}
