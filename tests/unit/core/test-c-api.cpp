// SPDX-License-Identifier: LGPL-2.1-or-later
// The C API, driven from C (c-api-check.c), and every public header compiling as C++.
#include <g2g/g2g.hpp>

#include <gtest/gtest.h>

#include "handle-frames.h"

extern "C" {
int c_api_check_handle_lifetime(void);
gchar *c_api_handle_refusal(int which, int *released);
int c_api_check_names(void);
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
