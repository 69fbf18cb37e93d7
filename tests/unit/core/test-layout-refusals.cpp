// SPDX-License-Identifier: LGPL-2.1-or-later
// A caller's layout (destination planes and strides, a view on a buffer, caps, a DMA-BUF plane's
// offset) refused the same way by every entry point that takes it: the C API's
// g2g_buffer_materialize_into, g2g_frame_new and g2g_frame_materialize_into, the C++ API's
// FrameView::materialize_into and TensorFrame::materialize_into. Each refusal opens with the
// function the caller called; what follows is the same text for the same input, whichever API it
// came through. A refused write leaves every destination byte as it was.
#include <g2g/g2g.hpp>
#include <g2g/tensor-frame.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "frames.h"
#include "handle-frames.h"
#include "log-capture.h"
#include "pipeline.h"

namespace {

using g2g::BufferRef;
using g2g::CapsRef;
using g2g::FrameView;
using g2g::TensorFrame;

constexpr guint8 kUntouched = 0xAB;

// A GError's code and text, or nothing when the call succeeded.
struct Refusal {
    int code = 0;
    std::string message;
};

std::optional<Refusal> taken(GError *error)
{
    if (!error)
        return std::nullopt;
    Refusal refusal{error->code, error->message};
    g_error_free(error);
    return refusal;
}

std::optional<Refusal> buffer_materialize(GstBuffer *buffer, const GstVideoInfo &info, guint8 *const dst[],
                                          const gint stride[])
{
    GError *error = nullptr;
    const gboolean written = g2g_buffer_materialize_into(buffer, &info, dst, stride, 1, &error);
    std::optional<Refusal> refusal = taken(error);
    EXPECT_EQ(written, !refusal);
    return refusal;
}

std::optional<Refusal> frame_new(GstBuffer *buffer, GstCaps *caps)
{
    GError *error = nullptr;
    G2gFrame *frame = g2g_frame_new(buffer, caps, &error);
    if (frame)
        g2g_frame_unref(frame);
    std::optional<Refusal> refusal = taken(error);
    EXPECT_EQ(frame == nullptr, refusal.has_value());
    return refusal;
}

std::optional<Refusal> frame_materialize(GstBuffer *buffer, const GstVideoInfo &info, guint8 *const dst[],
                                         const gint stride[], const gsize size[])
{
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    GError *error = nullptr;
    G2gFrame *frame = g2g_frame_new(buffer, caps.get(), &error);
    EXPECT_NE(frame, nullptr) << (error ? error->message : "");
    if (!frame)
        return taken(error);
    guintptr planes[GST_VIDEO_MAX_PLANES] = {};
    const guint n_planes = GST_VIDEO_INFO_N_PLANES(&info);
    for (guint p = 0; p < n_planes; ++p)
        planes[p] = reinterpret_cast<guintptr>(dst[p]);
    g2g_frame_materialize_into(frame, planes, stride, size, n_planes, 1, &error);
    g2g_frame_unref(frame);
    return taken(error);
}

// The same refusal from the four materialize entry points: `body` after each one's name.
void expect_every_materialize_refuses(GstBuffer *buffer, const GstVideoInfo &info, guint8 *const dst[],
                                      const gint stride[], const gsize size[], const std::string &body)
{
    std::optional<Refusal> refused = buffer_materialize(buffer, info, dst, stride);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused->message, "g2g_buffer_materialize_into: " + body);

    refused = frame_materialize(buffer, info, dst, stride, size);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused->message, "g2g_frame_materialize_into: " + body);

    g2g::Result<FrameView> view = FrameView::of_frame(buffer, info);
    ASSERT_TRUE(view.ok()) << view.error().message();
    g2g::Result<void> written = view->materialize_into(buffer, dst, stride);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code(), g2g::ErrorCode::InvalidArgument);
    EXPECT_EQ(written.error().message(), "FrameView::materialize_into: " + body);
    written = view->materialize_into(buffer, dst, stride, 4u);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message(), "FrameView::materialize_into: " + body);

    auto frame = TensorFrame::of(buffer, info);
    ASSERT_TRUE(frame.ok()) << frame.error().message();
    void *planes[GST_VIDEO_MAX_PLANES] = {};
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p)
        planes[p] = dst[p];
    written = (*frame)->materialize_into(planes, stride, size, 1);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message(), "TensorFrame::materialize_into: " + body);
}

bool untouched(const std::vector<guint8> &bytes)
{
    for (guint8 byte : bytes) {
        if (byte != kUntouched)
            return false;
    }
    return true;
}

// g2gview's 90r view of an RGBA 64x48 frame, carried by a buffer whose memory is only 100 bytes
// (an element replaced the memory and kept the meta).
struct ViewOverSmallMemory {
    GstVideoInfo source = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    GstVideoInfo view_info{};
    BufferRef buffer;
    ViewOverSmallMemory()
    {
        BufferRef frame = g2g::test::random_frame(source, 3);
        g2g::Result<FrameView> view = FrameView::of_frame(frame.get(), source);
        view->orient(GST_VIDEO_ORIENTATION_90R);
        view_info = view->info();
        buffer = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 100, nullptr));
        g2g::attach_tensor_view(buffer.get(), std::move(*view));
    }
};

} // namespace

// Case 1 of #29: RGBA 16x8 (rows of 64 bytes) into strides of 60, 4, 0 (and one negative): the
// rows would overlap (g2g_buffer_materialize_into wrote them, up to 60 bytes past stride x rows).
TEST(LayoutRefusals, AStrideShorterThanARowIsRefusedByEveryEntryPointBeforeAnyWrite)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 16, 8);
    BufferRef frame = g2g::test::random_frame(info, 1);
    for (gint stride : {60, 4, 0, -64}) {
        std::vector<guint8> destination(64 * 8 + 64, kUntouched);
        guint8 *dst[] = {destination.data()};
        const gint strides[] = {stride};
        const gsize sizes[] = {destination.size()};
        expect_every_materialize_refuses(
            frame.get(), info, dst, strides, sizes,
            "plane 0 of this RGBA frame is 8 rows of 64 bytes; dst_stride[0] is " + std::to_string(stride) +
                ", shorter than a row: the rows would overlap");
        EXPECT_TRUE(untouched(destination)) << "stride " << stride;
    }
}

// Case 2: NV12 with its chroma plane's destination NULL (g2g_buffer_materialize_into crashed in
// the plane copy).
TEST(LayoutRefusals, ANullPlaneDestinationIsRefusedByEveryEntryPointBeforeAnyWrite)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_NV12, 16, 8);
    BufferRef frame = g2g::test::random_frame(info, 2);
    std::vector<guint8> luma(16 * 8, kUntouched);
    guint8 *dst[] = {luma.data(), nullptr};
    const gint strides[] = {16, 16};
    const gsize sizes[] = {luma.size(), 64};
    expect_every_materialize_refuses(
        frame.get(), info, dst, strides, sizes,
        "plane 1 of this NV12 frame is 4 rows of 16 bytes; its destination dst[1] "
        "is NULL");
    EXPECT_TRUE(untouched(luma));
}

// Sizes (the frame API's, C++'s TensorFrame): a plane whose rows at its stride need more than its size.
TEST(LayoutRefusals, ADestinationSmallerThanItsRowsIsRefusedByTheApisThatTakeSizes)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 16, 8);
    BufferRef frame = g2g::test::random_frame(info, 4);
    std::vector<guint8> destination(80 * 8, kUntouched);
    guint8 *dst[] = {destination.data()};
    const gint strides[] = {80};
    const gsize sizes[] = {600};
    const std::string body =
        "plane 0 of this RGBA frame is 8 rows of 64 bytes; at dst_stride[0] = 80 they take 624 bytes but "
        "dst_size[0] is 600";
    std::optional<Refusal> refused = frame_materialize(frame.get(), info, dst, strides, sizes);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->message, "g2g_frame_materialize_into: " + body);
    auto tensor_frame = TensorFrame::of(frame.get(), info);
    ASSERT_TRUE(tensor_frame.ok());
    void *planes[] = {destination.data()};
    g2g::Result<void> written = (*tensor_frame)->materialize_into(planes, strides, sizes, 1);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message(), "TensorFrame::materialize_into: " + body);
    EXPECT_TRUE(untouched(destination));
}

// Case 3: a view meta over memory smaller than the view. g2g_frame_new accepted it (its plane
// then reached 12288 bytes into 100: a heap-buffer-overflow for NumPy or DLPack); now it, and
// g2g_buffer_materialize_into, check the carried view against the buffer's memory.
TEST(LayoutRefusals, AViewMetaOverMemorySmallerThanTheViewIsRefusedByEveryReader)
{
    ViewOverSmallMemory small;
    const std::string body = "plane 0 of the view would read bytes 0..12288 of a 100-byte memory";
    CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&small.view_info));
    std::optional<Refusal> refused = frame_new(small.buffer.get(), caps.get());
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused->message, "g2g_frame_new: " + body);
    // Under view caps (meta:G2gTensorView), as g2gview hands it on: the same.
    gst_caps_set_features(caps.get(), 0,
                          gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY,
                                                G2G_CAPS_FEATURE_META_TENSOR_VIEW, nullptr));
    refused = frame_new(small.buffer.get(), caps.get());
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->message, "g2g_frame_new: " + body);

    std::vector<guint8> destination(GST_VIDEO_INFO_SIZE(&small.view_info), kUntouched);
    guint8 *dst[] = {destination.data()};
    refused = buffer_materialize(small.buffer.get(), small.view_info, dst, small.view_info.stride);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->message, "g2g_buffer_materialize_into: " + body);
    EXPECT_TRUE(untouched(destination));
    auto frame = TensorFrame::of(small.buffer.get(), small.view_info, "myapp");
    ASSERT_FALSE(frame.ok());
    EXPECT_EQ(frame.error().message(), "myapp: " + body);
}

// A neighbour of case 4: a GstVideoMeta whose offset is near G_MAXSIZE. The plane's end is past
// 2^64; the refusal says so instead of a wrapped byte range.
TEST(LayoutRefusals, AVideoMetaOffsetWhoseEndWrapsIsRefusedWithoutAWrappedRange)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 16, 8);
    BufferRef frame = g2g::test::random_frame(info, 5);
    gsize offsets[] = {G_MAXSIZE - 100};
    gint strides[] = {64};
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA, 16, 8, 1,
                                   offsets, strides);
    const std::string body =
        "plane 0 (bytes from 18446744073709551515 on, past 2^64) lies outside the 512-byte "
        "buffer";
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    std::optional<Refusal> refused = frame_new(frame.get(), caps.get());
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->message, "g2g_frame_new: " + body);
    std::vector<guint8> destination(GST_VIDEO_INFO_SIZE(&info), kUntouched);
    guint8 *dst[] = {destination.data()};
    refused = buffer_materialize(frame.get(), info, dst, info.stride);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->message, "g2g_buffer_materialize_into: " + body);
    g2g::Result<FrameView> view = FrameView::of_frame(frame.get(), info);
    ASSERT_FALSE(view.ok());
    EXPECT_EQ(view.error().message(), body);
}

// Case 5: caps that are not fixed (a list, EMPTY, ANY) are refused with no GStreamer-CRITICAL on
// the way; a width or height of 0 is named, not reported as a byte range.
TEST(LayoutRefusals, CapsThatAreNotFixedOrHaveNoPixelsAreRefusedWithoutACritical)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 16, 8);
    BufferRef frame = g2g::test::random_frame(info, 6);
    g2g::test::LogCapture criticals({"GStreamer", "GStreamer-Video", "GLib", "GLib-GObject"});
    const std::pair<const char *, std::string> cases[] = {
        {"video/x-raw,format={RGBA,NV12},width=16,height=8",
         "g2g_frame_new needs fixed raw video caps (one structure, one value per field), got caps "
         "video/x-raw, "
         "format=(string){ RGBA, NV12 }, width=(int)16, height=(int)8"},
        {"EMPTY",
         "g2g_frame_new needs fixed raw video caps (one structure, one value per field), got caps EMPTY"},
        {"ANY",
         "g2g_frame_new needs fixed raw video caps (one structure, one value per field), got caps ANY"},
        {"video/x-raw,format=RGBA,width=0,height=8",
         "g2g_frame_new: the caps give a frame of width 0 and height 8, which has no pixels: video/x-raw, "
         "format=(string)RGBA, width=(int)0, height=(int)8"},
        {"audio/x-raw,format=S16LE,rate=48000,channels=2",
         "g2g_frame_new needs raw video caps, got caps audio/x-raw, format=(string)S16LE, rate=(int)48000, "
         "channels=(int)2"},
    };
    for (const auto &[text, refusal] : cases) {
        const CapsRef caps = CapsRef::adopt(gst_caps_from_string(text));
        ASSERT_TRUE(caps) << text;
        std::optional<Refusal> refused = frame_new(frame.get(), caps.get());
        ASSERT_TRUE(refused) << text;
        EXPECT_EQ(refused->code, G2G_ERROR_INVALID_ARGUMENT);
        EXPECT_EQ(refused->message, refusal);
    }
    std::optional<Refusal> refused = frame_new(frame.get(), nullptr);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->message, "g2g_frame_new needs raw video caps, got none");
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    refused = frame_new(nullptr, caps.get());
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->message, "g2g_frame_new needs a buffer, got none");
    EXPECT_EQ(criticals.said(), std::vector<std::string>{});
}

// Case 6: g2g's own DMA_DRM output (g2gdmabufupload under format=DMA_DRM caps), which g2g/dmabuf.h
// says g2g understands, is a frame: the DMA_DRM caps are read as the compat layer reads them.
TEST(LayoutRefusals, DmaDrmCapsOfG2gsOwnUploadAreAFrame)
{
    if (!g2g::test::have_element("g2gdmabufupload"))
        GTEST_SKIP() << "a build without the dmabuf feature has no g2gdmabufupload";
    const std::string source = "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48 ! ";
    g2g::test::PipelineRun uploaded = g2g::test::run_pipeline(
        source +
        "g2gdmabufupload ! video/x-raw(memory:DMABuf),format=DMA_DRM ! appsink name=sink sync=false");
    ASSERT_EQ(uploaded.error, "");
    ASSERT_EQ(uploaded.buffers.size(), 1u);
    g2g::test::PipelineRun plain = g2g::test::run_pipeline(source + "appsink name=sink sync=false");
    ASSERT_EQ(plain.buffers.size(), 1u);
    const std::string &caps_text = uploaded.sink_caps["sink"];
    ASSERT_NE(caps_text.find("DMA_DRM"), std::string::npos) << caps_text;
    const CapsRef caps = CapsRef::adopt(gst_caps_from_string(caps_text.c_str()));

    GError *error = nullptr;
    G2gFrame *frame = g2g_frame_new(uploaded.buffers[0].get(), caps.get(), &error);
    ASSERT_NE(frame, nullptr) << error->message;
    EXPECT_EQ(g2g_frame_get_memory_domain(frame), G2G_MEMORY_DOMAIN_DMA_BUF);
    EXPECT_EQ(g2g_frame_get_format(frame), GST_VIDEO_FORMAT_NV12);
    EXPECT_EQ(g2g_frame_get_width(frame), 64u);
    EXPECT_EQ(g2g_frame_get_height(frame), 48u);
    ASSERT_EQ(g2g_frame_get_n_planes(frame), 2u);
    // Its bytes are the uploaded frame's: written densely, they equal the system frame's.
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    std::vector<guint8> dense(GST_VIDEO_INFO_SIZE(&info));
    const guintptr dst[] = {reinterpret_cast<guintptr>(dense.data()),
                            reinterpret_cast<guintptr>(dense.data() + GST_VIDEO_INFO_PLANE_OFFSET(&info, 1))};
    const gsize sizes[] = {GST_VIDEO_INFO_PLANE_OFFSET(&info, 1),
                           dense.size() - GST_VIDEO_INFO_PLANE_OFFSET(&info, 1)};
    ASSERT_TRUE(g2g_frame_materialize_into(frame, dst, info.stride, sizes, 2, 1, &error)) << error->message;
    g2g_frame_unref(frame);
    BufferRef written = BufferRef::adopt(gst_buffer_new_wrapped_full(
        GST_MEMORY_FLAG_READONLY, dense.data(), dense.size(), 0, dense.size(), nullptr, nullptr));
    EXPECT_EQ(g2g::test::compare_frames(info, written.get(), info, plain.buffers[0].get()), "");
}

// Case 7: a frame the CPU cannot read (a platform handle; a Vulkan image below, whose download is
// g2gmaterialize behind a fence) is refused by
// g2g_buffer_materialize_into as the rest of the API refuses it: by its domain and the converter
// to insert, not as a plane that failed to map.
TEST(LayoutRefusals, AHandleFrameIsRefusedByNameByEveryEntryPoint)
{
    g2g::test::StandIn pixel_buffer;
    BufferRef frame =
        g2g::test::handle_frame(g2g::MemoryDomainKind::CvPixelBuffer, pixel_buffer, 64 * 48 * 4);
    ASSERT_TRUE(frame);
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    const std::string body =
        " reads system memory but received a CvPixelBuffer frame: no GStreamer element "
        "converts CvPixelBuffer frames to it; have the producer output system memory instead";
    std::vector<guint8> destination(GST_VIDEO_INFO_SIZE(&info), kUntouched);
    guint8 *dst[] = {destination.data()};
    std::optional<Refusal> refused = buffer_materialize(frame.get(), info, dst, info.stride);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, G2G_ERROR_UNSUPPORTED_DOMAIN);
    EXPECT_EQ(refused->message, "g2g_buffer_materialize_into" + body);
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    refused = frame_new(frame.get(), caps.get());
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, G2G_ERROR_UNSUPPORTED_DOMAIN);
    EXPECT_EQ(refused->message, "g2g_frame_new" + body);
    EXPECT_TRUE(untouched(destination));
}

TEST(LayoutRefusals, AVulkanImageFrameIsRefusedByNameWithTheDownloadToInsert)
{
    if (!g2g::test::have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device here";
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 16, 8);
    std::vector<std::string> refusals;
    std::vector<guint8> destination(GST_VIDEO_INFO_SIZE(&info), kUntouched);
    // Vulkan frames must not outlive their pipeline: read inside it.
    g2g::test::PipelineRun run = g2g::test::run_pipeline(
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16,height=8 ! vulkanupload ! "
        "video/x-raw(memory:VulkanImage) ! identity name=tap ! fakesink",
        [&](GstBuffer *buffer) {
            guint8 *dst[] = {destination.data()};
            GError *error = nullptr;
            if (!g2g_buffer_materialize_into(buffer, &info, dst, info.stride, 1, &error)) {
                refusals.push_back(error->message);
                g_clear_error(&error);
            }
            const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
            G2gFrame *frame = g2g_frame_new(buffer, caps.get(), &error);
            if (frame)
                g2g_frame_unref(frame);
            else {
                refusals.push_back(error->message);
                g_error_free(error);
            }
        });
    ASSERT_EQ(run.error, "");
    const std::string body = " reads system memory but received a VulkanTexture frame: insert g2gmaterialize "
                             "before it, or let caps negotiation settle on system memory";
    EXPECT_EQ(refusals,
              (std::vector<std::string>{"g2g_buffer_materialize_into" + body, "g2g_frame_new" + body}));
    EXPECT_TRUE(untouched(destination));
}
