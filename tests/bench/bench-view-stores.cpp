// SPDX-License-Identifier: LGPL-2.1-or-later
// bench-view's section 8 (see bench-view-scaling.h): the store choice of materialize by frame size
// (streams_output in lib/src/view/cpu/simd-private.h). The same kernels write each frame through
// the cache and past it with non-temporal stores, and each is timed alone and followed by what the
// next element does with a frame, one read of every byte: the writer alone can gain from streaming
// a frame the cache would hold, and its reader then pays for it.
#include <g2g/frame-view.h>

#include <gst/video/video.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "bench-frames.h"
#include "bench-util.h"
#include "bench-view-scaling.h"
#include "view/cpu/plane-copy-private.h"
#include "view/cpu/simd-private.h"

namespace g2g::bench {
namespace {

// Frame sizes that streams_output takes as small and as large: copy_plane then writes every output
// through the cache, or streams it.
constexpr std::size_t kCached = 0;
constexpr std::size_t kStreamed = std::size_t{1} << 40;

// Writes `view` of the mapped frame at `source` into `dst` (laid out as view.info()) the way a
// frame of `frame_bytes` is written.
void write(const g2g::FrameView &view, const guint8 *source, const Destination &dst, std::size_t frame_bytes)
{
    const GstVideoInfo &out = view.info();
    for (unsigned p = 0; p < view.n_planes(); ++p) {
        const g2g::PlaneView &plane = view.plane(p);
        g2g::detail::copy_plane(source, plane.grid, plane.element_size, dst.planes[p],
                                GST_VIDEO_INFO_PLANE_STRIDE(&out, p), frame_bytes);
    }
}

// One read of every byte of `bytes` at `data`, as the next element's pass over a frame (a sum of
// 64-bit words, kept so the compiler does not drop it).
volatile std::uint64_t g_sum;
void read_all(const guint8 *data, std::size_t bytes)
{
    const auto *words = reinterpret_cast<const std::uint64_t *>(data);
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < bytes / 8; ++i)
        sum += words[i];
    g_sum = sum;
}

} // namespace

void store_choice(const ScalingOptions &options)
{
    std::printf(
        "\n8. Stores by frame size: materialize's kernels writing through the cache and streamed past "
        "it (non-temporal), alone and followed by one read of the frame (the next element's pass); "
        "the same frame and destination every call, as a decoder's frame and a pool's buffer are "
        "reused (ms, best of alternating rounds)\n\n");
    std::printf("| format | size | view | bytes | materialize stores | cached | streamed | cached + read | "
                "streamed + read |\n|---|---|---|---|---|---|---|---|---|\n");
    const int rounds = options.rounds ? options.rounds : 9;
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
        for (const FrameSize &size : options.sizes) {
            GstVideoInfo in;
            const g2g::BufferRef frame = frame_of(format, size, in);
            GstMapInfo map;
            gst_buffer_map(frame.get(), &map, GST_MAP_READ);
            for (auto [name, method] : {std::pair{"vert", GST_VIDEO_ORIENTATION_VERT},
                                        std::pair{"horiz", GST_VIDEO_ORIENTATION_HORIZ},
                                        std::pair{"90r", GST_VIDEO_ORIENTATION_90R}}) {
                auto view = g2g::FrameView::of_frame(frame.get(), in);
                view->orient(method);
                const GstVideoInfo &out = view->info();
                const std::size_t bytes = GST_VIDEO_INFO_SIZE(&out);
                const Destination dst(out);
                const std::vector<double> best =
                    alternating_seconds_per_call({[&] { write(*view, map.data, dst, kCached); },
                                                  [&] { write(*view, map.data, dst, kStreamed); },
                                                  [&] {
                                                      write(*view, map.data, dst, kCached);
                                                      read_all(dst.memory.get(), bytes);
                                                  },
                                                  [&] {
                                                      write(*view, map.data, dst, kStreamed);
                                                      read_all(dst.memory.get(), bytes);
                                                  }},
                                                 calls_for(bytes), rounds);
                std::printf("| %s | %s | %s | %.1f MB | %s | %.3f | %.3f | %.3f | %.3f |\n",
                            gst_video_format_to_string(format), size.name.c_str(), name, bytes / 1e6,
                            g2g::detail::streams_output(bytes) ? "streamed" : "cached", best[0] * 1e3,
                            best[1] * 1e3, best[2] * 1e3, best[3] * 1e3);
                std::fflush(stdout);
            }
            gst_buffer_unmap(frame.get(), &map);
        }
    }
}

} // namespace g2g::bench
