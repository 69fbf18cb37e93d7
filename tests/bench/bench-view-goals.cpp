// SPDX-License-Identifier: LGPL-2.1-or-later
// bench-view's section 9 (see bench-view-scaling.h): issue 19's goal lines, measured so that a
// shared host's minute-to-minute bandwidth cannot decide them. Section 6 times one thread, then 8
// threads, and takes the best of each: on the H200 host the two can be minutes apart, and its
// bandwidth moved by half in that time (docs/performance.md). Here every round runs the three
// figures a goal compares back to back, within a few tens of milliseconds: the one-thread
// materialize, the 8-thread materialize and memcpy on the same 8 threads, each from memory (frames
// cycled as in section 6). A round's ratios are then of one spell of load, and the section prints
// their median and spread over the rounds, and in how many rounds either goal was met.
#include <g2g/frame-view.h>
#include <g2g/worker-pool.h>

#include <glib.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench-frames.h"
#include "bench-util.h"
#include "bench-view-scaling.h"

namespace g2g::bench {
namespace {

constexpr unsigned kGoalThreads = 8;
constexpr double kGoalSpeedup = 6, kGoalOfCopy = 0.70;

// Seconds per call of `calls` calls of `body`, after one untimed call, as in
// alternating_seconds_per_call: what the body before it left dirty in the cache is written back there.
double seconds_after_one_untimed(const std::function<void()> &body, int calls)
{
    body();
    return seconds_per_call(body, calls, 1);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace

void goal_lines(const ScalingOptions &options)
{
    const unsigned processors = g_get_num_processors();
    std::printf(
        "\n9. The goal lines, all three figures in every round: 8K rotations on one thread and on %u, "
        "and memcpy on the same %u threads (goal: %.0fx one thread's frame rate, or %.0f%% of "
        "memcpy's bandwidth)\n",
        kGoalThreads, kGoalThreads, kGoalSpeedup, 100 * kGoalOfCopy);
    if (processors < kGoalThreads) {
        std::printf("(skipped: this machine has %u processors)\n", processors);
        return;
    }
    const CopyBandwidth copy;
    const std::size_t cycled_bytes =
        options.cycle_mib < 0 ? copy.bytes() : static_cast<std::size_t>(options.cycle_mib) << 20;
    const int rounds = options.rounds ? options.rounds : 15;
    const g2g::WorkerPool one(1), eight(kGoalThreads);
    std::printf("%d rounds; memcpy over %zu MiB; frames cycled through %zu MiB or more. Per round: x one "
                "thread = the one-thread time over the %u-thread time; of memcpy = the %u-thread output "
                "bandwidth over memcpy's.\n\n",
                rounds, copy.bytes() >> 20, cycled_bytes >> 20, kGoalThreads, kGoalThreads);
    std::printf(
        "| 8K | x one thread: median (min-max) | of memcpy: median (min-max) | rounds meeting a goal | "
        "by the medians | 1 thread ms | %u threads ms | memcpy GB/s |\n|---|---|---|---|---|---|---|---|\n",
        kGoalThreads);
    const FrameSize size{"8K", 7680, 4320};
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
        GstVideoInfo in;
        const std::vector<g2g::BufferRef> frames = cycled_frames(format, size, cycled_bytes, in);
        for (const auto &[name, method] :
             {std::pair{"90r", GST_VIDEO_ORIENTATION_90R}, std::pair{"90l", GST_VIDEO_ORIENTATION_90L}}) {
            CycledView cycled(frames, in, method);
            const std::size_t bytes = GST_VIDEO_INFO_SIZE(&cycled.out());
            const int calls = calls_for(bytes);
            std::vector<double> speedups, of_copy, one_ms, eight_ms, copy_rates;
            int met = 0;
            for (int r = 0; r < rounds; ++r) {
                const double t1 = seconds_after_one_untimed([&] { cycled.materialize(one); }, calls);
                const double t8 = seconds_after_one_untimed([&] { cycled.materialize(eight); }, calls);
                const double tc = seconds_after_one_untimed([&] { copy.copy(eight, kGoalThreads); }, 1);
                const double copy_rate = copy.bytes() / tc;
                speedups.push_back(t1 / t8);
                of_copy.push_back(bytes / t8 / copy_rate);
                one_ms.push_back(t1 * 1e3);
                eight_ms.push_back(t8 * 1e3);
                copy_rates.push_back(copy_rate / 1e9);
                met += speedups.back() >= kGoalSpeedup || of_copy.back() >= kGoalOfCopy;
            }
            const auto [s_min, s_max] = std::minmax_element(speedups.begin(), speedups.end());
            const auto [c_min, c_max] = std::minmax_element(of_copy.begin(), of_copy.end());
            std::printf(
                "| %s %s | %.2fx (%.2f-%.2f) | %.0f%% (%.0f-%.0f) | %d of %d | %s | %.2f | %.2f | %.1f |\n",
                gst_video_format_to_string(format), name, median(speedups), *s_min, *s_max,
                100 * median(of_copy), 100 * *c_min, 100 * *c_max, met, rounds,
                median(speedups) >= kGoalSpeedup || median(of_copy) >= kGoalOfCopy ? "met" : "not met",
                median(one_ms), median(eight_ms), median(copy_rates));
            std::fflush(stdout);
        }
    }
}

} // namespace g2g::bench
