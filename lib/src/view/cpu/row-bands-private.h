// SPDX-License-Identifier: LGPL-2.1-or-later
// How a multi-threaded materialize splits a frame (cpu-backend.cpp): band k of every plane goes
// to one thread, so each thread writes contiguous rows of each plane and all get the same share
// of every plane's bytes. The output is byte for byte the one-thread frame's: every kernel writes
// each output row from the source alone, and only the bytes of its own rows.
#pragma once

#include <g2g/frame-view.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace g2g::detail {

// Rows [begin, end) of a plane's output.
struct RowBand {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    constexpr std::uint32_t rows() const { return end - begin; }
};

// Band k of n of `rows` rows, its edges on multiples of `quantum` rows (the last band ends with the
// plane): bands differ by one quantum at most, and one is empty when the plane has fewer quanta
// than bands.
constexpr RowBand row_band(std::uint32_t rows, std::uint32_t quantum, unsigned k, unsigned n)
{
    const std::uint64_t units = (std::uint64_t{rows} + quantum - 1) / quantum;
    auto edge = [&](unsigned i) {
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, units * i / n * quantum));
    };
    return {edge(k), edge(k + 1)};
}

// The rows a band edge of `plane` falls on multiples of. A transposing walk writes 64 / E view rows
// per step (transpose-avx512.cpp): bands of whole steps keep each band's source loads on the lines
// the one-thread walk loads them from (its first, aligning band then comes out the same) and leave
// no band a sliver of a step. Rows kept or reversed are split anywhere.
inline std::uint32_t band_quantum(const PlaneView &plane)
{
    const std::int64_t e = plane.element_size;
    const bool rows_kept = plane.grid.col == e || plane.grid.col == -e;
    return rows_kept || 64 % e != 0 ? 1 : static_cast<std::uint32_t>(64 / e);
}

// The bands of a frame of `frame_bytes` output bytes on at most `threads` threads: one per
// `min_band_bytes` (0: no minimum), at least one.
constexpr unsigned band_count(std::size_t frame_bytes, unsigned threads, std::size_t min_band_bytes)
{
    if (min_band_bytes == 0)
        return threads;
    return static_cast<unsigned>(std::clamp<std::size_t>(frame_bytes / min_band_bytes, 1, threads));
}

} // namespace g2g::detail
