// SPDX-License-Identifier: LGPL-2.1-or-later
// The C API's views (g2g_buffer_make_view), in C terms: a view made of a frame, written into the
// application's memory with its own strides by g2g_buffer_materialize_into, equals what GStreamer's
// videocrop ! videoflip make of the same frame, byte for byte, for every method, with and without
// a crop; a view of a view is the one composed view; the view shares the frame's memory; and every
// refusal says what is wrong (docs/robustness.md lists them).
#include <gtest/gtest.h>

#include <g2g/g2g.h>
#include <g2g/gst-ref.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "frames.h"
#include "memfd-dmabuf.h"

using g2g::BufferRef;
using g2g::test::compare_frames;
using g2g::test::random_frame;
using g2g::test::run_chain;
using g2g::test::video_info;

namespace {

constexpr GstVideoOrientationMethod kMethods[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_180,
    GST_VIDEO_ORIENTATION_90L,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL,
};

std::string nick(GstVideoOrientationMethod method)
{
    auto *methods = static_cast<GEnumClass *>(g_type_class_ref(GST_TYPE_VIDEO_ORIENTATION_METHOD));
    std::string text = g_enum_get_value(methods, method)->value_nick;
    g_type_class_unref(methods);
    return text;
}

struct Crop {
    guint left = 0, right = 0, top = 0, bottom = 0;
};

// The gst-launch chain of GStreamer's own elements that makes the same frame.
std::string peers(const Crop &c, GstVideoOrientationMethod method)
{
    return "videocrop left=" + std::to_string(c.left) + " right=" + std::to_string(c.right) +
           " top=" + std::to_string(c.top) + " bottom=" + std::to_string(c.bottom) +
           " ! videoflip video-direction=" + nick(method);
}

// What g2g_buffer_make_view answered: the view (or nullptr), its info, the error.
struct Made {
    BufferRef view;
    GstVideoInfo info{};
    std::string error;
    int code = 0;
};

Made make_view(GstBuffer *buffer, const GstVideoInfo *info, GstVideoOrientationMethod method,
               const Crop &c = {})
{
    Made made;
    GError *error = nullptr;
    GstVideoInfo *view_info = nullptr;
    made.view = BufferRef::adopt(
        g2g_buffer_make_view(buffer, info, method, c.left, c.right, c.top, c.bottom, &view_info, &error));
    EXPECT_EQ(made.view.get() != nullptr, view_info != nullptr) << "an info exactly when a view is made";
    if (view_info) {
        made.info = *view_info;
        gst_video_info_free(view_info);
    }
    if (error) {
        made.error = error->message;
        made.code = error->domain == G2G_ERROR ? error->code : -1;
        g_error_free(error);
    }
    return made;
}

// Application memory for a frame of `dense`'s format and size, with its own strides (each row
// padded by 24 bytes, each plane 8 bytes after the one before), and the video info that says so.
struct AppMemory {
    GstVideoInfo info;
    std::vector<guint8> bytes;
    guint8 *planes[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};

    explicit AppMemory(const GstVideoInfo &dense) : info(dense)
    {
        gsize offset = 0;
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
            // The formats here store component p in plane p.
            info.stride[p] = GST_VIDEO_INFO_PLANE_STRIDE(&dense, p) + 24;
            info.offset[p] = offset;
            offset += static_cast<gsize>(info.stride[p]) * GST_VIDEO_INFO_COMP_HEIGHT(&dense, p) + 8;
        }
        info.size = offset;
        bytes.assign(offset, 0xab);
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
            planes[p] = bytes.data() + info.offset[p];
            strides[p] = info.stride[p];
        }
    }

    // The written frame as a buffer (the bytes not copied), for compare_frames.
    BufferRef buffer()
    {
        return BufferRef::adopt(gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, bytes.data(),
                                                            bytes.size(), 0, bytes.size(), nullptr, nullptr));
    }
};

// `view` (of video info `info`) written into application memory: "" when it matched `peer`'s
// frame, else what went wrong.
std::string written_equals(GstBuffer *view, const GstVideoInfo &info, const g2g::test::HarnessOutput &peer)
{
    if (!peer.error.empty())
        return "the peers failed: " + peer.error;
    AppMemory app(info);
    GError *error = nullptr;
    if (!g2g_buffer_materialize_into(view, &info, app.planes, app.strides, 1, &error)) {
        std::string text = error->message;
        g_error_free(error);
        return "g2g_buffer_materialize_into failed: " + text;
    }
    BufferRef written = app.buffer();
    return compare_frames(app.info, written.get(), peer.info, peer.buffer.get());
}

std::string case_name(GstVideoFormat format, GstVideoOrientationMethod method, const Crop &c)
{
    return std::string(gst_video_format_to_string(format)) + " " + nick(method) + " crop l" +
           std::to_string(c.left) + " r" + std::to_string(c.right) + " t" + std::to_string(c.top) + " b" +
           std::to_string(c.bottom);
}

} // namespace

// Every method, without a crop and with one, in packed, semi-planar, planar, packed 4:2:2 and gray
// formats. YUY2's frame is even-wide and its crops even, so videoflip's output is right to compare
// with: it zeroes the last V of an odd-width packed 4:2:2 row.
TEST(ViewCApi, EveryMethodAndCropEqualsVideocropThenVideoflip)
{
    const GstVideoFormat formats[] = {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
                                      GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_GRAY8};
    for (GstVideoFormat format : formats) {
        const GstVideoInfo info = video_info(format, 64, 48);
        BufferRef frame = random_frame(info, 7);
        std::vector<Crop> crops = {Crop{}, Crop{6, 10, 4, 2}};
        // Odd sides where no plane is subsampled.
        if (format == GST_VIDEO_FORMAT_RGBA || format == GST_VIDEO_FORMAT_GRAY8)
            crops.push_back(Crop{3, 8, 5, 1});
        for (const Crop &crop : crops) {
            for (GstVideoOrientationMethod method : kMethods) {
                SCOPED_TRACE(case_name(format, method, crop));
                Made made = make_view(frame.get(), &info, method, crop);
                ASSERT_TRUE(made.view) << made.error;
                EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&made.info), format);
                const guint width = 64 - crop.left - crop.right, height = 48 - crop.top - crop.bottom;
                const bool transposes =
                    method == GST_VIDEO_ORIENTATION_90R || method == GST_VIDEO_ORIENTATION_90L ||
                    method == GST_VIDEO_ORIENTATION_UL_LR || method == GST_VIDEO_ORIENTATION_UR_LL;
                EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&made.info), static_cast<gint>(transposes ? height : width));
                EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&made.info), static_cast<gint>(transposes ? width : height));
                auto peer = run_chain(peers(crop, method), info, frame.get());
                EXPECT_EQ(written_equals(made.view.get(), made.info, peer), "");
            }
        }
    }
}

// The view holds the frame's own memories: the same GstMemory objects, the same bytes, nothing
// copied; the frame as parent (a pool cannot recycle the bytes under it); its timestamps.
TEST(ViewCApi, TheViewSharesTheFramesMemory)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    BufferRef frame = random_frame(info, 3);
    GST_BUFFER_PTS(frame.get()) = 40 * GST_MSECOND;
    Made made = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_90R, Crop{4, 0, 2, 0});
    ASSERT_TRUE(made.view) << made.error;
    ASSERT_EQ(gst_buffer_n_memory(made.view.get()), gst_buffer_n_memory(frame.get()));
    for (guint i = 0; i < gst_buffer_n_memory(frame.get()); ++i)
        EXPECT_EQ(gst_buffer_peek_memory(made.view.get(), i), gst_buffer_peek_memory(frame.get(), i));
    GstMapInfo a, b;
    ASSERT_TRUE(gst_buffer_map(frame.get(), &a, GST_MAP_READ));
    ASSERT_TRUE(gst_buffer_map(made.view.get(), &b, GST_MAP_READ));
    EXPECT_EQ(a.data, b.data);
    gst_buffer_unmap(made.view.get(), &b);
    gst_buffer_unmap(frame.get(), &a);
    GstParentBufferMeta *parent = gst_buffer_get_parent_buffer_meta(made.view.get());
    ASSERT_NE(parent, nullptr);
    EXPECT_EQ(parent->buffer, frame.get());
    EXPECT_EQ(GST_BUFFER_PTS(made.view.get()), 40 * GST_MSECOND);
    G2gMemoryDomainKind kind = G2G_MEMORY_DOMAIN_SYSTEM;
    ASSERT_TRUE(g2g_buffer_get_memory_domain(made.view.get(), &kind, nullptr));
    EXPECT_EQ(kind, G2G_MEMORY_DOMAIN_SYSTEM_VIEW);
    ASSERT_TRUE(g2g_buffer_get_memory_domain(frame.get(), &kind, nullptr));
    EXPECT_EQ(kind, G2G_MEMORY_DOMAIN_SYSTEM); // the frame itself is untouched
    // 90r of a 60x46 crop: 46x60, the frame rate and aspect ratio carried (turned).
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&made.info), 46);
    EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&made.info), 60);
}

// Once the view is gone its frame goes back to the pool it came from as it would without one: the
// pool recycles it rather than discarding it for memories still shared (GStreamer 1.22 frees a
// buffer's metas, the parent among them, before its memories).
TEST(ViewCApi, ThePoolRecyclesTheFrameOnceTheViewIsGone)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    const g2g::Ref<GstBufferPool> pool = g2g::Ref<GstBufferPool>::adopt(gst_video_buffer_pool_new());
    const g2g::CapsRef caps = g2g::CapsRef::adopt(gst_video_info_to_caps(&info));
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, caps.get(), static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 1,
                                      1);
    ASSERT_TRUE(gst_buffer_pool_set_config(pool.get(), config));
    ASSERT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));
    GstBuffer *frame = nullptr;
    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), &frame, nullptr), GST_FLOW_OK);
    // A mark on the frame object itself: a discarded frame's successor may get its address.
    const GQuark mark = g_quark_from_static_string("g2g-test-first-frame");
    gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(frame), mark, GINT_TO_POINTER(1), nullptr);
    Made made = make_view(frame, &info, GST_VIDEO_ORIENTATION_90R);
    ASSERT_TRUE(made.view) << made.error;
    gst_buffer_unref(frame); // the view holds it now
    made.view.reset();
    GstBuffer *again = nullptr;
    // The pool hands the first frame out again rather than a new one.
    GstBufferPoolAcquireParams dont_wait{};
    dont_wait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), &again, &dont_wait), GST_FLOW_OK);
    EXPECT_TRUE(gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(again), mark));
    gst_buffer_unref(again);
    gst_buffer_pool_set_active(pool.get(), FALSE);
}

TEST(ViewCApi, TheInfoKeepsTheRateAndTurnsTheAspectRatio)
{
    GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 32, 16);
    info.fps_n = 25;
    info.fps_d = 1;
    info.par_n = 4;
    info.par_d = 3;
    BufferRef frame = random_frame(info, 4);
    Made turned = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_90L);
    ASSERT_TRUE(turned.view) << turned.error;
    EXPECT_EQ(turned.info.fps_n, 25);
    EXPECT_EQ(turned.info.par_n, 3);
    EXPECT_EQ(turned.info.par_d, 4);
    Made flipped = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_VERT);
    ASSERT_TRUE(flipped.view) << flipped.error;
    EXPECT_EQ(flipped.info.par_n, 4);
    EXPECT_EQ(flipped.info.par_d, 3);
    // The info is optional.
    BufferRef view = BufferRef::adopt(
        g2g_buffer_make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_180, 1, 1, 1, 1, nullptr, nullptr));
    EXPECT_TRUE(view);
}

// A view of a view composes into one: 90r of 90r cropped equals 180 with the crop turned back
// into the frame's coordinates, and both equal the four peers in a row.
TEST(ViewCApi, AViewOfAViewIsTheOneComposedView)
{
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420}) {
        SCOPED_TRACE(gst_video_format_to_string(format));
        const GstVideoInfo info = video_info(format, 64, 48);
        BufferRef frame = random_frame(info, 11);
        Made first = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_90R, Crop{2, 4, 6, 8});
        ASSERT_TRUE(first.view) << first.error;
        // The second crop counts in the first view's coordinates (48 - 6 - 8 = 34 wide, 58 high).
        const Crop second_crop{2, 6, 10, 4};
        Made second = make_view(first.view.get(), &first.info, GST_VIDEO_ORIENTATION_90R, second_crop);
        ASSERT_TRUE(second.view) << second.error;
        // Still one view over the frame's memory, not a view of a copy.
        EXPECT_EQ(gst_buffer_peek_memory(second.view.get(), 0), gst_buffer_peek_memory(frame.get(), 0));

        // 90r maps view (x, y) to frame (y, H - 1 - x): the second crop's left and right are the
        // first view's bottom and top rows of the frame, its top and bottom the frame's left and right.
        const Crop composed{2 + second_crop.top, 4 + second_crop.bottom, 6 + second_crop.right,
                            8 + second_crop.left};
        Made single = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_180, composed);
        ASSERT_TRUE(single.view) << single.error;
        EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&second.info), GST_VIDEO_INFO_WIDTH(&single.info));
        EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&second.info), GST_VIDEO_INFO_HEIGHT(&single.info));

        auto peer = run_chain(peers(Crop{2, 4, 6, 8}, GST_VIDEO_ORIENTATION_90R) + " ! " +
                                  peers(second_crop, GST_VIDEO_ORIENTATION_90R),
                              info, frame.get());
        EXPECT_EQ(written_equals(second.view.get(), second.info, peer), "");
        EXPECT_EQ(written_equals(single.view.get(), single.info, peer), "");
    }
}

// g2gview's output carries its view: a view made of it composes on that view.
TEST(ViewCApi, AViewOfG2gviewsOutputComposesOnItsView)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    BufferRef frame = random_frame(info, 5);
    auto viewed = run_chain("g2gview video-direction=90l left=4 top=2", info, frame.get(),
                            "video/x-raw(memory:SystemMemory, meta:G2gTensorView)");
    ASSERT_EQ(viewed.error, "");
    ASSERT_NE(viewed.caps.find("G2gTensorView"), std::string::npos) << viewed.caps;
    Made made = make_view(viewed.buffer.get(), &viewed.info, GST_VIDEO_ORIENTATION_HORIZ, Crop{0, 2, 8, 0});
    ASSERT_TRUE(made.view) << made.error;
    auto peer = run_chain(peers(Crop{4, 0, 2, 0}, GST_VIDEO_ORIENTATION_90L) + " ! " +
                              peers(Crop{0, 2, 8, 0}, GST_VIDEO_ORIENTATION_HORIZ),
                          info, frame.get());
    EXPECT_EQ(written_equals(made.view.get(), made.info, peer), "");
}

// ---- Refusals (docs/robustness.md): NULL, nothing made, the error says what is wrong ----

TEST(ViewCApi, ACropThatLeavesNoPixelIsRefused)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    BufferRef frame = random_frame(info, 1);
    Made wide = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_IDENTITY, Crop{40, 30, 0, 0});
    EXPECT_FALSE(wide.view);
    EXPECT_EQ(wide.code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(wide.error, "g2g_buffer_make_view: the crop (left 40, right 30) leaves no column of the "
                          "64-pixel-wide frame");
    Made high = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_90R, Crop{0, 0, 48, 0});
    EXPECT_FALSE(high.view);
    EXPECT_EQ(high.error, "g2g_buffer_make_view: the crop (top 48, bottom 0) leaves no row of the "
                          "48-pixel-high frame");
    // Sides whose sum wraps a 32-bit unsigned do not pass for a small crop.
    Made wrapping = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_IDENTITY, Crop{G_MAXUINT, 2, 0, 0});
    EXPECT_FALSE(wrapping.view);
    EXPECT_EQ(wrapping.error, "g2g_buffer_make_view: the crop (left 4294967295, right 2) leaves no column of "
                              "the 64-pixel-wide frame");
}

TEST(ViewCApi, AMethodOutsideVideoflipsFixedOnesIsRefused)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 16, 16);
    BufferRef frame = random_frame(info, 1);
    Made automatic = make_view(frame.get(), &info, GST_VIDEO_ORIENTATION_AUTO);
    EXPECT_FALSE(automatic.view);
    EXPECT_EQ(automatic.code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(
        automatic.error,
        "g2g_buffer_make_view: orientation method 8 (auto) is none of videoflip's fixed ones (identity, "
        "90r, 180, 90l, horiz, vert, ul-lr, ur-ll): auto follows a stream's orientation tag and custom a "
        "transform, neither of which a frame alone has");
    Made wild = make_view(frame.get(), &info, static_cast<GstVideoOrientationMethod>(42));
    EXPECT_FALSE(wild.view);
    EXPECT_EQ(
        wild.error.rfind("g2g_buffer_make_view: orientation method 42 is none of videoflip's fixed ones ", 0),
        0u)
        << wild.error;
    Made negative = make_view(frame.get(), &info, static_cast<GstVideoOrientationMethod>(-1));
    EXPECT_FALSE(negative.view);
    EXPECT_EQ(negative.code, G2G_ERROR_INVALID_ARGUMENT);
}

TEST(ViewCApi, AFrameAViewCannotDescribeIsRefused)
{
    // A format no view describes.
    const GstVideoInfo v210 = video_info(GST_VIDEO_FORMAT_v210, 48, 16);
    BufferRef packed = random_frame(v210, 1);
    Made format = make_view(packed.get(), &v210, GST_VIDEO_ORIENTATION_90R);
    EXPECT_FALSE(format.view);
    EXPECT_EQ(format.code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(format.error, "g2g_buffer_make_view: a frame view cannot describe format v210");

    // A luma plane split across two memories: one plane's rows are one memory's bytes in a view.
    const GstVideoInfo nv12 = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    BufferRef split = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(split.get(), gst_allocator_alloc(nullptr, 1000, nullptr));
    gst_buffer_append_memory(split.get(),
                             gst_allocator_alloc(nullptr, GST_VIDEO_INFO_SIZE(&nv12) - 1000, nullptr));
    Made straddles = make_view(split.get(), &nv12, GST_VIDEO_ORIENTATION_IDENTITY);
    EXPECT_FALSE(straddles.view);
    EXPECT_EQ(straddles.error, "g2g_buffer_make_view: plane 0 straddles two memories of the buffer");

    // Bytes too few for the frame the info describes.
    BufferRef small = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 100, nullptr));
    Made short_buffer = make_view(small.get(), &nv12, GST_VIDEO_ORIENTATION_IDENTITY);
    EXPECT_FALSE(short_buffer.view);
    EXPECT_EQ(short_buffer.error,
              "g2g_buffer_make_view: plane 0 (bytes 0..3072) lies outside the 100-byte buffer");

    // A view's buffer with the frame's info instead of the view's.
    BufferRef frame = random_frame(nv12, 2);
    Made turned = make_view(frame.get(), &nv12, GST_VIDEO_ORIENTATION_90R);
    ASSERT_TRUE(turned.view) << turned.error;
    Made mismatch = make_view(turned.view.get(), &nv12, GST_VIDEO_ORIENTATION_IDENTITY);
    EXPECT_FALSE(mismatch.view);
    EXPECT_EQ(mismatch.error,
              "g2g_buffer_make_view: the buffer's view is NV12 48x64 but the video info says NV12 64x48");

    // A video info never filled in: its format info is NULL (g2g_buffer_materialize_into crashed reading it).
    GstVideoInfo unfilled{};
    Made zeroed = make_view(frame.get(), &unfilled, GST_VIDEO_ORIENTATION_90R);
    EXPECT_FALSE(zeroed.view);
    EXPECT_EQ(zeroed.error,
              "g2g_buffer_make_view: the video info was never filled in (its format info is NULL): "
              "fill it with gst_video_info_from_caps or gst_video_info_set_format");
    std::vector<guint8> bytes(GST_VIDEO_INFO_SIZE(&nv12));
    guint8 *planes[] = {bytes.data(), bytes.data() + GST_VIDEO_INFO_PLANE_OFFSET(&nv12, 1)};
    GError *error = nullptr;
    EXPECT_FALSE(g2g_buffer_materialize_into(turned.view.get(), &unfilled, planes, nv12.stride, 1, &error));
    ASSERT_NE(error, nullptr);
    EXPECT_STREQ(error->message,
                 "g2g_buffer_materialize_into: the video info was never filled in (its format "
                 "info is NULL): fill it with gst_video_info_from_caps or "
                 "gst_video_info_set_format");
    g_clear_error(&error);

    Made none = make_view(nullptr, &nv12, GST_VIDEO_ORIENTATION_90R);
    EXPECT_FALSE(none.view);
    EXPECT_EQ(none.error, "g2g_buffer_make_view needs a buffer and its video info");
}

// Platform-handle frames: a WgpuBuffer is a buffer, which takes crops only; a YUY2 texture turned
// has no stride form and nothing writes its memory. What they do take stays a view of the handle.
TEST(ViewCApi, AViewAHandleCannotCarryIsRefused)
{
    const GstVideoInfo rgba = video_info(GST_VIDEO_FORMAT_RGBA, 32, 16);
    int release_count = 0;
    auto release = [](gpointer count) { ++*static_cast<int *>(count); };
    G2gWgpuBuffer payload = {&release_count, GST_VIDEO_INFO_SIZE(&rgba)};
    BufferRef wgpu_buffer = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(
        wgpu_buffer.get(),
        g2g_wgpu_buffer_memory_new(&payload, GST_VIDEO_INFO_SIZE(&rgba), release, &release_count, nullptr));
    Made turned = make_view(wgpu_buffer.get(), &rgba, GST_VIDEO_ORIENTATION_90R);
    EXPECT_FALSE(turned.view);
    EXPECT_EQ(turned.code, G2G_ERROR_UNSUPPORTED_DOMAIN);
    EXPECT_EQ(turned.error,
              "g2g_buffer_make_view: WgpuBuffer frames take crops only, no orientation: a view of "
              "a buffer is an offset into it with the buffer's own forward strides, and nothing "
              "writes WgpuBuffer memory to orient the frame into");
    Made cropped = make_view(wgpu_buffer.get(), &rgba, GST_VIDEO_ORIENTATION_IDENTITY, Crop{4, 0, 2, 0});
    ASSERT_TRUE(cropped.view) << cropped.error;
    EXPECT_EQ(gst_buffer_peek_memory(cropped.view.get(), 0), gst_buffer_peek_memory(wgpu_buffer.get(), 0));
    G2gMemoryDomainKind kind = G2G_MEMORY_DOMAIN_SYSTEM;
    ASSERT_TRUE(g2g_buffer_get_memory_domain(cropped.view.get(), &kind, nullptr));
    EXPECT_EQ(kind, G2G_MEMORY_DOMAIN_WGPU_BUFFER);

    const GstVideoInfo yuy2 = video_info(GST_VIDEO_FORMAT_YUY2, 32, 16);
    G2gWgpuTexture texture = {&release_count, 32, 16, 0};
    BufferRef wgpu_texture = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(
        wgpu_texture.get(),
        g2g_wgpu_texture_memory_new(&texture, GST_VIDEO_INFO_SIZE(&yuy2), release, &release_count, nullptr));
    Made flipped = make_view(wgpu_texture.get(), &yuy2, GST_VIDEO_ORIENTATION_HORIZ);
    EXPECT_FALSE(flipped.view);
    EXPECT_EQ(flipped.code, G2G_ERROR_UNSUPPORTED_DOMAIN);
    EXPECT_EQ(flipped.error,
              "g2g_buffer_make_view: YUY2 WgpuTexture frames have no view under this orientation "
              "or crop: packed 4:2:2 under a horizontal flip, a rotation or an odd left crop has "
              "no stride form, and nothing writes WgpuTexture memory to materialize it");
    Made vertical = make_view(wgpu_texture.get(), &yuy2, GST_VIDEO_ORIENTATION_VERT, Crop{2, 0, 0, 0});
    EXPECT_TRUE(vertical.view) << vertical.error;
}

// A tiled DMA-BUF (Intel's X tiles) has no rows to stride through: no view is made of it.
TEST(ViewCApi, ATiledDmaBufIsRefused)
{
    const int fd = g2g::test::make_memfd(8192);
    ASSERT_GE(fd, 0);
    const G2gDmaBufPlane planes[] = {{fd, 0, 512}, {fd, 4096, 512}};
    constexpr guint64 kIntelXTiled = 0x0100000000000001ULL; // drm_fourcc.h's I915_FORMAT_MOD_X_TILED
    GError *error = nullptr;
    BufferRef tiled = BufferRef::adopt(
        g2g_dmabuf_wrap(GST_MAKE_FOURCC('N', 'V', '1', '2'), kIntelXTiled, 64, 32, 2, planes, &error));
    close(fd); // wrap dup'ed it
    if (!tiled) {
        const std::string text = error ? error->message : "no error";
        g_clear_error(&error);
        // A build without the dmabuf feature has no DMA-BUF frames to refuse.
        if (text.rfind("this build of g2g has no DMA-BUF support", 0) == 0)
            GTEST_SKIP() << text;
        FAIL() << text;
    }
    const GstVideoInfo nv12 = video_info(GST_VIDEO_FORMAT_NV12, 64, 32);
    Made made = make_view(tiled.get(), &nv12, GST_VIDEO_ORIENTATION_90R);
    EXPECT_FALSE(made.view);
    EXPECT_EQ(made.code, G2G_ERROR_UNSUPPORTED_DOMAIN);
    EXPECT_EQ(made.error,
              "g2g_buffer_make_view reads system memory but received a DmaBuf frame: insert glupload ! "
              "gldownload before it, or let caps negotiation settle on system memory (its DRM format "
              "NV12:0x0100000000000001 is not linear: its bytes are tiles, not rows, and g2g never "
              "reads them through a mapping)");
}
