// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA_DRM caps (GStreamer 1.24's form) and 1.22's form, both ways: caps_from_dma_drm,
// caps_with_dma_drm and drm_format_of on fixed formats, lists, non-linear modifiers, drm-format
// text that is none, and caps that have no DMA_DRM (which stay as they are).
#include <g2g/dmabuf.h>

#include "compat/dma-drm-compat.h"
#include "g2g-config.h"
#include "pipeline.h"

#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>

using g2g::CapsRef;
using g2g::dmabuf::caps_from_dma_drm;
using g2g::dmabuf::caps_with_dma_drm;
using g2g::dmabuf::drm_format_of;
using g2g::dmabuf::DrmFormat;

namespace {

constexpr const char *kSize = ",width=64,height=48,framerate=30/1";
constexpr std::uint64_t kXTiled = 0x0100000000000001ULL; // I915_FORMAT_MOD_X_TILED

CapsRef caps(const std::string &text)
{
    CapsRef made = CapsRef::adopt(gst_caps_from_string(text.c_str()));
    EXPECT_TRUE(made) << text;
    return made;
}

// `video/x-raw(memory:DMABuf), <fields>, width=64, height=48, framerate=30/1`.
CapsRef dmabuf(const std::string &fields)
{
    return caps("video/x-raw(memory:DMABuf)" + (fields.empty() ? "" : "," + fields) + kSize);
}

std::string text(const CapsRef &c)
{
    if (!c)
        return "(null)";
    g_autofree gchar *s = gst_caps_to_string(c.get());
    return s;
}

// Equal structure by structure, in order (a twin's place is part of what is tested).
::testing::AssertionResult same(const CapsRef &got, const CapsRef &want)
{
    if (got && want && gst_caps_is_strictly_equal(got.get(), want.get()))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << text(got) << "\n  want " << text(want);
}

std::optional<DrmFormat> drm_format_of_caps(const std::string &text)
{
    const CapsRef c = caps(text);
    return drm_format_of(gst_caps_get_structure(c.get(), 0));
}

constexpr std::uint32_t fourcc(const char (&name)[5])
{
    return GST_MAKE_FOURCC(name[0], name[1], name[2], name[3]);
}

#define REQUIRE_DMABUF()                                                                                     \
    do {                                                                                                     \
        if (!G2G_HAVE_DMABUF)                                                                                \
            GTEST_SKIP() << "built without the dmabuf feature";                                              \
    } while (0)

} // namespace

// ---- caps_from_dma_drm ----

TEST(DmaDrmCaps, AFixedLinearDrmFormatBecomes122sFormatThatVideoInfoParses)
{
    REQUIRE_DMABUF();
    const CapsRef from = caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format=NV12").get());
    EXPECT_TRUE(same(from, dmabuf("format=NV12")));
    GstVideoInfo info;
    ASSERT_TRUE(gst_video_info_from_caps(&info, from.get()));
    EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_FORMAT_NV12);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 64);
    EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&info), 48);
    EXPECT_EQ(GST_VIDEO_INFO_FPS_N(&info), 30);
}

TEST(DmaDrmCaps, FourccsPairWithFormatsAsGStreamer124PairsThem)
{
    REQUIRE_DMABUF();
    // DRM names a little-endian word, GStreamer bytes in memory: AB24 is RGBA, YU12 is I420.
    EXPECT_TRUE(
        same(caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format=AB24").get()), dmabuf("format=RGBA")));
    EXPECT_TRUE(
        same(caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format=YU12").get()), dmabuf("format=I420")));
    EXPECT_TRUE(
        same(caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format=YUYV").get()), dmabuf("format=YUY2")));
}

TEST(DmaDrmCaps, ADrmFormatListBecomesTheListOfTheFormats122Has)
{
    REQUIRE_DMABUF();
    EXPECT_TRUE(same(caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format={NV12,YU12}").get()),
                     dmabuf("format={NV12,I420}")));
    // Entries 1.22 cannot say are left out (a tiled NV12, a fourcc GStreamer has no format for,
    // text that is no drm-format); one left is a plain string.
    EXPECT_TRUE(same(
        caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format={NV12:0x0100000000000001,ABCD,YU12,junk}").get()),
        dmabuf("format=I420")));
    // Repeats once.
    EXPECT_TRUE(
        same(caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format={NV12,NV12:0x0000000000000000,YU12}").get()),
             dmabuf("format={NV12,I420}")));
    // Nothing left: the structure goes.
    EXPECT_TRUE(gst_caps_is_empty(
        caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format={NV12:0x0100000000000001,ABCD}").get()).get()));
}

TEST(DmaDrmCaps, ANonLinearModifierHasNo122FormAndIsDropped)
{
    REQUIRE_DMABUF();
    EXPECT_TRUE(gst_caps_is_empty(
        caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format=NV12:0x0100000000000001").get()).get()));
    // Only that structure: the others stay, in their order.
    const CapsRef mixed =
        caps("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12:0x0100000000000001" +
             std::string(kSize) + ";video/x-raw,format=RGBA" + kSize +
             ";video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" + kSize);
    EXPECT_TRUE(
        same(caps_from_dma_drm(mixed.get()), caps("video/x-raw,format=RGBA" + std::string(kSize) +
                                                  ";video/x-raw(memory:DMABuf),format=NV12" + kSize)));
}

TEST(DmaDrmCaps, TheLinearModifierWrittenOutIsLinear)
{
    REQUIRE_DMABUF();
    // 1.24 writes linear without a modifier (and refuses ":0x0"); read it anyway.
    EXPECT_TRUE(same(caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format=NV12:0x0000000000000000").get()),
                     dmabuf("format=NV12")));
}

TEST(DmaDrmCaps, DrmFormatTextThatIsNoneIsDropped)
{
    REQUIRE_DMABUF();
    for (const char *garbage :
         {"(string)\"\"", "NV1", "NV12:", "NV12:0x", "NV12:0xZZ", "NV12:1234", "NV12:0x1:0x2", "NV12junk",
          "ABCD", "NV12:0x10000000000000000" /* 65 bits */}) {
        const CapsRef bad = dmabuf(std::string("format=DMA_DRM,drm-format=") + garbage);
        EXPECT_TRUE(gst_caps_is_empty(caps_from_dma_drm(bad.get()).get())) << garbage;
    }
    // Not a string at all.
    EXPECT_TRUE(
        gst_caps_is_empty(caps_from_dma_drm(dmabuf("format=DMA_DRM,drm-format=(int)12").get()).get()));
}

TEST(DmaDrmCaps, DmaDrmOutsideDmaBufMemoryIsNoFormatAndIsDropped)
{
    REQUIRE_DMABUF();
    const CapsRef system = caps("video/x-raw,format=DMA_DRM,drm-format=NV12" + std::string(kSize));
    EXPECT_TRUE(gst_caps_is_empty(caps_from_dma_drm(system.get()).get()));
    const CapsRef cuda =
        caps("video/x-raw(memory:CUDAMemory),format=DMA_DRM,drm-format=NV12" + std::string(kSize));
    EXPECT_TRUE(gst_caps_is_empty(caps_from_dma_drm(cuda.get()).get()));
}

TEST(DmaDrmCaps, DmaDrmWithoutADrmFormatIsAnyFormat)
{
    REQUIRE_DMABUF();
    // 1.24's templates (GST_VIDEO_DMA_DRM_CAPS_MAKE) name no drm-format.
    EXPECT_TRUE(same(caps_from_dma_drm(dmabuf("format=DMA_DRM").get()), dmabuf("")));
}

TEST(DmaDrmCaps, CapsWithoutDmaDrmStayAsTheyAre)
{
    for (const std::string &untouched :
         {"video/x-raw,format=NV12" + std::string(kSize),
          "video/x-raw(memory:DMABuf),format=NV12" + std::string(kSize),
          "video/x-raw(memory:DMABuf),format={NV12,DMA_DRM}" + std::string(kSize),
          "video/x-raw(memory:CUDAMemory),format=RGBA" + std::string(kSize) + ";video/x-raw,format=I420",
          "video/x-raw(memory:SystemMemory,meta:G2gTensorView),format=GRAY8" + std::string(kSize),
          std::string("audio/x-raw,format=S16LE,rate=48000"), std::string("video/x-raw")}) {
        const CapsRef c = caps(untouched);
        EXPECT_TRUE(same(caps_from_dma_drm(c.get()), c)) << untouched;
    }
    EXPECT_TRUE(gst_caps_is_any(caps_from_dma_drm(CapsRef::adopt(gst_caps_new_any()).get()).get()));
    EXPECT_TRUE(gst_caps_is_empty(caps_from_dma_drm(CapsRef::adopt(gst_caps_new_empty()).get()).get()));
}

TEST(DmaDrmCaps, BothFormsOfOneFrameBecomeOne)
{
    REQUIRE_DMABUF();
    const CapsRef both = caps("video/x-raw(memory:DMABuf),format=NV12" + std::string(kSize) +
                              ";video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" + kSize);
    EXPECT_TRUE(same(caps_from_dma_drm(both.get()), dmabuf("format=NV12")));
}

// ---- caps_with_dma_drm ----

TEST(DmaDrmCaps, A122DmaBufStructureGetsItsDmaDrmTwinRightAfterIt)
{
    REQUIRE_DMABUF();
    const CapsRef c = caps("video/x-raw(memory:DMABuf),format=NV12" + std::string(kSize) +
                           ";video/x-raw,format=RGBA" + kSize);
    EXPECT_TRUE(
        same(caps_with_dma_drm(c.get()), caps("video/x-raw(memory:DMABuf),format=NV12" + std::string(kSize) +
                                              ";video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" +
                                              kSize + ";video/x-raw,format=RGBA" + kSize)));
    // GStreamer 1.24's spelling, linear modifier omitted.
    const std::string rgba = text(caps_with_dma_drm(dmabuf("format=RGBA").get()));
    EXPECT_NE(rgba.find("format=(string)DMA_DRM"), std::string::npos) << rgba;
    EXPECT_NE(rgba.find("drm-format=(string)AB24"), std::string::npos) << rgba;
}

TEST(DmaDrmCaps, AFormatListGetsTheListOfTheFourccsDrmHas)
{
    REQUIRE_DMABUF();
    // v210 has no DRM fourcc: left out of the twin.
    EXPECT_TRUE(same(caps_with_dma_drm(dmabuf("format={NV12,I420,v210}").get()),
                     caps("video/x-raw(memory:DMABuf),format={NV12,I420,v210}" + std::string(kSize) +
                          ";video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format={NV12,YU12}" + kSize)));
    // None has one: no twin.
    EXPECT_TRUE(same(caps_with_dma_drm(dmabuf("format={v210,UYVP}").get()), dmabuf("format={v210,UYVP}")));
    // Any format takes DMA_DRM (of any drm-format) already: no twin.
    EXPECT_TRUE(same(caps_with_dma_drm(dmabuf("").get()), dmabuf("")));
}

TEST(DmaDrmCaps, ADmaDrmStructureGetsIts122TwinUnlessItIsNonLinear)
{
    REQUIRE_DMABUF();
    EXPECT_TRUE(same(caps_with_dma_drm(dmabuf("format=DMA_DRM,drm-format=NV12").get()),
                     caps("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" + std::string(kSize) +
                          ";video/x-raw(memory:DMABuf),format=NV12" + kSize)));
    // A tiled one, a garbage one: themselves alone (a passthrough carries them as they are).
    for (const char *alone : {"format=DMA_DRM,drm-format=NV12:0x0100000000000001",
                              "format=DMA_DRM,drm-format=NV12:0xZZ", "format=DMA_DRM,drm-format=ABCD"}) {
        const CapsRef c = dmabuf(alone);
        EXPECT_TRUE(same(caps_with_dma_drm(c.get()), c)) << alone;
    }
}

TEST(DmaDrmCaps, BothFormsThereAlreadyGetNoThird)
{
    REQUIRE_DMABUF();
    const CapsRef once = caps_with_dma_drm(dmabuf("format={NV12,RGBA}").get());
    EXPECT_EQ(gst_caps_get_size(once.get()), 2u);
    EXPECT_TRUE(same(caps_with_dma_drm(once.get()), once));
    // The DMA_DRM form first: the same, twin after it.
    const CapsRef reversed = caps("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" +
                                  std::string(kSize) + ";video/x-raw(memory:DMABuf),format=NV12" + kSize);
    EXPECT_TRUE(same(caps_with_dma_drm(reversed.get()), reversed));
}

TEST(DmaDrmCaps, OnlyDmaBufStructuresGetTwins)
{
    for (const std::string &untouched : {"video/x-raw,format=NV12" + std::string(kSize),
                                         "video/x-raw,format=DMA_DRM,drm-format=NV12" + std::string(kSize),
                                         "video/x-raw(memory:CUDAMemory),format=NV12" + std::string(kSize),
                                         std::string("video/x-raw(ANY),format=NV12")}) {
        const CapsRef c = caps(untouched);
        EXPECT_TRUE(same(caps_with_dma_drm(c.get()), c)) << untouched;
    }
    EXPECT_TRUE(gst_caps_is_any(caps_with_dma_drm(CapsRef::adopt(gst_caps_new_any()).get()).get()));
}

TEST(DmaDrmCaps, EveryFormatWithAFourccGoesThereAndBack)
{
    REQUIRE_DMABUF();
    int paired = 0;
    guint count = 0;
    const GstVideoFormat *formats = gst_video_formats_raw(&count);
    for (guint i = 0; i < count; ++i) {
        const GstVideoFormat format = formats[i];
        const char *name = gst_video_format_to_string(format);
        if (g2g::dmabuf::drm_fourcc_of(format) == 0)
            continue;
        const CapsRef one = dmabuf(std::string("format=") + name);
        const CapsRef both = caps_with_dma_drm(one.get());
        ASSERT_EQ(gst_caps_get_size(both.get()), 2u) << name;
        const CapsRef twin = CapsRef::adopt(gst_caps_copy_nth(both.get(), 1));
        EXPECT_TRUE(same(caps_from_dma_drm(twin.get()), one)) << name;
        const std::optional<DrmFormat> drm = drm_format_of(gst_caps_get_structure(twin.get(), 0));
        ASSERT_TRUE(drm) << name;
        EXPECT_EQ(drm->fourcc, g2g::dmabuf::drm_fourcc_of(format)) << name;
        EXPECT_TRUE(drm->linear());
        ++paired;
    }
    EXPECT_GE(paired, 30);
}

// ---- drm_format_of ----

TEST(DmaDrmCaps, DrmFormatOfReadsDmaDrmAnd122Structures)
{
    REQUIRE_DMABUF();
    EXPECT_EQ(drm_format_of_caps("video/x-raw(memory:DMABuf),format=NV12"), (DrmFormat{fourcc("NV12"), 0}));
    EXPECT_EQ(drm_format_of_caps("video/x-raw,format=RGBA"), (DrmFormat{fourcc("AB24"), 0}));
    EXPECT_EQ(drm_format_of_caps("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12"),
              (DrmFormat{fourcc("NV12"), 0}));
    EXPECT_EQ(
        drm_format_of_caps("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12:0x0100000000000001"),
        (DrmFormat{fourcc("NV12"), kXTiled}));
    // A fourcc GStreamer has no format for is still a DRM format.
    EXPECT_EQ(drm_format_of_caps("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=ABCD"),
              (DrmFormat{fourcc("ABCD"), 0}));
}

TEST(DmaDrmCaps, DrmFormatOfIsNulloptWhereTheStructureNamesNone)
{
    REQUIRE_DMABUF();
    for (const char *none :
         {"video/x-raw(memory:DMABuf),format=DMA_DRM",
          "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format={NV12,YU12}",
          "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12:0xZZ",
          "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV1",
          "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12:0x00ffffffffffffff",
          "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=(int)1", "video/x-raw,format={NV12,I420}",
          "video/x-raw,format=v210", "video/x-raw", "video/x-raw,format=(int)5"})
        EXPECT_FALSE(drm_format_of_caps(none)) << none;
    EXPECT_FALSE(drm_format_of(nullptr));
}

// ---- Reading DMA_DRM caps into a video info (compat/dma-drm-compat.h) ----

TEST(DmaDrmCaps, BothFormsReadAsTheSameVideoInfo)
{
    REQUIRE_DMABUF();
    GstVideoInfo drm;
    GstVideoInfo plain;
    ASSERT_TRUE(g2g::compat::video_info_from_caps(&drm, dmabuf("format=DMA_DRM,drm-format=NV12").get()));
    ASSERT_TRUE(g2g::compat::video_info_from_caps(&plain, dmabuf("format=NV12").get()));
    EXPECT_TRUE(gst_video_info_is_equal(&drm, &plain));
    EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&drm), GST_VIDEO_FORMAT_NV12);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&drm), 64);
    // A tiled layout is no frame of the linear format; nor are text that is no drm-format, a
    // fourcc no video format has, caps that are not fixed.
    for (const char *none :
         {"format=DMA_DRM,drm-format=NV12:0x0100000000000001", "format=DMA_DRM,drm-format=NV12:0xZZ",
          "format=DMA_DRM,drm-format=ABCD", "format=DMA_DRM,drm-format={NV12,YU12}", "format=DMA_DRM"}) {
        GstVideoInfo info;
        EXPECT_FALSE(g2g::compat::video_info_from_caps(&info, dmabuf(none).get())) << none;
    }
}

// GStreamer 1.24's elements write DMA_DRM caps with gst_video_info_dma_drm_to_caps: g2g reads every
// format of its table from them, and its fourcc for the format is GStreamer's.
TEST(DmaDrmCaps, TheCapsGStreamersOwnWriterGivesAreRead)
{
    REQUIRE_DMABUF();
    int written = 0;
    for (GstVideoFormat format : g2g::dmabuf::drm_video_formats()) {
        SCOPED_TRACE(gst_video_format_to_string(format));
        GstVideoInfo info;
        ASSERT_TRUE(gst_video_info_set_format(&info, format, 64, 48));
        const CapsRef written_caps = CapsRef::adopt(g2g::compat::gstreamer_dma_drm_caps(info));
        if (!written_caps)
            continue; // none on 1.22; on 1.24, a format its table lacks (GRAY8 before 1.26)
        ++written;
        GstVideoInfo read;
        ASSERT_TRUE(g2g::compat::video_info_from_caps(&read, written_caps.get())) << text(written_caps);
        EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&read), format);
        EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&read), 64);
        EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&read), 48);
        EXPECT_EQ(drm_format_of(gst_caps_get_structure(written_caps.get(), 0)),
                  (DrmFormat{g2g::dmabuf::drm_fourcc_of(format), 0}))
            << text(written_caps);
    }
    if (written == 0)
        GTEST_SKIP() << g2g::test::gstreamer_version()
                     << " has no DMA_DRM caps writer (gst_video_info_dma_drm_to_caps came in 1.24)";
    // 1.24.0's table already had NV12, I420 and the 8-bit RGB formats.
    EXPECT_GE(written, 20);
}

// ---- A build without the dmabuf feature ----

TEST(DmaDrmCaps, WithoutTheFeatureDmaDrmIsDroppedAndNoneIsMade)
{
    if (G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built with the dmabuf feature";
    const CapsRef c = caps("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" + std::string(kSize) +
                           ";video/x-raw(memory:DMABuf),format=NV12" + kSize);
    EXPECT_TRUE(same(caps_from_dma_drm(c.get()), dmabuf("format=NV12")));
    EXPECT_TRUE(same(caps_with_dma_drm(c.get()), c));
    EXPECT_FALSE(drm_format_of(gst_caps_get_structure(c.get(), 0)));
}
