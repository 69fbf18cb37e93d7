// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gdmabufupload's copies of frames it did not give the memory of (a tee upstream, appsrc): every
// format it advertises, each pixel the one GStreamer's peers see (unpacked by GStreamer's own
// unpackers); a GstVideoCropMeta handed on with the frame it marks or applied as videocrop applies
// it; a GstVideoMeta larger than the caps read as gst_video_frame_map reads it; metas that cannot
// be right refused, the element error naming the meta and the caps.
#include <g2g/dmabuf.h>

#include <gst/allocators/allocators.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "frames.h"
#include "pipeline.h"

namespace g2g::test {
namespace {

// The advertised formats: the sink template's, which are g2g's DRM formats.
std::vector<std::string> advertised_formats()
{
    std::vector<std::string> formats;
    for (GstVideoFormat format : dmabuf::drm_video_formats())
        formats.emplace_back(gst_video_format_to_string(format));
    return formats;
}

guint64 counter(GstBin *bin, const char *element, const char *property)
{
    Ref<GstElement> found = Ref<GstElement>::adopt(gst_bin_get_by_name(bin, element));
    guint64 value = 0;
    g_object_get(found.get(), property, &value, nullptr);
    return value;
}

// "" when every pixel of `a` (laid out as `info_a` or its video meta) equals that of `b` (as
// `info_b`) from column `x_b` and row `y_b` on, each row unpacked by GStreamer's unpacker of the
// format (so packing, padding bits and subsampling are read as every GStreamer element reads them);
// else the first that differs.
std::string compare_pixels(const GstVideoInfo &info_a, GstBuffer *a, const GstVideoInfo &info_b, GstBuffer *b,
                           gint x_b = 0, gint y_b = 0)
{
    GstVideoFrame fa, fb;
    if (!gst_video_frame_map(&fa, &info_a, a, GST_MAP_READ))
        return "the first frame does not map";
    if (!gst_video_frame_map(&fb, &info_b, b, GST_MAP_READ)) {
        gst_video_frame_unmap(&fa);
        return "the second frame does not map";
    }
    const GstVideoFormatInfo *finfo = info_a.finfo;
    const guint width = GST_VIDEO_INFO_WIDTH(&info_a);
    const gsize pixel = GST_VIDEO_FORMAT_INFO_PSTRIDE(gst_video_format_get_info(finfo->unpack_format), 0);
    std::vector<guint8> line_a(width * pixel), line_b(width * pixel);
    std::string where;
    for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&info_a) && where.empty(); ++y) {
        finfo->unpack_func(finfo, GST_VIDEO_PACK_FLAG_NONE, line_a.data(), fa.data, fa.info.stride, 0, y,
                           static_cast<gint>(width));
        finfo->unpack_func(finfo, GST_VIDEO_PACK_FLAG_NONE, line_b.data(), fb.data, fb.info.stride, x_b,
                           y + y_b, static_cast<gint>(width));
        for (guint x = 0; x < width && where.empty(); ++x) {
            if (std::memcmp(&line_a[x * pixel], &line_b[x * pixel], pixel) != 0)
                where = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") differs";
        }
    }
    gst_video_frame_unmap(&fb);
    gst_video_frame_unmap(&fa);
    return where;
}

// Runs "appsrc name=src ! <rest>" with `frames` handed to the source (caps `caps`) before it starts.
PipelineRun run_appsrc(const std::string &caps, std::vector<BufferRef> frames, const std::string &rest)
{
    return run_pipeline("appsrc name=src format=time ! " + rest, {}, 20 * GST_SECOND, {},
                        g2g::test::feed_appsrc(caps, std::move(frames)));
}

std::string caps_of(const GstVideoInfo &info)
{
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    gchar *text = gst_caps_to_string(caps.get());
    std::string result = text;
    g_free(text);
    return result;
}

void expect_dmabuf_copy(GstBuffer *frame)
{
    ASSERT_GT(gst_buffer_n_memory(frame), 0u);
    EXPECT_TRUE(gst_is_dmabuf_memory(gst_buffer_peek_memory(frame, 0)));
}

// A `whole` frame of random pixels with a GstVideoMeta of its own size and a crop meta at
// (x, y, width, height).
BufferRef frame_with_metas(const GstVideoInfo &whole, guint32 seed, guint x, guint y, guint width,
                           guint height)
{
    BufferRef frame = random_frame(whole, seed);
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&whole),
                                   GST_VIDEO_INFO_WIDTH(&whole), GST_VIDEO_INFO_HEIGHT(&whole),
                                   GST_VIDEO_INFO_N_PLANES(&whole), const_cast<gsize *>(whole.offset),
                                   const_cast<gint *>(whole.stride));
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(frame.get());
    crop->x = x;
    crop->y = y;
    crop->width = width;
    crop->height = height;
    return frame;
}

class EveryFormat : public testing::TestWithParam<std::tuple<std::string, std::pair<int, int>>> {};

// videotestsrc's frames reach the upload through a tee (its own pool's frames, not the upload's):
// each is copied, and equals the same frame on the tee's plain system-memory branch.
TEST_P(EveryFormat, ThroughATeeIsCopiedPixelForPixel)
{
    const auto &[format, size] = GetParam();
    const std::string caps = "video/x-raw,format=" + format + ",width=" + std::to_string(size.first) +
                             ",height=" + std::to_string(size.second) + ",framerate=30/1";
    guint64 copied = 0, shared = 0;
    const PipelineRun run =
        run_pipeline("videotestsrc num-buffers=3 pattern=smpte ! " + caps +
                         " ! tee name=t t. ! queue ! g2gdmabufupload name=up ! appsink name=sink "
                         "t. ! queue ! appsink name=plain",
                     {}, 20 * GST_SECOND, [&](GstBin *bin) {
                         copied = counter(bin, "up", "frames-copied");
                         shared = counter(bin, "up", "frames-shared");
                     });
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.buffers.size(), 3u);
    ASSERT_EQ(run.sinks.at("plain").size(), 3u);
    EXPECT_EQ(copied, 3u);
    EXPECT_EQ(shared, 0u);
    const GstVideoInfo info = video_info_of_caps(caps);
    for (std::size_t i = 0; i < run.buffers.size(); ++i) {
        SCOPED_TRACE("frame " + std::to_string(i));
        expect_dmabuf_copy(run.buffers[i].get());
        EXPECT_EQ(GST_BUFFER_PTS(run.buffers[i].get()), GST_BUFFER_PTS(run.sinks.at("plain")[i].get()));
        EXPECT_EQ(compare_pixels(info, run.buffers[i].get(), info, run.sinks.at("plain")[i].get()), "");
    }
}

INSTANTIATE_TEST_SUITE_P(Advertised, EveryFormat,
                         testing::Combine(testing::ValuesIn(advertised_formats()),
                                          testing::Values(std::pair{64, 48}, std::pair{37, 23})),
                         [](const auto &info) {
                             return std::get<0>(info.param) + "_" +
                                    std::to_string(std::get<1>(info.param).first) + "x" +
                                    std::to_string(std::get<1>(info.param).second);
                         });

TEST(DmaBufUploadFormats, TheTestedFormatsAreTheAdvertisedOnes)
{
    g_autoptr(GstElementFactory) factory = gst_element_factory_find("g2gdmabufupload");
    ASSERT_TRUE(factory);
    CapsRef sink;
    for (const GList *t = gst_element_factory_get_static_pad_templates(factory); t; t = t->next) {
        auto *templ = static_cast<GstStaticPadTemplate *>(t->data);
        if (templ->direction == GST_PAD_SINK)
            sink = CapsRef::adopt(gst_static_pad_template_get_caps(templ));
    }
    ASSERT_TRUE(sink);
    const GValue *formats = gst_structure_get_value(gst_caps_get_structure(sink.get(), 0), "format");
    ASSERT_TRUE(GST_VALUE_HOLDS_LIST(formats));
    std::vector<std::string> listed;
    for (guint i = 0; i < gst_value_list_get_size(formats); ++i)
        listed.emplace_back(g_value_get_string(gst_value_list_get_value(formats, i)));
    EXPECT_EQ(listed, advertised_formats());
}

// A crop meta on a frame of the caps' size (appsrc's, an application's): the copy is the whole
// frame and the crop meta goes on with it, unchanged, as a queue or a tee would hand it on.
TEST(DmaBufUploadMetas, ACropMetaOnAFrameOfTheCapsSizeTravelsWithTheCopy)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 20, 10);
    BufferRef frame = frame_with_metas(info, 7, 3, 2, 11, 5);
    BufferRef input = BufferRef::borrow(frame.get());
    std::vector<BufferRef> frames;
    frames.push_back(std::move(frame));
    const PipelineRun run =
        run_appsrc(caps_of(info), std::move(frames), "g2gdmabufupload ! appsink name=sink");
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.buffers.size(), 1u);
    GstBuffer *copy = run.buffers[0].get();
    expect_dmabuf_copy(copy);
    EXPECT_EQ(compare_pixels(info, copy, info, input.get()), "");
    const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(copy);
    ASSERT_NE(crop, nullptr) << "the crop meta did not travel";
    EXPECT_EQ(crop->x, 3u);
    EXPECT_EQ(crop->y, 2u);
    EXPECT_EQ(crop->width, 11u);
    EXPECT_EQ(crop->height, 5u);
}

// videocrop's form (the caps the cropped size, the video meta the whole frame, the crop meta where
// the caps' frame starts in it): the copy is that region, equal to what videocrop itself makes of
// the whole frame; odd offsets in NV12 and I420 included (the chroma planes from x/2, y/2 rounded
// down, as videocrop reads them).
TEST(DmaBufUploadMetas, AVideoMetaLargerThanTheCapsWithACropMetaCopiesTheCroppedRegionAsVideocrop)
{
    struct Case {
        GstVideoFormat format;
        guint x, y;
        bool videocrop; // videocrop takes the format (1.22's has no NV16 or Y210)
    };
    for (const Case &c : {Case{GST_VIDEO_FORMAT_RGBA, 7, 5, true}, Case{GST_VIDEO_FORMAT_NV12, 6, 4, true},
                          Case{GST_VIDEO_FORMAT_NV12, 7, 5, true}, Case{GST_VIDEO_FORMAT_I420, 7, 3, true},
                          Case{GST_VIDEO_FORMAT_YUY2, 6, 3, true}, Case{GST_VIDEO_FORMAT_NV16, 4, 5, false},
                          Case{GST_VIDEO_FORMAT_Y210, 2, 1, false}}) {
        const std::string name = gst_video_format_to_string(c.format);
        SCOPED_TRACE(name + " at " + std::to_string(c.x) + "," + std::to_string(c.y));
        const GstVideoInfo whole = video_info(c.format, 40, 24);
        const GstVideoInfo cropped = video_info(c.format, 20, 10);
        BufferRef frame = frame_with_metas(whole, 11, c.x, c.y, 20, 10);
        BufferRef plain = random_frame(whole, 11); // the same bytes, no metas: videocrop's input
        std::vector<BufferRef> frames;
        frames.push_back(std::move(frame));
        const PipelineRun run =
            run_appsrc(caps_of(cropped), std::move(frames), "g2gdmabufupload ! appsink name=sink");
        ASSERT_EQ(run.error, "");
        ASSERT_EQ(run.buffers.size(), 1u);
        expect_dmabuf_copy(run.buffers[0].get());
        EXPECT_EQ(gst_buffer_get_video_crop_meta(run.buffers[0].get()), nullptr) << "the crop was applied";
        // The region of the whole frame, as GStreamer's unpackers read it there, where the region
        // starts on the chroma grid (off it, the copy's chroma is the grid's, half a sample away, as
        // videocrop's is).
        const GstVideoFormatInfo *finfo = whole.finfo;
        bool on_grid = true;
        for (guint k = 0; k < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++k)
            on_grid = on_grid && c.x % (1u << GST_VIDEO_FORMAT_INFO_W_SUB(finfo, k)) == 0 &&
                      c.y % (1u << GST_VIDEO_FORMAT_INFO_H_SUB(finfo, k)) == 0;
        if (on_grid) {
            EXPECT_EQ(compare_pixels(cropped, run.buffers[0].get(), whole, plain.get(),
                                     static_cast<gint>(c.x), static_cast<gint>(c.y)),
                      "");
        }
        if (!c.videocrop)
            continue;
        std::vector<BufferRef> whole_frames;
        whole_frames.push_back(std::move(plain));
        const PipelineRun peer =
            run_appsrc(caps_of(whole), std::move(whole_frames),
                       "videocrop left=" + std::to_string(c.x) + " top=" + std::to_string(c.y) +
                           " right=" + std::to_string(40 - 20 - c.x) +
                           " bottom=" + std::to_string(24 - 10 - c.y) + " ! appsink name=sink");
        ASSERT_EQ(peer.error, "");
        ASSERT_EQ(peer.buffers.size(), 1u);
        EXPECT_EQ(compare_pixels(cropped, run.buffers[0].get(), video_info_of_caps(peer.sink_caps.at("sink")),
                                 peer.buffers[0].get()),
                  "");
    }
}

// A GstVideoMeta larger than the caps without a crop meta (a decoder's coded size): the caps'
// frame from the top left, as gst_video_frame_map reads it (and videoconvert with it).
TEST(DmaBufUploadMetas, AVideoMetaLargerThanTheCapsCopiesTheCapsRegion)
{
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV16,
                                  GST_VIDEO_FORMAT_YUV9, GST_VIDEO_FORMAT_VYUY}) {
        SCOPED_TRACE(gst_video_format_to_string(format));
        const GstVideoInfo coded = video_info(format, 48, 32);
        const GstVideoInfo shown = video_info(format, 37, 23);
        BufferRef frame = random_frame(coded, 5);
        gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, format, 48, 32,
                                       GST_VIDEO_INFO_N_PLANES(&coded), const_cast<gsize *>(coded.offset),
                                       const_cast<gint *>(coded.stride));
        BufferRef input = BufferRef::borrow(frame.get());
        std::vector<BufferRef> frames;
        frames.push_back(std::move(frame));
        const PipelineRun run =
            run_appsrc(caps_of(shown), std::move(frames), "g2gdmabufupload ! appsink name=sink");
        ASSERT_EQ(run.error, "");
        ASSERT_EQ(run.buffers.size(), 1u);
        expect_dmabuf_copy(run.buffers[0].get());
        // The input read as GStreamer maps it: the caps' size with the meta's planes.
        EXPECT_EQ(compare_pixels(shown, run.buffers[0].get(), shown, input.get()), "");
        // And as videoconvert (to the same format, a copy) makes it of the same input.
        std::vector<BufferRef> again;
        again.push_back(BufferRef::borrow(input.get()));
        const PipelineRun peer =
            run_appsrc(caps_of(shown), std::move(again),
                       "identity drop-allocation=true ! videoconvert ! appsink name=sink");
        ASSERT_EQ(peer.error, "");
        ASSERT_EQ(peer.buffers.size(), 1u);
        EXPECT_EQ(compare_pixels(shown, run.buffers[0].get(), shown, peer.buffers[0].get()), "");
    }
}

// Metas that cannot be right stop the stream at the frame, the element error naming the meta and
// the caps (gst_video_frame_map only returns FALSE on the first, with a critical).
TEST(DmaBufUploadMetas, MetasThatCannotBeRightAreRefusedNamingTheMetaAndTheCaps)
{
    const GstVideoInfo caps = video_info(GST_VIDEO_FORMAT_RGBA, 20, 10);
    {
        SCOPED_TRACE("a video meta smaller than the caps");
        const GstVideoInfo small = video_info(GST_VIDEO_FORMAT_RGBA, 10, 5);
        BufferRef frame = random_frame(caps, 3);
        gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA, 10, 5,
                                       1, const_cast<gsize *>(small.offset),
                                       const_cast<gint *>(small.stride));
        std::vector<BufferRef> frames;
        frames.push_back(std::move(frame));
        const PipelineRun run =
            run_appsrc(caps_of(caps), std::move(frames), "g2gdmabufupload name=up ! appsink name=sink");
        EXPECT_EQ(run.error,
                  "up: the frame's GstVideoMeta says RGBA 10x5, smaller than its caps' RGBA 20x10: a "
                  "video meta smaller than the caps cannot hold the caps' frame (the producer's video "
                  "meta or its caps are wrong)");
        EXPECT_EQ(run.error_source, "up");
        EXPECT_TRUE(run.buffers.empty());
    }
    {
        SCOPED_TRACE("a video meta of another format");
        const GstVideoInfo nv12 = video_info(GST_VIDEO_FORMAT_NV12, 20, 10);
        BufferRef frame = random_frame(caps, 3);
        gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 20, 10,
                                       2, const_cast<gsize *>(nv12.offset), const_cast<gint *>(nv12.stride));
        std::vector<BufferRef> frames;
        frames.push_back(std::move(frame));
        const PipelineRun run =
            run_appsrc(caps_of(caps), std::move(frames), "g2gdmabufupload name=up ! appsink name=sink");
        EXPECT_EQ(run.error, "up: the frame's GstVideoMeta says NV12 20x10 in 2 planes but its caps say RGBA "
                             "20x10 in 1: the producer's video meta or its caps are wrong");
    }
    {
        SCOPED_TRACE("a crop meta past the frame of the caps' size");
        std::vector<BufferRef> frames;
        frames.push_back(frame_with_metas(caps, 3, 15, 2, 10, 5));
        const PipelineRun run =
            run_appsrc(caps_of(caps), std::move(frames), "g2gdmabufupload name=up ! appsink name=sink");
        EXPECT_EQ(run.error,
                  "up: the frame's GstVideoCropMeta (x=15 y=2 10x5) reaches past the RGBA 20x10 frame "
                  "its caps and video meta describe");
    }
    {
        SCOPED_TRACE("a crop meta that puts the caps' frame past a larger video meta");
        const GstVideoInfo whole = video_info(GST_VIDEO_FORMAT_RGBA, 30, 16);
        std::vector<BufferRef> frames;
        frames.push_back(frame_with_metas(whole, 3, 12, 0, 20, 10));
        const PipelineRun run =
            run_appsrc(caps_of(caps), std::move(frames), "g2gdmabufupload name=up ! appsink name=sink");
        EXPECT_EQ(run.error,
                  "up: the frame's GstVideoCropMeta (x=12 y=0 20x10) puts the caps' RGBA 20x10 frame "
                  "past the 30x16 frame of its GstVideoMeta: the producer's crop meta or its caps are "
                  "wrong");
    }
    {
        SCOPED_TRACE("a frame without a video meta smaller than its caps");
        const GstVideoInfo small = video_info(GST_VIDEO_FORMAT_RGBA, 10, 5);
        std::vector<BufferRef> frames;
        frames.push_back(random_frame(small, 3));
        const PipelineRun run =
            run_appsrc(caps_of(caps), std::move(frames), "g2gdmabufupload name=up ! appsink name=sink");
        EXPECT_EQ(run.error, "up: the frame's 200 bytes hold no RGBA 20x10 frame of its caps (800 bytes)");
    }
}

} // namespace
} // namespace g2g::test
