// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gdmabufupload: producers write into the DMA-BUF pool it offers (no copy), other frames are
// copied once, DMA-BUFs pass as they are; the frames are the producer's, byte for byte.
#include <g2g/classify.h>
#include <g2g/dmabuf.h>

#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>

#include "pipeline.h"

namespace g2g::test {
namespace {

const std::string kNv12 = "video/x-raw,format=NV12,width=64,height=48,framerate=30/1";

guint64 counter(GstBin *bin, const char *element, const char *property)
{
    Ref<GstElement> found = Ref<GstElement>::adopt(gst_bin_get_by_name(bin, element));
    guint64 value = 0;
    g_object_get(found.get(), property, &value, nullptr);
    return value;
}

// Each plane's visible bytes of two frames of `caps` are equal.
void expect_same_pixels(GstBuffer *a, GstBuffer *b, const std::string &caps)
{
    CapsRef parsed = CapsRef::adopt(gst_caps_from_string(caps.c_str()));
    GstVideoInfo info;
    ASSERT_TRUE(gst_video_info_from_caps(&info, parsed.get()));
    GstVideoFrame fa, fb;
    ASSERT_TRUE(gst_video_frame_map(&fa, &info, a, GST_MAP_READ));
    ASSERT_TRUE(gst_video_frame_map(&fb, &info, b, GST_MAP_READ));
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&fa); ++p) {
        const gsize row =
            static_cast<gsize>(GST_VIDEO_FRAME_COMP_WIDTH(&fa, p)) * GST_VIDEO_FRAME_COMP_PSTRIDE(&fa, p);
        for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&fa, p); ++y) {
            const auto *ra = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fa, p)) +
                             y * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, p);
            const auto *rb = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fb, p)) +
                             y * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, p);
            ASSERT_EQ(0, memcmp(ra, rb, row)) << "plane " << p << " row " << y;
        }
    }
    gst_video_frame_unmap(&fa);
    gst_video_frame_unmap(&fb);
}

TEST(DmaBufUpload, AProducerThatTakesThePoolWritesIntoDmaBufsWithNoCopy)
{
    guint64 shared = 0, copied = 0;
    PipelineRun run = run_pipeline("videotestsrc num-buffers=12 pattern=smpte ! " + kNv12 +
                                       " ! g2gdmabufupload name=up ! appsink name=sink",
                                   {}, 20 * GST_SECOND, [&](GstBin *bin) {
                                       shared = counter(bin, "up", "frames-shared");
                                       copied = counter(bin, "up", "frames-copied");
                                   });
    ASSERT_EQ(run.error, "");
    PipelineRun peer =
        run_pipeline("videotestsrc num-buffers=12 pattern=smpte ! " + kNv12 + " ! appsink name=sink");
    ASSERT_EQ(run.buffers.size(), 12u);
    EXPECT_EQ(shared, 12u);
    EXPECT_EQ(copied, 0u);
    for (std::size_t i = 0; i < run.buffers.size(); ++i) {
        GstBuffer *frame = run.buffers[i].get();
        EXPECT_EQ(*classify_buffer(frame), MemoryDomainKind::DmaBuf);
        ASSERT_EQ(gst_buffer_n_memory(frame), 1u);
        Result<dmabuf::FrameLayout> layout = dmabuf::layout_of(frame);
        ASSERT_TRUE(layout) << layout.error().message();
        EXPECT_EQ(layout->format.to_string(), "NV12");
        EXPECT_EQ(layout->planes.size(), 2u);
        expect_same_pixels(frame, peer.buffers[i].get(), kNv12);
    }
}

TEST(DmaBufUpload, FramesOfOtherMemoryAreCopiedOnce)
{
    // videoconvert's output comes from its own pool here (identity drops the allocation proposal):
    // system memory the upload copies.
    guint64 shared = 0, copied = 0;
    const std::string rgba = "video/x-raw,format=RGBA,width=37,height=23,framerate=30/1";
    PipelineRun run =
        run_pipeline("videotestsrc num-buffers=5 ! " + rgba +
                         " ! identity drop-allocation=true ! g2gdmabufupload name=up ! appsink name=sink",
                     {}, 20 * GST_SECOND, [&](GstBin *bin) {
                         shared = counter(bin, "up", "frames-shared");
                         copied = counter(bin, "up", "frames-copied");
                     });
    ASSERT_EQ(run.error, "");
    PipelineRun peer = run_pipeline("videotestsrc num-buffers=5 ! " + rgba + " ! appsink name=sink");
    ASSERT_EQ(run.buffers.size(), 5u);
    EXPECT_EQ(shared, 0u);
    EXPECT_EQ(copied, 5u);
    for (std::size_t i = 0; i < run.buffers.size(); ++i) {
        EXPECT_TRUE(gst_is_dmabuf_memory(gst_buffer_peek_memory(run.buffers[i].get(), 0)));
        EXPECT_EQ(dmabuf::layout_of(run.buffers[i].get())->format.to_string(), "AB24"); // DRM's name for RGBA
        EXPECT_EQ(GST_BUFFER_PTS(run.buffers[i].get()), GST_BUFFER_PTS(peer.buffers[i].get()));
        expect_same_pixels(run.buffers[i].get(), peer.buffers[i].get(), rgba);
    }
}

TEST(DmaBufUpload, OffersMemoryDmaBufCapsToConsumersThatAskForThem)
{
    PipelineRun run = run_pipeline("videotestsrc num-buffers=3 ! " + kNv12 +
                                   " ! g2gdmabufupload ! video/x-raw(memory:DMABuf) ! appsink name=sink");
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.buffers.size(), 3u);
    EXPECT_NE(run.sink_caps["sink"].find("video/x-raw(memory:DMABuf)"), std::string::npos)
        << run.sink_caps["sink"];
    EXPECT_NE(run.sink_caps["sink"].find("format=(string)NV12"), std::string::npos) << run.sink_caps["sink"];
}

TEST(DmaBufUpload, FormatsWithoutADrmFourccAreRefusedInCaps)
{
    PipelineRun run =
        run_pipeline("videotestsrc num-buffers=3 ! video/x-raw,format=v210,width=48,height=16 ! "
                     "g2gdmabufupload ! appsink name=sink");
    // The caps filter cannot link to the upload at all: its template has no v210.
    EXPECT_NE(run.error.find("could not link"), std::string::npos) << run.error;
    EXPECT_TRUE(run.buffers.empty());
}

TEST(DmaBufUpload, DmaBufFramesPassAsTheyAre)
{
    guint64 shared = 0, copied = 0;
    std::vector<GstMemory *> entered;
    PipelineRun run = run_pipeline(
        "videotestsrc num-buffers=4 ! " + kNv12 +
            " ! g2gdmabufupload ! identity name=tap ! g2gdmabufupload name=up ! appsink name=sink",
        [&](GstBuffer *buffer) { entered.push_back(gst_buffer_peek_memory(buffer, 0)); }, 20 * GST_SECOND,
        [&](GstBin *bin) {
            shared = counter(bin, "up", "frames-shared");
            copied = counter(bin, "up", "frames-copied");
        });
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.buffers.size(), 4u);
    EXPECT_EQ(shared, 4u);
    EXPECT_EQ(copied, 0u);
    for (std::size_t i = 0; i < run.buffers.size(); ++i)
        EXPECT_EQ(gst_buffer_peek_memory(run.buffers[i].get(), 0), entered[i]);
}

} // namespace
} // namespace g2g::test
