// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA frames to Vulkan images and back on the GPU (g2gconvert, and g2gtee's conversions through
// it), against GStreamer's own host round trip on the same frames: nvh264dec's output of both
// sample streams reaches vulkandownload as cudadownload sees it, vulkanupload's frames reach
// cudadownload unchanged, views cross written by one pass, frames g2g already shares cross with
// none, and a tee's Vulkan branch costs no host round trip. Needs an NVIDIA GPU with NVIDIA's Vulkan
// driver and a g2g built with CUDA and Vulkan: elsewhere every test skips, saying why.
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "frames.h"
#include "pipeline.h"
#include "tee-stats.h"
#include "vulkan-cases.h"
#include "vulkan-device.h"

#include "platform/cuda-vulkan/cuda-vulkan-bridge.h"
#include "platform/platform.h"

#include <array>
#include <cstdio>
#include <optional>
#include <string>

using g2g::test::compare_frames;
using g2g::test::expect_same_frames;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::video_info_of_caps;

namespace {

constexpr const char *kStreams[] = {"ball-1920x1080-300f.h264", "smpte-3840x2160-120f.h264"};
constexpr GstClockTime kLong = 120 * GST_SECOND;

std::string skip_reason(bool needs_decoder)
{
    if (!g2g::test::have_element("g2gconvert"))
        return "g2gconvert is not built here (it needs the cuda and the vulkan feature)";
    if (!g2g::test::have_cuda_device())
        return "no CUDA device (cudaupload/cudadownload) on this machine";
    if (!g2g::test::have_vulkan_device())
        return "no Vulkan device (vulkanupload) on this machine";
    if (needs_decoder && !g2g::test::have_element("nvh264dec"))
        return "no nvh264dec (NVDEC) on this machine";
    return {};
}

#define SKIP_WITHOUT_GPU(needs_decoder)                                                                      \
    if (const std::string why = skip_reason(needs_decoder); !why.empty())                                    \
    GTEST_SKIP() << why

std::string decoded(const std::string &path)
{
    return "filesrc location=" + path + " ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory)";
}

constexpr const char *kFromVulkan = " ! video/x-raw(memory:VulkanImage) ! vulkandownload ! video/x-raw "
                                    "! appsink name=sink sync=false";
// g2g's own download of the images as they are: GStreamer 1.22's vulkandownload shifts the rows of
// 8-bit planes whose width is not a multiple of 4 (docs/design-notes.md), so frames of such widths
// are read this way.
constexpr const char *kFromVulkanExactly =
    " ! video/x-raw(memory:VulkanImage) ! g2gmaterialize ! video/x-raw "
    "! appsink name=sink sync=false";
constexpr const char *kFromCuda = " ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw "
                                  "! appsink name=sink sync=false";

// A uint64 property of the element named `name` of the pipeline, read at its end.
struct Counters {
    guint64 written = 0, shared = 0, allocated = 0;
};

g2g::test::PipelineInspector read_counters(const char *name, Counters &into)
{
    return [name, &into](GstBin *bin) {
        GstElement *element = gst_bin_get_by_name(bin, name);
        if (!element)
            return;
        g_object_get(element, "frames-written", &into.written, "frames-shared", &into.shared,
                     "shared-frames-allocated", &into.allocated, nullptr);
        gst_object_unref(element);
    };
}

std::string source_of(const char *format, const char *size, int frames = 5)
{
    return std::string("videotestsrc num-buffers=") + std::to_string(frames) +
           " pattern=ball ! video/x-raw,format=" + format + "," + size;
}

} // namespace

TEST(CudaVulkan, DecodedFramesReachVulkanAsCudadownloadSeesThem)
{
    SKIP_WITHOUT_GPU(true);
    for (const char *stream : kStreams) {
        const std::string path = g2g::test::media_path(stream);
        if (path.empty())
            GTEST_SKIP() << "sample stream " << stream << " not on this machine";
        Counters counters;
        PipelineRun ours = run_pipeline(decoded(path) + " ! g2gconvert name=convert" + kFromVulkan, {}, kLong,
                                        read_counters("convert", counters));
        PipelineRun peer = run_pipeline(
            decoded(path) + " ! cudadownload ! video/x-raw ! appsink name=sink sync=false", {}, kLong);
        expect_same_frames(ours, peer, stream);
        // One pass per frame (nvh264dec's memory cannot be exported), none through the host.
        EXPECT_EQ(counters.written, ours.buffers.size()) << stream;
        EXPECT_EQ(counters.shared, 0u) << stream;
    }
}

TEST(CudaVulkan, UploadedFramesReachCudaUnchanged)
{
    SKIP_WITHOUT_GPU(false);
    // Widths whose 8-bit rows vulkanupload copies right (GStreamer 1.22 misreads padded ones:
    // docs/design-notes.md), in each format both sides have (cudadownload has no GRAY8).
    for (const char *format : {"NV12", "I420", "RGBA", "BGRA", "Y444"}) {
        if (const std::string why = g2g::test::vulkanupload_cannot_make(format); !why.empty()) {
            std::printf("%s: not tried, %s\n", format, why.c_str());
            continue;
        }
        for (const char *size : {"width=1920,height=1080", "width=64,height=48", "width=8,height=2"}) {
            const std::string what = std::string(format) + " " + size;
            Counters counters;
            PipelineRun ours = run_pipeline(source_of(format, size) +
                                                " ! vulkanupload ! g2gconvert name=convert" + kFromCuda,
                                            {}, kLong, read_counters("convert", counters));
            PipelineRun peer = run_pipeline(source_of(format, size) + " ! appsink name=sink");
            expect_same_frames(ours, peer, what);
            EXPECT_EQ(counters.written, 5u) << what;
        }
    }
}

TEST(CudaVulkan, UploadedCudaFramesReachVulkanUnchanged)
{
    SKIP_WITHOUT_GPU(false);
    for (const char *format : {"NV12", "I420", "RGBA", "BGRx"}) {
        for (const char *size : {"width=1280,height=720", "width=318,height=242", "width=1,height=1"}) {
            const std::string what = std::string(format) + " " + size;
            PipelineRun ours = run_pipeline(source_of(format, size) +
                                            " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! g2gconvert" +
                                            kFromVulkanExactly);
            PipelineRun peer = run_pipeline(source_of(format, size) + " ! appsink name=sink");
            expect_same_frames(ours, peer, what);
        }
    }
}

TEST(CudaVulkan, RotatedCudaViewReachesVulkanWrittenByOneKernel)
{
    SKIP_WITHOUT_GPU(true);
    const std::string path = g2g::test::media_path(kStreams[0]);
    if (path.empty())
        GTEST_SKIP() << "sample stream " << kStreams[0] << " not on this machine";
    for (const char *view :
         {"video-direction=90r", "video-direction=ur-ll left=17 top=9 right=31 bottom=5"}) {
        Counters counters;
        PipelineRun ours =
            run_pipeline(decoded(path) + " ! g2gview " + view +
                             " ! video/x-raw(memory:CUDAMemory, meta:G2gTensorView) ! g2gconvert "
                             "name=convert" +
                             kFromVulkanExactly,
                         {}, kLong, read_counters("convert", counters));
        PipelineRun peer = run_pipeline(decoded(path) + " ! cudadownload ! video/x-raw ! g2gview " + view +
                                            " ! video/x-raw ! appsink name=sink sync=false",
                                        {}, kLong);
        expect_same_frames(ours, peer, view);
        EXPECT_EQ(counters.written, ours.buffers.size()) << view;
    }
}

TEST(CudaVulkan, VulkanViewReachesCudaAsVideoflipWritesIt)
{
    SKIP_WITHOUT_GPU(false);
    for (const char *format : {"NV12", "RGBA"}) {
        for (const char *method : {"90r", "vert", "ul-lr"}) {
            const std::string what = std::string(format) + " " + method;
            const std::string source = source_of(format, "width=640,height=480");
            PipelineRun ours = run_pipeline(
                source + " ! vulkanupload ! g2gview video-direction=" + method +
                " ! video/x-raw(memory:VulkanImage, meta:G2gTensorView) ! g2gconvert" + kFromCuda);
            PipelineRun peer =
                run_pipeline(source + " ! videoflip video-direction=" + method + " ! appsink name=sink");
            expect_same_frames(ours, peer, what);
        }
    }
}

// Two converters in a row, each way: a one-plane frame g2g shares already crosses back with no pass
// (its image's allocation is one CUDA memory); a frame of more planes crosses with one copy (its
// planes' allocations are apart, shared-frame.h); all of them unchanged.
TEST(CudaVulkan, FramesG2gSharesAlreadyCrossBackWithoutAPass)
{
    SKIP_WITHOUT_GPU(false);
    struct Case {
        const char *format;
        const char *upload;    // the first domain
        const char *between;   // caps between the two converters
        const char *to_host;   // the second converter's output, to the appsink
        guint64 second_shared; // frames the second converter handed on with no pass
    };
    const Case cases[] = {
        {"RGBA", "cudaupload", "video/x-raw(memory:VulkanImage)", kFromCuda, 8},
        {"NV12", "cudaupload", "video/x-raw(memory:VulkanImage)", kFromCuda, 0},
        {"RGBA", "vulkanupload", "video/x-raw(memory:CUDAMemory)", kFromVulkan, 0},
        {"NV12", "vulkanupload", "video/x-raw(memory:CUDAMemory)", kFromVulkan, 0},
    };
    for (const Case &c : cases) {
        const std::string what = std::string(c.format) + " from " + c.upload;
        const std::string source = source_of(c.format, "width=640,height=480", 8);
        Counters first, second;
        PipelineRun ours = run_pipeline(source + " ! " + c.upload + " ! g2gconvert name=first ! " +
                                            c.between + " ! g2gconvert name=second" + c.to_host,
                                        {}, kLong, [&](GstBin *bin) {
                                            read_counters("first", first)(bin);
                                            read_counters("second", second)(bin);
                                        });
        PipelineRun peer = run_pipeline(source + " ! appsink name=sink");
        expect_same_frames(ours, peer, what);
        EXPECT_EQ(first.written, 8u) << what;
        EXPECT_EQ(second.shared, c.second_shared) << what;
        EXPECT_EQ(second.written, 8u - c.second_shared) << what;
    }
}

TEST(CudaVulkan, DifferentGpusAreRefusedNamingBoth)
{
    if (!g2g::platform::cuda_vulkan::built())
        GTEST_SKIP() << "g2g is built without the CUDA-Vulkan bridge here";
    const std::array<guint8, 16> h200 = {0xa2, 0x5e, 0x94, 0x67, 0x42, 0x0c, 0xc8, 0xe9,
                                         0x5f, 0x27, 0x33, 0x3f, 0x13, 0xf7, 0xc1, 0x07};
    std::array<guint8, 16> other = h200;
    other[15] = 0x08;
    EXPECT_FALSE(g2g::cuda_vulkan::Bridge::different_gpus(
        "CUDA device 0 'NVIDIA H200'", h200, "Vulkan device 'NVIDIA H200' (VkDevice 0x1)", h200));
    const std::optional<g2g::Error> refused = g2g::cuda_vulkan::Bridge::different_gpus(
        "CUDA device 0 'NVIDIA H200'", h200, "Vulkan device 'llvmpipe' (VkDevice 0x1)", other);
    ASSERT_TRUE(refused);
    EXPECT_EQ(
        refused->message(),
        "the CUDA device 0 'NVIDIA H200' (GPU a25e9467-420c-c8e9-5f27-333f13f7c107) and the Vulkan device "
        "'llvmpipe' (VkDevice 0x1) (GPU a25e9467-420c-c8e9-5f27-333f13f7c108) are different GPUs: CUDA and "
        "Vulkan share memory only on one GPU; give the pipeline the Vulkan device of that GPU (GstContext "
        "gst.vulkan.device) or the CUDA context of the Vulkan device's GPU (gst.cuda.context)");
}

TEST(CudaVulkan, SharedFramesAreReusedNotAllocatedPerFrame)
{
    SKIP_WITHOUT_GPU(true);
    const std::string path = g2g::test::media_path(kStreams[0]);
    if (path.empty())
        GTEST_SKIP() << "sample stream " << kStreams[0] << " not on this machine";
    Counters counters;
    PipelineRun run = run_pipeline(decoded(path) + " ! g2gconvert name=convert ! vulkandownload ! fakesink",
                                   {}, kLong, read_counters("convert", counters));
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(counters.written, 300u);
    EXPECT_GE(counters.allocated, 1u);
    EXPECT_LE(counters.allocated, 8u) << "a frame per frame in flight, not one per frame";
}

TEST(CudaVulkan, TeeFeedsCudaVulkanAndSystemBranchesWithoutAHostRoundTrip)
{
    SKIP_WITHOUT_GPU(true);
    const std::string path = g2g::test::media_path(kStreams[0]);
    if (path.empty())
        GTEST_SKIP() << "sample stream " << kStreams[0] << " not on this machine";
    guint64 to_vulkan = 0, to_system = 0, round_trips = 99, frames = 0;
    std::string vulkan_converter;
    PipelineRun ours =
        run_pipeline(decoded(path) + " ! g2gtee name=t"
                                     " t. ! queue ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
                                     "video/x-raw ! appsink name=cuda sync=false"
                                     " t. ! queue ! video/x-raw(memory:VulkanImage) ! vulkandownload ! "
                                     "video/x-raw ! appsink name=vulkan sync=false"
                                     " t. ! queue ! video/x-raw ! appsink name=sink sync=false",
                     {}, kLong, [&](GstBin *bin) {
                         GstElement *tee = gst_bin_get_by_name(bin, "t");
                         frames = g2g::test::tee_stat(tee, "frames");
                         to_vulkan = g2g::test::tee_conversions(tee, "Cuda-to-VulkanTexture");
                         to_system = g2g::test::tee_conversions(tee, "Cuda-to-System");
                         round_trips = g2g::test::tee_stat(tee, "host-round-trips");
                         vulkan_converter = g2g::test::tee_converter(tee, "Cuda-to-VulkanTexture");
                         gst_object_unref(tee);
                     });
    PipelineRun peer = run_pipeline(
        decoded(path) + " ! cudadownload ! video/x-raw ! appsink name=sink sync=false", {}, kLong);
    for (const char *branch : {"cuda", "vulkan", "sink"})
        expect_same_frames(ours, peer, std::string("branch ") + branch, branch);
    EXPECT_EQ(frames, 300u);
    EXPECT_EQ(to_vulkan, 300u) << "one conversion per frame for the Vulkan branch";
    EXPECT_EQ(to_system, 300u);
    EXPECT_EQ(vulkan_converter, "g2gconvert");
    EXPECT_EQ(round_trips, 0u) << "the Vulkan branch's frames never went through host memory";
}

TEST(CudaVulkan, TeeFeedsACudaBranchFromVulkanFrames)
{
    SKIP_WITHOUT_GPU(false);
    const std::string source = source_of("NV12", "width=640,height=480", 6);
    guint64 to_cuda = 0, round_trips = 99;
    PipelineRun ours = run_pipeline(
        source +
            " ! vulkanupload ! g2gtee name=t"
            " t. ! queue ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! appsink name=cuda"
            " t. ! queue ! video/x-raw(memory:VulkanImage) ! vulkandownload ! video/x-raw ! appsink "
            "name=sink",
        {}, kLong, [&](GstBin *bin) {
            GstElement *tee = gst_bin_get_by_name(bin, "t");
            to_cuda = g2g::test::tee_conversions(tee, "VulkanTexture-to-Cuda");
            round_trips = g2g::test::tee_stat(tee, "host-round-trips");
            gst_object_unref(tee);
        });
    PipelineRun peer = run_pipeline(source + " ! appsink name=sink");
    for (const char *branch : {"cuda", "sink"})
        expect_same_frames(ours, peer, std::string("branch ") + branch, branch);
    EXPECT_EQ(to_cuda, 6u);
    EXPECT_EQ(round_trips, 0u);
}

TEST(CudaVulkan, DeviceOpenedWithoutTheSharingExtensionIsRefusedByName)
{
    SKIP_WITHOUT_GPU(false);
    // The application's device, opened by GStreamer without VK_KHR_external_memory_fd.
    g2g::test::SharedVulkanDevice device;
    PipelineRun run = run_pipeline(
        source_of("NV12", "width=64,height=48", 2) + " ! vulkanupload ! g2gconvert name=convert" + kFromCuda,
        {}, kLong, {}, [&](GstBin *pipeline) { device.give_to(GST_ELEMENT(pipeline)); });
    EXPECT_EQ(run.error_source, "convert");
    EXPECT_NE(
        run.error.find("was opened without VK_KHR_external_memory_fd, which sharing memory with CUDA needs"),
        std::string::npos)
        << run.error;
}

namespace {

GstPadProbeReturn set_caps_after_four(GstPad *pad, GstPadProbeInfo *, gpointer count)
{
    if (++*static_cast<int *>(count) == 4) {
        GstElement *filter = gst_pad_get_parent_element(pad);
        GstCaps *caps = gst_caps_from_string("video/x-raw,format=NV12,width=320,height=240");
        g_object_set(filter, "caps", caps, nullptr);
        gst_caps_unref(caps);
        gst_object_unref(filter);
    }
    return GST_PAD_PROBE_OK;
}

} // namespace

// The size changes after 4 frames, upstream of the conversion, each way: every frame arrives
// right, in its own size (the shared frames of the old size are dropped, new ones made).
TEST(CudaVulkan, ASizeChangedMidStreamCrossesRight)
{
    SKIP_WITHOUT_GPU(false);
    const std::string source = "videotestsrc num-buffers=10 pattern=ball ! capsfilter name=size "
                               "caps=\"video/x-raw,format=NV12,width=640,height=480\"";
    for (const char *chain :
         {"cudaupload ! g2gconvert ! video/x-raw(memory:VulkanImage) ! g2gmaterialize ! video/x-raw",
          "vulkanupload ! g2gconvert ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw"}) {
        int ours = 0;
        PipelineRun run = run_pipeline(source + " ! tee name=t t. ! queue ! " + chain +
                                           " ! appsink name=sink t. ! queue ! appsink name=sent",
                                       {}, kLong, {}, [&](GstBin *pipeline) {
                                           GstElement *filter = gst_bin_get_by_name(pipeline, "size");
                                           GstPad *pad = gst_element_get_static_pad(filter, "src");
                                           gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER,
                                                             set_caps_after_four, &ours, nullptr);
                                           gst_object_unref(pad);
                                           gst_object_unref(filter);
                                       });
        ASSERT_EQ(run.error, "") << chain;
        const auto &got = run.sinks.at("sink");
        const auto &want = run.sinks.at("sent");
        ASSERT_EQ(got.size(), 10u) << chain;
        ASSERT_EQ(want.size(), 10u) << chain;
        ASSERT_NE(run.frame_caps.at("sink").front(), run.frame_caps.at("sink").back())
            << "the size never changed";
        for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_EQ(compare_frames(video_info_of_caps(run.frame_caps.at("sink")[i]), got[i].get(),
                                     video_info_of_caps(run.frame_caps.at("sent")[i]), want[i].get()),
                      "")
                << chain << ", frame " << i;
    }
}

TEST(CudaVulkan, WithoutTheCudaDriverTheErrorSaysSo)
{
    if (!g2g::test::have_element("g2gconvert"))
        GTEST_SKIP() << "g2gconvert is not built here (it needs the cuda and the vulkan feature)";
    if (g2g::test::have_cuda_device() || !g2g::test::have_vulkan_device())
        GTEST_SKIP() << "for a machine with Vulkan but without CUDA";
    PipelineRun run = run_pipeline(source_of("NV12", "width=64,height=48", 2) +
                                   " ! vulkanupload ! g2gconvert name=convert ! fakesink");
    EXPECT_EQ(run.error_source, "convert");
    EXPECT_EQ(run.error,
              "CUDA frames need the NVIDIA driver's CUDA library, which does not load on this machine");
}

TEST(CudaVulkan, FormatsNeitherSideSharesAreRefusedInCaps)
{
    SKIP_WITHOUT_GPU(false);
    PipelineRun run =
        run_pipeline(source_of("YUY2", "width=64,height=48", 2) +
                     " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! g2gconvert" + kFromVulkan);
    // Refused in caps (YUY2 is in neither side's formats): the pipeline does not even link. g2gconvert
    // takes YUY2 CUDA frames for its DMA-BUF route, so the link that fails is the one to the Vulkan
    // side: its YUY2 caps offer no Vulkan images.
    EXPECT_NE(run.error.find("could not link g2gconvert"), std::string::npos) << run.error;
    EXPECT_NE(run.error.find("to vulkandownload"), std::string::npos) << run.error;
    EXPECT_NE(run.error.find("can't handle caps video/x-raw(memory:VulkanImage)"), std::string::npos)
        << run.error;
    EXPECT_TRUE(run.buffers.empty());
}
