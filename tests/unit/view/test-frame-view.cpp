// SPDX-License-Identifier: LGPL-2.1-or-later
// FrameView: random compositions against a plain reference, caller-memory materialize, bounds,
// and SystemView reads through MemoryDomain.
#include <g2g/frame-view.h>
#include <g2g/memory-domain.h>
#include <g2g/tensor-view-meta.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "frames.h"
#include "reference-frames.h"

using g2g::BufferRef;
using g2g::FrameView;
using g2g::test::dense_planes;
using g2g::test::DensePlane;
using g2g::test::reference_crop;
using g2g::test::reference_orient;
using g2g::test::video_info;

namespace {

void expect_equal_planes(const std::vector<DensePlane> &expected, const std::vector<DensePlane> &actual,
                         const std::string &what)
{
    ASSERT_EQ(expected.size(), actual.size()) << what;
    for (std::size_t p = 0; p < expected.size(); ++p) {
        ASSERT_EQ(expected[p].w, actual[p].w) << what << " plane " << p;
        ASSERT_EQ(expected[p].h, actual[p].h) << what << " plane " << p;
        ASSERT_TRUE(expected[p].bytes == actual[p].bytes) << what << " plane " << p;
    }
}

// How caller rows are laid out: 3 bytes longer than the view's at an odd address (no row starts
// on a line), or padded to a multiple of `CallerRows` bytes (64: lines; 1024: rows whose lines
// share their cache sets) and all starting 12 bytes past a line.
enum CallerRows : std::size_t { kOddRows = 1, kLineRows = 64, kSetAliasingRows = 1024 };

// Materializes `view` into caller rows laid out as `layout` and compares them with `expected`.
// The bytes before and between the rows must stay untouched.
void expect_caller_rows_match(const FrameView &view, GstBuffer *frame,
                              const std::vector<DensePlane> &expected, CallerRows layout,
                              const std::string &what)
{
    constexpr guint8 kUntouched = 0xA5;
    constexpr std::size_t kLine = 64, kPastLine = 12;
    const bool line_strides = layout != kOddRows;
    std::vector<std::vector<guint8>> memory;
    std::vector<std::size_t> lead; // untouched bytes before each plane
    guint8 *planes[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    for (std::size_t p = 0; p < expected.size(); ++p) {
        const std::size_t row_bytes = static_cast<std::size_t>(expected[p].w) * expected[p].e;
        const std::size_t stride = (row_bytes + 3 + layout - 1) / layout * layout;
        strides[p] = static_cast<gint>(stride);
        memory.emplace_back(2 * kLine + stride * expected[p].h, kUntouched);
        const auto address = reinterpret_cast<std::uintptr_t>(memory.back().data());
        lead.push_back(line_strides ? kLine + (kPastLine + kLine - address % kLine) % kLine : 1);
        planes[p] = memory.back().data() + lead.back();
    }
    ASSERT_TRUE(view.materialize_into(frame, planes, strides).ok()) << what;
    for (std::size_t p = 0; p < expected.size(); ++p) {
        const DensePlane &want = expected[p];
        const std::size_t row_bytes = static_cast<std::size_t>(want.w) * want.e;
        std::vector<guint8> rows;
        bool untouched =
            std::all_of(memory[p].begin(), memory[p].begin() + static_cast<std::ptrdiff_t>(lead[p]),
                        [](guint8 b) { return b == kUntouched; });
        for (std::uint32_t y = 0; y < want.h; ++y) {
            const guint8 *row = planes[p] + static_cast<std::size_t>(y) * strides[p];
            rows.insert(rows.end(), row, row + row_bytes);
            untouched = untouched && std::all_of(row + row_bytes, row + strides[p],
                                                 [](guint8 b) { return b == kUntouched; });
        }
        EXPECT_TRUE(rows == want.bytes) << what << " plane " << p;
        EXPECT_TRUE(untouched) << what << " plane " << p;
    }
}

constexpr GstVideoOrientationMethod kMethods[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_180,
    GST_VIDEO_ORIENTATION_90L,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL};

} // namespace

TEST(FrameView, RandomCompositionsMatchThePlainReference)
{
    const GstVideoFormat formats[] = {
        GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGB,       GST_VIDEO_FORMAT_RGBA,
        GST_VIDEO_FORMAT_NV12,  GST_VIDEO_FORMAT_NV21,      GST_VIDEO_FORMAT_I420,      GST_VIDEO_FORMAT_YV12,
        GST_VIDEO_FORMAT_Y444,  GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_AYUV,
        GST_VIDEO_FORMAT_YUY2,  GST_VIDEO_FORMAT_UYVY,      GST_VIDEO_FORMAT_YVYU};
    std::mt19937 random(2026);
    for (int round = 0; round < 450; ++round) {
        const GstVideoFormat format = formats[round % std::size(formats)];
        // Every fifth frame 64 pixels wide: rows that share their alignment, cropped at odd offsets.
        const int width = round % 5 == 0 ? 64 : 8 + static_cast<int>(random() % 40);
        const int height = 8 + static_cast<int>(random() % 40);
        GstVideoInfo info = video_info(format, width, height);
        BufferRef frame = g2g::test::random_frame(info, round);
        auto view = FrameView::of_frame(frame.get(), info);
        ASSERT_TRUE(view.ok()) << view.error().message();
        g2g::test::ReferenceView expected(info, frame.get());
        std::string steps = gst_video_format_to_string(format) + std::string(" ") + std::to_string(width) +
                            "x" + std::to_string(height) + ":";
        const int n_steps = 1 + static_cast<int>(random() % 6);
        for (int step = 0; step < n_steps; ++step) {
            if (random() % 3) {
                const auto method = kMethods[random() % std::size(kMethods)];
                view->orient(method);
                expected.orient(method);
                steps += " orient" + std::to_string(method);
            } else {
                const std::uint32_t w = 1 + random() % view->width(), h = 1 + random() % view->height();
                const std::uint32_t x = random() % (view->width() - w + 1),
                                    y = random() % (view->height() - h + 1);
                ASSERT_TRUE(view->crop(x, y, w, h).ok());
                expected.crop(x, y, w, h);
                steps += " crop" + std::to_string(w) + "x" + std::to_string(h) + "+" + std::to_string(x) +
                         "+" + std::to_string(y);
            }
        }
        auto dense = view->materialize(frame.get());
        ASSERT_TRUE(dense.ok()) << dense.error().message();
        expect_equal_planes(expected.planes(), dense_planes(view->info(), dense->get()), steps);
        if (HasFatalFailure())
            return;
    }
}

TEST(FrameView, PackedYuv422OddWidthsWriteEveryByteOfEveryMacropixel)
{
    // Odd-width rows end on a macropixel with one pixel. Into caller memory that holds garbage
    // (two different garbages, so a byte left alone cannot match by luck), every byte of it must
    // be the reference's: chroma as videoflip computes it, the padding luma the pixel's own
    // (rebuilt macropixels) or the source's (whole macropixels copied: identity, vert, even crops).
    const std::pair<int, int> sizes[] = {{1, 1}, {1, 5}, {5, 1}, {5, 3}, {37, 23}, {4097, 2}, {2, 4097}};
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_YVYU}) {
        for (auto [w, h] : sizes) {
            GstVideoInfo info = video_info(format, w, h);
            BufferRef frame = g2g::test::random_frame(info, static_cast<guint32>(w + h));
            for (auto method : kMethods) {
                // No crop; crops at an odd left column (rebuilt macropixels) and an even one (whole
                // macropixels), both to an odd width.
                for (std::uint32_t cx : {0u, 1u, 2u}) {
                    const bool crop = cx != 0;
                    if (crop && (static_cast<std::uint32_t>(w) < cx + 1 || h < 2))
                        continue;
                    auto view = FrameView::of_frame(frame.get(), info);
                    ASSERT_TRUE(view.ok());
                    g2g::test::ReferenceView expected(info, frame.get());
                    const std::uint32_t room = static_cast<std::uint32_t>(w) - cx;
                    const std::uint32_t cw = room % 2 ? room : room - 1;
                    if (crop) {
                        ASSERT_TRUE(view->crop(cx, 1, cw, static_cast<std::uint32_t>(h) - 1).ok());
                        expected.crop(cx, 1, cw, static_cast<std::uint32_t>(h) - 1);
                    }
                    view->orient(method);
                    expected.orient(method);
                    const std::vector<DensePlane> want = expected.planes();
                    const std::size_t row_bytes = static_cast<std::size_t>(want[0].w) * 4;
                    const std::string what = std::string(gst_video_format_to_string(format)) + " " +
                                             std::to_string(w) + "x" + std::to_string(h) + " method " +
                                             std::to_string(method) + " crop at " + std::to_string(cx);
                    for (guint8 garbage : {guint8{0xAA}, guint8{0x55}}) {
                        std::vector<guint8> out(row_bytes * want[0].h, garbage);
                        guint8 *planes[] = {out.data()};
                        const gint strides[] = {static_cast<gint>(row_bytes)};
                        ASSERT_TRUE(view->materialize_into(frame.get(), planes, strides).ok()) << what;
                        ASSERT_TRUE(out == want[0].bytes) << what << ", garbage " << +garbage;
                    }
                }
            }
        }
    }
}

TEST(FrameView, P010EveryMethodMatchesThePlainReference)
{
    for (auto [w, h] : {std::pair{64, 48}, std::pair{33, 17}}) {
        for (auto method : kMethods) {
            GstVideoInfo info = video_info(GST_VIDEO_FORMAT_P010_10LE, w, h);
            BufferRef frame = g2g::test::random_frame(info, 9);
            auto view = FrameView::of_frame(frame.get(), info);
            ASSERT_TRUE(view.ok());
            view->orient(method);
            std::vector<DensePlane> expected = dense_planes(info, frame.get());
            for (auto &plane : expected)
                plane = reference_orient(plane, method);
            auto dense = view->materialize(frame.get());
            ASSERT_TRUE(dense.ok());
            expect_equal_planes(expected, dense_planes(view->info(), dense->get()),
                                "P010 " + std::to_string(method));
        }
    }
}

TEST(FrameView, MaterializesIntoCallerMemoryWithCallerStrides)
{
    // An app's tensor: rotate + crop + copy-out is one copy, into rows 100 bytes apart.
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 40, 30);
    BufferRef frame = g2g::test::random_frame(info, 1);
    auto view = FrameView::of_frame(frame.get(), info);
    ASSERT_TRUE(view->crop(3, 5, 20, 16).ok());
    view->orient(GST_VIDEO_ORIENTATION_90R);
    ASSERT_EQ(view->width(), 16u);
    ASSERT_EQ(view->height(), 20u);
    std::vector<guint8> tensor(100 * 20, 0xEE);
    guint8 *planes[] = {tensor.data()};
    const gint strides[] = {100};
    ASSERT_TRUE(view->materialize_into(frame.get(), planes, strides).ok());
    auto dense = view->materialize(frame.get());
    GstMapInfo map;
    gst_buffer_map(dense->get(), &map, GST_MAP_READ);
    for (int y = 0; y < 20; ++y) {
        EXPECT_EQ(0, std::memcmp(&tensor[y * 100], map.data + y * view->info().stride[0], 16 * 4)) << y;
        EXPECT_EQ(tensor[y * 100 + 64], 0xEE); // nothing written past the row
    }
    gst_buffer_unmap(dense->get(), &map);
}

TEST(FrameView, LargeViewsStreamedIntoCallerRowsMatchThePlainReference)
{
    // Outputs of 9 MiB and more leave through full-line non-temporal stores (where the CPU
    // has AVX-512). Transposes: re-aligned per row or by a shorter first tile, and into rows a
    // multiple of 1024 bytes apart row by row; copied and reversed rows: a line-aligned middle
    // between cached ends. Odd sizes (partial tiles and steps, partial runs), views walking the source
    // forwards and backwards, a crop at odd offsets, into each layout of caller rows.
    struct Case {
        GstVideoFormat format;
        int width, height;
    };
    // Strides that are multiples of 64 (RGBA 2048, NV12 3840) with the crop's odd offsets also
    // take the short first band that aligns the source loads.
    const Case cases[] = {{GST_VIDEO_FORMAT_GRAY8, 4099, 2603}, {GST_VIDEO_FORMAT_GRAY16_LE, 2311, 2311},
                          {GST_VIDEO_FORMAT_RGBA, 1637, 1651},  {GST_VIDEO_FORMAT_RGBA, 2048, 1400},
                          {GST_VIDEO_FORMAT_NV12, 3843, 2405},  {GST_VIDEO_FORMAT_NV12, 3840, 2160}};
    for (const Case &c : cases) {
        GstVideoInfo info = video_info(c.format, c.width, c.height);
        BufferRef frame = g2g::test::random_frame(info, c.width);
        const std::vector<DensePlane> source = dense_planes(info, frame.get());
        // 90r, 90l, crop + ur-ll (transposes); horiz, crop + 180 (reversed rows); vert, a crop
        // alone (rows copied).
        const GstVideoOrientationMethod methods[] = {
            GST_VIDEO_ORIENTATION_90R,     GST_VIDEO_ORIENTATION_90L, GST_VIDEO_ORIENTATION_UR_LL,
            GST_VIDEO_ORIENTATION_HORIZ,   GST_VIDEO_ORIENTATION_180, GST_VIDEO_ORIENTATION_VERT,
            GST_VIDEO_ORIENTATION_IDENTITY};
        for (int variant = 0; variant < 7; ++variant) {
            auto view = FrameView::of_frame(frame.get(), info);
            ASSERT_TRUE(view.ok());
            std::vector<DensePlane> expected = source;
            const auto method = methods[variant];
            if (variant == 2 || variant == 4 || variant == 6) {
                const std::uint32_t x = 3, y = 5, w = c.width - 8, h = c.height - 12;
                ASSERT_TRUE(view->crop(x, y, w, h).ok());
                for (auto &plane : expected)
                    plane = reference_crop(plane, x, y, w, h);
            }
            view->orient(method);
            for (auto &plane : expected)
                plane = reference_orient(plane, method);
            const std::string what =
                std::string(gst_video_format_to_string(c.format)) + " variant " + std::to_string(variant);
            ASSERT_GE(GST_VIDEO_INFO_SIZE(&view->info()), std::size_t{9} << 20) << what;

            expect_caller_rows_match(*view, frame.get(), expected, kOddRows, what + ", odd strides");
            expect_caller_rows_match(*view, frame.get(), expected, kLineRows, what + ", 64-byte strides");
            expect_caller_rows_match(*view, frame.get(), expected, kSetAliasingRows,
                                     what + ", 1024-byte strides");
        }
    }
}

TEST(FrameView, AViewOutsideItsMemoryIsRefusedWhenBuilt)
{
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    BufferRef small = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 1000, nullptr));
    auto view = FrameView::of_frame(small.get(), info);
    ASSERT_FALSE(view.ok());
    EXPECT_EQ(view.error().message(), "plane 0 (bytes 0..12288) lies outside the 1000-byte buffer");

    BufferRef frame = g2g::test::random_frame(info, 1);
    auto whole = FrameView::of_frame(frame.get(), info);
    auto crop = whole->crop(60, 0, 10, 10);
    ASSERT_FALSE(crop.ok());
    EXPECT_EQ(crop.error().message(), "crop 10x10+60+0 does not fit in a 64x48 frame");
    EXPECT_EQ(whole->crop(0, 0, 0, 5).error().message(),
              "a crop must leave at least one pixel (asked for 0x5)");

    GstVideoInfo nv16 = video_info(GST_VIDEO_FORMAT_NV16, 64, 48);
    BufferRef other = g2g::test::random_frame(nv16, 1);
    EXPECT_EQ(FrameView::of_frame(other.get(), nv16).error().message(),
              "a frame view cannot describe format NV16");
}

TEST(FrameView, SystemViewBuffersAreClassifiedAndRequireSystemBytesMaterializesOnce)
{
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 32, 24);
    BufferRef frame = g2g::test::random_frame(info, 4);
    auto view = FrameView::of_frame(frame.get(), info);
    view->orient(GST_VIDEO_ORIENTATION_90L);
    auto expected = view->materialize(frame.get());

    BufferRef viewed = BufferRef::adopt(gst_buffer_copy(frame.get()));
    g2g::attach_tensor_view(viewed.get(), *view);
    auto domain = g2g::MemoryDomain::from_buffer(viewed.get());
    ASSERT_TRUE(domain.ok()) << domain.error().message();
    EXPECT_EQ(domain->kind(), g2g::MemoryDomainKind::SystemView);
    auto slice = domain->require_system_slice("densereader");
    ASSERT_FALSE(slice.ok());
    EXPECT_EQ(slice.error().message(),
              "densereader reads system memory but received a SystemView frame: insert "
              "g2gmaterialize before it, or let caps negotiation settle on system memory");
    auto bytes = domain->require_system_bytes("viewreader");
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    EXPECT_FALSE(bytes->borrowed());
    GstMapInfo map;
    gst_buffer_map(expected->get(), &map, GST_MAP_READ);
    ASSERT_EQ(bytes->size(), map.size);
    EXPECT_EQ(0, std::memcmp(bytes->data(), map.data, map.size));
    gst_buffer_unmap(expected->get(), &map);
    // The view survives a buffer copy (what a branch's make_writable does).
    BufferRef copy = BufferRef::adopt(gst_buffer_copy(viewed.get()));
    ASSERT_NE(g2g::tensor_view_of(copy.get()), nullptr);
    EXPECT_EQ(g2g::tensor_view_of(copy.get())->width(), 24u);
}
