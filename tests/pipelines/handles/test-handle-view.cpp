// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview over frames of each platform-handle kind: crops, and for textures orientations, become a
// view (meta:G2gTensorView) on the same handle memory for a consumer that reads views; nothing
// writes these kinds' memory, so everything else (a consumer that reads no view, an orientation of
// a buffer, packed 4:2:2 without a stride form) is refused by g2gview, saying why.
#include <gtest/gtest.h>

#include <string>

#include "core/domain-table.h"
#include "handle-runs.h"
#include "tee-stats.h"

namespace {

using g2g::MemoryDomainKind;
using g2g::PixelStep;
using g2g::test::handle_sink;
using g2g::test::handle_source;
using g2g::test::run_handles;

constexpr int kFrames = 4;
// The source frames: RGBA 16x12 (64-byte rows).
const std::string kFormat = "format=RGBA width=16 height=12";
constexpr std::int64_t kStride = 64;

std::string kind_name(MemoryDomainKind kind)
{
    return std::string(g2g::name(kind));
}

// Textures are sampled by a GPU, which can read them flipped or rotated; buffers are read through
// an offset and their own forward strides.
bool is_texture(MemoryDomainKind kind)
{
    return kind != MemoryDomainKind::WebGPUBuffer && kind != MemoryDomainKind::WgpuBuffer;
}

// The source pixel of view pixel (x, y) of a w x h frame (the crop's) under `method`, as
// videoflip defines each (out(x, y) = in(f(x, y))).
PixelStep oriented(const std::string &method, std::int64_t w, std::int64_t h, std::int64_t x, std::int64_t y)
{
    if (method == "90r")
        return {y, h - 1 - x};
    if (method == "90l")
        return {w - 1 - y, x};
    if (method == "180")
        return {w - 1 - x, h - 1 - y};
    if (method == "horiz")
        return {w - 1 - x, y};
    if (method == "vert")
        return {x, h - 1 - y};
    if (method == "ul-lr")
        return {y, x};
    if (method == "ur-ll")
        return {w - 1 - y, h - 1 - x};
    return {x, y};
}

// g2gview (named view)'s refusal of a consumer named `peer` that reads no view of `kind`.
std::string no_view_reader(MemoryDomainKind kind, const std::string &peer)
{
    const std::string k = kind_name(kind);
    return "view can hand " + k + " frames on only as views (" + std::string(g2g::memory_caps_feature(kind)) +
           ", meta:G2gTensorView), and " + peer + " takes none: nothing writes " + k +
           " memory, so there is no dense frame to make of a crop or an orientation; give view a consumer "
           "that "
           "reads the view" +
           (kind == MemoryDomainKind::D3D11Texture
                ? std::string(", or crop in system memory: insert d3d11download before view")
                : ", or have the producer output system memory (no GStreamer element converts " + k +
                      " frames)");
}

class EveryHandleKind : public testing::TestWithParam<MemoryDomainKind> {};

} // namespace

INSTANTIATE_TEST_SUITE_P(HandleView, EveryHandleKind, testing::ValuesIn(g2g::test::kHandleKinds),
                         g2g::test::kind_case_name);

TEST_P(EveryHandleKind, TheDomainTableSaysWhichViewsItsPayloadCarries)
{
    using g2g::detail::HandleViews;
    EXPECT_EQ(g2g::detail::domain_info(GetParam()).handle_views,
              is_texture(GetParam()) ? HandleViews::CropsAndOrientations : HandleViews::Crops);
}

TEST_P(EveryHandleKind, ACropIsAViewOnTheSameHandleMemory)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run = run_handles(handle_source(kind, kFrames, kFormat) +
                                           " ! g2gview name=view left=3 right=1 top=2 bottom=4 ! " +
                                           handle_sink(kind, "sink", "views=true"));
    ASSERT_EQ(run.run.error, "");
    EXPECT_TRUE(run.run.warnings.empty());
    const auto &seen = run.seen["sink"];
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames));
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].handle, &run.ledger->object(i)) << "the producer's own object, frame " << i;
        EXPECT_EQ(seen[i].size, 16u * 12u * 4u) << "the whole source frame's memory";
        ASSERT_TRUE(seen[i].view.has_value());
        const g2g::test::ViewSeen &view = *seen[i].view;
        EXPECT_EQ(view.width, 12u);
        EXPECT_EQ(view.height, 6u);
        // In pixels (a texture's sampler): the rectangle at (3, 2).
        EXPECT_EQ(view.pixels.origin, (PixelStep{3, 2}));
        EXPECT_EQ(view.pixels.col, (PixelStep{1, 0}));
        EXPECT_EQ(view.pixels.row, (PixelStep{0, 1}));
        // In bytes (a buffer's reader): an offset with the frame's own forward strides.
        EXPECT_EQ(view.plane0.grid.origin, 2 * kStride + 3 * 4);
        EXPECT_EQ(view.plane0.grid.col, 4);
        EXPECT_EQ(view.plane0.grid.row, kStride);
        EXPECT_EQ(view.plane0.element_size, 4u);
    }
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, EveryOrientationOfATextureIsAViewAndABufferRefusesThem)
{
    const MemoryDomainKind kind = GetParam();
    for (const std::string method : {"90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"}) {
        SCOPED_TRACE(method);
        g2g::test::HandleRun run =
            run_handles(handle_source(kind, kFrames, kFormat) +
                        " ! g2gview name=view left=3 right=1 top=2 bottom=4 video-direction=" + method +
                        " ! " + handle_sink(kind, "sink", "views=true"));
        EXPECT_EQ(run.ledger->released_once_each(), "");
        if (!is_texture(kind)) {
            EXPECT_EQ(run.run.error, "view cannot flip or rotate " + kind_name(kind) +
                                         " frames (video-direction=" + method +
                                         " left=3 right=1 top=2 bottom=4): a view of a buffer is an "
                                         "offset into it with the buffer's own forward strides, which "
                                         "carries crops only, and nothing writes " +
                                         kind_name(kind) +
                                         " memory to orient the frame into; crop only, or orient the frames "
                                         "before they reach " +
                                         kind_name(kind) + " memory");
            EXPECT_EQ(run.run.error_source, "view");
            EXPECT_TRUE(run.seen["sink"].empty());
            continue;
        }
        ASSERT_EQ(run.run.error, "");
        const auto &seen = run.seen["sink"];
        ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames));
        const g2g::test::ViewSeen &view = *seen[0].view;
        const bool transposes = method == "90r" || method == "90l" || method == "ul-lr" || method == "ur-ll";
        EXPECT_EQ(view.width, transposes ? 6u : 12u);
        EXPECT_EQ(view.height, transposes ? 12u : 6u);
        for (std::int64_t y = 0; y < view.height; ++y) {
            for (std::int64_t x = 0; x < view.width; ++x) {
                const PixelStep in_crop = oriented(method, 12, 6, x, y);
                ASSERT_EQ(view.pixels.at(x, y), (PixelStep{3 + in_crop.x, 2 + in_crop.y})) << x << "," << y;
            }
        }
        for (std::size_t i = 0; i < seen.size(); ++i)
            EXPECT_EQ(seen[i].handle, &run.ledger->object(i));
    }
}

TEST_P(EveryHandleKind, PackedYuv422WithoutAStrideFormIsRefused)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run = run_handles(handle_source(kind, kFrames, "format=YUY2 width=16 height=12") +
                                           " ! g2gview name=view video-direction=horiz ! " +
                                           handle_sink(kind, "sink", "views=true"));
    EXPECT_EQ(run.run.error_source, "view");
    EXPECT_EQ(run.ledger->released_once_each(), "");
    // A buffer refuses the flip before its format is asked.
    if (!is_texture(kind)) {
        EXPECT_EQ(run.run.error.rfind("view cannot flip or rotate " + kind_name(kind) + " frames", 0), 0u)
            << run.run.error;
        return;
    }
    EXPECT_EQ(run.run.error,
              "view cannot give YUY2 " + kind_name(kind) +
                  " frames video-direction=horiz left=0 right=0 top=0 bottom=0 as a view: packed "
                  "4:2:2 under a horizontal flip, a rotation or an odd left crop has no stride "
                  "form, and nothing writes " +
                  kind_name(kind) + " memory to materialize it");
}

TEST_P(EveryHandleKind, AConsumerThatReadsNoViewIsRefusedNamingWhy)
{
    const MemoryDomainKind kind = GetParam();
    // One of the kind that takes no view; one that takes anything (and reads no view).
    const std::pair<std::string, std::string> consumers[] = {
        {handle_sink(kind, "plain"), "plain"},
        {"fakesink name=anything", "anything"},
    };
    for (const auto &[consumer, peer] : consumers) {
        SCOPED_TRACE(consumer);
        g2g::test::HandleRun run =
            run_handles(handle_source(kind, kFrames, kFormat) + " ! g2gview name=view left=3 ! " + consumer);
        EXPECT_EQ(run.run.error, no_view_reader(kind, peer));
        EXPECT_EQ(run.run.error_source, "view");
        ASSERT_TRUE(run.ledger);
        EXPECT_EQ(run.ledger->released_once_each(), "");
    }
    // g2gmaterialize writes dense frames of system, CUDA and Vulkan memory only: it does not link.
    g2g::test::HandleRun run =
        run_handles(handle_source(kind, kFrames, kFormat) +
                    " ! g2gview name=view left=3 ! g2gmaterialize name=mat ! fakesink");
    EXPECT_EQ(run.run.error, "parse: could not link view to mat");
}

TEST_P(EveryHandleKind, TheIdentityPassesTheFrameItselfToAConsumerThatReadsNoView)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run = run_handles(handle_source(kind, kFrames, kFormat) + " ! g2gview name=view ! " +
                                           handle_sink(kind, "sink"));
    ASSERT_EQ(run.run.error, "");
    const auto &seen = run.seen["sink"];
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames));
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].handle, &run.ledger->object(i));
        EXPECT_FALSE(seen[i].view.has_value());
    }
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, AChainOfViewsComposesIntoOne)
{
    const MemoryDomainKind kind = GetParam();
    // A texture is turned too; a buffer only cropped twice.
    const std::string turn = is_texture(kind) ? " video-direction=180" : "";
    g2g::test::HandleRun run = run_handles(
        handle_source(kind, kFrames, kFormat) + " ! g2gview name=first left=3 top=2 ! g2gview name=second " +
        "right=1 bottom=4" + turn + " ! " + handle_sink(kind, "sink", "views=true"));
    ASSERT_EQ(run.run.error, "");
    const auto &seen = run.seen["sink"];
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames));
    const g2g::test::ViewSeen &view = *seen[0].view;
    EXPECT_EQ(view.width, 12u);
    EXPECT_EQ(view.height, 6u);
    const PixelStep last{3 + 11, 2 + 5};
    EXPECT_EQ(view.pixels.at(0, 0), is_texture(kind) ? last : (PixelStep{3, 2}));
    EXPECT_EQ(view.pixels.at(11, 5), is_texture(kind) ? (PixelStep{3, 2}) : last);
    EXPECT_EQ(seen[0].handle, &run.ledger->object(0));
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, ViewsFanOutThroughG2gTeeAsSharesOfTheKind)
{
    const MemoryDomainKind kind = GetParam();
    guint64 kind_shares = 0;
    g2g::test::HandleRun run = run_handles(
        handle_source(kind, kFrames, kFormat) + " ! g2gview name=view left=3 top=2 ! g2gtee name=t " +
            "t. ! queue ! " + handle_sink(kind, "a", "views=true") + " t. ! queue ! " +
            handle_sink(kind, "b", "views=true") + " t. ! queue ! " + handle_sink(kind, "c", "views=true"),
        [&](GstBin *bin) {
            const g2g::ElementRef tee = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "t"));
            kind_shares = g2g::test::tee_shares(tee.get(), kind_name(kind).c_str());
        });
    ASSERT_EQ(run.run.error, "");
    for (const char *branch : {"a", "b", "c"}) {
        const auto &seen = run.seen[branch];
        ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames)) << branch;
        for (std::size_t i = 0; i < seen.size(); ++i) {
            EXPECT_EQ(seen[i].memory, run.seen["a"][i].memory) << branch << ": the same memory";
            EXPECT_EQ(seen[i].handle, &run.ledger->object(i)) << branch;
            ASSERT_TRUE(seen[i].view.has_value());
            EXPECT_EQ(seen[i].view->pixels.origin, (PixelStep{3, 2}));
        }
    }
    EXPECT_EQ(kind_shares, 3u * kFrames);
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, ATeeBranchThatReadsNoViewIsRefusedNamingWhy)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run =
        run_handles(handle_source(kind, kFrames, kFormat) + " ! g2gview name=view left=3 ! g2gtee name=t " +
                    "t. ! queue ! " + handle_sink(kind, "a", "views=true") + " t. ! queue name=q ! fakesink");
    const std::string k = kind_name(kind);
    EXPECT_EQ(run.run.error,
              "branch src_1 of t (to q) takes no views (meta:G2gTensorView) of " + k +
                  " frames, and nothing writes " + k +
                  " memory to materialize them: give that branch a consumer that reads the view");
    EXPECT_EQ(run.run.error_source, "t");
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, AnOrientationSetWhilePlayingLandsOnTheNextFrameOrIsRefusedByName)
{
    const MemoryDomainKind kind = GetParam();
    // Set from the streaming thread in front of g2gview's third frame: it lands on that frame.
    const auto turn_at_third_frame = [](GstBin *bin) {
        const g2g::ElementRef view = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "view"));
        const g2g::Ref<GstPad> pad = g2g::Ref<GstPad>::adopt(gst_element_get_static_pad(view.get(), "sink"));
        gst_pad_add_probe(
            pad.get(), GST_PAD_PROBE_TYPE_BUFFER,
            +[](GstPad *pad, GstPadProbeInfo *, gpointer count) -> GstPadProbeReturn {
                if (++*static_cast<int *>(count) == 3)
                    g_object_set(GST_PAD_PARENT(pad), "video-direction", GST_VIDEO_ORIENTATION_90R, nullptr);
                return GST_PAD_PROBE_OK;
            },
            new int(0), [](gpointer count) { delete static_cast<int *>(count); });
    };
    g2g::test::HandleRun run =
        run_handles(handle_source(kind, kFrames, kFormat) + " ! g2gview name=view left=3 ! " +
                        handle_sink(kind, "sink", "views=true"),
                    {}, turn_at_third_frame);
    EXPECT_EQ(run.ledger->released_once_each(), "");
    const auto &seen = run.seen["sink"];
    if (!is_texture(kind)) {
        EXPECT_EQ(run.run.error,
                  "view cannot flip or rotate " + kind_name(kind) +
                      " frames (video-direction=90r left=3 right=0 top=0 bottom=0): a view of a "
                      "buffer is an offset into it with the buffer's own forward strides, which "
                      "carries crops only, and nothing writes " +
                      kind_name(kind) +
                      " memory to orient the frame into; crop only, or orient the frames before "
                      "they reach " +
                      kind_name(kind) + " memory");
        EXPECT_EQ(seen.size(), 2u) << "the frames before the change";
        return;
    }
    ASSERT_EQ(run.run.error, "");
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames));
    EXPECT_EQ(seen[1].view->width, 13u);
    EXPECT_EQ(seen[1].view->pixels.origin, (PixelStep{3, 0}));
    EXPECT_EQ(seen[2].view->width, 12u);
    EXPECT_EQ(seen[2].view->height, 13u);
    EXPECT_EQ(seen[2].view->pixels.at(0, 0), (PixelStep{3, 11}));
}
