// SPDX-License-Identifier: LGPL-2.1-or-later
// How a multi-threaded materialize splits a frame (cpu-backend.cpp): part k of every plane goes to
// one task, so all tasks get the same share of every plane's bytes. A plane whose rows are kept or
// reversed is cut into bands of whole rows; a transposing plane into blocks, bands of rows cut into
// columns too (plane_part). The output is byte for byte the one-thread frame's: every kernel writes
// each output row from the source alone, and only the bytes of the part it is given (partial lines
// through masked stores), so two parts never write the same byte.
#pragma once

#include <g2g/frame-view.h>

#include "band-sizing.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace g2g::detail {

// Rows (or columns) [begin, end) of a plane's output.
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

// Whether a plane's view rows run down source columns (a rotation by 90 degrees, a diagonal flip).
inline bool plane_transposes(const PlaneView &plane)
{
    const std::int64_t e = plane.element_size;
    return plane.grid.col != e && plane.grid.col != -e;
}

// The rows (and, transposing, the columns) a part's edges fall on multiples of. A transposing walk
// writes 64 / E view rows per step and a tile of 64 / E view columns, one output line of each row
// (transpose-avx512.cpp): parts of whole steps keep each part's source loads on the lines the
// one-thread walk loads them from (its first, aligning band then comes out the same) and leave no
// part a sliver of a step; parts of whole tiles start their output rows on lines wherever the
// rows do. Rows kept or reversed are split anywhere.
inline std::uint32_t band_quantum(const PlaneView &plane)
{
    const std::int64_t e = plane.element_size;
    return !plane_transposes(plane) || 64 % e != 0 ? 1 : static_cast<std::uint32_t>(64 / e);
}

// How a transposing plane's n parts are laid out: `bands` bands of rows, each cut into n / bands
// blocks of columns.
//
// Why blocks: a band of view rows reads a strip of every source row (its columns), a short run of
// lines per source row. Each part of 8K NV12 rotated timed alone from memory (bench-view parts), 8
// bands took 1.2-1.35x the one-thread walk's time in all, 16 bands 1.6-1.7x (4K: 1.3-1.5x and
// 1.75-1.9x), while from the cache 8 bands cost what the walk does: the runs cost in memory (our
// reading: the hardware prefetchers enter each late and run past its end). A cut between columns
// costs instead at each output row it crosses (the line on either side through the cache), so the
// layout takes the least cut length: bands cross the plane's view width (source rows) each, column
// cuts its height (output rows). 8K NV12 rotated, 8 parts: 4 bands of 2 blocks (1.1-1.17x); 16:
// 4 x 4 (1.23-1.36x). G2G_TRANSPOSE_PARTS=bands cuts rows only (for comparisons).
inline unsigned transposed_bands(const PlaneView &plane, unsigned n)
{
    static const bool rows_only = [] {
        const char *choice = std::getenv("G2G_TRANSPOSE_PARTS");
        return choice && std::string_view(choice) == "bands";
    }();
    if (rows_only)
        return n;
    unsigned best = n;
    std::uint64_t least = ~std::uint64_t{0};
    for (unsigned bands = n; bands >= 1; --bands) {
        if (n % bands != 0)
            continue;
        const std::uint64_t cut =
            std::uint64_t{bands - 1} * plane.grid.width + std::uint64_t{n / bands - 1} * plane.grid.height;
        if (cut < least) {
            least = cut;
            best = bands;
        }
    }
    return best;
}

// A part of a plane: its rows and its columns.
struct PlanePart {
    RowBand rows;
    RowBand cols;
    constexpr bool empty() const { return rows.rows() == 0 || cols.rows() == 0; }
};

// Part k of n of a plane, cut into `bands` bands of rows (a divisor of n) if it transposes.
inline PlanePart plane_part(const PlaneView &plane, unsigned k, unsigned n, unsigned bands)
{
    const std::uint32_t quantum = band_quantum(plane);
    if (!plane_transposes(plane))
        return {row_band(plane.grid.height, quantum, k, n), {0, plane.grid.width}};
    const unsigned blocks = n / bands;
    return {row_band(plane.grid.height, quantum, k / blocks, bands),
            row_band(plane.grid.width, quantum, k % blocks, blocks)};
}

// Part k of n of a plane, as materialize cuts it.
inline PlanePart plane_part(const PlaneView &plane, unsigned k, unsigned n)
{
    return plane_part(plane, k, n, plane_transposes(plane) ? transposed_bands(plane, n) : n);
}

} // namespace g2g::detail
