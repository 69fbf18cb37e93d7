// SPDX-License-Identifier: LGPL-2.1-or-later
// How many bands a multi-threaded CPU materialize cuts a frame into (cpu-backend.cpp): what the view
// elements ask before they start a pool for a frame (g2g-internal/plugin-interface.h). How each band
// is cut is row-bands-private.h; the pool's threads are worker-pool-private.h.
#pragma once

#include <algorithm>
#include <cstddef>

namespace g2g::detail {

// A materialize splits a frame into no more bands than it has multiples of this many output
// bytes: waking a thread and the partial lines at a band's edges cost tens of microseconds on a
// loaded machine, about what copying 512 KiB takes one core. So a 1080p NV12 frame (3 MB) takes at
// most 6 threads, a 720p one 2, a 1080p RGBA one (8 MB) 16, and small frames one.
inline constexpr std::size_t kMinBandBytes = std::size_t{512} << 10;

// The parts of a frame of `frame_bytes` output bytes on at most `threads` threads: one per
// `min_band_bytes` (0: no minimum), at least one.
constexpr unsigned band_count(std::size_t frame_bytes, unsigned threads, std::size_t min_band_bytes)
{
    if (min_band_bytes == 0)
        return threads;
    return static_cast<unsigned>(std::clamp<std::size_t>(frame_bytes / min_band_bytes, 1, threads));
}

} // namespace g2g::detail
