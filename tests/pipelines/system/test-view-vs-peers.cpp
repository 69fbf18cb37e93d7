// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview ! g2gmaterialize against GStreamer's own videoflip and videocrop on the same frames:
// every method x every format x even and odd sizes, byte for byte on the visible pixels.
#include <g2g/frame-view.h>

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "frames.h"

using g2g::test::compare_frames;
using g2g::test::random_frame;
using g2g::test::run_chain;

namespace {

[[maybe_unused]] const char *kFormats[] = {"GRAY8", "GRAY16_LE", "RGBA", "BGRA", "ARGB",      "ABGR", "RGBx",
                                           "BGRx",  "xRGB",      "xBGR", "RGB",  "BGR",       "NV12", "NV21",
                                           "I420",  "YV12",      "Y444", "AYUV", "I420_10LE", "YUY2", "UYVY"};
// Under the sanitizers (CI's second build, where a pipeline's allocations unwind whole stacks and
// this matrix took 206 s of the 2-core run's wall time) one format of each layout the copies tell
// apart: 1-, 2-, 3- and 4-byte pixels, planar and semi-planar 4:2:0 (8 and 16 bits), 4:4:4, packed
// 4:2:2. What the sanitizers watch is g2g's reads and writes, which these cover; the plain build
// compares every format with the peers.
[[maybe_unused]] const char *kSanitizerFormats[] = {"GRAY8", "GRAY16_LE", "RGB",  "RGBA", "NV12",
                                                    "I420",  "I420_10LE", "Y444", "YUY2"};
#if defined(__SANITIZE_ADDRESS__) || defined(G2G_SANITIZED_BUILD)
#define G2G_FLIP_FORMATS kSanitizerFormats
#else
#define G2G_FLIP_FORMATS kFormats
#endif
const char *kMethods[] = {"identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"};
const std::pair<int, int> kSizes[] = {{64, 48}, {33, 17}};

GstVideoInfo video_info(const char *format, int width, int height)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, gst_video_format_from_string(format), width, height);
    return info;
}

std::string size_name(std::pair<int, int> size)
{
    return std::to_string(size.first) + "x" + std::to_string(size.second);
}

using FlipCase = std::tuple<const char *, const char *, std::pair<int, int>>;
class ViewVsVideoflip : public testing::TestWithParam<FlipCase> {};

TEST_P(ViewVsVideoflip, SameBytes)
{
    const auto [format, method, size] = GetParam();
    GstVideoInfo in = video_info(format, size.first, size.second);
    g2g::BufferRef frame = random_frame(in, 7);
    auto ours =
        run_chain(std::string("g2gview video-direction=") + method + " ! g2gmaterialize", in, frame.get());
    auto peer = run_chain(std::string("videoflip video-direction=") + method, in, frame.get());
    ASSERT_EQ(ours.error, "");
    ASSERT_EQ(peer.error, "");
    ASSERT_TRUE(ours.buffer && peer.buffer);
    if (std::string(method) == "identity") {
        // The input itself is the oracle: videoflip's identity copy drops the last chroma byte of
        // odd-width packed 4:2:2 rows (gst_video_frame_copy copies width * 2 bytes).
        EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), in, frame.get()), "");
        return;
    }
    EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), peer.info, peer.buffer.get()), "");
}

INSTANTIATE_TEST_SUITE_P(AllFormats, ViewVsVideoflip,
                         testing::Combine(testing::ValuesIn(G2G_FLIP_FORMATS), testing::ValuesIn(kMethods),
                                          testing::ValuesIn(kSizes)),
                         [](const testing::TestParamInfo<FlipCase> &info) {
                             std::string name = std::string(std::get<0>(info.param)) + "_" +
                                                std::get<1>(info.param) + "_" +
                                                size_name(std::get<2>(info.param));
                             for (char &c : name)
                                 if (!isalnum(static_cast<unsigned char>(c)))
                                     c = '_';
                             return name;
                         });

struct Crop {
    int left, right, top, bottom;
};
const Crop kCrops[] = {{1, 0, 0, 0}, {3, 2, 1, 4}, {0, 5, 3, 0}, {2, 2, 2, 2}, {0, 0, 0, 1}};
// videocrop's formats among ours (not AYUV's alpha-less cousins it lacks: all of these it has).
const char *kCropFormats[] = {"GRAY8", "GRAY16_LE", "RGBA", "BGRx", "RGB",  "BGR",      "NV12",
                              "NV21",  "I420",      "YV12", "Y444", "AYUV", "I420_10LE"};

using CropCase = std::tuple<const char *, Crop, std::pair<int, int>>;
class ViewVsVideocrop : public testing::TestWithParam<CropCase> {};

TEST_P(ViewVsVideocrop, SameBytes)
{
    const auto [format, crop, size] = GetParam();
    GstVideoInfo in = video_info(format, size.first, size.second);
    g2g::BufferRef frame = random_frame(in, 11);
    const std::string props = "left=" + std::to_string(crop.left) + " right=" + std::to_string(crop.right) +
                              " top=" + std::to_string(crop.top) + " bottom=" + std::to_string(crop.bottom);
    auto ours = run_chain("g2gview " + props + " ! g2gmaterialize", in, frame.get());
    auto peer = run_chain("videocrop " + props, in, frame.get());
    ASSERT_EQ(ours.error, "");
    ASSERT_EQ(peer.error, "");
    EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), peer.info, peer.buffer.get()), "");
}

INSTANTIATE_TEST_SUITE_P(OddAndEvenOffsets, ViewVsVideocrop,
                         testing::Combine(testing::ValuesIn(kCropFormats), testing::ValuesIn(kCrops),
                                          testing::ValuesIn(kSizes)),
                         [](const testing::TestParamInfo<CropCase> &info) {
                             const Crop c = std::get<1>(info.param);
                             std::string name = std::string(std::get<0>(info.param)) + "_l" +
                                                std::to_string(c.left) + "r" + std::to_string(c.right) + "t" +
                                                std::to_string(c.top) + "b" + std::to_string(c.bottom) + "_" +
                                                size_name(std::get<2>(info.param));
                             for (char &ch : name)
                                 if (!isalnum(static_cast<unsigned char>(ch)))
                                     ch = '_';
                             return name;
                         });

TEST(ViewVsPeers, CropThenRotateEqualsVideocropThenVideoflip)
{
    for (const char *format : {"I420", "NV12", "RGBA", "YUY2"}) {
        for (const char *method : {"90r", "ur-ll", "horiz"}) {
            GstVideoInfo in = video_info(format, 40, 30);
            g2g::BufferRef frame = random_frame(in, 3);
            auto ours = run_chain(std::string("g2gview left=2 right=4 top=6 bottom=2 video-direction=") +
                                      method + " ! g2gmaterialize",
                                  in, frame.get());
            auto peer = run_chain(
                std::string("videocrop left=2 right=4 top=6 bottom=2 ! videoflip video-direction=") + method,
                in, frame.get());
            ASSERT_EQ(ours.error, "");
            EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), peer.info, peer.buffer.get()), "")
                << format << " " << method;
        }
    }
}

TEST(ViewVsPeers, ChainOfViewsEqualsChainOfVideoflips)
{
    for (const char *format : {"I420", "NV12", "RGB", "GRAY16_LE"}) {
        GstVideoInfo in = video_info(format, 34, 22);
        g2g::BufferRef frame = random_frame(in, 5);
        auto ours = run_chain("g2gview video-direction=90r ! g2gview video-direction=horiz top=3 ! "
                              "g2gview video-direction=ur-ll ! g2gmaterialize",
                              in, frame.get());
        auto peer =
            run_chain("videoflip video-direction=90r ! videocrop top=3 ! videoflip video-direction=horiz ! "
                      "videoflip video-direction=ur-ll",
                      in, frame.get());
        ASSERT_EQ(ours.error, "");
        EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), peer.info, peer.buffer.get()), "") << format;
    }
}

} // namespace
