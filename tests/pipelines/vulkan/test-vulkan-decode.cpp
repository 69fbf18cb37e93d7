// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24's Vulkan video decoder (vulkanh264dec: VulkanImage frames straight from the
// decoder, one multi-planar image per frame) through g2gview, g2gmaterialize, g2gtee and
// g2gconvert, against what users run today on the same GPU and streams: nvh264dec ! cudadownload !
// videoflip. GStreamer registers vulkanh264dec, like nvh264dec, only where a device decodes H.264
// (not on lavapipe, and 1.22 has none): elsewhere every test skips, saying why. Runs on the GPU
// machine with a 1.26 build.
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "frames.h"
#include "pipeline.h"
#include "tee-stats.h"

#include <string>

using g2g::test::expect_same_frames;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;

namespace {

constexpr const char *kStreams[] = {"ball-1920x1080-300f.h264", "smpte-3840x2160-120f.h264"};
constexpr GstClockTime kLong = 120 * GST_SECOND;
// Access units decoded per stream: enough to cross reference frames of both streams. Counted before
// the decoder, so both decoders get the same units and drain all of them: counted after it, the
// stream ends where each decoder happens to be (nvh264dec drains two more frames past identity's
// EOS than vulkanh264dec, seen on the H200).
constexpr const char *kUnits = " ! h264parse ! identity eos-after=40";

std::string skip_reason()
{
    if (const std::string missing = g2g::test::vulkan_not_in_gstreamer(); !missing.empty())
        return missing;
    if (!g2g::test::have_element("vulkanh264dec"))
        return g2g::test::gstreamer_version() +
               " registers no vulkanh264dec here: it needs GStreamer 1.24 or later and a Vulkan device that "
               "decodes H.264 (not lavapipe)";
    if (!g2g::test::have_element("nvh264dec") || !g2g::test::have_cuda_device())
        return "no nvh264dec and cudadownload (the peer) on this machine";
    return {};
}

#define SKIP_WITHOUT_DECODERS()                                                                              \
    do {                                                                                                     \
        if (const std::string lost = g2g::test::vulkan_domain_lost(); !lost.empty())                         \
            FAIL() << lost;                                                                                  \
        if (const std::string why = skip_reason(); !why.empty())                                             \
            GTEST_SKIP() << why;                                                                             \
    } while (false)

std::string vulkan_decoded(const std::string &stream)
{
    return "filesrc location=" + g2g::test::media_path(stream.c_str()) + kUnits +
           " ! vulkanh264dec ! video/x-raw(memory:VulkanImage)";
}

// What applications do today: NVDEC, a host round trip, GStreamer's CPU flip.
PipelineRun peer(const std::string &stream, const std::string &flip)
{
    // One caps filter between two elements: gst_parse reads a second one in a row as an element.
    return run_pipeline("filesrc location=" + g2g::test::media_path(stream.c_str()) + kUnits +
                            " ! nvh264dec ! cudadownload ! video/x-raw" +
                            (flip.empty() ? "" : " ! videoflip video-direction=" + flip + " ! video/x-raw") +
                            " ! appsink name=sink sync=false",
                        {}, kLong);
}

} // namespace

TEST(VulkanDecode, ARotationOfTheDecodersImagesEqualsNvdecThroughVideoflip)
{
    SKIP_WITHOUT_DECODERS();
    for (const char *stream : kStreams) {
        SCOPED_TRACE(stream);
        // The view keeps the decoder's image; the shader writes the dense frame; vulkandownload reads it.
        const PipelineRun ours = run_pipeline(
            vulkan_decoded(stream) + " ! g2gview video-direction=90r ! g2gmaterialize ! "
                                     "video/x-raw(memory:VulkanImage) ! vulkandownload ! video/x-raw ! "
                                     "appsink name=sink sync=false",
            {}, kLong);
        expect_same_frames(ours, peer(stream, "90r"),
                           "vulkanh264dec ! g2gview 90r ! g2gmaterialize ! vulkandownload");
        // Straight to system memory: g2gmaterialize's own fenced download.
        const PipelineRun to_system = run_pipeline(
            vulkan_decoded(stream) + " ! g2gview video-direction=ur-ll left=8 top=4 ! "
                                     "g2gmaterialize ! video/x-raw ! appsink name=sink sync=false",
            {}, kLong);
        const PipelineRun cropped = run_pipeline(
            "filesrc location=" + g2g::test::media_path(stream) + kUnits +
                " ! nvh264dec ! cudadownload ! videocrop left=8 top=4 ! videoflip video-direction=ur-ll ! "
                "video/x-raw ! appsink name=sink sync=false",
            {}, kLong);
        expect_same_frames(to_system, cropped,
                           "vulkanh264dec ! g2gview ur-ll crop ! g2gmaterialize ! video/x-raw");
    }
}

TEST(VulkanDecode, G2gteeSharesTheDecodersImagesAndDownloadsThemOnceForItsSystemBranches)
{
    SKIP_WITHOUT_DECODERS();
    const char *stream = kStreams[0];
    guint64 frames = 0, downloads = 0, copies = 0;
    const PipelineRun ours = run_pipeline(
        vulkan_decoded(stream) + " ! g2gtee name=t "
                                 "t. ! queue ! g2gview video-direction=90r ! g2gmaterialize ! video/x-raw ! "
                                 "appsink name=sink sync=false "
                                 "t. ! queue ! video/x-raw ! appsink name=dense sync=false "
                                 "t. ! queue ! video/x-raw ! appsink name=dense2 sync=false",
        {}, kLong, [&](GstBin *pipeline) {
            GstElement *tee = gst_bin_get_by_name(pipeline, "t");
            frames = g2g::test::tee_stat(tee, "frames");
            downloads = g2g::test::tee_conversions(tee, "VulkanTexture-to-System");
            copies = g2g::test::tee_stat(tee, "copies");
            gst_object_unref(tee);
        });
    EXPECT_EQ(frames, ours.buffers.size());
    EXPECT_EQ(downloads, frames) << "one download per frame for both system branches";
    EXPECT_EQ(copies, 0u);
    expect_same_frames(ours, peer(stream, "90r"), "g2gtee's view branch");
    const PipelineRun plain = peer(stream, "");
    expect_same_frames(ours, plain, "g2gtee's first system branch", "dense");
    expect_same_frames(ours, plain, "g2gtee's second system branch", "dense2");
}

TEST(VulkanDecode, G2gconvertHandsTheDecodersFramesToCudaOnTheGpu)
{
    SKIP_WITHOUT_DECODERS();
    if (!g2g::test::have_element("g2gconvert"))
        GTEST_SKIP() << "g2gconvert is not built here (it needs the cuda and the vulkan feature)";
    for (const char *stream : kStreams) {
        SCOPED_TRACE(stream);
        const PipelineRun ours = run_pipeline(
            vulkan_decoded(stream) + " ! g2gconvert ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
                                     "video/x-raw ! appsink name=sink sync=false",
            {}, kLong);
        expect_same_frames(ours, peer(stream, ""), "vulkanh264dec ! g2gconvert ! cudadownload");
    }
}
