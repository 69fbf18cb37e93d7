// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA_DRM caps both ways in real pipelines: an appsrc of memfd DMABuf frames in GStreamer 1.24's
// form (format=DMA_DRM, drm-format=NV12) through g2gtee and g2gprobe to appsinks with 1.22's caps,
// and the reverse; the frames arrive as they left (the same memory, fd and bytes). Frames 1.22 has
// no format for (a non-linear modifier) go only where they are taken as they are; bad DMA_DRM caps
// are refused saying why; the view elements refuse DMA_DRM caps cleanly and work behind a tee.
#include <g2g/gst-ref.h>

#include <gst/allocators/allocators.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "g2g-config.h"
#include "memfd-dmabuf.h"
#include "pipeline.h"
#include "tee-stats.h"

#include <map>
#include <string>
#include <vector>

using g2g::BufferRef;
using g2g::CapsRef;
using g2g::ElementRef;
using g2g::Ref;
using g2g::test::PipelineRun;

namespace {

constexpr int kWidth = 64;
constexpr int kHeight = 48;
constexpr gsize kFrameSize = kWidth * kHeight * 3 / 2; // NV12
constexpr int kFrames = 5;

const std::string kFields = ",width=64,height=48,framerate=30/1";
const std::string kDmaDrm = "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" + kFields;
const std::string kDmaBuf = "video/x-raw(memory:DMABuf),format=NV12" + kFields; // GStreamer 1.22's
const std::string kSystem = "video/x-raw,format=NV12" + kFields;
const std::string kTiled =
    "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12:0x0100000000000001" + kFields;

guint8 pattern(int frame, gsize at)
{
    return static_cast<guint8>((frame * 31 + at * 7 + at / kWidth) & 0xff);
}

// Frame `index`: NV12 in one DMABuf over a memfd, filled with pattern(index, ·), with a GstVideoMeta.
BufferRef dmabuf_frame(int index, GstMemoryFlags flags = static_cast<GstMemoryFlags>(0))
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(), g2g::test::memfd_dmabuf(kFrameSize));
    std::vector<guint8> bytes(kFrameSize);
    for (gsize at = 0; at < kFrameSize; ++at)
        bytes[at] = pattern(index, at);
    EXPECT_EQ(gst_buffer_fill(buffer.get(), 0, bytes.data(), bytes.size()), kFrameSize);
    // Flags after the fill: a frame no CPU reads (a tiled one) is marked so.
    GST_MINI_OBJECT_FLAG_SET(gst_buffer_peek_memory(buffer.get(), 0), flags);
    gst_buffer_add_video_meta(buffer.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, kWidth,
                              kHeight);
    GST_BUFFER_PTS(buffer.get()) = gst_util_uint64_scale(static_cast<guint64>(index), GST_SECOND, 30);
    GST_BUFFER_DURATION(buffer.get()) = gst_util_uint64_scale(1, GST_SECOND, 30);
    return buffer;
}

// What appsrc "src" pushes, one frame per need-data, then EOS.
struct Source {
    std::vector<BufferRef> frames;
    std::size_t next = 0;
};

std::vector<BufferRef> dmabuf_frames(GstMemoryFlags flags = static_cast<GstMemoryFlags>(0))
{
    std::vector<BufferRef> frames;
    for (int i = 0; i < kFrames; ++i)
        frames.push_back(dmabuf_frame(i, flags));
    return frames;
}

// The caps of every pad of interest at EOS (or error), by "element:pad".
using PadCaps = std::map<std::string, std::string>;

// Runs `description` with appsrc "src" pushing `source` in `src_caps`, each appsink named in
// `sink_caps` taking only those caps, and records the current caps of the pads named in `pads`
// ("t:sink", "probe:src") into `seen`; `inspect` sees the pipeline at the end.
PipelineRun run_frames(const std::string &description, const std::string &src_caps,
                       const std::map<std::string, std::string> &sink_caps, Source &source,
                       const std::vector<std::string> &pads = {}, PadCaps *seen = nullptr,
                       const g2g::test::PipelineInspector &inspect = {})
{
    const auto prepare = [&](GstBin *bin) {
        const ElementRef src = ElementRef::adopt(gst_bin_get_by_name(bin, "src"));
        ASSERT_TRUE(src);
        const CapsRef caps = CapsRef::adopt(gst_caps_from_string(src_caps.c_str()));
        ASSERT_TRUE(caps) << src_caps;
        g_object_set(src.get(), "caps", caps.get(), "format", GST_FORMAT_TIME, nullptr);
        GstAppSrcCallbacks callbacks{};
        callbacks.need_data = +[](GstAppSrc *appsrc, guint, gpointer data) {
            auto *from = static_cast<Source *>(data);
            if (from->next < from->frames.size())
                gst_app_src_push_buffer(appsrc, gst_buffer_ref(from->frames[from->next++].get()));
            else
                gst_app_src_end_of_stream(appsrc);
        };
        gst_app_src_set_callbacks(GST_APP_SRC(src.get()), &callbacks, &source, nullptr);
        for (const auto &[name, text] : sink_caps) {
            const ElementRef sink = ElementRef::adopt(gst_bin_get_by_name(bin, name.c_str()));
            ASSERT_TRUE(sink) << name;
            const CapsRef want = CapsRef::adopt(gst_caps_from_string(text.c_str()));
            g_object_set(sink.get(), "caps", want.get(), "sync", FALSE, nullptr);
        }
    };
    const auto look = [&](GstBin *bin) {
        for (const std::string &where : pads) {
            const std::size_t colon = where.find(':');
            const ElementRef element =
                ElementRef::adopt(gst_bin_get_by_name(bin, where.substr(0, colon).c_str()));
            const Ref<GstPad> pad = Ref<GstPad>::adopt(
                element ? gst_element_get_static_pad(element.get(), where.substr(colon + 1).c_str())
                        : nullptr);
            const CapsRef caps = CapsRef::adopt(pad ? gst_pad_get_current_caps(pad.get()) : nullptr);
            g_autofree gchar *text = caps ? gst_caps_to_string(caps.get()) : nullptr;
            (*seen)[where] = text ? text : "(none)";
        }
        if (inspect)
            inspect(bin);
    };
    return g2g::test::run_pipeline(description, {}, 20 * GST_SECOND, look, prepare);
}

::testing::AssertionResult caps_are(const std::string &got, const std::string &want)
{
    const CapsRef a = CapsRef::adopt(gst_caps_from_string(got.c_str()));
    const CapsRef b = CapsRef::adopt(gst_caps_from_string(want.c_str()));
    if (a && b && gst_caps_is_equal(a.get(), b.get()))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "caps " << got << "\n  want " << want;
}

// Every frame `got` is the frame that left: the same DMABuf memory, its fd, and (unless
// `readable` is false: memory no CPU maps) its bytes.
void expect_same_frames(const std::vector<BufferRef> &got, const Source &source, const char *sink,
                        bool readable = true)
{
    ASSERT_EQ(got.size(), source.frames.size()) << sink;
    for (std::size_t i = 0; i < got.size(); ++i) {
        GstMemory *sent = gst_buffer_peek_memory(source.frames[i].get(), 0);
        ASSERT_EQ(gst_buffer_n_memory(got[i].get()), 1u) << sink;
        GstMemory *memory = gst_buffer_peek_memory(got[i].get(), 0);
        EXPECT_EQ(memory, sent) << sink << " frame " << i << ": the same memory, not a copy";
        ASSERT_TRUE(gst_is_dmabuf_memory(memory)) << sink;
        EXPECT_EQ(gst_dmabuf_memory_get_fd(memory), gst_dmabuf_memory_get_fd(sent)) << sink;
        EXPECT_EQ(GST_BUFFER_PTS(got[i].get()), GST_BUFFER_PTS(source.frames[i].get())) << sink;
        if (!readable)
            continue;
        std::vector<guint8> bytes(kFrameSize);
        ASSERT_EQ(gst_buffer_extract(got[i].get(), 0, bytes.data(), bytes.size()), kFrameSize) << sink;
        gsize wrong = 0;
        for (gsize at = 0; at < kFrameSize; ++at)
            wrong += bytes[at] != pattern(static_cast<int>(i), at);
        EXPECT_EQ(wrong, 0u) << sink << " frame " << i;
    }
}

// The run's g2gtee "t", kept past the run to read its stats.
g2g::test::PipelineInspector keep_tee(ElementRef &tee)
{
    return [&tee](GstBin *bin) { tee = ElementRef::adopt(gst_bin_get_by_name(bin, "t")); };
}

#define REQUIRE_DMABUF()                                                                                     \
    do {                                                                                                     \
        if (!G2G_HAVE_DMABUF)                                                                                \
            GTEST_SKIP() << "built without the dmabuf feature";                                              \
    } while (0)

// Three branches: a sink the tee feeds itself ("restated": the tee restates the caps), g2gprobe
// before a sink ("probed": the probe restates them), and a system-memory sink (relabelled).
const std::string kThreeBranches = "appsrc name=src ! g2gtee name=t "
                                   "t. ! queue ! appsink name=restated "
                                   "t. ! queue ! g2gprobe name=probe ! appsink name=probed "
                                   "t. ! queue ! appsink name=system";

} // namespace

TEST(DmaDrmCaps, DmaDrmUpstreamReaches122BranchesAsItIs)
{
    REQUIRE_DMABUF();
    Source source{dmabuf_frames()};
    PadCaps pads;
    ElementRef tee;
    const PipelineRun run = run_frames(
        kThreeBranches, kDmaDrm, {{"restated", kDmaBuf}, {"probed", kDmaBuf}, {"system", kSystem}}, source,
        {"t:sink", "probe:sink", "probe:src", "restated:sink", "system:sink"}, &pads, keep_tee(tee));
    ASSERT_EQ(run.error, "");
    // The stream stays DMA_DRM up to the tee and the probe; each sink has the caps it asked for.
    EXPECT_TRUE(caps_are(pads["t:sink"], kDmaDrm));
    EXPECT_TRUE(caps_are(pads["probe:sink"], kDmaDrm));
    EXPECT_TRUE(caps_are(pads["probe:src"], kDmaBuf));
    EXPECT_TRUE(caps_are(pads["restated:sink"], kDmaBuf));
    EXPECT_TRUE(caps_are(pads["system:sink"], kSystem));
    EXPECT_TRUE(caps_are(run.sink_caps.at("restated"), kDmaBuf));
    EXPECT_TRUE(caps_are(run.sink_caps.at("probed"), kDmaBuf));
    EXPECT_TRUE(caps_are(run.sink_caps.at("system"), kSystem));
    expect_same_frames(run.sinks.at("restated"), source, "restated");
    expect_same_frames(run.sinks.at("probed"), source, "probed");
    expect_same_frames(run.sinks.at("system"), source, "system");
    // Shared, not copied: restating caps is no conversion; the system branch reads in place.
    ASSERT_TRUE(tee);
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "frames"), static_cast<guint64>(kFrames));
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "shares"), static_cast<guint64>(3 * kFrames));
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "copies"), 0u);
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "bytes-converted"), 0u);
    EXPECT_EQ(g2g::test::tee_conversions(tee.get(), "DmaBuf-to-System"), static_cast<guint64>(kFrames));
}

TEST(DmaDrmCaps, Upstream122ReachesDmaDrmBranchesAsItIs)
{
    REQUIRE_DMABUF();
    Source source{dmabuf_frames()};
    PadCaps pads;
    ElementRef tee;
    const PipelineRun run = run_frames(
        kThreeBranches, kDmaBuf, {{"restated", kDmaDrm}, {"probed", kDmaDrm}, {"system", kSystem}}, source,
        {"t:sink", "probe:sink", "probe:src", "restated:sink", "system:sink"}, &pads, keep_tee(tee));
    ASSERT_EQ(run.error, "");
    EXPECT_TRUE(caps_are(pads["t:sink"], kDmaBuf));
    EXPECT_TRUE(caps_are(pads["probe:sink"], kDmaBuf));
    EXPECT_TRUE(caps_are(pads["probe:src"], kDmaDrm));
    EXPECT_TRUE(caps_are(pads["restated:sink"], kDmaDrm));
    EXPECT_TRUE(caps_are(pads["system:sink"], kSystem));
    EXPECT_TRUE(caps_are(run.sink_caps.at("restated"), kDmaDrm));
    EXPECT_TRUE(caps_are(run.sink_caps.at("probed"), kDmaDrm));
    expect_same_frames(run.sinks.at("restated"), source, "restated");
    expect_same_frames(run.sinks.at("probed"), source, "probed");
    expect_same_frames(run.sinks.at("system"), source, "system");
    ASSERT_TRUE(tee);
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "frames"), static_cast<guint64>(kFrames));
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "shares"), static_cast<guint64>(3 * kFrames));
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "copies"), 0u);
}

TEST(DmaDrmCaps, BothFormsStayAsTheyAreWhereTheSinkTakesThem)
{
    REQUIRE_DMABUF();
    // A sink that takes either form gets the stream's own: nothing is restated needlessly.
    for (const std::string &form : {kDmaDrm, kDmaBuf}) {
        Source source{dmabuf_frames()};
        PadCaps pads;
        const PipelineRun run =
            run_frames("appsrc name=src ! g2gtee name=t t. ! queue ! g2gprobe name=probe ! appsink name=sink",
                       form, {{"sink", kDmaDrm + ";" + kDmaBuf}}, source, {"probe:src"}, &pads);
        ASSERT_EQ(run.error, "") << form;
        EXPECT_TRUE(caps_are(pads["probe:src"], form));
        expect_same_frames(run.sinks.at("sink"), source, "sink");
    }
}

TEST(DmaDrmCaps, TheProbeAloneRestatesEitherWayAndReportsDmaBuf)
{
    REQUIRE_DMABUF();
    for (const auto &[from, to] : {std::pair{kDmaDrm, kDmaBuf}, std::pair{kDmaBuf, kDmaDrm}}) {
        Source source{dmabuf_frames()};
        PadCaps pads;
        std::string domain;
        const PipelineRun run =
            run_frames("appsrc name=src ! g2gprobe name=probe require=dma-buf ! appsink name=sink", from,
                       {{"sink", to}}, source, {"probe:sink", "probe:src"}, &pads, [&domain](GstBin *bin) {
                           const ElementRef probe = ElementRef::adopt(gst_bin_get_by_name(bin, "probe"));
                           g_autofree gchar *last = nullptr;
                           g_object_get(probe.get(), "last-domain", &last, nullptr);
                           domain = last ? last : "";
                       });
        ASSERT_EQ(run.error, "") << from;
        EXPECT_TRUE(caps_are(pads["probe:sink"], from));
        EXPECT_TRUE(caps_are(pads["probe:src"], to));
        EXPECT_EQ(domain, "DmaBuf");
        expect_same_frames(run.sinks.at("sink"), source, "sink");
    }
}

TEST(DmaDrmCaps, NonLinearDmaDrmFramesGoOnlyWhereTheyAreTakenAsTheyAre)
{
    REQUIRE_DMABUF();
    Source source{dmabuf_frames(GST_MEMORY_FLAG_NOT_MAPPABLE)};
    PadCaps pads;
    ElementRef tee;
    const PipelineRun run = run_frames(
        "appsrc name=src ! g2gtee name=t fan-out-policy=drop-branch "
        "t. ! queue ! g2gprobe name=probe ! appsink name=tiled "
        "t. ! queue name=to-linear ! appsink name=linear t. ! queue name=to-system ! appsink name=system",
        kTiled, {{"tiled", kTiled}, {"linear", kDmaBuf}, {"system", kSystem}}, source,
        {"t:sink", "probe:src"}, &pads, keep_tee(tee));
    ASSERT_EQ(run.error, "");
    EXPECT_TRUE(caps_are(pads["t:sink"], kTiled));
    EXPECT_TRUE(caps_are(pads["probe:src"], kTiled));
    expect_same_frames(run.sinks.at("tiled"), source, "tiled", false);
    EXPECT_TRUE(run.sinks.at("linear").empty());
    EXPECT_TRUE(run.sinks.at("system").empty());
    const std::string why =
        " refuses DMA_DRM frames of drm-format=NV12:0x0100000000000001, which GStreamer 1.22's "
        "caps cannot say (a non-linear modifier, a fourcc GStreamer has no video format for, "
        "or a drm-format that does not parse), so g2gtee can neither restate them as 1.22's "
        "memory:DMABuf caps nor relabel them as system memory: give that branch a peer that "
        "takes these DMA_DRM caps, or have upstream produce a linear layout: "
        "fan-out-policy=drop-branch, this branch gets no frames";
    const std::vector<std::string> warned{"branch src_1 of t (to to-linear)" + why,
                                          "branch src_2 of t (to to-system)" + why};
    EXPECT_EQ(run.warnings, warned);
    ASSERT_TRUE(tee);
    EXPECT_EQ(g2g::test::tee_stat(tee.get(), "shares"), static_cast<guint64>(kFrames));
}

TEST(DmaDrmCaps, TheProbeCarriesNonLinearFramesAsTheyAreOrNotAtAll)
{
    REQUIRE_DMABUF();
    Source kept{dmabuf_frames(GST_MEMORY_FLAG_NOT_MAPPABLE)};
    const PipelineRun same =
        run_frames("appsrc name=src ! g2gprobe ! appsink name=sink", kTiled, {{"sink", kTiled}}, kept);
    ASSERT_EQ(same.error, "");
    expect_same_frames(same.sinks.at("sink"), kept, "sink", false);

    // 1.22's form has no tiled NV12: not negotiated, nothing passes.
    Source refused{dmabuf_frames(GST_MEMORY_FLAG_NOT_MAPPABLE)};
    const PipelineRun linear =
        run_frames("appsrc name=src ! g2gprobe ! appsink name=sink", kTiled, {{"sink", kDmaBuf}}, refused);
    EXPECT_EQ(linear.error, "Internal data stream error.");
    EXPECT_EQ(linear.error_source, "src");
    EXPECT_TRUE(linear.sinks.at("sink").empty());
}

// ---- Bad DMA_DRM input (docs/robustness.md, DMA-BUF frames: DMA_DRM caps) ----

TEST(DmaDrmCaps, BadDrmFormatsAreRefusedByTheTeeSayingWhy)
{
    REQUIRE_DMABUF();
    for (const char *drm_format : {"NV12:0xZZ", "ABCD", "NV1"}) {
        const std::string caps =
            "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=" + std::string(drm_format) + kFields;
        Source source{dmabuf_frames()};
        const PipelineRun run = run_frames("appsrc name=src ! g2gtee name=t ! appsink name=sink", caps,
                                           {{"sink", kDmaBuf}}, source);
        EXPECT_EQ(
            run.error,
            "branch src_0 of t (to sink) refuses DMA_DRM frames of drm-format=" + std::string(drm_format) +
                ", which GStreamer 1.22's caps cannot say (a non-linear modifier, a fourcc GStreamer "
                "has no video format for, or a drm-format that does not parse), so g2gtee can neither "
                "restate them as 1.22's memory:DMABuf caps nor relabel them as system memory: give "
                "that branch a peer that takes these DMA_DRM caps, or have upstream produce a "
                "linear layout")
            << drm_format;
        EXPECT_EQ(run.error_source, "t");
        EXPECT_TRUE(run.sinks.at("sink").empty());
    }
}

TEST(DmaDrmCaps, DmaDrmOnSystemMemoryCapsIsNoDmaBufFrame)
{
    REQUIRE_DMABUF();
    const std::string caps = "video/x-raw,format=DMA_DRM,drm-format=NV12" + kFields;
    Source source{dmabuf_frames()};
    const PipelineRun run =
        run_frames("appsrc name=src ! g2gtee name=t ! appsink name=sink", caps, {{"sink", kSystem}}, source);
    const CapsRef parsed = CapsRef::adopt(gst_caps_from_string(caps.c_str()));
    g_autofree gchar *text = gst_caps_to_string(parsed.get());
    EXPECT_EQ(run.error,
              "branch src_0 of t (to sink) takes System frames but refuses these caps (format, size or "
              "rate, not the memory domain): " +
                  std::string(text));
    EXPECT_TRUE(run.sinks.at("sink").empty());

    // g2gprobe restates memory:DMABuf caps only: these are refused as they are.
    Source probed{dmabuf_frames()};
    const PipelineRun probe =
        run_frames("appsrc name=src ! g2gprobe ! appsink name=sink", caps, {{"sink", kSystem}}, probed);
    EXPECT_EQ(probe.error, "Internal data stream error.");
    EXPECT_TRUE(probe.sinks.at("sink").empty());
}

// ---- The view elements ----

TEST(DmaDrmCaps, ViewElementsRefuseDmaDrmCapsCleanly)
{
    REQUIRE_DMABUF();
    // g2gmaterialize reads frames: it takes no memory it has no view of.
    Source source{dmabuf_frames()};
    const PipelineRun run = run_frames("appsrc name=src ! g2gmaterialize ! appsink name=sink", kDmaDrm,
                                       {{"sink", kSystem}}, source);
    EXPECT_EQ(run.error, "Internal data stream error.");
    EXPECT_EQ(run.error_source, "src");
    EXPECT_TRUE(run.sinks.at("sink").empty());

    // g2gview has no view of DMABuf memory either: an orientation of it is refused by name.
    Source flipped{dmabuf_frames()};
    const PipelineRun flip =
        run_frames("appsrc name=src ! g2gview name=v video-direction=horiz ! appsink name=sink", kDmaDrm,
                   {{"sink", kSystem}}, flipped);
    EXPECT_EQ(flip.error,
              "v cannot flip or rotate memory:DMABuf frames (video-direction=horiz): it has no view of "
              "that memory, and a GstVideoCropMeta carries crops only; orient the frames before they "
              "reach that memory, or convert them to system memory before v");
    EXPECT_EQ(flip.error_source, "v");
    EXPECT_TRUE(flip.sinks.at("sink").empty());
}

TEST(DmaDrmCaps, AViewBehindATeeReadsDmaDrmFramesAsSystemMemory)
{
    REQUIRE_DMABUF();
    Source source{dmabuf_frames()};
    PadCaps pads;
    const PipelineRun run = run_frames(
        "appsrc name=src ! g2gtee name=t ! g2gview name=view video-direction=horiz ! appsink name=sink",
        kDmaDrm, {{"sink", kSystem}}, source, {"view:sink"}, &pads);
    ASSERT_EQ(run.error, "");
    EXPECT_TRUE(caps_are(pads["view:sink"], kSystem));
    const std::vector<BufferRef> &got = run.sinks.at("sink");
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kFrames));
    for (int i = 0; i < kFrames; ++i) {
        GstVideoFrame frame;
        GstVideoInfo info;
        ASSERT_TRUE(gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, kWidth, kHeight));
        ASSERT_TRUE(gst_video_frame_map(&frame, &info, got[i].get(), GST_MAP_READ));
        // Mirrored: luma per pixel, chroma per (U, V) pair, against the dense source (stride = width).
        gsize wrong = 0;
        const auto *y = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
        const auto *uv = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 1));
        const gint y_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
        const gint uv_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 1);
        for (int row = 0; row < kHeight; ++row) {
            for (int x = 0; x < kWidth; ++x)
                wrong +=
                    y[row * y_stride + x] != pattern(i, static_cast<gsize>(row * kWidth + kWidth - 1 - x));
        }
        const gsize chroma = static_cast<gsize>(kWidth * kHeight);
        for (int row = 0; row < kHeight / 2; ++row) {
            for (int pair = 0; pair < kWidth / 2; ++pair) {
                const gsize mirrored =
                    chroma + static_cast<gsize>(row * kWidth + (kWidth / 2 - 1 - pair) * 2);
                wrong += uv[row * uv_stride + pair * 2] != pattern(i, mirrored);
                wrong += uv[row * uv_stride + pair * 2 + 1] != pattern(i, mirrored + 1);
            }
        }
        gst_video_frame_unmap(&frame);
        EXPECT_EQ(wrong, 0u) << "frame " << i;
    }
}
