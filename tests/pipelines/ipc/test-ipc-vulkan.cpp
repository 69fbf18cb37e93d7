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
#if G2G_HAVE_VULKAN
#include "compat/vulkan-upload-compat.h"
#include "platform/vulkan/vulkan-external.h"
#endif

#include "ipc-consumers.h"

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::Scratch;
using ipc_test::Consumer;
using ipc_test::source;

namespace {

// compat::vulkanupload_takes_downstream_pool, in a build with Vulkan (the tests skip without).
bool upload_takes_our_pool()
{
#if G2G_HAVE_VULKAN
    return g2g::compat::vulkanupload_takes_downstream_pool();
#else
    return false;
#endif
}

// What the element named "tap" (an identity just before g2gipcsink) saw: how many frames were
// faces of exportable images (written by vulkanupload into g2gipcsink's pool, or g2gconvert's), and
// which exportable frames they were.
struct ExportedSeen {
    std::mutex lock;
    int faces = 0, frames = 0;
    std::set<std::uint64_t> ids;

    g2g::test::BufferTap tap()
    {
        return [this](GstBuffer *buffer) {
            const std::lock_guard guard(lock);
            ++frames;
#if G2G_HAVE_VULKAN
            if (const auto exported = g2g::vulkan::ExportableImages::of_face(buffer)) {
                ++faces;
                ids.insert(exported->id());
            }
#else
            (void)buffer;
#endif
        };
    }
};

// Frames upstream writes into g2gipcsink's pool of exportable images cross as they are, where the
// writer takes that pool (`takes`): vulkanupload from GStreamer 1.24 on
// (compat::vulkanupload_takes_downstream_pool; 1.22's keeps its own, and there each frame is copied
// once on the device), a renderer and g2g's shader on every version.
void expect_frames_written_into_the_pool(const ExportedSeen &seen, int frames, bool takes,
                                         std::size_t pooled = 12)
{
    EXPECT_EQ(seen.frames, frames);
    if (takes) {
        EXPECT_EQ(seen.faces, frames) << "frames upstream wrote into g2gipcsink's exportable images";
        // The pool's frames come back: a handful (the frames in flight) serve the whole stream,
        // each imported once by each consumer.
        EXPECT_GE(seen.ids.size(), 1u);
        EXPECT_LE(seen.ids.size(), pooled) << "exported frames made for " << frames << " frames";
    } else {
        EXPECT_EQ(seen.faces, 0) << "GStreamer 1.22's vulkanupload writes into its own pool";
    }
}

} // namespace

// Vulkan images cross as images: vulkanupload writes each frame into g2gipcsink's exportable
// images (1.24 on; 1.22's vulkanupload keeps its own pool, and the producer copies each frame
// once on its device into exportable images), the consumer process imports them on its own device
// (lavapipe here, the same driver and "GPU") and vulkandownload reads them there; the bytes equal
// the source's (with the pool's frames reused while consumers hold others), and every exported
// image's descriptor is let go of with the stream.
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
    ExportedSeen seen;
    const auto producer = ipc_test::run_producer(
        source(frames, "is-live=true") +
            " ! vulkanupload ! identity name=tap ! g2gipcsink name=ipc min-consumers=1 queue-full=wait "
            "sync=false socket-path=" +
            scratch.path("socket"),
        seen.tap());
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
    expect_frames_written_into_the_pool(seen, frames, upload_takes_our_pool());
    // GStreamer's own Vulkan allocations (1.22's vulkanupload's) are not exportable: each frame is
    // copied once, on the device.
    const guint64 copies = upload_takes_our_pool() ? 0 : frames;
    EXPECT_EQ(producer->stat("copies"), copies);
    EXPECT_EQ(producer->stat("bytes-copied"), copies * (64 * 48 * 3 / 2));
    EXPECT_EQ(producer->stat("conversions"), 0u);
    // No descriptor this stream opened stays open (an earlier test's memfd that GStreamer lets go of
    // late may close meanwhile: the count never ends above where it began).
    EXPECT_LE(g2g::test::open_frame_fd_count(), frame_fds) << "the exported images' descriptors";
}

// A view of Vulkan frames crosses as its view: vulkanupload writes the frame the view reads into
// g2gipcsink's exportable images (g2gview passes that pool on for its input's caps; on 1.22 the
// producer copies the frame once into exportable images) and the consumer that reads views (its caps say
// meta:G2gTensorView, so a frame without its view would be refused there) makes the view again over its
// import and writes it dense itself; a consumer of dense images gets the view written once by the producer's
// shader into exportable images. Both equal videoflip's, and a consumer of system memory is told where to
// write them as system memory.
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
    ExportedSeen seen;
    const auto producer = ipc_test::run_producer(
        source(frames, "is-live=true") +
            " ! vulkanupload ! g2gview video-direction=90r ! identity name=tap ! g2gipcsink name=ipc "
            "min-consumers=2 queue-full=wait sync=false socket-path=" +
            scratch.path("socket"),
        seen.tap());
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
    // The frame the view reads, as vulkanupload wrote it (1.22: copied once on the device) for the
    // view's consumer; the view written dense once for the other.
    expect_frames_written_into_the_pool(seen, frames, upload_takes_our_pool());
    EXPECT_EQ(producer->stat("copies"), upload_takes_our_pool() ? 0u : guint64(frames));
    EXPECT_EQ(producer->stat("conversions.VulkanTexture-to-VulkanTexture"), guint64(frames));
    // No descriptor this stream opened stays open (an earlier test's memfd that GStreamer lets go of
    // late may close meanwhile: the count never ends above where it began).
    EXPECT_LE(g2g::test::open_frame_fd_count(), frame_fds) << "the exported images' descriptors";
}

namespace {

// A producer `source ! writer ! g2gipcsink` whose writer writes its frames into exportable images
// (g2gipcsink's pool, or g2gconvert's own), and one consumer `g2gipcsrc ! chain`: every frame the
// producer sends is of those images, none is copied or converted, and the consumer receives what
// `source ! peer` makes.
void expect_crossing_as_they_are(const std::string &source, int frames, const std::string &writer,
                                 const std::string &chain, const std::string &peer, std::size_t pooled = 12)
{
    Scratch scratch("g2g-ipc");
    Consumer images(scratch, "images", chain);
    ExportedSeen seen;
    const auto producer = ipc_test::run_producer(
        source + " ! " + writer +
            " ! identity name=tap ! g2gipcsink name=ipc min-consumers=1 queue-full=wait sync=false "
            "socket-path=" +
            scratch.path("socket"),
        seen.tap());
    EXPECT_EQ(producer->error, "");
    EXPECT_TRUE(producer->complaints.empty()) << producer->complaints.front();
    EXPECT_EQ(images.wait(), 0) << images.said();
    const PipelineRun expected =
        run_pipeline(source + " ! " + peer + " ! appsink name=sink sync=false", {}, 120 * GST_SECOND);
    ASSERT_EQ(expected.buffers.size(), static_cast<std::size_t>(frames));
    EXPECT_TRUE(images.received() == g2g::test::bytes_of(expected.buffers))
        << images.received().size() << " bytes";
    expect_frames_written_into_the_pool(seen, frames, true, pooled);
    ASSERT_NE(producer->stats, nullptr);
    EXPECT_EQ(producer->stat("shares"), guint64(frames));
    EXPECT_EQ(producer->stat("copies"), 0u);
    EXPECT_EQ(producer->stat("conversions"), 0u);
}

} // namespace

// An element that renders into its downstream's pool (vulkancolorconvert, a GstVulkanVideoFilter:
// it keeps the pool it is offered and the usage its configuration names, GStreamer's default when it
// names none, the only one on 1.22) renders into g2gipcsink's exportable images, which have that
// usage's color attachments: its frames cross with no copy, on every version, and equal
// videoconvert's BGRA-to-RGBA.
TEST(IpcProcesses, ARendererUpstreamRendersIntoTheExportedImages)
{
    SKIP_WITHOUT_VULKAN();
    const int frames = 30;
    expect_crossing_as_they_are(
        "videotestsrc num-buffers=" + std::to_string(frames) +
            " pattern=ball ! video/x-raw,format=BGRA,width=64,height=48,framerate=30/1",
        frames, "vulkanupload ! vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA",
        "\"video/x-raw(memory:VulkanImage)\" ! vulkandownload ! video/x-raw,format=RGBA",
        "videoconvert ! video/x-raw,format=RGBA");
}

// g2g's shader writes into g2gipcsink's exportable images (VulkanContextUse::decide_pool keeps
// downstream's export pool on its device), on every version: g2gmaterialize's dense frames of a 90r
// view cross with no copy and no conversion, and equal videoflip's.
TEST(IpcProcesses, G2gsShaderWritesIntoTheExportedImages)
{
    SKIP_WITHOUT_VULKAN();
    const int frames = 30;
    expect_crossing_as_they_are(
        source(frames), frames,
        "vulkanupload ! g2gview video-direction=90r ! g2gmaterialize ! video/x-raw(memory:VulkanImage)",
        "\"video/x-raw(memory:VulkanImage)\" ! vulkandownload ! video/x-raw,format=NV12",
        "videoflip video-direction=90r");
}

// g2gconvert's Vulkan frames are linear images CUDA writes by pitch, each in an exportable allocation
// of its own (cuda_vulkan::SharedImages): they cross as they are, with no copy, and the consumer
// imports them as linear images and reads what the source made. Needs an NVIDIA GPU with NVIDIA's
// Vulkan driver and g2gconvert (the cuda and the vulkan feature).
TEST(IpcProcesses, G2gconvertsFramesCrossAsTheirLinearImages)
{
    SKIP_WITHOUT_VULKAN();
    if (!g2g::test::have_element("g2gconvert") || !g2g::test::have_cuda_device())
        GTEST_SKIP() << "needs g2gconvert (the cuda and the vulkan feature) and a CUDA device";
    const int frames = 30;
    expect_crossing_as_they_are(
        source(frames), frames, "cudaupload ! g2gconvert ! video/x-raw(memory:VulkanImage)",
        "\"video/x-raw(memory:VulkanImage)\" ! vulkandownload ! video/x-raw,format=NV12", "identity");
}

namespace {

// Why the decoder's tests cannot run here ("" where they can): they need a device that decodes H.264
// with Vulkan (NVIDIA's driver on the GPU machine; not lavapipe, and 1.22 has no Vulkan decoder).
std::string no_vulkan_decoder()
{
    if (g2g::test::have_element("vulkanh264dec"))
        return {};
    return g2g::test::gstreamer_version() +
           " registers no vulkanh264dec here: it needs GStreamer 1.24 or later and a Vulkan device that "
           "decodes H.264 (not lavapipe)";
}

// `frames` access units of the 1080p stream, parsed: identity ends the stream in place of unit
// eos-after.
std::string decoder_units(int frames)
{
    return "filesrc location=" + g2g::test::media_path("ball-1920x1080-300f.h264") +
           " ! h264parse ! identity eos-after=" + std::to_string(frames + 1);
}

// The decoder's references are frames of the pool too (its output and references coincide on
// NVIDIA's driver): more of them are in use than the frames in flight.
constexpr std::size_t kDecoderPooled = 40;

} // namespace

// A Vulkan video decoder (vulkanh264dec, GStreamer 1.24 on) keeps its downstream's pool and asks it
// for images of its profile: g2gipcsink's pool makes them exportable (one multi-planar image per
// frame, the coded size: 1920x1088 for this 1080p stream), the decoder decodes into them on its video
// queue, and they cross as they are, the profile with them; the consumer makes the same images of
// the profile over the memory and vulkandownload reads them there. The bytes equal vulkandownload's
// of the decoder's frames in one process.
TEST(IpcProcesses, AVulkanDecodersFramesCrossAsItsOwnImages)
{
    SKIP_WITHOUT_VULKAN();
    if (const std::string why = no_vulkan_decoder(); !why.empty())
        GTEST_SKIP() << why;
    const int frames = 40;
    expect_crossing_as_they_are(
        decoder_units(frames), frames, "vulkanh264dec ! video/x-raw(memory:VulkanImage)",
        "\"video/x-raw(memory:VulkanImage)\" ! vulkandownload ! video/x-raw,format=NV12",
        "vulkanh264dec ! vulkandownload ! video/x-raw,format=NV12", kDecoderPooled);
}

// A view of a Vulkan decoder's frames (g2gview passes g2gipcsink's pool on to the decoder) crosses
// as a view over the decoder's own images: the consumer makes the view again over its import of the
// multi-planar image and g2gmaterialize writes it dense there; the bytes equal videoflip's of
// vulkandownload's frames in one process. Nothing is copied or converted in the producer.
TEST(IpcProcesses, AViewOfAVulkanDecodersFramesCrossesAsAViewOfItsImages)
{
    SKIP_WITHOUT_VULKAN();
    if (const std::string why = no_vulkan_decoder(); !why.empty())
        GTEST_SKIP() << why;
    const int frames = 40;
    expect_crossing_as_they_are(
        decoder_units(frames), frames, "vulkanh264dec ! g2gview video-direction=90r",
        "\"video/x-raw(memory:VulkanImage,meta:G2gTensorView)\" ! g2gmaterialize ! video/x-raw,format=NV12",
        "vulkanh264dec ! vulkandownload ! videoflip video-direction=90r ! video/x-raw,format=NV12",
        kDecoderPooled);
}
