// SPDX-License-Identifier: LGPL-2.1-or-later
// Materialize split across threads: byte for byte the one-thread frame, for every format the CPU
// backend takes, every method, with and without a crop, at odd and large sizes, into caller rows
// that start anywhere or on lines, on pools of 2, 3, 4 and one-per-processor threads. The pools
// split every frame, however small, into one part per thread (WorkerPoolState::min_band_bytes = 0),
// so that small frames put band edges and column cuts everywhere; the library's own split is run
// too. And the pool itself: every task once, several callers at once, its threads joined when it
// goes.
#include <g2g/frame-view.h>
#include <g2g/worker-pool.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <cctype>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "frames.h"
#include "view/cpu/worker-pool-private.h"
#include "view/frame-view-private.h"
#include "worker-threads.h"

using g2g::BufferRef;
using g2g::FrameView;
using g2g::WorkerPool;
using g2g::test::video_info;

namespace {

constexpr GstVideoOrientationMethod kMethods[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_90L,
    GST_VIDEO_ORIENTATION_180,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL};

// Caller rows 3 bytes longer than the view's rows at an odd address (no row starts on a line, as
// an app's tensor may), or padded to whole lines from a line (the kernels' aligned paths).
enum class Rows { Odd, Lines };

// Caller memory for `info`'s planes, every byte 0xA5 to start with: what a materialize leaves
// untouched (padding between rows) is compared too, and the bytes around the rows must stay 0xA5.
struct CallerFrame {
    static constexpr guint8 kUntouched = 0xA5;
    std::vector<std::vector<guint8>> memory;
    guint8 *planes[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    std::vector<std::size_t> lead, rows_bytes; // where each plane's rows start in its memory, and span

    CallerFrame(const GstVideoInfo &info, Rows rows)
    {
        constexpr std::size_t kLine = 64;
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
            guint height = 0;
            for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c) {
                if (GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, c) == p)
                    height = std::max<guint>(height, GST_VIDEO_INFO_COMP_HEIGHT(&info, c));
            }
            const std::size_t row = GST_VIDEO_INFO_PLANE_STRIDE(&info, p);
            const std::size_t stride = rows == Rows::Odd ? row + 3 : (row + kLine - 1) / kLine * kLine;
            strides[p] = static_cast<gint>(stride);
            memory.emplace_back(2 * kLine + stride * height, kUntouched);
            const auto address = reinterpret_cast<std::uintptr_t>(memory.back().data());
            lead.push_back(rows == Rows::Odd ? 1 : kLine - address % kLine);
            rows_bytes.push_back(stride * height);
            planes[p] = memory.back().data() + lead.back();
        }
    }

    // Every byte back to 0xA5, for the next run.
    void reset()
    {
        for (std::vector<guint8> &plane : memory)
            std::fill(plane.begin(), plane.end(), kUntouched);
    }
    // Whether plane p's rows, padding included, are `other`'s.
    bool same_rows(const CallerFrame &other, std::size_t p) const
    {
        return std::equal(planes[p], planes[p] + rows_bytes[p], other.planes[p]);
    }
    // Whether the bytes before and after plane p's rows are as they were.
    bool around_untouched(std::size_t p) const
    {
        auto untouched = [](auto begin, auto end) {
            return std::all_of(begin, end, [](guint8 b) { return b == kUntouched; });
        };
        const auto rows = memory[p].begin() + static_cast<std::ptrdiff_t>(lead[p]);
        return untouched(memory[p].begin(), rows) &&
               untouched(rows + static_cast<std::ptrdiff_t>(rows_bytes[p]), memory[p].end());
    }
};

// A pool of `n_threads` that splits every frame into one band per thread.
const WorkerPool &splitting_pool(unsigned n_threads)
{
    static std::map<unsigned, std::unique_ptr<WorkerPool>> pools;
    std::unique_ptr<WorkerPool> &pool = pools[n_threads];
    if (!pool) {
        pool = std::make_unique<WorkerPool>(n_threads);
        pool->state().min_band_bytes = 0;
    }
    return *pool;
}

// What a size is checked with: pools that split every frame (their n_threads), caller row layouts,
// and whether the library's own split runs too (materialize_into(n_threads 0) and a pool of 4).
struct Coverage {
    std::vector<unsigned> splitting;
    std::vector<Rows> layouts;
    bool library_split;
};
// Tiny frames: band edges everywhere, every thread count.
const Coverage kEveryCount{{2, 3, 4, 0}, {Rows::Odd, Rows::Lines}, false};
// Larger ones, which the library splits itself: fewer runs, the time going to the frames.
const Coverage kLibrarySplit{{3}, {Rows::Odd}, true};
const Coverage kStreamed{{3}, {Rows::Odd, Rows::Lines}, true};

// Materializes `view` of `frame` with one thread, then as `coverage` says, into caller rows laid
// out as `rows`: every byte of every run's rows must be the one-thread run's, none around them
// written.
void expect_threads_match_one(const FrameView &view, GstBuffer *frame, Rows rows, const Coverage &coverage,
                              const std::string &what)
{
    CallerFrame one(view.info(), rows), many(view.info(), rows);
    ASSERT_TRUE(view.materialize_into(frame, one.planes, one.strides).ok()) << what;
    for (std::size_t p = 0; p < one.memory.size(); ++p)
        ASSERT_TRUE(one.around_untouched(p)) << what << ", one thread: plane " << p << " wrote outside";
    auto check = [&](const g2g::Result<void> &written, const std::string &how) {
        ASSERT_TRUE(written.ok()) << what << ", " << how;
        for (std::size_t p = 0; p < one.memory.size(); ++p) {
            ASSERT_TRUE(many.same_rows(one, p)) << what << ", " << how << ": plane " << p << " differs";
            ASSERT_TRUE(many.around_untouched(p))
                << what << ", " << how << ": plane " << p << " wrote outside";
        }
        many.reset();
    };
    for (unsigned n : coverage.splitting) {
        const WorkerPool &pool = splitting_pool(n);
        check(view.materialize_into(frame, many.planes, many.strides, pool),
              std::to_string(pool.n_threads()) + " bands");
        if (testing::Test::HasFatalFailure())
            return;
    }
    if (!coverage.library_split)
        return;
    check(view.materialize_into(frame, many.planes, many.strides, 0u), "n_threads 0");
    static const WorkerPool library_pool(4);
    check(view.materialize_into(frame, many.planes, many.strides, library_pool),
          "a pool of 4, split as the library splits");
}

// Every method, without and with a crop that fits, of a `format` frame of width x height.
void expect_every_method_matches(GstVideoFormat format, int width, int height, const Coverage &coverage)
{
    const GstVideoInfo info = video_info(format, width, height);
    BufferRef frame = g2g::test::random_frame(info, static_cast<guint32>(width * 31 + height));
    for (GstVideoOrientationMethod method : kMethods) {
        for (bool crop : {false, true}) {
            if (crop && (width < 6 || height < 6))
                continue;
            auto view = FrameView::of_frame(frame.get(), info);
            ASSERT_TRUE(view.ok()) << view.error().message();
            // Odd offsets and an odd size: subsampled planes start mid-sample, packed 4:2:2 mid-macropixel.
            if (crop) {
                ASSERT_TRUE(view->crop(3, 1, static_cast<std::uint32_t>(width - 5),
                                       static_cast<std::uint32_t>(height - 4))
                                .ok());
            }
            view->orient(method);
            const std::string what = std::string(gst_video_format_to_string(format)) + " " +
                                     std::to_string(width) + "x" + std::to_string(height) + " method " +
                                     std::to_string(method) + (crop ? " cropped" : "");
            for (Rows rows : coverage.layouts) {
                expect_threads_match_one(*view, frame.get(), rows, coverage,
                                         what + (rows == Rows::Odd ? ", odd rows" : ", line rows"));
                if (testing::Test::HasFatalFailure())
                    return;
            }
        }
    }
}

std::string test_name(GstVideoFormat format)
{
    std::string name = gst_video_format_to_string(format);
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

class MaterializeThreads : public testing::TestWithParam<GstVideoFormat> {};

} // namespace

TEST_P(MaterializeThreads, EveryMethodAndCropMatchesOneThread)
{
    // 300x200 and 203x301: wide enough for transposing planes to be cut between columns too (whole
    // tiles of 64 bytes: row-bands-private.h), into blocks (4 threads) or columns alone (a portrait
    // frame rotated, 2 and 3 threads), at odd sizes as well.
    const std::pair<int, int> sizes[] = {{1, 1}, {33, 17}, {37, 23}, {300, 200}, {203, 301}, {1920, 1080}};
    for (auto [w, h] : sizes) {
        expect_every_method_matches(GetParam(), w, h, w >= 1920 ? kLibrarySplit : kEveryCount);
        if (HasFatalFailure())
            return;
    }
}

INSTANTIATE_TEST_SUITE_P(EveryCpuFormat, MaterializeThreads, testing::ValuesIn(g2g::detail::kViewFormats),
                         [](const testing::TestParamInfo<GstVideoFormat> &info) {
                             return test_name(info.param);
                         });

// Frames of 9 MiB and more leave through non-temporal stores (streams_output): the bands' edges in
// the middle of streamed lines and carried rows.
TEST(MaterializeThreadsStreamed, FourKFramesMatchOneThread)
{
    // 1-, 2- and 4-byte elements: NV12's luma and chroma pairs, RGBA, P010's 16-bit samples and pairs.
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_P010_10LE}) {
        expect_every_method_matches(format, 3840, 2160, kStreamed);
        if (HasFatalFailure())
            return;
    }
}

TEST(WorkerPool, RunsEveryTaskOnceOnAtMostItsThreads)
{
    const WorkerPool pool(4);
    ASSERT_EQ(pool.n_threads(), 4u);
    for (unsigned n_tasks : {0u, 1u, 2u, 4u, 7u, 100u}) {
        std::vector<std::atomic<unsigned>> runs(n_tasks);
        std::mutex lock;
        std::set<std::thread::id> threads;
        pool.run(n_tasks, [&](unsigned i) {
            ++runs[i];
            const std::lock_guard held(lock);
            threads.insert(std::this_thread::get_id());
        });
        for (unsigned i = 0; i < n_tasks; ++i)
            EXPECT_EQ(runs[i], 1u) << "task " << i << " of " << n_tasks;
        EXPECT_LE(threads.size(), std::min(n_tasks, 4u));
    }
}

TEST(WorkerPool, SeveralCallersAtOnceEachGetTheirTasksDone)
{
    const WorkerPool pool(3);
    std::atomic<unsigned> done{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c) {
        callers.emplace_back([&] {
            for (int round = 0; round < 200; ++round) {
                std::atomic<unsigned> mine{0};
                pool.run(5, [&](unsigned) { ++mine; });
                EXPECT_EQ(mine, 5u);
                done += mine;
            }
        });
    }
    for (std::thread &caller : callers)
        caller.join();
    EXPECT_EQ(done, 4u * 200u * 5u);
}

TEST(WorkerPool, ZeroIsOnePerProcessorAndCountsAreCappedAtTheMaximum)
{
    EXPECT_EQ(WorkerPool::threads_for(0), std::min(g_get_num_processors(), WorkerPool::kMaxThreads));
    EXPECT_EQ(WorkerPool::threads_for(1), 1u);
    EXPECT_EQ(WorkerPool::threads_for(3), 3u);
    EXPECT_EQ(WorkerPool::threads_for(1000), WorkerPool::kMaxThreads);
    EXPECT_EQ(WorkerPool(0).n_threads(), WorkerPool::threads_for(0));
}

TEST(WorkerPool, StartsItsWorkersOnceAndJoinsThemWhenItGoes)
{
    const unsigned before = g2g::test::worker_threads();
    {
        const WorkerPool one(1);
        EXPECT_EQ(g2g::test::worker_threads(), before) << "one thread is the caller's alone";
        const WorkerPool pool(4);
        EXPECT_EQ(g2g::test::worker_threads(), before + 3);
        for (int frame = 0; frame < 50; ++frame)
            pool.run(4, [](unsigned) {});
        EXPECT_EQ(g2g::test::worker_threads(), before + 3) << "no thread per frame";
    }
    EXPECT_EQ(g2g::test::worker_threads_settled(before), before);
}
