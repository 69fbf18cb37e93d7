// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA frames through g2gview, g2gmaterialize and g2gtee without leaving the device, against
// GStreamer's own elements on the downloaded frames: nvh264dec's output of both sample streams
// for every video-direction method and crops, cudaupload's for NV12, P010_10LE, I420 and RGBA.
// Needs an NVIDIA GPU (nvh264dec, cudaupload): elsewhere every test skips, saying so.
#include "g2g-config.h"

#include <g2g/cuda-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#if G2G_HAVE_CUDA
#include <gst/cuda/gstcudacontext.h>
#endif
#include <gtest/gtest.h>

#include "frames.h"
#include "pipeline.h"
#include "tee-stats.h"

#include <string>

using g2g::test::expect_same_frames;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;

namespace {

constexpr const char *kMethods[] = {"90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"};
constexpr const char *kStreams[] = {"ball-1920x1080-300f.h264", "smpte-3840x2160-120f.h264"};

std::string skip_reason(bool needs_decoder)
{
    if (!g2g::test::have_cuda_device())
        return "no CUDA device (cudaupload/cudadownload) on this machine";
    if (needs_decoder && !g2g::test::have_element("nvh264dec"))
        return "no nvh264dec (NVDEC) on this machine";
    return {};
}

std::string decoded(const std::string &path)
{
    return "filesrc location=" + path + " ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory)";
}

constexpr const char *kToHost = " ! cudadownload ! video/x-raw ! appsink name=sink sync=false";
constexpr const char *kPeerToHost = " ! cudadownload ! video/x-raw";

} // namespace

TEST(CudaViews, DecodedFramesRotateAndFlipOnTheGpuAsVideoflipDoes)
{
    if (const std::string why = skip_reason(true); !why.empty())
        GTEST_SKIP() << why;
    for (const char *stream : kStreams) {
        const std::string path = g2g::test::media_path(stream);
        if (path.empty())
            GTEST_SKIP() << "sample stream " << stream << " not on this machine";
        for (const char *method : kMethods) {
            const std::string direction = std::string("video-direction=") + method;
            PipelineRun ours =
                run_pipeline(decoded(path) + " ! g2gview " + direction + " ! g2gmaterialize" + kToHost, {},
                             120 * GST_SECOND);
            PipelineRun peer = run_pipeline(decoded(path) + kPeerToHost + " ! videoflip " + direction +
                                                " ! appsink name=sink sync=false",
                                            {}, 120 * GST_SECOND);
            expect_same_frames(ours, peer, std::string(stream) + " " + direction);
        }
    }
}

TEST(CudaViews, DecodedFramesCropOnTheGpuAsVideocropDoes)
{
    if (const std::string why = skip_reason(true); !why.empty())
        GTEST_SKIP() << why;
    // Even and odd crops (odd ones cut through NV12's chroma pairs), and a crop then a rotation.
    const std::pair<const char *, const char *> cases[] = {
        {"left=64 top=32 right=128 bottom=16", ""},
        {"left=17 top=9 right=31 bottom=5", ""},
        {"left=17 top=9 right=31 bottom=5", "90r"},
    };
    for (const char *stream : kStreams) {
        const std::string path = g2g::test::media_path(stream);
        if (path.empty())
            GTEST_SKIP() << "sample stream " << stream << " not on this machine";
        for (const auto &[crop, method] : cases) {
            const std::string direction = *method ? std::string(" video-direction=") + method : "";
            PipelineRun ours =
                run_pipeline(decoded(path) + " ! g2gview " + crop + direction + " ! g2gmaterialize" + kToHost,
                             {}, 120 * GST_SECOND);
            // video/x-raw: cudadownload would pass CUDA caps through to videocrop, which crops
            // only system memory.
            PipelineRun peer = run_pipeline(decoded(path) + kPeerToHost + " ! videocrop " + crop +
                                                (*method ? " ! videoflip" + direction : "") +
                                                " ! appsink name=sink sync=false",
                                            {}, 120 * GST_SECOND);
            expect_same_frames(ours, peer, std::string(stream) + " " + crop + direction);
        }
    }
}

TEST(CudaViews, UploadedFramesOfEveryCudaFormatMatchVideoflip)
{
    if (const std::string why = skip_reason(false); !why.empty())
        GTEST_SKIP() << why;
    for (const char *format : {"NV12", "P010_10LE", "I420", "RGBA"}) {
        // videoflip 1.22 has no P010_10LE: there the oracle is g2gview on the CPU, itself checked
        // against videoflip for every format videoflip has (view-vs-peers).
        const bool videoflip_has_it = std::string(format) != "P010_10LE";
        for (const char *size : {"width=1280,height=720", "width=318,height=242"}) {
            const std::string source =
                std::string("videotestsrc num-buffers=4 pattern=ball ! video/x-raw,format=") + format + "," +
                size;
            for (const char *method : kMethods) {
                const std::string direction = std::string("video-direction=") + method;
                PipelineRun ours =
                    run_pipeline(source + " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! g2gview " +
                                 direction + " ! g2gmaterialize" + kToHost);
                PipelineRun peer =
                    run_pipeline(source + (videoflip_has_it ? " ! videoflip " : " ! g2gview ") + direction +
                                 " ! appsink name=sink");
                expect_same_frames(ours, peer, std::string(format) + " " + size + " " + direction);
            }
        }
    }
}

TEST(CudaViews, ViewsStayInDeviceMemoryAndG2gviewMaterializesForCudaPeers)
{
    if (const std::string why = skip_reason(true); !why.empty())
        GTEST_SKIP() << why;
    const std::string path = g2g::test::media_path(kStreams[0]);
    if (path.empty())
        GTEST_SKIP() << "sample stream not on this machine";
    // The view out is the decoder's own device memory (g2gview holds the decoded frame as its
    // parent) with a view meta, in the Cuda domain.
    int frames = 0, views = 0, same_memory = 0;
    std::string domain;
    PipelineRun run = run_pipeline(
        decoded(path) + " ! g2gview video-direction=90l ! g2gprobe name=tap ! g2gmaterialize" + kToHost,
        [&](GstBuffer *buffer) {
            ++frames;
            views += g2g::tensor_view_of(buffer) != nullptr;
            GstParentBufferMeta *parent = gst_buffer_get_parent_buffer_meta(buffer);
            same_memory +=
                parent && gst_buffer_peek_memory(parent->buffer, 0) == gst_buffer_peek_memory(buffer, 0);
        },
        120 * GST_SECOND,
        [&](GstBin *pipeline) {
            GstElement *probe = gst_bin_get_by_name(pipeline, "tap");
            gchar *last = nullptr;
            g_object_get(probe, "last-domain", &last, nullptr);
            domain = last ? last : "";
            g_free(last);
            gst_object_unref(probe);
        });
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(frames, 300);
    EXPECT_EQ(views, frames);
    EXPECT_EQ(same_memory, frames);
    EXPECT_EQ(domain, "Cuda");
    // g2gmaterialize with no CUDA pool offered downstream: it makes its own.
    PipelineRun own_pool = run_pipeline(decoded(path) +
                                            " ! g2gview video-direction=90l ! g2gmaterialize ! "
                                            "identity drop-allocation=true" +
                                            kToHost,
                                        {}, 120 * GST_SECOND);
    // g2gview straight into cudadownload (plain memory:CUDAMemory): it materializes on the GPU.
    PipelineRun direct =
        run_pipeline(decoded(path) + " ! g2gview video-direction=90l" + kToHost, {}, 120 * GST_SECOND);
    PipelineRun peer =
        run_pipeline(decoded(path) + kPeerToHost + " ! videoflip video-direction=90l ! appsink name=sink", {},
                     120 * GST_SECOND);
    expect_same_frames(direct, peer, "g2gview alone, 90l");
    expect_same_frames(own_pool, peer, "g2gmaterialize with its own CUDA pool, 90l");
}

TEST(CudaViews, TeeFeedsCudaBranchesTheDeviceFrameAndSystemBranchesOneSharedDownload)
{
    if (const std::string why = skip_reason(true); !why.empty())
        GTEST_SKIP() << why;
    const std::string path = g2g::test::media_path(kStreams[0]);
    if (path.empty())
        GTEST_SKIP() << "sample stream not on this machine";
    guint64 frames = 0, downloads = 0;
    PipelineRun run = run_pipeline(
        decoded(path) +
            " ! g2gtee name=t "
            "t. ! queue ! g2gprobe name=gpu require=cuda ! cudadownload ! appsink name=sink sync=false "
            "t. ! queue ! appsink name=s1 sync=false caps=video/x-raw "
            "t. ! queue ! appsink name=s2 sync=false caps=video/x-raw "
            "t. ! queue ! appsink name=s3 sync=false caps=video/x-raw",
        {}, 120 * GST_SECOND, [&](GstBin *pipeline) {
            GstElement *tee = gst_bin_get_by_name(pipeline, "t");
            frames = g2g::test::tee_stat(tee, "frames");
            downloads = g2g::test::tee_conversions(tee, "Cuda-to-System");
            gst_object_unref(tee);
        });
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(frames, 300u);
    EXPECT_EQ(downloads, frames)
        << "one device-to-host copy per frame, whatever the number of system branches";
    PipelineRun peer =
        run_pipeline(decoded(path) + kPeerToHost + " ! appsink name=sink sync=false", {}, 120 * GST_SECOND);
    for (const char *branch : {"s1", "s2", "s3"}) {
        expect_same_frames(run, peer, branch, branch);
        for (std::size_t i = 0; i < run.sinks.at(branch).size(); ++i) {
            ASSERT_EQ(gst_buffer_peek_memory(run.sinks.at(branch)[i].get(), 0),
                      gst_buffer_peek_memory(run.sinks.at("s1")[i].get(), 0))
                << branch << " frame " << i << ": the one download, shared";
            ASSERT_FALSE(g2g::cuda::is_device_frame(run.sinks.at(branch)[i].get()))
                << branch << " frame " << i << ": downloaded, not CUDA memory under system caps";
        }
    }
    expect_same_frames(run, peer, "the Cuda branch");
}

#if G2G_HAVE_CUDA
TEST(CudaViews, AFrameOnAnotherGpuIsRefusedNamingBothDevices)
{
    if (const std::string why = skip_reason(false); !why.empty())
        GTEST_SKIP() << why;
    GstCudaContext *second = gst_cuda_context_new(1);
    if (!second)
        GTEST_SKIP() << "one CUDA device here; this needs two";
    gst_object_unref(second);
    // g2gmaterialize is handed device 0's context; the frames come from device 1.
    GstCudaContext *first = gst_cuda_context_new(0);
    GstContext *context = gst_context_new(GST_CUDA_CONTEXT_TYPE, TRUE);
    gst_structure_set(gst_context_writable_structure(context), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT,
                      first, nullptr);
    g2g::test::PipelineRun run;
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(
        "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,height=64 ! cudaupload "
        "cuda-device-id=1 ! "
        "video/x-raw(memory:CUDAMemory) ! g2gview video-direction=90r ! g2gmaterialize name=dense ! "
        "cudadownload cuda-device-id=1 ! fakesink",
        &error);
    ASSERT_EQ(error, nullptr);
    GstElement *dense = gst_bin_get_by_name(GST_BIN(pipeline), "dense");
    gst_element_set_context(dense, context);
    gst_object_unref(dense);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(message, nullptr);
    ASSERT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_ERROR);
    GError *failure = nullptr;
    gst_message_parse_error(message, &failure, nullptr);
    EXPECT_NE(std::string(failure->message).find("on CUDA device 1 but the output is on CUDA device 0"),
              std::string::npos)
        << failure->message;
    g_error_free(failure);
    gst_message_unref(message);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    gst_context_unref(context);
    gst_object_unref(first);
}
#endif
