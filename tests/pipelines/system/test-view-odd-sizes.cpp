// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview at odd and extreme sizes against videoflip and videocrop, every byte: every format a
// view describes, 1x1, one pixel wide or tall, 5x3, 37x23, 4097x2 and 2x4097, every
// video-direction method, crops at odd offsets and chains of crops and rotations.
//
// Each case runs our chain twice, as `g2gview ... ! g2gmaterialize` (a view, then materialized)
// and as `g2gview ...` alone (its own dense output), each into output memory that starts as a
// different garbage byte (0xAA, 0x55), so a byte left unwritten cannot pass by luck (a packed
// 4:2:2 view without strides is written by g2gview itself into a buffer of its own, which
// g2gmaterialize then copies: there the dense run is the one whose output starts as garbage).
// Each pipeline takes a frame of every size of its case in turn, renegotiating between them; a
// new pool, and so new garbage memory, comes with each size. Two oracles:
//  - the peers, for every byte they write: they run twice too, into each garbage, and a byte
//    that differs between their two runs is one they leave unwritten (videoflip's and videocrop's
//    odd-width packed 4:2:2 rows: the last macropixel's padding luma, and for a copy its V);
//  - the plain reference (reference-frames.h), for every byte of the frame, including those the
//    peers leave unwritten and formats the peers lack (P010_10LE).
// The sanitizer build runs a format of each layout against the reference alone (kCaseFormats).
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
[[maybe_unused]] const char *kFormats[] = {"GRAY8", "GRAY16_LE", "GRAY16_BE", "RGBA", "BGRA", "ARGB",
                                           "ABGR",  "RGBx",      "BGRx",      "xRGB", "xBGR", "RGB",
                                           "BGR",   "AYUV",      "NV12",      "NV21", "I420", "YV12",
                                           "Y444",  "I420_10LE", "P010_10LE", "YUY2", "UYVY", "YVYU"};
[[maybe_unused]] const char *const kSanitizerFormats[] = {"RGB", "NV21", "P010_10LE", "YUY2"};
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

// `chain` on each frame in turn, in one pipeline whose output memory starts as `garbage`.
std::vector<Run> run(const std::string &chain, const std::vector<g2g::test::HarnessInput> &inputs,
                     guint8 garbage)
{
    auto allocator = g2g::test::filled_allocator(garbage);
    std::vector<Run> runs;
    for (const auto &out : g2g::test::run_chain_on_each(chain, inputs, nullptr, allocator.get())) {
        Run &result = runs.emplace_back();
        result.error = out.error;
        if (out.error.empty() && !out.buffer)
            result.error = "no output from " + chain;
        if (result.error.empty())
            result.planes = g2g::test::dense_planes(out.info, out.buffer.get());
    }
    runs.resize(inputs.size(), Run{{}, "the stream stopped at an earlier frame"});
    return runs;
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

// Under AddressSanitizer (whose CI run unwinds the stack of every allocation: a renegotiating
// g2gview costs about 35 ms of CPU a frame there, the whole matrix minutes) the sanitizer's job is
// our reads and writes at these sizes, not the oracle's: one format of each layout the copies
// tell apart (3-byte pixels; 8-bit semi-planar 4:2:0, 1- and 2-byte elements; 10-bit semi-planar,
// 2- and 4-byte elements; packed 4:2:2), every method, crop, chain and size, checked against the
// reference only. The plain build runs every format against the peers too.
#if defined(__SANITIZE_ADDRESS__) || defined(G2G_SANITIZED_BUILD)
constexpr bool kAgainstPeers = false;
const char *const *const kCaseFormats = kSanitizerFormats;
constexpr std::size_t kCaseFormatCount = std::size(kSanitizerFormats);
#else
constexpr bool kAgainstPeers = true;
const char *const *const kCaseFormats = kFormats;
constexpr std::size_t kCaseFormatCount = std::size(kFormats);
#endif

// Runs the chain on a frame of each size (one pipeline per chain and garbage, renegotiated between
// sizes) and checks every output against the reference and the peers.
void expect_chain(const std::string &format, const std::vector<Size> &sizes, const std::vector<Step> &steps)
{
    std::vector<BufferRef> frames;
    std::vector<g2g::test::HarnessInput> inputs;
    for (Size size : sizes) {
        GstVideoInfo in;
        ASSERT_TRUE(gst_video_info_set_format(&in, gst_video_format_from_string(format.c_str()), size.width,
                                              size.height));
        frames.push_back(g2g::test::random_frame(in, static_cast<guint32>(size.width * 131 + size.height)));
        inputs.push_back({in, frames.back().get()});
    }
    const std::string ours = our_chain(steps);
    const std::vector<Run> viewed = run(ours + " ! g2gmaterialize", inputs, 0xAA);
    const std::vector<Run> dense = run(ours, inputs, 0x55);
    const std::string peer = peer_chain(steps);
    std::vector<Run> peer_a, peer_b;
    const bool against_peers = kAgainstPeers && peers_have(format);
    if (against_peers) {
        peer_a = run(peer, inputs, 0xAA);
        peer_b = run(peer, inputs, 0x55);
    }

    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const Size size = sizes[i];
        const std::string what =
            format + " " + std::to_string(size.width) + "x" + std::to_string(size.height) + " " + ours;
        const Reference reference = reference_of(inputs[i].info, inputs[i].buffer, steps);
        ASSERT_EQ(viewed[i].error, "") << what << " ! g2gmaterialize";
        EXPECT_EQ(g2g::test::first_difference(viewed[i].planes, reference.planes), "")
            << what << " ! g2gmaterialize";
        ASSERT_EQ(dense[i].error, "") << what;
        EXPECT_EQ(g2g::test::first_difference(dense[i].planes, reference.planes), "") << what << " (dense)";

        if (!against_peers)
            continue;
        PeerBytes scope = PeerBytes::All;
        if (peer_crops_odd_left_to_even_width(format, size, steps)) {
            // Through later elements the misplaced luma can land anywhere: the reference alone judges.
            if (peer_elements(steps) > 1)
                continue;
            scope = PeerBytes::AllButLastLuma;
        } else if (is_packed_422(format) && peer_elements(steps) > 1) {
            scope = PeerBytes::PixelLuma;
        }
        ASSERT_EQ(peer_a[i].error, "") << peer;
        ASSERT_EQ(peer_b[i].error, "") << peer;
        expect_peer_bytes(format, reference.width, viewed[i].planes, peer_a[i], peer_b[i], scope,
                          what + " vs " + peer);
    }
}

std::string case_name(std::string name)
{
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

auto case_formats()
{
    return testing::ValuesIn(kCaseFormats, kCaseFormats + kCaseFormatCount);
}

// ---- every method, every format: 1x1, one pixel wide or tall, small odd sizes, 4097 long ----

const std::vector<Size> kMethodSizes = {{1, 1}, {1, 6}, {6, 1}, {5, 3}, {37, 23}, {4097, 2}, {2, 4097}};

using MethodCase = std::tuple<const char *, const char *>;
class OddSizesVsVideoflip : public testing::TestWithParam<MethodCase> {};

TEST_P(OddSizesVsVideoflip, EveryByte)
{
    const auto [format, method] = GetParam();
    Step step;
    step.method = method;
    expect_chain(format, kMethodSizes, {step});
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, OddSizesVsVideoflip,
                         testing::Combine(case_formats(), testing::ValuesIn(kMethods)),
                         [](const testing::TestParamInfo<MethodCase> &info) {
                             return case_name(std::string(std::get<0>(info.param)) + "_" +
                                              std::get<1>(info.param));
                         });

// ---- crops at odd offsets and crops ending on odd widths, every format ----

const Step kCrops[] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}, {3, 2, 1, 4},
                       {2, 1, 0, 1}, {0, 0, 1, 0}, {4, 3, 2, 0}};

using CropCase = std::tuple<const char *, Step>;
class OddCropsVsVideocrop : public testing::TestWithParam<CropCase> {};

TEST_P(OddCropsVsVideocrop, EveryByte)
{
    const auto [format, crop] = GetParam();
    std::vector<Size> sizes;
    for (Size size : {Size{5, 3}, Size{8, 6}, Size{37, 23}})
        if (crop.left + crop.right < size.width && crop.top + crop.bottom < size.height)
            sizes.push_back(size);
    expect_chain(format, sizes, {crop});
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, OddCropsVsVideocrop,
                         testing::Combine(case_formats(), testing::ValuesIn(kCrops)),
                         [](const testing::TestParamInfo<CropCase> &info) {
                             const Step &s = std::get<1>(info.param);
                             return case_name(std::string(std::get<0>(info.param)) + "_l" +
                                              std::to_string(s.left) + "r" + std::to_string(s.right) + "t" +
                                              std::to_string(s.top) + "b" + std::to_string(s.bottom));
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

using ChainParam = std::tuple<const char *, ChainCase>;
class ChainsVsPeerChains : public testing::TestWithParam<ChainParam> {};

TEST_P(ChainsVsPeerChains, EveryByte)
{
    const auto &[format, chain] = GetParam();
    expect_chain(format, {{37, 23}, {9, 7}, {8, 6}}, chain.steps);
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, ChainsVsPeerChains,
                         testing::Combine(case_formats(), testing::ValuesIn(kChains)),
                         [](const testing::TestParamInfo<ChainParam> &info) {
                             return case_name(std::string(std::get<0>(info.param)) + "_" +
                                              std::get<1>(info.param).name);
                         });

} // namespace
