// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview at odd and extreme sizes against videoflip and videocrop, every byte: every format a
// view describes, 1x1, one pixel wide or tall, 5x3, 37x23, 4097x2 and 2x4097, every
// video-direction method, crops at odd offsets and chains of crops and rotations.
//
// Each case runs our chain twice, as `g2gview ... ! g2gmaterialize` (a view, then materialized)
// and as `g2gview ...` alone (its own dense output), each into output memory that starts as a
// different garbage byte (0xAA, 0x55), so a byte left unwritten cannot pass by luck. Two oracles:
//  - the peers, for every byte they write: they run twice too, into each garbage, and a byte
//    that differs between their two runs is one they leave unwritten (videoflip's and videocrop's
//    odd-width packed 4:2:2 rows: the last macropixel's padding luma, and for a copy its V);
//  - the plain reference (reference-frames.h), for every byte of the frame, including those the
//    peers leave unwritten and formats the peers lack (P010_10LE).
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "filled-memory.h"
#include "frames.h"
#include "reference-frames.h"

using g2g::BufferRef;
using g2g::test::DensePlane;
using g2g::test::ReferenceView;

namespace {

// FrameView::supports_format, every one (lib/src/view/frame-view-private.h kViewFormats).
const char *kFormats[] = {"GRAY8", "GRAY16_LE", "GRAY16_BE", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx",
                          "xRGB",  "xBGR",      "RGB",       "BGR",  "AYUV", "NV12", "NV21", "I420", "YV12",
                          "Y444",  "I420_10LE", "P010_10LE", "YUY2", "UYVY", "YVYU"};
const char *kMethods[] = {"identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"};

// What neither videoflip nor videocrop of GStreamer 1.22 takes: the reference alone judges it.
bool peers_have(const std::string &format)
{
    return format != "P010_10LE";
}

bool is_packed_422(const std::string &format)
{
    return format == "YUY2" || format == "UYVY" || format == "YVYU";
}

GstVideoOrientationMethod method_of(const std::string &nick)
{
    GEnumClass *klass = static_cast<GEnumClass *>(g_type_class_ref(GST_TYPE_VIDEO_ORIENTATION_METHOD));
    const GEnumValue *value = g_enum_get_value_by_nick(klass, nick.c_str());
    const auto method = static_cast<GstVideoOrientationMethod>(value ? value->value : 0);
    g_type_class_unref(klass);
    return method;
}

struct Size {
    int width, height;
};

// One g2gview: a crop (videocrop's properties), then a video-direction.
struct Step {
    int left = 0, right = 0, top = 0, bottom = 0;
    const char *method = "identity";
    bool crops() const { return left || right || top || bottom; }
};

std::string crop_props(const Step &s)
{
    return "left=" + std::to_string(s.left) + " right=" + std::to_string(s.right) +
           " top=" + std::to_string(s.top) + " bottom=" + std::to_string(s.bottom);
}

// Our chain: one g2gview per step; the peers': videocrop then videoflip per step.
std::string our_chain(const std::vector<Step> &steps)
{
    std::string chain;
    for (const Step &s : steps)
        chain += std::string(chain.empty() ? "" : " ! ") + "g2gview " + crop_props(s) +
                 " video-direction=" + s.method;
    return chain;
}

std::string peer_chain(const std::vector<Step> &steps)
{
    std::string chain;
    for (const Step &s : steps) {
        if (s.crops())
            chain += std::string(chain.empty() ? "" : " ! ") + "videocrop " + crop_props(s);
        if (!s.crops() || std::string(s.method) != "identity")
            chain += std::string(chain.empty() ? "" : " ! ") + "videoflip video-direction=" + s.method;
    }
    return chain;
}

int peer_elements(const std::vector<Step> &steps)
{
    int n = 0;
    for (const Step &s : steps)
        n += (s.crops() ? 1 : 0) + (!s.crops() || std::string(s.method) != "identity" ? 1 : 0);
    return n;
}

// The reference of the chain: each g2gview crops, orients, and hands on a frame (a packed 4:2:2
// view without strides is materialized by the g2gview that made it, so the next one starts from
// that frame).
struct Reference {
    std::vector<DensePlane> planes;
    std::uint32_t width = 0; // in pixels
};

Reference reference_of(const GstVideoInfo &in, GstBuffer *frame, const std::vector<Step> &steps)
{
    ReferenceView view(in, frame);
    for (const Step &s : steps) {
        if (s.crops())
            view.crop(s.left, s.top, view.width() - s.left - s.right, view.height() - s.top - s.bottom);
        view.orient(method_of(s.method));
        view.rebase();
    }
    return {view.planes(), view.width()};
}

struct Run {
    std::vector<DensePlane> planes;
    std::string error;
};

Run run(const std::string &chain, const GstVideoInfo &in, GstBuffer *frame, guint8 garbage)
{
    auto allocator = g2g::test::filled_allocator(garbage);
    auto out = g2g::test::run_chain(chain, in, frame, nullptr, allocator.get());
    Run result;
    result.error = out.error;
    if (out.error.empty() && !out.buffer)
        result.error = "no output from " + chain;
    if (result.error.empty())
        result.planes = g2g::test::dense_planes(out.info, out.buffer.get());
    return result;
}

// Which bytes of a packed 4:2:2 plane are the luma of a pixel (not the padding luma).
bool is_pixel_luma(const DensePlane &plane, std::size_t i, unsigned y_off, std::uint32_t width)
{
    const std::size_t in_row = i % (static_cast<std::size_t>(plane.w) * 4);
    const std::size_t pixel = in_row / 4 * 2 + (in_row % 4 == y_off + 2 ? 1 : 0);
    return (in_row % 4 == y_off || in_row % 4 == y_off + 2) && pixel < width;
}

// Which of the peers' written bytes judge ours.
enum class PeerBytes {
    All,
    // Packed 4:2:2 through more than one peer element: a chain of videoflips averages and rounds
    // chroma at every step, and bytes one element leaves unwritten become another's input.
    PixelLuma,
    // Packed 4:2:2 through videocrop with an odd left edge and an even width: videocrop 1.22 moves
    // the luma one pixel left for `j < out_stride - 2` only, so where a row fills its stride the
    // last pixel keeps its left neighbour's luma (gstvideocrop.c, transform_packed_yvyu).
    AllButLastLuma,
};

// Checks `ours` against the peers' two runs on the bytes `scope` says, and where the peers leave
// bytes unwritten: single elements only the last macropixel of odd-width packed 4:2:2 rows (its
// padding luma; a copy, its V too), chains only chroma or padding.
void expect_peer_bytes(const std::string &format, std::uint32_t width, const std::vector<DensePlane> &ours,
                       const Run &peer_a, const Run &peer_b, PeerBytes scope, const std::string &what)
{
    ASSERT_EQ(ours.size(), peer_a.planes.size()) << what;
    ASSERT_EQ(ours.size(), peer_b.planes.size()) << what;
    const unsigned y_off = GST_VIDEO_FORMAT_INFO_POFFSET(
        gst_video_format_get_info(gst_video_format_from_string(format.c_str())), 0);
    std::size_t compared = 0;
    for (std::size_t p = 0; p < ours.size(); ++p) {
        const DensePlane &a = peer_a.planes[p], &b = peer_b.planes[p];
        ASSERT_EQ(ours[p].w, a.w) << what;
        ASSERT_EQ(ours[p].h, a.h) << what;
        const std::size_t row = static_cast<std::size_t>(a.w) * a.e;
        for (std::size_t i = 0; i < a.bytes.size(); ++i) {
            const bool luma = is_packed_422(format) && is_pixel_luma(a, i, y_off, width);
            if (a.bytes[i] != b.bytes[i]) {
                if (scope == PeerBytes::PixelLuma)
                    ASSERT_FALSE(luma) << what << ": the peer left the luma at plane " << p << " row "
                                       << i / row << " byte " << i % row << " unwritten";
                else
                    ASSERT_TRUE(is_packed_422(format) && (width & 1) && i % row >= row - 4)
                        << what << ": the peer left plane " << p << " row " << i / row << " byte " << i % row
                        << " unwritten";
                continue;
            }
            if (scope == PeerBytes::PixelLuma && !luma)
                continue;
            if (scope == PeerBytes::AllButLastLuma && i % row == (width - 1) * 2 + y_off)
                continue;
            ++compared;
            ASSERT_EQ(+ours[p].bytes[i], +a.bytes[i]) << what << ": plane " << p << " row " << i / row
                                                      << " byte " << i % row << " differs from the peer's";
        }
    }
    EXPECT_GT(compared, 0u) << what;
}

// Whether some videocrop of the peers' chain has videocrop's packed 4:2:2 odd-left defect
// (PeerBytes::AllButLastLuma).
bool peer_crops_odd_left_to_even_width(const std::string &format, Size size, const std::vector<Step> &steps)
{
    if (!is_packed_422(format))
        return false;
    int width = size.width, height = size.height;
    for (const Step &s : steps) {
        width -= s.left + s.right;
        height -= s.top + s.bottom;
        if (s.crops() && (s.left & 1) && width % 2 == 0)
            return true;
        const auto method = method_of(s.method);
        if (method == GST_VIDEO_ORIENTATION_90R || method == GST_VIDEO_ORIENTATION_90L ||
            method == GST_VIDEO_ORIENTATION_UL_LR || method == GST_VIDEO_ORIENTATION_UR_LL)
            std::swap(width, height);
    }
    return false;
}

void expect_chain(const std::string &format, Size size, const std::vector<Step> &steps)
{
    GstVideoInfo in;
    ASSERT_TRUE(gst_video_info_set_format(&in, gst_video_format_from_string(format.c_str()), size.width,
                                          size.height));
    BufferRef frame = g2g::test::random_frame(in, static_cast<guint32>(size.width * 131 + size.height));
    const std::string ours = our_chain(steps);
    const std::string what =
        format + " " + std::to_string(size.width) + "x" + std::to_string(size.height) + " " + ours;
    const Reference reference = reference_of(in, frame.get(), steps);
    const std::vector<DensePlane> &expected = reference.planes;

    const Run viewed = run(ours + " ! g2gmaterialize", in, frame.get(), 0xAA);
    ASSERT_EQ(viewed.error, "") << what;
    EXPECT_EQ(g2g::test::first_difference(viewed.planes, expected), "") << what << " ! g2gmaterialize";
    const Run dense = run(ours, in, frame.get(), 0x55);
    ASSERT_EQ(dense.error, "") << what;
    EXPECT_EQ(g2g::test::first_difference(dense.planes, expected), "") << what << " (dense)";

    if (!peers_have(format))
        return;
    PeerBytes scope = PeerBytes::All;
    if (peer_crops_odd_left_to_even_width(format, size, steps)) {
        // Through later elements the misplaced luma can land anywhere: the reference alone judges.
        if (peer_elements(steps) > 1)
            return;
        scope = PeerBytes::AllButLastLuma;
    } else if (is_packed_422(format) && peer_elements(steps) > 1) {
        scope = PeerBytes::PixelLuma;
    }
    const std::string peer = peer_chain(steps);
    const Run peer_a = run(peer, in, frame.get(), 0xAA);
    const Run peer_b = run(peer, in, frame.get(), 0x55);
    ASSERT_EQ(peer_a.error, "") << peer;
    ASSERT_EQ(peer_b.error, "") << peer;
    expect_peer_bytes(format, reference.width, viewed.planes, peer_a, peer_b, scope, what + " vs " + peer);
}

std::string case_name(std::string name)
{
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

std::string size_name(Size s)
{
    return std::to_string(s.width) + "x" + std::to_string(s.height);
}

// ---- every method, every format, small odd sizes and one-pixel rows and columns ----

using MethodCase = std::tuple<const char *, const char *, Size>;
class OddSizesVsVideoflip : public testing::TestWithParam<MethodCase> {};

TEST_P(OddSizesVsVideoflip, EveryByte)
{
    const auto [format, method, size] = GetParam();
    Step step;
    step.method = method;
    expect_chain(format, size, {step});
}

const Size kSmallSizes[] = {{1, 1}, {1, 6}, {6, 1}, {5, 3}, {37, 23}, {8, 6}};

INSTANTIATE_TEST_SUITE_P(Small, OddSizesVsVideoflip,
                         testing::Combine(testing::ValuesIn(kFormats), testing::ValuesIn(kMethods),
                                          testing::ValuesIn(kSmallSizes)),
                         [](const testing::TestParamInfo<MethodCase> &info) {
                             return case_name(std::string(std::get<0>(info.param)) + "_" +
                                              std::get<1>(info.param) + "_" +
                                              size_name(std::get<2>(info.param)));
                         });

// Very wide and very tall: rows of 4097 pixels (odd, past every SIMD step), columns of 4097.
const Size kExtremeSizes[] = {{4097, 2}, {2, 4097}};

INSTANTIATE_TEST_SUITE_P(WideAndTall, OddSizesVsVideoflip,
                         testing::Combine(testing::ValuesIn(kFormats), testing::ValuesIn(kMethods),
                                          testing::ValuesIn(kExtremeSizes)),
                         [](const testing::TestParamInfo<MethodCase> &info) {
                             return case_name(std::string(std::get<0>(info.param)) + "_" +
                                              std::get<1>(info.param) + "_" +
                                              size_name(std::get<2>(info.param)));
                         });

// ---- crops at odd offsets and crops ending on odd widths, every format ----

struct CropCase {
    const char *format;
    Size size;
    Step crop;
};

std::vector<CropCase> crop_cases()
{
    const Step crops[] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}, {3, 2, 1, 4},
                          {2, 1, 0, 1}, {0, 0, 1, 0}, {4, 3, 2, 0}};
    const Size sizes[] = {{5, 3}, {8, 6}, {37, 23}};
    std::vector<CropCase> cases;
    for (const char *format : kFormats)
        for (Size size : sizes)
            for (Step crop : crops)
                if (crop.left + crop.right < size.width && crop.top + crop.bottom < size.height)
                    cases.push_back({format, size, crop});
    return cases;
}

class OddCropsVsVideocrop : public testing::TestWithParam<CropCase> {};

TEST_P(OddCropsVsVideocrop, EveryByte)
{
    const CropCase &c = GetParam();
    expect_chain(c.format, c.size, {c.crop});
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, OddCropsVsVideocrop, testing::ValuesIn(crop_cases()),
                         [](const testing::TestParamInfo<CropCase> &info) {
                             const Step &s = info.param.crop;
                             return case_name(std::string(info.param.format) + "_" +
                                              size_name(info.param.size) + "_l" + std::to_string(s.left) +
                                              "r" + std::to_string(s.right) + "t" + std::to_string(s.top) +
                                              "b" + std::to_string(s.bottom));
                         });

// ---- chains: crop then rotate (one g2gview), rotate then crop, several g2gviews ----

struct ChainCase {
    const char *name;
    std::vector<Step> steps;
};

const ChainCase kChains[] = {
    {"CropThen90r", {{3, 2, 1, 4, "90r"}}},
    {"CropThenUrLl", {{1, 0, 2, 1, "ur-ll"}}},
    {"CropThenHoriz", {{1, 2, 0, 3, "horiz"}}},
    {"90lThenCrop", {{0, 0, 0, 0, "90l"}, {1, 2, 3, 0}}},
    {"180ThenOddCropThenUlLr", {{0, 0, 0, 0, "180"}, {1, 0, 1, 0, "ul-lr"}}},
    {"ThreeViews", {{0, 0, 0, 0, "90r"}, {1, 0, 3, 0, "horiz"}, {0, 0, 0, 0, "ur-ll"}}},
};

using ChainParam = std::tuple<const char *, Size, ChainCase>;
class ChainsVsPeerChains : public testing::TestWithParam<ChainParam> {};

TEST_P(ChainsVsPeerChains, EveryByte)
{
    const auto &[format, size, chain] = GetParam();
    expect_chain(format, size, chain.steps);
}

const Size kChainSizes[] = {{37, 23}, {9, 7}, {8, 6}};

INSTANTIATE_TEST_SUITE_P(EveryFormat, ChainsVsPeerChains,
                         testing::Combine(testing::ValuesIn(kFormats), testing::ValuesIn(kChainSizes),
                                          testing::ValuesIn(kChains)),
                         [](const testing::TestParamInfo<ChainParam> &info) {
                             return case_name(std::string(std::get<0>(info.param)) + "_" +
                                              size_name(std::get<1>(info.param)) + "_" +
                                              std::get<2>(info.param).name);
                         });

} // namespace
