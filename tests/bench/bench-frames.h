// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames for bench-view's sections 5 to 9 (bench-view-scaling.cpp, -parts, -stores, -goals): sources
// and destinations on 64-byte lines, as decoders' pools and applications' tensors hand them out, and
// how many of them to cycle through so that every call runs from memory rather than the cache, and
// memcpy over as many bytes on a pool's threads.
#pragma once

#include <g2g/frame-view.h>
#include <g2g/worker-pool.h>

#include <gst/video/video.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "bench-view-scaling.h"

namespace g2g::bench {

constexpr std::size_t kLine = 64;

// Memory aligned to a line, freed with std::free.
using Aligned = std::unique_ptr<guint8, decltype(&std::free)>;
inline Aligned aligned_bytes(std::size_t bytes)
{
    return Aligned(static_cast<guint8 *>(std::aligned_alloc(kLine, (bytes + kLine - 1) / kLine * kLine)),
                   &std::free);
}

// A `format` frame of `size` whose planes start on lines (as a decoder's pool hands them out),
// filled with a pattern.
inline g2g::BufferRef frame_of(GstVideoFormat format, const FrameSize &size, GstVideoInfo &info)
{
    gst_video_info_set_format(&info, format, size.width, size.height);
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    params.align = kLine - 1;
    g2g::BufferRef frame =
        g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), &params));
    GstMapInfo map;
    gst_buffer_map(frame.get(), &map, GST_MAP_WRITE);
    for (gsize i = 0; i < map.size; ++i)
        map.data[i] = static_cast<guint8>(i * 131 + (i >> 12));
    gst_buffer_unmap(frame.get(), &map);
    return frame;
}

// Another frame laid out as `frame` (planes from a line) with its bytes.
inline g2g::BufferRef copy_of(const g2g::BufferRef &frame)
{
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    params.align = kLine - 1;
    const gsize size = gst_buffer_get_size(frame.get());
    g2g::BufferRef copy = g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, size, &params));
    GstMapInfo map;
    gst_buffer_map(frame.get(), &map, GST_MAP_READ);
    gst_buffer_fill(copy.get(), 0, map.data, size);
    gst_buffer_unmap(frame.get(), &map);
    return copy;
}

// A dense destination laid out as `info` (default strides), its planes from a line.
struct Destination {
    Aligned memory;
    guint8 *planes[GST_VIDEO_MAX_PLANES] = {};
    explicit Destination(const GstVideoInfo &info) : memory(aligned_bytes(GST_VIDEO_INFO_SIZE(&info)))
    {
        std::memset(memory.get(), 0, GST_VIDEO_INFO_SIZE(&info)); // pages faulted in before timing
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p)
            planes[p] = memory.get() + GST_VIDEO_INFO_PLANE_OFFSET(&info, p);
    }
};

// Calls per timed round of a frame of `bytes`: about 20 ms of work at the slowest of these rates.
inline int calls_for(std::size_t bytes)
{
    return static_cast<int>(
        std::clamp<std::size_t>((std::size_t{200} << 20) / std::max<std::size_t>(bytes, 1), 1, 20));
}

// The last-level cache's size as sysconf reports it (0 when it does not say; a VM may report the
// whole socket's).
inline std::size_t llc_bytes()
{
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return llc > 0 ? static_cast<std::size_t>(llc) : 0;
}

// Bytes enough to leave the cache: twice the LLC, and never below 256 MiB.
inline std::size_t past_cache_bytes()
{
    return std::max<std::size_t>(2 * llc_bytes(), std::size_t{256} << 20);
}

// This machine's memory, in bytes (0 when sysconf cannot say).
inline std::size_t physical_memory()
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

// How many sources and destinations sections 6 and 7 cycle through, each pair
// `pair_bytes`: enough for `at_least` bytes in all, so that every call reads a source and writes
// a destination the calls before it have pushed out of the last-level cache, as memcpy's buffers
// are. (One frame written into one destination round after round runs from the cache wherever
// both fit in it: an 8K RGBA frame and its destination, 265 MB, fit the 300 MiB the H200 host
// reports, and measured 160% of memcpy there.) At most a quarter of the machine's memory.
inline std::size_t cycle_count(std::size_t pair_bytes, std::size_t at_least)
{
    const std::size_t wanted = std::max<std::size_t>(1, (at_least + pair_bytes - 1) / pair_bytes);
    const std::size_t memory = physical_memory();
    const std::size_t affordable = memory ? std::max<std::size_t>(1, memory / 4 / pair_bytes) : wanted;
    return std::min({wanted, affordable, std::size_t{1024}});
}

// A `format` frame of `size` and copies of it, as many as cycle_count gives for `at_least` bytes of
// sources and destinations (a source and its destination: the frame's size twice, since any view
// of it has as many bytes).
inline std::vector<g2g::BufferRef> cycled_frames(GstVideoFormat format, const FrameSize &size,
                                                 std::size_t at_least, GstVideoInfo &info)
{
    std::vector<g2g::BufferRef> frames;
    frames.push_back(frame_of(format, size, info));
    const std::size_t count = cycle_count(2 * GST_VIDEO_INFO_SIZE(&info), at_least);
    while (frames.size() < count)
        frames.push_back(copy_of(frames[0]));
    return frames;
}

// One orientation of cycled frames with a destination for each: every materialize() reads the
// next source and writes its destination, which the calls before it pushed out of the cache. The
// frames are the caller's, and outlive it.
class CycledView {
public:
    CycledView(const std::vector<g2g::BufferRef> &frames, const GstVideoInfo &in,
               GstVideoOrientationMethod method)
        : frames_(frames), view_(g2g::FrameView::of_frame(frames[0].get(), in))
    {
        view_->orient(method);
        destinations_.reserve(frames.size());
        for (std::size_t i = 0; i < frames.size(); ++i)
            destinations_.emplace_back(view_->info());
    }
    const g2g::FrameView &view() const { return *view_; }
    const GstVideoInfo &out() const { return view_->info(); }
    std::size_t count() const { return frames_.size(); }

    void materialize(const g2g::WorkerPool &pool)
    {
        const std::size_t i = next_++ % frames_.size();
        (void)view_->materialize_into(frames_[i].get(), destinations_[i].planes, view_->info().stride, pool);
    }

private:
    const std::vector<g2g::BufferRef> &frames_;
    g2g::Result<g2g::FrameView> view_; // a frame of the benchmark's own: never an error
    std::vector<Destination> destinations_;
    std::size_t next_ = 0; // the source and destination of the next call
};

// Buffers larger than the last-level cache, copied by memcpy on a pool's threads in bands: the
// machine's copy bandwidth on that many threads, the bar of sections 6 and 9.
class CopyBandwidth {
public:
    CopyBandwidth()
    {
        bytes_ = (past_cache_bytes() + 4095) / 4096 * 4096;
        from_ = aligned_bytes(bytes_);
        to_ = aligned_bytes(bytes_);
        std::memset(from_.get(), 1, bytes_);
        std::memset(to_.get(), 2, bytes_);
    }
    std::size_t bytes() const { return bytes_; }

    // One copy of the buffer in `threads` page-aligned bands on `pool`.
    void copy(const g2g::WorkerPool &pool, unsigned threads) const
    {
        const std::size_t pages = bytes_ / 4096;
        pool.run(threads, [&](unsigned k) {
            const std::size_t begin = pages * k / threads * 4096, end = pages * (k + 1) / threads * 4096;
            std::memcpy(to_.get() + begin, from_.get() + begin, end - begin);
        });
    }

private:
    std::size_t bytes_ = 0;
    Aligned from_{nullptr, &std::free}, to_{nullptr, &std::free};
};

} // namespace g2g::bench
