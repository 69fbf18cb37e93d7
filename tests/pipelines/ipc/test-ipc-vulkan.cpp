// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink and g2gipcsrc with Vulkan images, between real processes on this machine's Vulkan
// device (lavapipe in CI): the producer runs in this test's process, each consumer is a
// gst-launch-1.0 of its own. A program of its own because the producer runs g2g's compute shader,
// which lavapipe compiles with LLVM's JIT (the sanitizer build runs it with the fast unwinder:
// tests/meson.build, jit_env).
#include <gst/gst.h>
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "g2g-config.h"
#include "open-fds.h"
#include "pipeline.h"
#include "processes.h"

#include "ipc-consumers.h"

#include <string>
#include <vector>

using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::Scratch;
using ipc_test::Consumer;
using ipc_test::source;

// Vulkan images cross as images: the producer copies each frame once on its device into
// exportable images, the consumer process imports them on its own device (lavapipe here, the same
// driver and "GPU") and vulkandownload reads them there; the bytes equal the source's, and every
// exported image's descriptor is let go of with the stream.
TEST(IpcProcesses, VulkanImagesCrossAsImagesAndEqualTheSource)
{
    SKIP_WITHOUT_VULKAN();
    Scratch scratch("g2g-ipc");
    const int frames = 60; // live, 2 s: the refused consumer joins while it plays
    const int frame_fds = g2g::test::open_frame_fd_count();
    Consumer images(
        scratch, "images",
        "g2gprobe require=vulkan ! vulkandownload ! video/x-raw,format=NV12 ! g2gprobe require=system");
    Consumer refused(scratch, "refused", "g2gprobe require=system");
    const auto producer = ipc_test::run_producer(
        source(frames, "is-live=true") +
        " ! vulkanupload ! g2gipcsink name=ipc min-consumers=1 queue-full=wait sync=false socket-path=" +
        scratch.path("socket"));
    EXPECT_EQ(producer->error, "");
    EXPECT_TRUE(producer->complaints.empty()) << producer->complaints.front();
    EXPECT_EQ(images.wait(), 0) << images.said();
    EXPECT_EQ(images.said().find("CRITICAL"), std::string::npos) << images.said();
    const PipelineRun peer = run_pipeline(source(frames) + " ! appsink name=sink sync=false");
    ASSERT_EQ(peer.buffers.size(), static_cast<std::size_t>(frames));
    EXPECT_TRUE(images.received() == g2g::test::bytes_of(peer.buffers))
        << images.received().size() << " bytes";

    // A consumer of system memory is told to download before the producer.
    EXPECT_NE(refused.wait(), 0);
    EXPECT_NE(refused.said().find("as Vulkan images; the consumer takes video/x-raw"), std::string::npos)
        << refused.said();
    EXPECT_NE(refused.said().find(": download them before ipc (vulkandownload) for system memory"),
              std::string::npos)
        << refused.said();

    ASSERT_NE(producer->stats, nullptr);
    EXPECT_EQ(producer->stat("shares"), guint64(frames));
    EXPECT_EQ(producer->stat("dropped"), 0u);
    // GStreamer's own Vulkan allocations are not exportable: each frame is copied once, on the device.
    EXPECT_EQ(producer->stat("copies"), guint64(frames));
    EXPECT_EQ(producer->stat("conversions"), 0u);
    // No descriptor this stream opened stays open (an earlier test's memfd that GStreamer lets go of
    // late may close meanwhile: the count never ends above where it began).
    EXPECT_LE(g2g::test::open_frame_fd_count(), frame_fds) << "the exported images' descriptors";
}

// A view of Vulkan frames crosses as its view: the producer copies the frame the view reads once
// into exportable images and the consumer that reads views (its caps say meta:G2gTensorView, so a
// frame without its view would be refused there) makes the view again over its import and writes
// it dense itself; a consumer of dense images gets the view written once by the producer's shader
// into exportable images. Both equal videoflip's, and a consumer of system memory is told where
// to write them as system memory.
TEST(IpcProcesses, VulkanViewsCrossAsViewsAndEqualVideoflip)
{
    SKIP_WITHOUT_VULKAN();
    Scratch scratch("g2g-ipc");
    const int frames = 60; // live, 2 s: the refused consumer joins while it plays
    const int frame_fds = g2g::test::open_frame_fd_count();
    Consumer view(scratch, "view",
                  "\"video/x-raw(memory:VulkanImage,meta:G2gTensorView)\" ! g2gprobe require=vulkan ! "
                  "g2gmaterialize ! video/x-raw,format=NV12 ! g2gprobe require=system");
    Consumer dense(scratch, "dense",
                   "\"video/x-raw(memory:VulkanImage)\" ! vulkandownload ! video/x-raw,format=NV12");
    Consumer refused(scratch, "refused", "g2gprobe require=system");
    const auto producer = ipc_test::run_producer(
        source(frames, "is-live=true") +
        " ! vulkanupload ! g2gview video-direction=90r ! g2gipcsink name=ipc min-consumers=2 "
        "queue-full=wait sync=false socket-path=" +
        scratch.path("socket"));
    EXPECT_EQ(producer->error, "");
    EXPECT_TRUE(producer->complaints.empty()) << producer->complaints.front();
    EXPECT_EQ(view.wait(), 0) << view.said();
    EXPECT_EQ(dense.wait(), 0) << dense.said();
    EXPECT_EQ(view.said().find("CRITICAL"), std::string::npos) << view.said();
    EXPECT_EQ(dense.said().find("CRITICAL"), std::string::npos) << dense.said();

    const PipelineRun peer =
        run_pipeline(source(frames) + " ! videoflip video-direction=90r ! appsink name=sink sync=false");
    ASSERT_EQ(peer.buffers.size(), static_cast<std::size_t>(frames));
    const std::string expected = g2g::test::bytes_of(peer.buffers);
    EXPECT_TRUE(view.received() == expected) << view.received().size() << " bytes";
    EXPECT_TRUE(dense.received() == expected) << dense.received().size() << " bytes";

    EXPECT_NE(refused.wait(), 0);
    EXPECT_NE(
        refused.said().find("as Vulkan images (as views, or written dense); the consumer takes video/x-raw"),
        std::string::npos)
        << refused.said();
    EXPECT_NE(refused.said().find(": write them as system memory before ipc (g2gmaterialize)"),
              std::string::npos)
        << refused.said();

    ASSERT_NE(producer->stats, nullptr);
    EXPECT_EQ(producer->stat("shares"), guint64(2 * frames));
    EXPECT_EQ(producer->stat("dropped"), 0u);
    // The frame the view reads, copied once on the device for the view's consumer; the view written
    // dense once for the other.
    EXPECT_EQ(producer->stat("copies"), guint64(frames));
    EXPECT_EQ(producer->stat("conversions.VulkanTexture-to-VulkanTexture"), guint64(frames));
    // No descriptor this stream opened stays open (an earlier test's memfd that GStreamer lets go of
    // late may close meanwhile: the count never ends above where it began).
    EXPECT_LE(g2g::test::open_frame_fd_count(), frame_fds) << "the exported images' descriptors";
}
