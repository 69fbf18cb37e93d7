// SPDX-License-Identifier: LGPL-2.1-or-later
// bench-view's sections 5 (libyuv) and 6 (threads); see bench-view-scaling.h. Every figure is the
// best of alternating rounds of ours and the peer's (bench-util.h), printed as markdown tables with
// the ratios, since the machines this runs on are shared and noisy.
#include "bench-view-scaling.h"

#include <g2g/frame-view.h>
#include <g2g/worker-pool.h>

#include <glib.h>
#include <gst/video/video.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench-frames.h"
#include "bench-util.h"
#include "libyuv-peer.h"
#include "view/cpu/row-bands-private.h"
#include "view/cpu/worker-pool-private.h"

namespace g2g::bench {
using g2g::bench::split;

namespace {

struct Method {
    const char *name;
    GstVideoOrientationMethod method;
};
constexpr Method kMethods[] = {{"90r", GST_VIDEO_ORIENTATION_90R},    {"90l", GST_VIDEO_ORIENTATION_90L},
                               {"180", GST_VIDEO_ORIENTATION_180},    {"horiz", GST_VIDEO_ORIENTATION_HORIZ},
                               {"vert", GST_VIDEO_ORIENTATION_VERT},  {"ul-lr", GST_VIDEO_ORIENTATION_UL_LR},
                               {"ur-ll", GST_VIDEO_ORIENTATION_UR_LL}};

const FrameSize kNamedSizes[] = {
    {"720p", 1280, 720}, {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320}};

// Whether the visible bytes of two frames laid out as `info` are equal.
bool same_frames(const GstVideoInfo &info, const Destination &a, const Destination &b)
{
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        guint c = 0;
        while (GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, c) != p)
            ++c;
        const std::size_t row = static_cast<std::size_t>(GST_VIDEO_INFO_COMP_WIDTH(&info, c)) *
                                GST_VIDEO_INFO_COMP_PSTRIDE(&info, c);
        for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, c); ++y) {
            const std::size_t at = static_cast<std::size_t>(y) * GST_VIDEO_INFO_PLANE_STRIDE(&info, p);
            if (std::memcmp(a.planes[p] + at, b.planes[p] + at, row) != 0)
                return false;
        }
    }
    return true;
}

// The parts materialize splits `view` into on `threads` threads, as the library decides them
// (lib/src/view/cpu/row-bands-private.h): "8", or for a transposing view "8 (4 x 2)", bands of rows
// times blocks of columns.
std::string parts_for(const g2g::FrameView &view, unsigned threads)
{
    const unsigned parts =
        g2g::detail::band_count(GST_VIDEO_INFO_SIZE(&view.info()), threads, g2g::detail::kMinBandBytes);
    const g2g::PlaneView &plane = view.plane(0);
    if (!g2g::detail::plane_transposes(plane))
        return std::to_string(parts);
    const unsigned bands = g2g::detail::transposed_bands(plane, parts);
    return std::to_string(parts) + " (" + std::to_string(bands) + " x " + std::to_string(parts / bands) + ")";
}

} // namespace

bool parse_scaling_options(int argc, char **argv, ScalingOptions &options)
{
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string option = argv[i], value = argv[i + 1];
        if (option == "--sizes") {
            options.sizes.clear();
            for (const std::string &name : split(value)) {
                FrameSize size{name};
                for (const FrameSize &named : kNamedSizes)
                    if (named.name == name)
                        size = named;
                if (!size.width && std::sscanf(name.c_str(), "%dx%d", &size.width, &size.height) != 2) {
                    std::fprintf(stderr, "--sizes: %s is not 720p, 1080p, 4K, 8K or WxH\n", name.c_str());
                    return false;
                }
                if (size.width < 2 || size.height < 2) {
                    std::fprintf(stderr, "--sizes: %s is too small\n", name.c_str());
                    return false;
                }
                options.sizes.push_back(size);
            }
        } else if (option == "--threads") {
            options.threads.clear();
            options.threads_given = true;
            for (const std::string &count : split(value)) {
                const unsigned n = static_cast<unsigned>(std::strtoul(count.c_str(), nullptr, 10));
                if (n < 1 || n > g2g::WorkerPool::kMaxThreads) {
                    std::fprintf(stderr, "--threads: %s is not 1 to %u\n", count.c_str(),
                                 g2g::WorkerPool::kMaxThreads);
                    return false;
                }
                options.threads.push_back(n);
            }
        } else if (option == "--cycle-mib") {
            char *end = nullptr;
            options.cycle_mib = std::strtol(value.c_str(), &end, 10);
            if (end == value.c_str() || *end || options.cycle_mib < 0) {
                std::fprintf(stderr, "--cycle-mib: %s is not a size in MiB\n", value.c_str());
                return false;
            }
        } else if (option == "--rounds") {
            options.rounds = std::atoi(value.c_str());
            if (options.rounds < 1) {
                std::fprintf(stderr, "--rounds: %s is not a count\n", value.c_str());
                return false;
            }
        }
    }
    if (options.sizes.empty())
        options.sizes = {kNamedSizes[1], kNamedSizes[2], kNamedSizes[3]};
    if (options.threads.empty()) {
        for (unsigned n : {1u, 2u, 4u, 8u, 16u})
            if (n <= g_get_num_processors())
                options.threads.push_back(n);
    }
    return true;
}

void libyuv_against_ours(const ScalingOptions &options)
{
    std::printf("\n5. g2g (FrameView::materialize_into, one thread) against libyuv, same frames, alternating "
                "rounds\n");
    if (const char *why = libyuv_peer::missing()) {
        std::printf("(skipped: %s)\n", why);
        return;
    }
    std::printf(
        "libyuv %d; frames and destinations start on 64-byte lines; dense default strides. memcpy: one "
        "call copying as many bytes from the same frame, in the same rounds: the bar for the views that "
        "keep rows whole (180, horiz, vert), which no copy beats while the frame is in the cache.\n\n",
        libyuv_peer::version());
    FILE *csv = open_csv("libyuv.csv");
    std::printf("| format | size | view | libyuv call | g2g ms | libyuv ms | g2g/libyuv (frame rate) | "
                "memcpy ms |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    const int rounds = options.rounds ? options.rounds : 9;
    int ahead = 0, cases = 0;
    std::string behind;
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12}) {
        const char *format_name = gst_video_format_to_string(format);
        for (const FrameSize &size : options.sizes) {
            GstVideoInfo in;
            const g2g::BufferRef frame = frame_of(format, size, in);
            GstMapInfo map;
            gst_buffer_map(frame.get(), &map, GST_MAP_READ);
            for (const Method &m : kMethods) {
                const char *call = libyuv_peer::equivalent(format, m.method);
                if (!call)
                    continue;
                auto view = g2g::FrameView::of_frame(frame.get(), in);
                view->orient(m.method);
                const GstVideoInfo &out = view->info();
                Destination ours(out), peer(out), copied(out);
                libyuv_peer::Planes planes{};
                planes.width = size.width;
                planes.height = size.height;
                for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&in); ++p) {
                    planes.src[p] = map.data + GST_VIDEO_INFO_PLANE_OFFSET(&in, p);
                    planes.src_stride[p] = GST_VIDEO_INFO_PLANE_STRIDE(&in, p);
                    planes.dst[p] = peer.planes[p];
                    planes.dst_stride[p] = GST_VIDEO_INFO_PLANE_STRIDE(&out, p);
                }
                auto run_ours = [&] { (void)view->materialize_into(frame.get(), ours.planes, out.stride); };
                auto run_peer = [&] { libyuv_peer::run(format, m.method, planes); };
                const std::size_t bytes = std::min(GST_VIDEO_INFO_SIZE(&in), GST_VIDEO_INFO_SIZE(&out));
                auto run_copy = [&] { std::memcpy(copied.memory.get(), map.data, bytes); };
                run_ours();
                run_peer();
                const bool same = same_frames(out, ours, peer);
                const std::vector<double> best = alternating_seconds_per_call(
                    {run_ours, run_peer, run_copy}, calls_for(GST_VIDEO_INFO_SIZE(&out)), rounds);
                const double ours_s = best[0], peer_s = best[1];
                std::printf("| %s | %s | %s | %s | %.3f | %.3f | %.2fx%s | %.3f |\n", format_name,
                            size.name.c_str(), m.name, call, ours_s * 1e3, peer_s * 1e3, peer_s / ours_s,
                            same ? "" : " (outputs differ!)", best[2] * 1e3);
                std::fflush(stdout);
                if (csv)
                    std::fprintf(csv, "%s-%s-%s %g %g\n", format_name, size.name.c_str(), m.name, ours_s,
                                 peer_s);
                ++cases;
                if (ours_s < peer_s)
                    ++ahead;
                else
                    behind += std::string(behind.empty() ? "" : ", ") + format_name + " " + size.name + " " +
                              m.name + " (g2g at " +
                              std::to_string(static_cast<int>(100 * best[2] / ours_s + 0.5)) +
                              "% of memcpy's frame rate)";
            }
            gst_buffer_unmap(frame.get(), &map);
        }
    }
    std::printf("\ng2g ahead of libyuv (one thread each) in %d of %d cases%s%s\n", ahead, cases,
                behind.empty() ? "" : "; behind in: ", behind.c_str());
    std::printf("(no libyuv equivalent: RGBA ul-lr and ur-ll, NV12 ul-lr, I420 and NV12 ur-ll)\n");
    if (csv)
        std::fclose(csv);
}

void thread_scaling(const ScalingOptions &options)
{
    const unsigned processors = g_get_num_processors();
    std::printf(
        "\n6. Materialize on 1 to 16 threads (FrameView::materialize_into on a WorkerPool) against memcpy "
        "on as many threads\n");
    const CopyBandwidth copy;
    const std::size_t cycled_bytes =
        options.cycle_mib < 0 ? copy.bytes() : static_cast<std::size_t>(options.cycle_mib) << 20;
    std::printf(
        "This machine: %u processors, %zu MiB of memory; last-level cache %zu MiB (sysconf); memcpy over "
        "%zu MiB buffers, split in page bands on the same pool; materialize cycles through copies of the "
        "frame and as many destinations, %zu MiB or more in all (the `cycled` column; at most a quarter "
        "of the memory); bandwidths are output bytes per second.\n\n",
        processors, physical_memory() >> 20, llc_bytes() >> 20, copy.bytes() >> 20, cycled_bytes >> 20);
    const int rounds = options.rounds ? options.rounds : 5;
    std::map<unsigned, std::unique_ptr<g2g::WorkerPool>> pools;
    for (unsigned n : options.threads)
        pools[n] = std::make_unique<g2g::WorkerPool>(n);
    // The bar itself first: how memcpy scales on this machine (what any copy on n threads can reach).
    std::printf("| threads | memcpy GB/s | vs 1 thread |\n|---|---|---|\n");
    double copy_one = 0;
    for (unsigned n : options.threads) {
        const g2g::WorkerPool &pool = *pools[n];
        const double rate =
            copy.bytes() / seconds_per_call([&] { copy.copy(pool, pool.n_threads()); }, 1, rounds);
        if (n == 1)
            copy_one = rate;
        char against_one[16] = "-";
        if (copy_one > 0)
            std::snprintf(against_one, sizeof against_one, "%.2fx", rate / copy_one);
        std::printf("| %u | %.1f | %s |\n", n, rate / 1e9, against_one);
    }
    std::printf("\n");
    std::printf(
        "| format | size | view | cycled | threads | parts | ms | fr/s | vs 1 thread | GB/s | memcpy GB/s, "
        "as many threads | of memcpy |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    struct Goal {
        std::string what;
        double speedup, of_copy;
    };
    std::vector<Goal> goals;
    for (const FrameSize &size : options.sizes) {
        // One file per size, one block per format and view (tests/bench/plot-threads.gp).
        FILE *csv = open_csv(("threads-" + size.name + ".csv").c_str());
        bool first_block = true; // blocks are separated by two blank lines (none after the last)
        for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
            const char *format_name = gst_video_format_to_string(format);
            GstVideoInfo in;
            const std::vector<g2g::BufferRef> frames = cycled_frames(format, size, cycled_bytes, in);
            for (const Method &m : {kMethods[0], kMethods[1], kMethods[2], kMethods[3]}) {
                CycledView cycled_view(frames, in, m.method);
                const std::size_t bytes = GST_VIDEO_INFO_SIZE(&cycled_view.out());
                char cycled[48];
                std::snprintf(cycled, sizeof cycled, "%zu (%zu MiB)", cycled_view.count(),
                              cycled_view.count() * (GST_VIDEO_INFO_SIZE(&in) + bytes) >> 20);
                if (csv)
                    std::fprintf(csv, "%s\"%s %s\" speedup of-memcpy\n", first_block ? "" : "\n\n",
                                 format_name, m.name);
                first_block = false;
                double one_thread = 0;
                for (unsigned n : options.threads) {
                    const g2g::WorkerPool &pool = *pools[n];
                    const std::vector<double> best = alternating_seconds_per_call(
                        {[&] { cycled_view.materialize(pool); }, [&] { copy.copy(pool, pool.n_threads()); }},
                        {calls_for(bytes), 1}, rounds); // memcpy's buffers are large enough for one call
                    const double seconds = best[0], copy_rate = copy.bytes() / best[1];
                    if (n == 1)
                        one_thread = seconds;
                    // Against one thread's frame rate: only where --threads measured 1 first.
                    const double speedup = one_thread > 0 ? one_thread / seconds : 0;
                    const double rate = bytes / seconds;
                    char against_one[16] = "-";
                    if (speedup > 0)
                        std::snprintf(against_one, sizeof against_one, "%.2fx", speedup);
                    std::printf(
                        "| %s | %s | %s | %s | %u%s | %s | %.3f | %.0f | %s | %.1f | %.1f | %.0f%% |\n",
                        format_name, size.name.c_str(), m.name, cycled, n,
                        n > processors ? " (> processors)" : "", parts_for(cycled_view.view(), n).c_str(),
                        seconds * 1e3, 1 / seconds, against_one, rate / 1e9, copy_rate / 1e9,
                        100 * rate / copy_rate);
                    std::fflush(stdout);
                    if (csv)
                        std::fprintf(csv, "%u %g %g\n", n, speedup, 100 * rate / copy_rate);
                    const bool rotation =
                        m.method == GST_VIDEO_ORIENTATION_90R || m.method == GST_VIDEO_ORIENTATION_90L;
                    if (n == 8 && n <= processors && rotation && size.width == 7680 && size.height == 4320)
                        goals.push_back(
                            {std::string(format_name) + " 8K " + m.name, speedup, 100 * rate / copy_rate});
                }
            }
        }
        if (csv)
            std::fclose(csv);
    }
    std::printf(
        "\nGoal: with 8 threads, 8K NV12 and RGBA rotations at 6x or more of one thread's frame rate, or at "
        "70%% or more of memcpy's bandwidth on 8 threads:\n");
    if (goals.empty())
        std::printf("- not measured here (needs --threads with 1 and 8, --sizes with 8K, and 8 processors; "
                    "this machine has %u)\n",
                    processors);
    for (const Goal &goal : goals)
        std::printf("- %s: %.2fx one thread, %.0f%% of 8-thread memcpy: %s\n", goal.what.c_str(),
                    goal.speedup, goal.of_copy, goal.speedup >= 6 || goal.of_copy >= 70 ? "met" : "not met");
}

} // namespace g2g::bench
