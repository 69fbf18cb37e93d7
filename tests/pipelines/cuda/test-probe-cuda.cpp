// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe in whole pipelines whose producers make CUDA memory (on the GPU machine): nvh264dec's
// frames are Cuda and pass require=cuda, and a cudaupload frame reaching a system-memory reader
// is an error naming cudadownload.
#include <g2g/classify.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipeline.h"

using g2g::test::run_pipeline;

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
