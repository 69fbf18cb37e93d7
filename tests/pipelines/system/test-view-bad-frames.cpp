// SPDX-License-Identifier: LGPL-2.1-or-later
// Bad frames and bad caps offered to g2gview and g2gmaterialize: formats a view cannot describe
// (refused in caps), buffers smaller than their caps, GstVideoMeta layouts that reach outside the
// memory or overlap their own rows, crop metas outside the frame. Each is a clear element error
// (or a caps refusal), never a read outside the memory (the sanitizer build runs these too).
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "frames.h"
#include "pipeline.h"

using g2g::BufferRef;
using g2g::test::run_chain;
using g2g::test::video_info;

namespace {

// A frame of `info`'s size whose GstVideoMeta says the given offsets and strides.
BufferRef frame_with_meta(const GstVideoInfo &info, const gsize *offsets, const gint *strides)
{
    BufferRef frame = g2g::test::random_frame(info, 1);
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                   GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                   GST_VIDEO_INFO_N_PLANES(&info), const_cast<gsize *>(offsets),
                                   const_cast<gint *>(strides));
    return frame;
}

// The chains that read a frame: g2gview's own dense output and its view materialized downstream.
struct Reader {
    const char *chain;
    const char *sink_caps; // what the harness's sink takes (nullptr: anything)
    const char *element;   // the element that must post the error
};
const Reader kReaders[] = {
    {"g2gview name=view video-direction=90r", nullptr, "view"},
    {"g2gview name=view video-direction=horiz ! g2gmaterialize", nullptr, "view"},
};

// g2gmaterialize alone, fed the frame under view caps (a producer that says view but sends a plain
// frame, as unixfdsink's peer gets one whose view the process boundary dropped). Returns the error
// and the element that posted it.
std::pair<std::string, std::string> materialize_as_view(const GstVideoInfo &info, GstBuffer *frame)
{
    GstHarness *harness = gst_harness_new("g2gmaterialize");
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(harness->element, bus);
    GstCaps *caps = gst_video_info_to_caps(&info);
    gst_caps_set_features(
        caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, "meta:G2gTensorView", nullptr));
    gst_harness_set_src_caps(harness, caps);
    const GstFlowReturn flow = gst_harness_push(harness, gst_buffer_ref(frame));
    std::pair<std::string, std::string> result{"flow " + std::string(gst_flow_get_name(flow)), ""};
    if (const g2g::Ref<GstMessage> message =
            g2g::Ref<GstMessage>::adopt(gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)))
        result = {g2g::test::message_text(message.get()), GST_OBJECT_NAME(GST_MESSAGE_SRC(message.get()))};
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
    gst_harness_teardown(harness);
    return result;
}

void expect_refused(const GstVideoInfo &info, GstBuffer *frame, const std::string &message)
{
    for (const Reader &reader : kReaders) {
        auto out = run_chain(reader.chain, info, frame, reader.sink_caps);
        EXPECT_EQ(out.error, message) << reader.chain;
        EXPECT_EQ(out.error_source, reader.element) << reader.chain;
        EXPECT_FALSE(out.buffer) << reader.chain;
    }
}

} // namespace

// View caps describe the view, not the bytes: a frame that arrives in them without its
// G2gTensorViewMeta (an element upstream dropped it) is refused, never read as a dense frame of the
// caps' size (64x48 and 48x64 are the same 4608 bytes of NV12).
TEST(ViewBadFrames, AFrameInViewCapsWithoutItsViewIsRefusedNotReadAsDense)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_NV12, 48, 64);
    const BufferRef frame =
        BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
    const auto [error, source] = materialize_as_view(info, frame.get());
    EXPECT_EQ(source.rfind("g2gmaterialize", 0), 0u) << source;
    EXPECT_EQ(error,
              source +
                  " received a frame in view caps (meta:G2gTensorView) without its G2gTensorViewMeta: an "
                  "element upstream dropped the view (unixfdsink and every element that does not "
                  "declare meta:G2gTensorView lose it), so its bytes are not the frame its caps "
                  "describe; insert g2gmaterialize before that element");
}

TEST(ViewBadFrames, FormatsAViewCannotDescribeAreRefusedInCaps)
{
    for (const char *factory : {"g2gview", "g2gmaterialize"}) {
        GstElement *element = gst_element_factory_make(factory, nullptr);
        ASSERT_NE(element, nullptr);
        gst_object_ref_sink(element);
        GstPad *sink = gst_element_get_static_pad(element, "sink");
        for (const char *format : {"NV16", "v210", "I422_10LE", "Y41B"}) {
            GstCaps *offered =
                gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, format, "width", G_TYPE_INT, 64,
                                    "height", G_TYPE_INT, 48, "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
            // The caps query filtered by the offer answers nothing, and accept-caps says no.
            GstCaps *answer = gst_pad_query_caps(sink, offered);
            EXPECT_TRUE(gst_caps_is_empty(answer)) << factory << " " << format;
            EXPECT_FALSE(gst_pad_query_accept_caps(sink, offered)) << factory << " " << format;
            gst_caps_unref(answer);
            gst_caps_unref(offered);
        }
        gst_object_unref(sink);
        gst_object_unref(element);
    }
    // Pushed anyway, the caps event is refused: not-negotiated, no frame out.
    GstVideoInfo nv16 = video_info(GST_VIDEO_FORMAT_NV16, 64, 48);
    BufferRef frame = g2g::test::random_frame(nv16, 1);
    for (const char *chain : {"g2gview video-direction=90r", "g2gmaterialize"}) {
        auto out = run_chain(chain, nv16, frame.get());
        EXPECT_EQ(out.error, "flow not-negotiated") << chain;
        EXPECT_FALSE(out.buffer) << chain;
    }
}

TEST(ViewBadFrames, ABufferSmallerThanItsCapsIsAnElementError)
{
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 64, 48);
    BufferRef small = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 100, nullptr));
    expect_refused(info, small.get(), "plane 0 (bytes 0..3072) lies outside the 100-byte buffer");
    // One byte short: the last chroma plane's last row.
    BufferRef short_by_one =
        BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info) - 1, nullptr));
    expect_refused(info, short_by_one.get(), "plane 2 (bytes 3840..4608) lies outside the 4607-byte buffer");
}

TEST(ViewBadFrames, AVideoMetaOffsetOutsideTheMemoryIsAnElementError)
{
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 32, 16);
    const gsize offsets[] = {0, GST_VIDEO_INFO_SIZE(&info)};
    const gint strides[] = {32, 32};
    BufferRef frame = frame_with_meta(info, offsets, strides);
    expect_refused(info, frame.get(), "plane 1 (bytes 768..1024) lies outside the 768-byte buffer");
}

TEST(ViewBadFrames, AVideoMetaStrideReachingPastTheMemoryIsAnElementError)
{
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 16, 8);
    const gsize offsets[] = {0};
    const gint strides[] = {1 << 20};
    BufferRef frame = frame_with_meta(info, offsets, strides);
    expect_refused(info, frame.get(), "plane 0 (bytes 0..7340096) lies outside the 512-byte buffer");
}

TEST(ViewBadFrames, AVideoMetaStrideShorterThanARowIsAnElementError)
{
    // Rows that overlap would be read mixed; odd-width packed 4:2:2 rows are whole macropixels
    // (38 bytes for 9 pixels: a stride of 18 pixels' 2 bytes is one short).
    GstVideoInfo gray = video_info(GST_VIDEO_FORMAT_GRAY8, 64, 4);
    const gsize offsets[] = {0};
    const gint short_stride[] = {10};
    BufferRef frame = frame_with_meta(gray, offsets, short_stride);
    expect_refused(gray, frame.get(), "plane 0's stride 10 is shorter than its 64-byte rows");

    GstVideoInfo yuy2 = video_info(GST_VIDEO_FORMAT_YUY2, 9, 4);
    const gint pixel_stride[] = {18};
    BufferRef packed = frame_with_meta(yuy2, offsets, pixel_stride);
    expect_refused(yuy2, packed.get(), "plane 0's stride 18 is shorter than its 20-byte rows");

    const gint negative[] = {-64};
    BufferRef bottom_up = frame_with_meta(gray, offsets, negative);
    expect_refused(gray, bottom_up.get(), "plane 0's stride -64 is negative");
}

TEST(ViewBadFrames, ACropMetaOutsideTheFrameIsAnElementError)
{
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    BufferRef frame = g2g::test::random_frame(info, 1);
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(frame.get());
    crop->x = 60;
    crop->y = 0;
    crop->width = 10;
    crop->height = 10;
    expect_refused(info, frame.get(), "crop 10x10+60+0 does not fit in a 64x48 frame");
}

TEST(ViewBadFrames, IdentityPassesBadFramesOnUnread)
{
    // Passthrough (identity, dense in and out) hands the buffer on without reading it, as identity
    // and videoflip's identity passthrough do: the short buffer arrives downstream untouched.
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 64, 48);
    BufferRef small = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 100, nullptr));
    auto out = run_chain("g2gview video-direction=identity", info, small.get());
    EXPECT_EQ(out.error, "");
    ASSERT_TRUE(out.buffer);
    EXPECT_EQ(out.buffer.get(), small.get());
}
