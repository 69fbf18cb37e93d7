// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview against videoflip and videocrop, in one run, as ratios (the machine is shared):
//  1. view out: per-frame cost of a view against the peers' copy, 720p / 1080p / 4K, RGBA / NV12;
//  2. g2gview ! g2gmaterialize against videoflip for every method and against videocrop, 4K;
//  3. FrameView::materialize bandwidth against memcpy of the same bytes, for composed views;
//  4. transposes: materialize against the replay of its walk's loads and stores alone, and memcpy;
//  5. materialize against libyuv (one thread each), 1080p / 4K / 8K, RGBA / I420 / NV12;
//  6. materialize on 1 to 16 threads against memcpy on as many (bench-view-scaling.h);
//  7. what cutting a rotation into parts for threads costs, each part alone on one thread;
//  8. stores by frame size: through the cache and streamed, alone and with the next element's read;
//  9. issue 19's goal lines, the three figures each compares measured back to back in every round.
// Prints tables; with --csv DIR also writes viewout.csv, dense.csv, bandwidth.csv, libyuv.csv and
// threads-SIZE.csv (one per size) there, which tests/bench/plot-view.gp and plot-threads.gp turn
// into docs/performance-view.png and docs/performance-threads.png.
//
//   bench-view [view|dense|bandwidth|traffic|libyuv|threads|parts|stores|goals] [--csv DIR]
//              [--sizes 1080p,4K,8K|WxH,...] [--threads 1,2,4,8,16] [--rounds N] [--cycle-mib N]
// --sizes, --threads and --rounds apply to sections 5 to 8 (a quick run: --sizes 1080p --rounds 3);
// --cycle-mib to sections 6, 7 and 9 (how many MiB of frames and destinations they cycle through; 0:
// one); section 9 takes --rounds (15) and --cycle-mib, and is always 8K on 1 and 8 threads.
#include <g2g/frame-view.h>

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench-util.h"
#include "bench-view-scaling.h"
#include "transposed-traffic.h"

using g2g::bench::open_csv;

namespace {

struct Size {
    const char *name;
    int width, height;
};
constexpr Size kSizes[] = {{"720p", 1280, 720}, {"1080p", 1920, 1080}, {"4K", 3840, 2160}};
// Frames whose 90r has output rows of a power of two (2048 bytes), sections 3 and 4: from a
// 3840-byte source stride, and from a 4096-byte one (360-degree video's 4096x2048).
constexpr Size kPowerOfTwoRows[] = {{"90r@3840x2048", 3840, 2048}, {"90r@4096x2048", 4096, 2048}};
constexpr const char *kFormats[] = {"RGBA", "NV12"};
constexpr const char *kMethods[] = {"90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"};

GstBuffer *frame_of(const GstVideoInfo &info)
{
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (gsize i = 0; i < map.size; ++i)
        map.data[i] = static_cast<guint8>(i * 131 + (i >> 12));
    gst_buffer_unmap(buffer, &map);
    return buffer;
}

// `description` in a harness with `info`'s caps on its input; push() sends the frame through it
// and drops what comes out. The first push negotiates and fills the pools.
class FramePusher {
public:
    FramePusher(const std::string &description, const GstVideoInfo &info, GstBuffer *frame,
                const char *sink_caps, bool video_meta_reader = false)
        : harness_(gst_harness_new_parse(description.c_str())), frame_(frame)
    {
        if (video_meta_reader)
            gst_harness_add_propose_allocation_meta(harness_, GST_VIDEO_META_API_TYPE, nullptr);
        GstCaps *caps = gst_video_info_to_caps(&info);
        gst_caps_set_simple(caps, "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
        gst_harness_set_src_caps(harness_, caps);
        if (sink_caps)
            gst_harness_set_sink_caps_str(harness_, sink_caps);
        push();
    }
    ~FramePusher() { gst_harness_teardown(harness_); }
    FramePusher(const FramePusher &) = delete;
    FramePusher &operator=(const FramePusher &) = delete;

    void push() { gst_buffer_unref(gst_harness_push_and_pull(harness_, gst_buffer_ref(frame_))); }

private:
    GstHarness *harness_;
    GstBuffer *frame_;
};

// Seconds per frame through `description`, the input frame pushed again and again.
double per_frame(const std::string &description, const GstVideoInfo &info, GstBuffer *frame,
                 const char *sink_caps, int calls)
{
    FramePusher pusher(description, info, frame, sink_caps);
    return g2g::bench::seconds_per_call([&] { pusher.push(); }, calls);
}

// Seconds per frame through `ours` and through `peer`, measured in alternating rounds; with
// `video_meta_reader`, the harness's sink reads GstVideoMeta.
std::pair<double, double> paired_per_frame(const std::string &ours, const std::string &peer,
                                           const GstVideoInfo &info, GstBuffer *frame, int calls,
                                           bool video_meta_reader = false)
{
    FramePusher our_pusher(ours, info, frame, nullptr, video_meta_reader),
        peer_pusher(peer, info, frame, nullptr, video_meta_reader);
    return g2g::bench::paired_seconds_per_call([&] { our_pusher.push(); }, [&] { peer_pusher.push(); },
                                               calls);
}

GstVideoInfo info_of(const char *format, const Size &size)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, gst_video_format_from_string(format), size.width, size.height);
    return info;
}

constexpr const char *kViewCaps = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)";

void view_out_against_peers()
{
    std::printf("\n1. View out: per-frame cost, g2gview (view) vs videoflip 90r and videocrop (copies)\n");
    FILE *csv = open_csv("viewout.csv");
    std::printf("%-6s %-6s %12s %12s %12s %14s %14s\n", "format", "size", "g2gview us", "videoflip us",
                "videocrop us", "flip/view", "crop/view");
    for (const char *format : kFormats) {
        double view_720 = 0;
        for (const Size &size : kSizes) {
            GstVideoInfo info = info_of(format, size);
            GstBuffer *frame = frame_of(info);
            const int calls = size.width > 2000 ? 10 : 30;
            const double view =
                per_frame("g2gview video-direction=90r left=16 top=16", info, frame, kViewCaps, 2000);
            const double flip = per_frame("videoflip video-direction=90r", info, frame, nullptr, calls);
            const double crop = per_frame("videocrop left=16 top=16", info, frame, nullptr, calls);
            if (size.width == 1280)
                view_720 = view;
            std::printf("%-6s %-6s %12.2f %12.1f %12.1f %13.0fx %13.0fx\n", format, size.name, view * 1e6,
                        flip * 1e6, crop * 1e6, flip / view, crop / view);
            if (csv)
                std::fprintf(csv, "%s-%s %g %g %g\n", format, size.name, view, flip, crop);
            if (size.width == 3840)
                std::printf("%-6s 4K view cost / 720p view cost: %.2f (must stay under 2)\n", format,
                            view / view_720);
            gst_buffer_unref(frame);
        }
    }
    if (csv)
        std::fclose(csv);
}

void materialized_against_peers()
{
    std::printf("\n2. Dense out at 4K: g2gview ! g2gmaterialize vs videoflip / videocrop (same frames)\n");
    FILE *csv = open_csv("dense.csv");
    std::printf("%-6s %-12s %12s %12s %10s\n", "format", "method", "g2g ms", "peer ms", "speedup");
    const Size &size = kSizes[2];
    for (const char *format : kFormats) {
        GstVideoInfo info = info_of(format, size);
        GstBuffer *frame = frame_of(info);
        for (const char *method : kMethods) {
            const auto [ours, peer] =
                paired_per_frame(std::string("g2gview video-direction=") + method + " ! g2gmaterialize",
                                 std::string("videoflip video-direction=") + method, info, frame, 5);
            std::printf("%-6s %-12s %12.2f %12.2f %9.1fx\n", format, method, ours * 1e3, peer * 1e3,
                        peer / ours);
            if (csv)
                std::fprintf(csv, "%s-%s %g %g\n", format, method, ours, peer);
        }
        const auto [ours, peer] =
            paired_per_frame("g2gview left=64 right=64 top=32 bottom=32 ! g2gmaterialize",
                             "videocrop left=64 right=64 top=32 bottom=32", info, frame, 10);
        std::printf("%-6s %-12s %12.2f %12.2f %9.2fx (must be >= 0.9)\n", format, "crop", ours * 1e3,
                    peer * 1e3, peer / ours);
        if (csv)
            std::fprintf(csv, "%s-crop %g %g\n", format, ours, peer);
        // Towards a GstVideoMeta reader, g2gmaterialize's rows start on cache lines.
        const auto [meta_ours, meta_peer] =
            paired_per_frame("g2gview video-direction=90r ! g2gmaterialize", "videoflip video-direction=90r",
                             info, frame, 5, true);
        std::printf("%-6s %-12s %12.2f %12.2f %9.1fx (to a GstVideoMeta reader)\n", format, "90r",
                    meta_ours * 1e3, meta_peer * 1e3, meta_peer / meta_ours);
        if (csv)
            std::fprintf(csv, "%s-90r-meta-reader %g %g\n", format, meta_ours, meta_peer);
        gst_buffer_unref(frame);
    }
    if (csv)
        std::fclose(csv);
}

struct Composition {
    const char *name;
    GstVideoOrientationMethod first, second;
    bool crop;
};

constexpr Composition kCompositions[] = {
    {"identity", GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"90r", GST_VIDEO_ORIENTATION_90R, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"180", GST_VIDEO_ORIENTATION_180, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"90l", GST_VIDEO_ORIENTATION_90L, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"horiz", GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"vert", GST_VIDEO_ORIENTATION_VERT, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"ul-lr", GST_VIDEO_ORIENTATION_UL_LR, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"ur-ll", GST_VIDEO_ORIENTATION_UR_LL, GST_VIDEO_ORIENTATION_IDENTITY, false},
    {"crop+90r+horiz", GST_VIDEO_ORIENTATION_90R, GST_VIDEO_ORIENTATION_HORIZ, true},
    {"crop+90l+vert", GST_VIDEO_ORIENTATION_90L, GST_VIDEO_ORIENTATION_VERT, true},
};

// The view `c` of `frame` (a frame of `size`): sections 3 and 4.
g2g::FrameView composed_view(GstBuffer *frame, const GstVideoInfo &info, const Size &size,
                             const Composition &c)
{
    auto view = g2g::FrameView::of_frame(frame, info);
    if (c.crop)
        (void)view->crop(100, 60, size.width - 300, size.height - 200);
    view->orient(c.first);
    view->orient(c.second);
    return *view;
}

// One row of section 3: `c` of a `format` frame of `size` materialized, against memcpy of the
// output's bytes, in alternating rounds.
void materialize_against_memcpy(const char *format, const Size &size, const Composition &c, const char *name,
                                FILE *csv)
{
    GstVideoInfo info = info_of(format, size);
    GstBuffer *frame = frame_of(info);
    const g2g::FrameView view = composed_view(frame, info, size, c);
    const GstVideoInfo &out = view.info();
    std::vector<guint8> dst(GST_VIDEO_INFO_SIZE(&out));
    guint8 *planes[GST_VIDEO_MAX_PLANES];
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&out); ++p)
        planes[p] = dst.data() + GST_VIDEO_INFO_PLANE_OFFSET(&out, p);
    const gsize bytes = GST_VIDEO_INFO_SIZE(&out);
    std::vector<guint8> a(bytes, 1), b(bytes, 2);
    const auto [seconds, copy] =
        g2g::bench::paired_seconds_per_call([&] { (void)view.materialize_into(frame, planes, out.stride); },
                                            [&] { std::memcpy(b.data(), a.data(), bytes); }, 10);
    std::printf("%-6s %-22s %10.2f %10.2f %10.2f %8.0f%%\n", format, name, bytes / seconds / 1e9,
                bytes / copy / 1e9, seconds * 1e3, 100 * copy / seconds);
    if (csv)
        std::fprintf(csv, "%s-%s %g %g\n", format, name, bytes / seconds, bytes / copy);
    gst_buffer_unref(frame);
}

void materialize_bandwidth()
{
    std::printf("\n3. FrameView::materialize at 4K against single-thread memcpy of the same bytes\n");
    FILE *csv = open_csv("bandwidth.csv");
    std::printf("%-6s %-22s %10s %10s %10s %9s\n", "format", "view", "GB/s", "memcpy", "ms", "of memcpy");
    for (const char *format : kFormats)
        for (const Composition &c : kCompositions)
            materialize_against_memcpy(format, kSizes[2], c, c.name, csv);
    for (const Size &size : kPowerOfTwoRows)
        materialize_against_memcpy("NV12", size, kCompositions[1], size.name, csv);
    if (csv)
        std::fclose(csv);
}

// One row of section 4: the transposing view `c` of a `format` frame of `size` materialized,
// the replay of its walk's loads and stores alone (transposed-traffic.h), and memcpy of the
// same bytes, in alternating rounds. Output rows start 16 bytes into a line, as a malloc'd
// buffer's do (section 3's), with room before them for the replay's line-aligned stores.
void materialize_against_its_traffic(const char *format, const Size &size, const Composition &c,
                                     const char *name)
{
    GstVideoInfo info = info_of(format, size);
    GstBuffer *frame = frame_of(info);
    const g2g::FrameView view = composed_view(frame, info, size, c);
    const GstVideoInfo &out = view.info();
    const gsize bytes = GST_VIDEO_INFO_SIZE(&out);
    const std::unique_ptr<guint8, decltype(&std::free)> storage(
        static_cast<guint8 *>(std::aligned_alloc(64, (bytes + 128 + 63) / 64 * 64)), &std::free);
    guint8 *planes[GST_VIDEO_MAX_PLANES];
    const guint8 *sources[GST_VIDEO_MAX_PLANES];
    GstMapInfo maps[GST_VIDEO_MAX_PLANES];
    for (guint p = 0; p < view.n_planes(); ++p) {
        planes[p] = storage.get() + 64 + 16 + GST_VIDEO_INFO_PLANE_OFFSET(&out, p);
        gst_memory_map(gst_buffer_peek_memory(frame, view.plane(p).memory_index), &maps[p], GST_MAP_READ);
        sources[p] = maps[p].data;
    }
    std::vector<guint8> a(bytes, 1), b(bytes, 2);
    const std::vector<double> best = g2g::bench::alternating_seconds_per_call(
        {[&] { (void)view.materialize_into(frame, planes, out.stride); },
         [&] {
             for (guint p = 0; p < view.n_planes(); ++p)
                 g2g::bench::replay_transposed_traffic(sources[p], view.plane(p).grid,
                                                       view.plane(p).element_size, planes[p],
                                                       GST_VIDEO_INFO_PLANE_STRIDE(&out, p));
         },
         [&] { std::memcpy(b.data(), a.data(), bytes); }},
        10);
    const double ours = best[0], traffic = best[1], copy = best[2];
    std::printf("%-6s %-16s %8.2f %8.2f %8.2f %9.0f%% %9.0f%% %9.0f%%\n", format, name, ours * 1e3,
                traffic * 1e3, copy * 1e3, 100 * copy / ours, 100 * copy / traffic, 100 * traffic / ours);
    for (guint p = 0; p < view.n_planes(); ++p)
        gst_memory_unmap(gst_buffer_peek_memory(frame, view.plane(p).memory_index), &maps[p]);
    gst_buffer_unref(frame);
}

void materialize_against_traffic()
{
    std::printf("\n4. Transposes at 4K: materialize, its walk's loads and stores alone, memcpy (ms)\n");
    if (!__builtin_cpu_supports("avx512f")) {
        std::printf("(the replay of the AVX-512 walk needs AVX-512; this CPU has none)\n");
        return;
    }
    std::printf("%-6s %-16s %8s %8s %8s %10s %10s %10s\n", "format", "view", "ours", "traffic", "memcpy",
                "ours/mcpy", "traf/mcpy", "ours/traf");
    materialize_against_its_traffic("RGBA", kSizes[2], kCompositions[1], "90r");
    for (const Composition &c : {kCompositions[1], kCompositions[3], kCompositions[8]})
        materialize_against_its_traffic("NV12", kSizes[2], c, c.name);
    for (const Size &size : kPowerOfTwoRows)
        materialize_against_its_traffic("NV12", size, kCompositions[1], size.name);
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--csv")
            g2g::bench::csv_dir() = argv[i + 1];
    }
    g2g::bench::ScalingOptions scaling;
    if (!g2g::bench::parse_scaling_options(argc, argv, scaling))
        return 2;
    std::string only = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
    if (only.empty() || only == "view")
        view_out_against_peers();
    if (only.empty() || only == "dense")
        materialized_against_peers();
    if (only.empty() || only == "bandwidth")
        materialize_bandwidth();
    if (only.empty() || only == "traffic")
        materialize_against_traffic();
    if (only.empty() || only == "libyuv")
        g2g::bench::libyuv_against_ours(scaling);
    if (only.empty() || only == "threads")
        g2g::bench::thread_scaling(scaling);
    if (only.empty() || only == "parts")
        g2g::bench::part_costs(scaling);
    if (only.empty() || only == "stores")
        g2g::bench::store_choice(scaling);
    if (only.empty() || only == "goals")
        g2g::bench::goal_lines(scaling);
    gst_deinit();
    return 0;
}
