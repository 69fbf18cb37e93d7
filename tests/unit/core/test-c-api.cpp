// SPDX-License-Identifier: LGPL-2.1-or-later
// The C API, driven from C (c-api-check.c), and every public header compiling as C++.
#include <g2g/g2g.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "handle-frames.h"

extern "C" {
int c_api_check_handle_lifetime(void);
gchar *c_api_handle_refusal(int which, int *released);
int c_api_check_names(void);
int c_api_check_frame(void);
int c_api_check_make_view(void);
int c_api_check_system_buffer(void);
gchar *c_api_require_error(GstBuffer *buffer, const gchar *category, gint *code);
}

TEST(CApi, NamesAndCapsFeatures)
{
    EXPECT_TRUE(c_api_check_names());
}

TEST(CApi, SystemBufferIsBorrowedZeroCopy)
{
    EXPECT_TRUE(c_api_check_system_buffer());
}

TEST(CApi, DeviceBufferIsAGErrorNamingTheConverter)
{
    g2g::test::StandIn pixel_buffer;
    g2g::BufferRef buffer = g2g::test::handle_frame(g2g::MemoryDomainKind::CvPixelBuffer, pixel_buffer, 64);
    ASSERT_TRUE(buffer);
    gint code = 0;
    gchar *message = c_api_require_error(buffer.get(), "pyapp", &code);
    ASSERT_NE(message, nullptr);
    EXPECT_EQ(code, G2G_ERROR_UNSUPPORTED_DOMAIN);
    EXPECT_STREQ(message,
                 "pyapp reads system memory but received a CvPixelBuffer frame: no GStreamer element "
                 "converts CvPixelBuffer frames to it; have the producer output system memory instead");
    g_free(message);
}

TEST(CApi, AHandleFrameIsReleasedOnceAfterItsLastShareAndRecoveredOnlyByItsType)
{
    EXPECT_TRUE(c_api_check_handle_lifetime());
}

TEST(CApi, ARefusedHandleIsAGErrorAndIsNotReleased)
{
    int released = -1;
    gchar *message = c_api_handle_refusal(0, &released);
    ASSERT_NE(message, nullptr);
    EXPECT_STREQ(message, "a CvPixelBuffer needs its CVPixelBufferRef: the pixel buffer is NULL");
    EXPECT_EQ(released, 0);
    g_free(message);
    message = c_api_handle_refusal(1, &released);
    ASSERT_NE(message, nullptr);
    EXPECT_STREQ(message,
                 "a CvPixelBuffer frame needs a release function for its platform object: it is NULL");
    EXPECT_EQ(released, 0);
    g_free(message);
}

// ---- Frame views ----

extern "C" gchar *c_api_materialize(GstBuffer *buffer, const GstVideoInfo *info, guint8 *const dst[],
                                    const gint stride[], guint n_threads, gint *code);

namespace {

// A 1920x1080 RGBA frame (8 MB: split into bands by more than one thread) carrying its 90r view.
struct RotatedFrame {
    GstVideoInfo in{}, out{};
    g2g::BufferRef frame, view_buffer;
    RotatedFrame()
    {
        gst_video_info_set_format(&in, GST_VIDEO_FORMAT_RGBA, 1920, 1080);
        frame = g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&in), nullptr));
        GstMapInfo map;
        gst_buffer_map(frame.get(), &map, GST_MAP_WRITE);
        for (gsize i = 0; i < map.size; ++i)
            map.data[i] = static_cast<guint8>(i * 7 + (i >> 11));
        gst_buffer_unmap(frame.get(), &map);
        auto view = g2g::FrameView::of_frame(frame.get(), in);
        view->orient(GST_VIDEO_ORIENTATION_90R);
        out = view->info();
        view_buffer = g2g::BufferRef::adopt(gst_buffer_copy(frame.get())); // the same memory
        g2g::attach_tensor_view(view_buffer.get(), std::move(*view));
    }
};

} // namespace

TEST(CApi, MaterializeIntoWritesTheCarriedViewWithAnyThreadCount)
{
    RotatedFrame rotated;
    const g2g::FrameView *view = g2g::tensor_view_of(rotated.view_buffer.get());
    ASSERT_NE(view, nullptr);
    const gsize bytes = GST_VIDEO_INFO_SIZE(&rotated.out);
    std::vector<guint8> expected(bytes), written(bytes);
    guint8 *expected_planes[] = {expected.data()};
    ASSERT_TRUE(view->materialize_into(rotated.frame.get(), expected_planes, rotated.out.stride).ok());
    for (guint n_threads : {1u, 4u, 0u}) {
        std::fill(written.begin(), written.end(), 0);
        guint8 *planes[] = {written.data()};
        gint code = 0;
        gchar *message = c_api_materialize(rotated.view_buffer.get(), &rotated.out, planes,
                                           rotated.out.stride, n_threads, &code);
        EXPECT_EQ(message, nullptr) << message;
        g_free(message);
        EXPECT_TRUE(written == expected) << n_threads << " threads";
    }
}

TEST(CApi, MaterializeIntoRefusesAViewThatDoesNotFitTheInfo)
{
    RotatedFrame rotated;
    std::vector<guint8> written(GST_VIDEO_INFO_SIZE(&rotated.in));
    guint8 *planes[] = {written.data()};
    gint code = 0;
    gchar *message =
        c_api_materialize(rotated.view_buffer.get(), &rotated.in, planes, rotated.in.stride, 4, &code);
    ASSERT_NE(message, nullptr);
    EXPECT_EQ(code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(message, "g2g_buffer_materialize_into: the buffer's view is RGBA 1080x1920 but the video "
                          "info says RGBA 1920x1080");
    g_free(message);
    message = c_api_materialize(rotated.view_buffer.get(), nullptr, planes, rotated.in.stride, 4, &code);
    ASSERT_NE(message, nullptr);
    EXPECT_STREQ(message, "g2g_buffer_materialize_into needs a buffer, its video info, and a destination and "
                          "a stride for each plane");
    g_free(message);
}

// ---- Frames for applications (g2g/frame.h, g2g/dlpack.h), driven from C ----

TEST(CApi, AViewMadeFromCIsWrittenIntoTheAppsMemory)
{
    EXPECT_TRUE(c_api_check_make_view());
}

TEST(CApi, AFrameFromCGivesPlanesAndTensorsThatHoldItsBuffer)
{
    EXPECT_TRUE(c_api_check_frame());
}
