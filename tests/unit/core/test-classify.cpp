// SPDX-License-Identifier: LGPL-2.1-or-later
// Classification of buffers made by GStreamer's own elements and allocators.
#include <g2g/classify.h>

#include <gst/allocators/allocators.h>
#include <gtest/gtest.h>

#include "buffers.h"
#include "handle-frames.h"
#include "g2g-config.h"
#include "memfd-dmabuf.h"
#include "pipeline.h"

using g2g::Ref;
using K = g2g::MemoryDomainKind;
using g2g::test::make_memfd;
using g2g::test::memfd_dmabuf;

TEST(Classify, VideotestsrcFramesAreSystem)
{
    auto run = g2g::test::run_pipeline(
        "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! appsink name=sink");
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.buffers.size(), 3u);
    for (auto &buffer : run.buffers) {
        auto kind = g2g::classify_buffer(buffer.get());
        ASSERT_TRUE(kind.ok()) << kind.error().message();
        EXPECT_EQ(*kind, K::System);
    }
}

TEST(Classify, DmaBufAllocatorOverMemfdIsDmaBuf)
{
    GstMemory *memory = memfd_dmabuf(4096);
    ASSERT_NE(memory, nullptr);
    g2g::BufferRef buffer = g2g::BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(), memory);
    auto kind = g2g::classify_buffer(buffer.get());
    ASSERT_TRUE(kind.ok()) << kind.error().message();
    EXPECT_EQ(*kind, K::DmaBuf);
}

TEST(Classify, PlainFdMemoryIsSystem)
{
    Ref<GstAllocator> allocator = Ref<GstAllocator>::adopt(gst_fd_allocator_new());
    g2g::MemoryRef memory = g2g::MemoryRef::adopt(
        gst_fd_allocator_alloc(allocator.get(), make_memfd(4096), 4096, GST_FD_MEMORY_FLAG_NONE));
    auto kind = g2g::classify_memory(memory.get());
    ASSERT_TRUE(kind.ok()) << kind.error().message();
    EXPECT_EQ(*kind, K::System);
}

TEST(Classify, VulkanuploadFramesAreVulkanTexture)
{
    SKIP_WITHOUT_VULKAN();
    std::vector<K> seen;
    auto run = g2g::test::run_pipeline(
        "videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload "
        "! video/x-raw(memory:VulkanImage) ! identity name=tap ! vulkandownload ! appsink name=sink",
        [&](GstBuffer *buffer) {
            auto kind = g2g::classify_buffer(buffer);
            ASSERT_TRUE(kind.ok()) << kind.error().message();
            seen.push_back(*kind);
        });
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(seen, (std::vector<K>{K::VulkanTexture, K::VulkanTexture}));
    ASSERT_EQ(run.buffers.size(), 2u);
    // vulkandownload hands out host-visible GstVulkanBufferMemory in system-memory caps: System
    // when built with the vulkan feature (which can check the memory is host-visible), else
    // reported as the unknown memory type it then is.
    auto downloaded = g2g::classify_buffer(run.buffers[0].get());
    if (G2G_HAVE_VULKAN) {
        ASSERT_TRUE(downloaded.ok()) << downloaded.error().message();
        EXPECT_EQ(*downloaded, K::System);
    } else {
        ASSERT_FALSE(downloaded.ok());
        EXPECT_NE(downloaded.error().message().find("'VulkanBuffer'"), std::string::npos);
    }
}

TEST(Classify, CudauploadFramesAreCuda)
{
    if (!g2g::test::have_cuda_device())
        GTEST_SKIP() << "no CUDA device (runs on the GPU machine)";
    std::vector<K> seen;
    auto run = g2g::test::run_pipeline(
        "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,height=48 "
        "! cudaupload ! video/x-raw(memory:CUDAMemory) ! identity name=tap ! cudadownload ! fakesink",
        [&](GstBuffer *buffer) {
            auto kind = g2g::classify_buffer(buffer);
            ASSERT_TRUE(kind.ok()) << kind.error().message();
            seen.push_back(*kind);
        });
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(seen, (std::vector<K>{K::Cuda, K::Cuda}));
}

TEST(Classify, UnknownMemoryTypeIsReportedByNameNeverGuessed)
{
    const g2g::MemoryRef memory = g2g::test::foreign_memory(16, "GLMemory");
    auto kind = g2g::classify_memory(memory.get());
    ASSERT_FALSE(kind.ok());
    EXPECT_EQ(kind.error().code(), g2g::ErrorCode::UnknownMemory);
    EXPECT_EQ(kind.error().message(), "unknown memory type 'GLMemory' from allocator ForeignAllocator: "
                                      "g2g does not know which domain it lives in");
}

TEST(Classify, MixedBufferIsRefused)
{
    g2g::BufferRef buffer = g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, 64, nullptr));
    gst_buffer_append_memory(buffer.get(), memfd_dmabuf(64));
    auto kind = g2g::classify_buffer(buffer.get());
    ASSERT_FALSE(kind.ok());
    EXPECT_EQ(kind.error().message(),
              "buffer mixes System and DmaBuf memory (memory 1, memory type 'dmabuf' from "
              "allocator GstDmaBufAllocator): a frame lives in one domain");
}

TEST(Classify, EmptyBufferIsSystem)
{
    g2g::BufferRef buffer = g2g::BufferRef::adopt(gst_buffer_new());
    EXPECT_EQ(*g2g::classify_buffer(buffer.get()), K::System);
}

TEST(Classify, PlatformHandleMemoriesAreTheirOwnKinds)
{
    for (K kind : g2g::test::kHandleKinds) {
        g2g::test::StandIn object;
        g2g::MemoryRef memory =
            g2g::test::handle_memory(kind, object, g2g::test::counting_keep_alive(object), 1024);
        ASSERT_TRUE(memory) << g2g::name(kind);
        auto classified = g2g::classify_memory(memory.get());
        ASSERT_TRUE(classified.ok()) << classified.error().message();
        EXPECT_EQ(*classified, kind);
        EXPECT_TRUE(gst_memory_is_type(memory.get(), ("G2g" + std::string(g2g::name(kind))).c_str()));
        // A share (what a tee branch holds) is the same kind.
        g2g::MemoryRef share = g2g::MemoryRef::adopt(gst_memory_share(memory.get(), 0, -1));
        EXPECT_EQ(*g2g::classify_memory(share.get()), kind);
    }
}
