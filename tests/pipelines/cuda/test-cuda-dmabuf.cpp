// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA frames as DMA-BUFs (g2gconvert's memory:DMABuf output, and g2gtee's DMABuf branches through
// it), as a consumer of the fd sees them: every frame one DMA-BUF of the CUDA memory itself (not
// mappable, linear, its planes at the CUDA pitch, the fd as large as its pages), each CUDA memory
// exported once however often its pool hands it out, every fd closed when the pipeline stops, and
// the bytes, read back through whatever importer the machine has, cudadownload's. Where no importer
// reads them the test says what each one answered (dmabuf-readback.h). The pipeline tests need an
// NVIDIA GPU whose driver exports DMA-BUFs and a g2g built with cuda and dmabuf; elsewhere they skip,
// saying why. The range and caps tests run wherever g2g is built (the caps ones with g2gconvert).
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "dmabuf-consumer.h"
#include "dmabuf-readback.h"
#include "frames.h"
#include "log-capture.h"
#include "pipeline.h"
#include "tee-stats.h"

#include "platform/cuda-dmabuf/cuda-dmabuf.h"
#include "platform/platform.h"

#include <iostream>
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using g2g::cuda_dmabuf::export_range;
using g2g::cuda_dmabuf::ExportRange;
using g2g::test::DmaBufConsumer;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::video_info_of_caps;

namespace {

constexpr const char *kStream = "ball-1920x1080-300f.h264";
constexpr GstClockTime kLong = 120 * GST_SECOND;

std::string skip_reason(bool needs_decoder)
{
    if (!g2g::platform::cuda_dmabuf::built())
        return "g2g is built without CUDA frames as DMA-BUFs (it needs the cuda and the dmabuf feature)";
    if (!g2g::test::have_element("g2gconvert"))
        return "no g2gconvert in this build";
    if (!g2g::test::have_cuda_device())
        return "no CUDA device (cudaupload/cudadownload) on this machine";
    if (needs_decoder && !g2g::test::have_element("nvh264dec"))
        return "no nvh264dec (NVDEC) on this machine";
    if (g2g::Result<void> exports = g2g::cuda_dmabuf::check_device(0); !exports)
        return "CUDA device 0 exports no DMA-BUFs: " + exports.error().message();
    return {};
}

#define SKIP_WITHOUT_GPU(needs_decoder)                                                                      \
    if (const std::string why = skip_reason(needs_decoder); !why.empty())                                    \
    GTEST_SKIP() << why

std::string decoded(const std::string &path)
{
    return "filesrc location=" + path + " ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory)";
}

// What the consumer reports for the lead to quote: one line each, marked.
void say(const std::string &line)
{
    std::cout << "[ consumer ] " << line << std::endl;
}

// The element named `name`'s uint64 property `property`, read at the pipeline's end.
g2g::test::PipelineInspector read_property(const char *name, const char *property, guint64 &into)
{
    return [name, property, &into](GstBin *bin) {
        if (GstElement *element = gst_bin_get_by_name(bin, name)) {
            g_object_get(element, property, &into, nullptr);
            gst_object_unref(element);
        }
    };
}

} // namespace

// ---- The exported range (no GPU needed) ----

TEST(ExportRange, APageAlignedMemoryIsExportedFromItsFirstByte)
{
    EXPECT_EQ(export_range(0x7f0000200000, 3317760, 4096), (ExportRange{0x7f0000200000, 3317760, 0}));
    // A size that is no multiple of the page: rounded up to the next page.
    EXPECT_EQ(export_range(0x7f0000200000, 185856, 4096), (ExportRange{0x7f0000200000, 188416, 0}));
    EXPECT_EQ(export_range(0x10000, 1, 65536), (ExportRange{0x10000, 65536, 0}));
}

TEST(ExportRange, AnUnalignedMemoryIsExportedWithThePagesAroundIt)
{
    // A small memory the driver placed 512 bytes into a page: the fd starts on that page.
    EXPECT_EQ(export_range(0x7f0000200200, 36864, 4096), (ExportRange{0x7f0000200000, 40960, 0x200}));
    // One that ends exactly on a page boundary takes no page after it.
    EXPECT_EQ(export_range(0x7f0000200e00, 512, 4096), (ExportRange{0x7f0000200000, 4096, 0xe00}));
    EXPECT_EQ(export_range(0x7f0000200e00, 513, 4096), (ExportRange{0x7f0000200000, 8192, 0xe00}));
}

// ---- Caps (g2gconvert built; no GPU needed) ----

namespace {

// g2gconvert's caps on its `pad` ("src" or "sink") when its other side is fixed to `other` (caps
// of its upstream for "src", of its downstream for "sink"), or "not linked: ..." when g2gconvert
// refuses `other` at its link.
std::string caps_beside(const char *pad, const std::string &other)
{
    const std::string description =
        std::string(pad) == "src"
            ? "fakesrc ! capsfilter caps=\"" + other + "\" ! g2gconvert name=c ! fakesink"
            : "fakesrc ! g2gconvert name=c ! capsfilter caps=\"" + other + "\" ! fakesink";
    g_autoptr(GError) error = nullptr;
    g2g::ElementRef pipeline = g2g::ElementRef::adopt(gst_parse_launch(description.c_str(), &error));
    // A link g2gconvert refuses (its templates have no such caps: a build without the CUDA-Vulkan
    // bridge takes no CUDA views) leaves the pad unlinked, so it would answer its template.
    if (!pipeline || error)
        return std::string("not linked: ") + (error ? error->message : "");
    g2g::ElementRef convert = g2g::ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "c"));
    g2g::Ref<GstPad> the_pad = g2g::Ref<GstPad>::adopt(gst_element_get_static_pad(convert.get(), pad));
    g2g::CapsRef caps = g2g::CapsRef::adopt(gst_pad_query_caps(the_pad.get(), nullptr));
    g_autofree gchar *text = gst_caps_to_string(caps.get());
    return text;
}

#define SKIP_WITHOUT_CONVERT()                                                                               \
    if (!g2g::platform::cuda_dmabuf::built() || !g2g::test::have_element("g2gconvert"))                      \
    GTEST_SKIP() << "g2gconvert has no memory:DMABuf output in this build (it needs the cuda and the "       \
                    "dmabuf feature)"

} // namespace

TEST(CudaDmaBufCaps, DenseCudaFramesAreOfferedAsDmaBufs)
{
    SKIP_WITHOUT_CONVERT();
    const std::string caps = caps_beside(
        "src", "video/x-raw(memory:CUDAMemory),format=NV12,width=1920,height=1080,framerate=30/1");
    EXPECT_NE(caps.find("video/x-raw(memory:DMABuf), format=(string)NV12, width=(int)1920, height=(int)1080"),
              std::string::npos)
        << caps;
}

TEST(CudaDmaBufCaps, ViewsAndFormatsGStreamersCudaMemoryCannotHoldAreNot)
{
    SKIP_WITHOUT_CONVERT();
    // A view would need a pass first (g2gmaterialize); GRAY8 goes to Vulkan, but GStreamer 1.22's
    // CUDA memory has no layout for it, so no CUDA frame of it is exported.
    for (const char *upstream :
         {"video/x-raw(memory:CUDAMemory, meta:G2gTensorView),format=NV12,width=64,height=48",
          "video/x-raw(memory:CUDAMemory),format=GRAY8,width=64,height=48"}) {
        const std::string caps = caps_beside("src", upstream);
        EXPECT_EQ(caps.find("memory:DMABuf"), std::string::npos) << upstream << ": " << caps;
    }
    // Formats DRM has no fourcc for (I420_10LE, GBR) are not offered at all; those it has are.
    const std::string formats = g2g::cuda_dmabuf::formats();
    for (const char *missing : {"I420_10LE", "GBR", "RGBP"})
        EXPECT_EQ(formats.find(std::string(" ") + missing + ","), std::string::npos) << formats;
    EXPECT_NE(formats.find("NV12"), std::string::npos) << formats;
    EXPECT_NE(formats.find("P010_10LE"), std::string::npos) << formats;
}

TEST(CudaDmaBufCaps, ADmaBufDownstreamAsksForDenseCudaFrames)
{
    SKIP_WITHOUT_CONVERT();
    const std::string caps = caps_beside("sink", "video/x-raw(memory:DMABuf),format=NV12,width=64,height=48");
    EXPECT_NE(caps.find("video/x-raw(memory:CUDAMemory), format=(string)NV12, width=(int)64, height=(int)48"),
              std::string::npos)
        << caps;
    EXPECT_EQ(caps.find("G2gTensorView"), std::string::npos) << caps;
    EXPECT_EQ(caps.find("VulkanImage"), std::string::npos) << caps;
}

// ---- On the GPU ----

TEST(CudaDmaBuf, DecodedFramesAreDmaBufsOfTheirOwnCudaMemory)
{
    SKIP_WITHOUT_GPU(true);
    const std::string path = g2g::test::media_path(kStream);
    if (path.empty())
        GTEST_SKIP() << "sample stream " << kStream << " not on this machine";
    DmaBufConsumer consumer;
    guint64 shared = 0, written = 99, exports = 0;
    PipelineRun run = run_pipeline(
        decoded(path) + " ! g2gconvert name=convert ! video/x-raw(memory:DMABuf) ! identity name=tap "
                        "! fakesink sync=false",
        consumer.tap(), kLong, [&](GstBin *bin) {
            read_property("convert", "frames-shared", shared)(bin);
            read_property("convert", "frames-written", written)(bin);
            read_property("convert", "dmabuf-exports", exports)(bin);
        });
    ASSERT_EQ(run.error, "");
    say("nvh264dec frame 0: " + consumer.first);
    EXPECT_EQ(consumer.problem, "");
    EXPECT_EQ(consumer.frames, 300u);
    EXPECT_EQ(shared, 300u) << "every frame handed on as its own memory";
    EXPECT_EQ(written, 0u) << "no pass on the GPU";
    // Exported once per memory of the decoder's pool, not once per frame.
    say("DMA-BUFs exported: " + std::to_string(exports) + " for 300 frames (" +
        std::to_string(consumer.dmabufs.size()) + " distinct DMA-BUFs, " +
        std::to_string(consumer.fds.size()) + " distinct fds)");
    EXPECT_EQ(consumer.dmabufs.size(), exports);
    EXPECT_EQ(consumer.fds.size(), exports);
    EXPECT_GE(exports, 1u);
    EXPECT_LE(exports, 32u) << "a DMA-BUF per memory of the decoder's pool, not per frame";
}

TEST(CudaDmaBuf, AConsumerReadsTheBytesCudadownloadReads)
{
    SKIP_WITHOUT_GPU(true);
    const std::string path = g2g::test::media_path(kStream);
    if (path.empty())
        GTEST_SKIP() << "sample stream " << kStream << " not on this machine";
    PipelineRun peer = run_pipeline(
        decoded(path) + " ! cudadownload ! video/x-raw ! appsink name=sink sync=false", {}, kLong);
    ASSERT_EQ(peer.error, "");
    ASSERT_EQ(peer.buffers.size(), 300u);
    DmaBufConsumer consumer(&peer.buffers, video_info_of_caps(peer.sink_caps.at("sink")));
    PipelineRun run =
        run_pipeline(decoded(path) + " ! g2gconvert ! video/x-raw(memory:DMABuf) ! identity name=tap "
                                     "! fakesink sync=false",
                     consumer.tap(), kLong);
    ASSERT_EQ(run.error, "");
    ASSERT_TRUE(consumer.reader);
    say("importers: " + consumer.reader->report());
    if (!consumer.first_bytes.empty())
        say("first bytes of plane 0 of frame 0, " + consumer.first_bytes);
    say(g2g::test::vulkan_dma_buf_import_support());
    EXPECT_EQ(consumer.problem, "");
    if (consumer.reader->importer().empty())
        GTEST_SKIP()
            << "no importer on this machine reads the exported fds, so their bytes are unproven here: "
            << consumer.reader->report() << "; " << g2g::test::vulkan_dma_buf_import_support();
    EXPECT_EQ(consumer.compared, 300u) << "every frame read back through " << consumer.reader->importer();
}

// What each open fd of the process is (its /proc/self/fd link, and a DMA-BUF's exporter), by fd.
std::map<int, std::string> open_fds()
{
    std::map<int, std::string> fds;
    if (GDir *dir = g_dir_open("/proc/self/fd", 0, nullptr)) {
        while (const char *name = g_dir_read_name(dir)) {
            const std::string link = std::string("/proc/self/fd/") + name;
            gchar *target = g_file_read_link(link.c_str(), nullptr);
            std::string what = target ? target : "?";
            g_free(target);
            gchar *info = nullptr;
            if (g_file_get_contents((std::string("/proc/self/fdinfo/") + name).c_str(), &info, nullptr,
                                    nullptr)) {
                if (const char *exporter = strstr(info, "exp_name:"))
                    what += std::string(" ") + std::string(exporter, strcspn(exporter, "\n"));
                g_free(info);
            }
            fds[atoi(name)] = what;
        }
        g_dir_close(dir);
    }
    return fds;
}

// The fds of `after` that `before` does not have, as "fd: what" lines.
std::string new_fds(const std::map<int, std::string> &before, const std::map<int, std::string> &after)
{
    std::string lines;
    for (const auto &[fd, what] : after) {
        auto old = before.find(fd);
        if (old == before.end() || old->second != what)
            lines += "  " + std::to_string(fd) + ": " + what + "\n";
    }
    return lines;
}

// The fds of `fds` whose fdinfo names a DMA-BUF exporter.
std::size_t dmabuf_fds(const std::map<int, std::string> &fds)
{
    return static_cast<std::size_t>(std::count_if(fds.begin(), fds.end(), [](const auto &entry) {
        return entry.second.find("exp_name:") != std::string::npos;
    }));
}

// Every exported fd closes when the pipeline stops. On the H200 each run of a pipeline with
// nvh264dec leaves /dev/nvidia0 and eventfd fds open (18 a run, seen there: GStreamer 1.22's
// decoder with NVIDIA's driver 580, with or without g2g): those are measured on nvh264dec alone
// in the same process, and g2g's run may leave no more than that and no DMA-BUF at all.
TEST(CudaDmaBuf, EveryFdIsClosedWhenThePipelineStops)
{
    SKIP_WITHOUT_GPU(true);
    const std::string path = g2g::test::media_path(kStream);
    if (path.empty())
        GTEST_SKIP() << "sample stream " << kStream << " not on this machine";
    const std::string pipeline =
        decoded(path) +
        " ! g2gconvert ! video/x-raw(memory:DMABuf) ! identity name=tap ! fakesink sync=false";
    const std::string decoder_alone = decoded(path) + " ! fakesink sync=false";
    // The first runs open what stays open for the process (CUDA's own files). The consumers read
    // through mmap only: each failed CUDA import leaves the driver's fds open, which would be
    // counted as g2g's (AConsumerReadsTheBytesCudadownloadReads reports how many).
    DmaBufConsumer warm_up;
    warm_up.import_through_cuda = false;
    ASSERT_EQ(run_pipeline(pipeline, warm_up.tap(), kLong).error, "");
    ASSERT_EQ(run_pipeline(decoder_alone, {}, kLong).error, "");

    const std::map<int, std::string> before_decoder = open_fds();
    ASSERT_EQ(run_pipeline(decoder_alone, {}, kLong).error, "");
    const std::map<int, std::string> after_decoder = open_fds();

    const std::map<int, std::string> before = open_fds();
    DmaBufConsumer consumer;
    consumer.import_through_cuda = false;
    ASSERT_EQ(run_pipeline(pipeline, consumer.tap(), kLong).error, "");
    const std::map<int, std::string> after = open_fds();
    say("fds open: " + std::to_string(before.size()) + " before, " + std::to_string(consumer.fds_at_50) +
        " at frame 50, " + std::to_string(consumer.fds_at_last) + " at frame 299, " +
        std::to_string(after.size()) + " after (DMA-BUFs: " + std::to_string(dmabuf_fds(before)) +
        " before, " + std::to_string(dmabuf_fds(after)) + " after); nvh264dec alone left " +
        std::to_string(after_decoder.size() - before_decoder.size()) + " open");
    const std::string left = new_fds(before, after);
    if (!left.empty())
        say("fds the run left open:\n" + left);
    EXPECT_EQ(consumer.problem, "");
    EXPECT_EQ(consumer.fds_at_last, consumer.fds_at_50) << "fds opened per frame";
    EXPECT_GE(consumer.fds_at_last, before.size() + consumer.fds.size())
        << "the exported fds were open meanwhile";
    EXPECT_EQ(dmabuf_fds(after), dmabuf_fds(before)) << "a DMA-BUF fd outlived the pipeline:\n" << left;
    EXPECT_LE(after.size() - before.size(), after_decoder.size() - before_decoder.size())
        << "g2g's run left more fds open than nvh264dec's alone:\n"
        << left;

    // The same run with a consumer that also tries CUDA's importers, which fail on the H200: what
    // the driver keeps open after them is on record, and none of it is a DMA-BUF.
    DmaBufConsumer importing;
    ASSERT_EQ(run_pipeline(pipeline, importing.tap(), kLong).error, "");
    const std::map<int, std::string> after_importing = open_fds();
    say("with CUDA's importers tried (" + importing.reader->report() + "), the run left " +
        std::to_string(static_cast<long>(after_importing.size()) - static_cast<long>(after.size())) +
        " fds open:\n" + new_fds(after, after_importing));
    EXPECT_EQ(dmabuf_fds(after_importing), dmabuf_fds(before));
}

TEST(CudaDmaBuf, UploadedFramesOfEachFormatAndSize)
{
    SKIP_WITHOUT_GPU(false);
    for (const char *format : {"NV12", "I420", "RGBA", "BGRx", "Y444"}) {
        for (const char *size : {"width=1920,height=1080", "width=1280,height=720", "width=318,height=242",
                                 "width=64,height=48", "width=1,height=1"}) {
            const std::string what = std::string(format) + " " + size;
            const std::string source =
                std::string("videotestsrc num-buffers=3 pattern=ball ! video/x-raw,format=") + format + "," +
                size;
            PipelineRun peer = run_pipeline(source + " ! appsink name=sink");
            ASSERT_EQ(peer.error, "") << what;
            DmaBufConsumer consumer(&peer.buffers, video_info_of_caps(peer.sink_caps.at("sink")));
            PipelineRun run = run_pipeline(
                source + " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! g2gconvert name=convert "
                         "! video/x-raw(memory:DMABuf) ! identity name=tap ! fakesink",
                consumer.tap());
            if (!run.error.empty()) {
                // Refused by the driver: the error says which range and why.
                say(what + ": refused: " + run.error);
                EXPECT_EQ(run.error_source, "convert") << what;
                EXPECT_NE(run.error.find("cuMemGetHandleForAddressRange"), std::string::npos)
                    << what << ": " << run.error;
                EXPECT_NE(std::string(size), "width=1920,height=1080")
                    << "a 1080p frame must export: " << run.error;
                continue;
            }
            say(what + ": " + consumer.first +
                (consumer.reader && !consumer.reader->importer().empty()
                     ? ", bytes read back through " + consumer.reader->importer()
                     : ", bytes not readable here"));
            EXPECT_EQ(consumer.problem, "") << what;
            EXPECT_EQ(consumer.frames, 3u) << what;
            if (consumer.reader && !consumer.reader->importer().empty()) {
                EXPECT_EQ(consumer.compared, 3u) << what;
            }
        }
    }
}

TEST(CudaDmaBuf, TeeFeedsCudaDmaBufAndSystemBranchesWithoutAHostRoundTrip)
{
    SKIP_WITHOUT_GPU(true);
    const std::string path = g2g::test::media_path(kStream);
    if (path.empty())
        GTEST_SKIP() << "sample stream " << kStream << " not on this machine";
    PipelineRun peer = run_pipeline(
        decoded(path) + " ! cudadownload ! video/x-raw ! appsink name=sink sync=false", {}, kLong);
    ASSERT_EQ(peer.error, "");
    DmaBufConsumer consumer(&peer.buffers, video_info_of_caps(peer.sink_caps.at("sink")));
    guint64 frames = 0, to_dmabuf = 0, to_system = 0, round_trips = 99;
    std::string dmabuf_converter;
    // g2gtee once asked accept-caps of the DMABuf branch in both forms at once (unfixed caps):
    // GStreamer's criticals, and a branch judged on nothing.
    const g2g::test::LogCapture complaints;
    PipelineRun ours = run_pipeline(
        decoded(path) + " ! g2gtee name=t"
                        " t. ! queue ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! appsink "
                        "name=cuda sync=false"
                        " t. ! queue ! video/x-raw(memory:DMABuf) ! identity name=tap ! fakesink sync=false"
                        " t. ! queue ! video/x-raw ! appsink name=sink sync=false",
        consumer.tap(), kLong, [&](GstBin *bin) {
            GstElement *tee = gst_bin_get_by_name(bin, "t");
            frames = g2g::test::tee_stat(tee, "frames");
            to_dmabuf = g2g::test::tee_conversions(tee, "Cuda-to-DmaBuf");
            to_system = g2g::test::tee_conversions(tee, "Cuda-to-System");
            round_trips = g2g::test::tee_stat(tee, "host-round-trips");
            dmabuf_converter = g2g::test::tee_converter(tee, "Cuda-to-DmaBuf");
            gst_object_unref(tee);
        });
    ASSERT_EQ(ours.error, "");
    const GstVideoInfo peer_info = video_info_of_caps(peer.sink_caps.at("sink"));
    for (const char *branch : {"cuda", "sink"}) {
        const std::vector<g2g::BufferRef> &got = ours.sinks.at(branch);
        ASSERT_EQ(got.size(), peer.buffers.size()) << branch;
        const GstVideoInfo info = video_info_of_caps(ours.sink_caps.at(branch));
        for (std::size_t i = 0; i < got.size(); ++i)
            ASSERT_EQ(g2g::test::compare_frames(info, got[i].get(), peer_info, peer.buffers[i].get()), "")
                << "branch " << branch << ", frame " << i;
    }
    say("tee's DMABuf branch, frame 0: " + consumer.first);
    EXPECT_EQ(consumer.problem, "");
    EXPECT_EQ(consumer.frames, 300u);
    EXPECT_EQ(frames, 300u);
    EXPECT_EQ(to_dmabuf, 300u) << "one export (or a kept one) per frame for the DMABuf branch";
    EXPECT_EQ(to_system, 300u);
    EXPECT_EQ(dmabuf_converter, "g2gconvert");
    EXPECT_EQ(round_trips, 0u) << "the DMABuf branch's frames never went through host memory";
    EXPECT_EQ(complaints.said(), std::vector<std::string>{});
}

TEST(CudaDmaBuf, TeeFeedsADmaBufBranchFromUploadedFrames)
{
    SKIP_WITHOUT_GPU(false);
    const std::string source =
        "videotestsrc num-buffers=6 pattern=ball ! video/x-raw,format=NV12,width=640,height=480";
    PipelineRun peer = run_pipeline(source + " ! appsink name=sink");
    ASSERT_EQ(peer.error, "");
    DmaBufConsumer consumer(&peer.buffers, video_info_of_caps(peer.sink_caps.at("sink")));
    guint64 to_dmabuf = 0, round_trips = 99;
    const g2g::test::LogCapture complaints;
    PipelineRun ours = run_pipeline(
        source +
            " ! cudaupload ! g2gtee name=t"
            " t. ! queue ! video/x-raw(memory:DMABuf) ! identity name=tap ! fakesink"
            " t. ! queue ! video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! appsink name=sink",
        consumer.tap(), kLong, [&](GstBin *bin) {
            GstElement *tee = gst_bin_get_by_name(bin, "t");
            to_dmabuf = g2g::test::tee_conversions(tee, "Cuda-to-DmaBuf");
            round_trips = g2g::test::tee_stat(tee, "host-round-trips");
            gst_object_unref(tee);
        });
    ASSERT_EQ(ours.error, "");
    EXPECT_EQ(consumer.problem, "");
    EXPECT_EQ(consumer.frames, 6u);
    EXPECT_EQ(to_dmabuf, 6u);
    EXPECT_EQ(round_trips, 0u);
    EXPECT_EQ(complaints.said(), std::vector<std::string>{});
}

namespace {

void count_vulkan_devices(GstBus *, GstMessage *message, gpointer made)
{
    const gchar *type = nullptr;
    GstContext *context = nullptr;
    gst_message_parse_have_context(message, &context);
    type = context ? gst_context_get_context_type(context) : nullptr;
    if (type && g_str_has_prefix(type, "gst.vulkan."))
        ++*static_cast<int *>(made);
    if (context)
        gst_context_unref(context);
}

} // namespace

// A CUDA to DMA-BUF stream opens no Vulkan device (g2gconvert opens one at READY->PAUSED only for
// a Vulkan producer upstream), so it runs where there is none and costs none where there is.
TEST(CudaDmaBuf, ADmaBufStreamOpensNoVulkanDevice)
{
    SKIP_WITHOUT_GPU(false);
    int vulkan_contexts = 0;
    PipelineRun run = run_pipeline("videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=64,height=48 "
                                   "! cudaupload ! g2gconvert ! video/x-raw(memory:DMABuf) ! fakesink",
                                   {}, kLong, {}, [&](GstBin *pipeline) {
                                       GstBus *bus = gst_element_get_bus(GST_ELEMENT(pipeline));
                                       gst_bus_enable_sync_message_emission(bus);
                                       g_signal_connect(bus, "sync-message::have-context",
                                                        G_CALLBACK(count_vulkan_devices), &vulkan_contexts);
                                       gst_object_unref(bus);
                                   });
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(vulkan_contexts, 0) << "a Vulkan instance, device or queue was made for a DMA-BUF stream";
}

// Memory g2g imported from Vulkan (a GstCudaMemory over it, platform/cuda-vulkan/) is not of
// cuMemAlloc: whether the driver exports it too is recorded; a refusal must say why.
TEST(CudaDmaBuf, MemoryImportedFromVulkanIsExportedOrRefusedSayingWhy)
{
    SKIP_WITHOUT_GPU(false);
    if (!g2g::platform::cuda_vulkan::built() || !g2g::test::have_vulkan_device())
        GTEST_SKIP() << "no CUDA-Vulkan bridge or no Vulkan device here";
    DmaBufConsumer consumer;
    PipelineRun run =
        run_pipeline("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=640,height=480 "
                     "! vulkanupload ! g2gconvert ! video/x-raw(memory:CUDAMemory) ! g2gconvert "
                     "name=second ! video/x-raw(memory:DMABuf) ! identity name=tap ! fakesink",
                     consumer.tap(), kLong);
    if (run.error.empty()) {
        say("memory imported from Vulkan exported: " + consumer.first);
        EXPECT_EQ(consumer.problem, "");
        return;
    }
    say("memory imported from Vulkan refused: " + run.error);
    EXPECT_EQ(run.error_source, "second");
    EXPECT_NE(run.error.find("cuMemGetHandleForAddressRange"), std::string::npos) << run.error;
}

// Where the device exports no DMA-BUFs, its frames are refused naming it (on a GPU that does, the
// test has nothing to see).
TEST(CudaDmaBuf, ADeviceWithoutDmaBufSupportIsRefusedByName)
{
    if (!g2g::platform::cuda_dmabuf::built() || !g2g::test::have_element("g2gconvert") ||
        !g2g::test::have_cuda_device())
        GTEST_SKIP() << "no CUDA device or no DMA-BUF export in this build";
    const g2g::Result<void> exports = g2g::cuda_dmabuf::check_device(0);
    if (exports)
        GTEST_SKIP() << "CUDA device 0 exports DMA-BUFs (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 1)";
    PipelineRun run =
        run_pipeline("videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,height=48 "
                     "! cudaupload ! g2gconvert name=convert ! video/x-raw(memory:DMABuf) ! fakesink");
    EXPECT_EQ(run.error_source, "convert");
    EXPECT_EQ(run.error, exports.error().message());
    EXPECT_NE(run.error.find("CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED"), std::string::npos) << run.error;
}
