// SPDX-License-Identifier: LGPL-2.1-or-later
// bench-view's section 7 (see bench-view-scaling.h): what cutting a rotation into parts costs, each
// part timed alone on one thread, so that neither the other threads nor the machine's cores are in
// the figure: the parts' total time against the one-thread walk's is the work a split adds.
#include <g2g/frame-view.h>

#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench-frames.h"
#include "bench-view-scaling.h"
#include "view/cpu/plane-copy-private.h"
#include "view/cpu/row-bands-private.h"

namespace g2g::bench {
namespace {

// The frames a case cycles through, each part reading and writing a frame the parts before it have
// pushed out of the cache, as a part of a frame on another thread would find it.
struct Cycled {
    GstVideoInfo in;
    std::vector<g2g::BufferRef> frames;
    std::vector<GstMapInfo> maps;
    std::vector<Destination> destinations; // see prepare()
    std::size_t next = 0;

    Cycled(GstVideoFormat format, const FrameSize &size, std::size_t bytes)
    {
        frames.push_back(frame_of(format, size, in));
        const std::size_t count = cycle_count(2 * GST_VIDEO_INFO_SIZE(&in), bytes);
        while (frames.size() < count)
            frames.push_back(copy_of(frames[0]));
        for (const g2g::BufferRef &frame : frames) {
            GstMapInfo map;
            gst_buffer_map(frame.get(), &map, GST_MAP_READ); // one memory: every plane's
            maps.push_back(map);
        }
    }
    ~Cycled()
    {
        for (std::size_t i = 0; i < frames.size(); ++i)
            gst_buffer_unmap(frames[i].get(), &maps[i]);
    }
    Cycled(const Cycled &) = delete;
    Cycled &operator=(const Cycled &) = delete;

    // Destinations laid out as `out`, one per frame.
    void prepare(const GstVideoInfo &out)
    {
        destinations.clear();
        destinations.reserve(frames.size());
        for (std::size_t i = 0; i < frames.size(); ++i)
            destinations.emplace_back(out);
    }
};

// Seconds part k of n (cut into `bands` bands of rows) of `view` takes alone, on the next frames of
// `cycled`. n = 1: the one-thread walk.
double part_seconds(const g2g::FrameView &view, Cycled &cycled, unsigned k, unsigned n, unsigned bands)
{
    const GstVideoInfo &out = view.info();
    const std::size_t i = cycled.next++ % cycled.frames.size();
    const auto start = std::chrono::steady_clock::now();
    for (unsigned p = 0; p < view.n_planes(); ++p) {
        const g2g::PlaneView &plane = view.plane(p);
        const g2g::detail::PlanePart part = g2g::detail::plane_part(plane, k, n, bands);
        if (part.empty())
            continue;
        g2g::Grid<std::int64_t> grid = plane.grid;
        grid.crop(part.cols.begin, part.rows.begin, part.cols.rows(), part.rows.rows());
        const std::int64_t stride = GST_VIDEO_INFO_PLANE_STRIDE(&out, p);
        g2g::detail::copy_plane(cycled.maps[i].data, grid, plane.element_size,
                                cycled.destinations[i].planes[p] + part.rows.begin * stride +
                                    std::int64_t{part.cols.begin} * plane.element_size,
                                stride, GST_VIDEO_INFO_SIZE(&out));
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    return took.count();
}

// One way of cutting a view: n parts in `bands` bands of rows, the best time of each part.
struct Split {
    unsigned n, bands;
    std::string cut;
    std::vector<double> best;
};

} // namespace

void part_costs(const ScalingOptions &options)
{
    const int rounds = options.rounds ? options.rounds : 5;
    const std::size_t cycled_bytes =
        options.cycle_mib < 0 ? past_cache_bytes() : static_cast<std::size_t>(options.cycle_mib) << 20;
    std::printf(
        "\n7. What cutting a rotation into n parts costs: each part timed alone on one thread (best of "
        "alternating rounds, frames cycled as in section 6: %zu MiB or more, --cycle-mib), against the "
        "one-thread walk\n",
        cycled_bytes >> 20);
    std::printf(
        "bands: n bands of rows (each a strip of every source row); blocks: the parts materialize "
        "cuts (lib/src/view/cpu/row-bands-private.h), bands x blocks of columns. work: the parts' "
        "total time over the walk's (1.00: the split adds nothing); slowest: the slowest part "
        "times n over the walk's (what n threads would take, at best, over the walk's time / n).\n\n");
    std::printf("| format | size | view | parts | cut | work | slowest |\n|---|---|---|---|---|---|---|\n");

    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
        const char *format_name = gst_video_format_to_string(format);
        for (const FrameSize &size : options.sizes) {
            Cycled cycled(format, size, cycled_bytes);
            for (GstVideoOrientationMethod method : {GST_VIDEO_ORIENTATION_90R, GST_VIDEO_ORIENTATION_90L}) {
                auto view = g2g::FrameView::of_frame(cycled.frames[0].get(), cycled.in);
                view->orient(method);
                cycled.prepare(view->info());
                // The walk, and for each count of parts (whatever the processors: each part runs
                // alone) its bands and, where they differ, materialize's blocks.
                std::vector<Split> splits{{1, 1, "walk", {}}};
                for (unsigned n :
                     options.threads_given ? options.threads : std::vector<unsigned>{2, 4, 8, 16}) {
                    if (n < 2)
                        continue;
                    const unsigned blocks = g2g::detail::transposed_bands(view->plane(0), n);
                    splits.push_back({n, n, blocks == n ? "bands (as materialize cuts)" : "bands", {}});
                    if (blocks != n)
                        splits.push_back(
                            {n,
                             blocks,
                             "blocks " + std::to_string(blocks) + " x " + std::to_string(n / blocks),
                             {}});
                }
                // Rounds alternate between the splits, so that all see the same spells of load.
                for (Split &split : splits)
                    split.best.assign(split.n, 1e30);
                for (int r = 0; r < rounds; ++r)
                    for (Split &split : splits)
                        for (unsigned k = 0; k < split.n; ++k)
                            split.best[k] =
                                std::min(split.best[k], part_seconds(*view, cycled, k, split.n, split.bands));
                const double walk = splits[0].best[0];
                for (std::size_t i = 1; i < splits.size(); ++i) {
                    const Split &split = splits[i];
                    double total = 0, slowest = 0;
                    for (double part : split.best) {
                        total += part;
                        slowest = std::max(slowest, part);
                    }
                    std::printf("| %s | %s | %s | %u | %s | %.2f | %.2f |\n", format_name, size.name.c_str(),
                                method == GST_VIDEO_ORIENTATION_90R ? "90r" : "90l", split.n,
                                split.cut.c_str(), total / walk, slowest * split.n / walk);
                }
                std::fflush(stdout);
            }
        }
    }
}

} // namespace g2g::bench
