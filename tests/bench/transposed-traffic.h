// SPDX-License-Identifier: LGPL-2.1-or-later
// The memory traffic of a transposed materialize with none of its arithmetic, for bench-view:
// what the walk of lib/src/transpose-avx512.cpp costs by its loads and stores alone.
//
// Why: a transpose reads 64 bytes from each of 64 / E source rows per step and writes one
// whole 64-byte line to each of as many output rows, so neither side is one sequential stream
// the way a memcpy's are. Replaying exactly those loads and full-line non-temporal stores
// (each load stored as it is, no shuffles) gives the floor of that walk on this machine, to
// set the kernel's figure against.
#pragma once

#include <g2g/frame-view.h>

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace g2g::bench {

// The walk of one transposing plane `g` (element size e: 1, 2 or 4) over the source at `base`,
// into rows of `dst_stride` bytes at dst: bands of 2048 view rows; tiles of one output line (64
// / e view columns, one source row each); steps of 64 / e view rows, taken last to first when
// the view walks its source backwards; runs of four tiles written row by row into rows a
// multiple of 1024 bytes apart. Every output line the kernel writes is written here at its
// line-aligned address, so the 63 bytes before dst must be writable. Edge tiles and steps
// (the first band that aligns the loads, the last partial ones) are left out: a floor stays a
// floor.
__attribute__((target("avx512f"))) inline void replay_transposed_traffic(const std::uint8_t *base,
                                                                         const Grid<std::int64_t> &g,
                                                                         unsigned e, std::uint8_t *dst,
                                                                         std::int64_t dst_stride)
{
    constexpr unsigned kLine = 64, kRun = 4;
    constexpr std::uint32_t kBand = 2048;
    const unsigned n = kLine / e; // view columns per tile = view rows per step
    const bool row_by_row = dst_stride % 1024 == 0;
    const unsigned run = row_by_row ? kRun : 1;
    const bool descending = g.row < 0;
    // The kernel's loads start on source lines once a short first band has aligned them
    // (possible when source rows are a multiple of 64 bytes apart): that band is left out here.
    std::uint32_t lead = 0;
    if (g.col % kLine == 0) {
        const auto first = reinterpret_cast<std::uintptr_t>(base + g.at(0, 0));
        const unsigned misaligned = descending ? (first + e) % kLine : (kLine - first % kLine) % kLine;
        lead = misaligned % e == 0 ? std::min<std::uint32_t>(misaligned / e, g.height) : 0;
    }
    const std::uint32_t tiles = g.width / n, rows = lead + (g.height - lead) / n * n;
    __m512i held[kRun][kLine];
    auto line_of = [&](std::uint32_t y, std::uint32_t tile) {
        const auto at = reinterpret_cast<std::uintptr_t>(dst + y * dst_stride + std::int64_t{tile} * kLine);
        return reinterpret_cast<__m512i *>(at & ~std::uintptr_t{kLine - 1});
    };
    for (std::uint32_t ty = lead; ty < rows; ty += kBand) {
        const std::uint32_t steps = (std::min(rows, ty + kBand) - ty) / n;
        for (std::uint32_t t0 = 0; t0 < tiles; t0 += run) {
            const unsigned count = std::min<std::uint32_t>(run, tiles - t0);
            for (std::uint32_t s = 0; s < steps; ++s) {
                const std::uint32_t y0 = ty + (descending ? steps - 1 - s : s) * n;
                for (unsigned k = 0; k < count; ++k)
                    for (unsigned i = 0; i < n; ++i) {
                        const std::uint8_t *p = base + g.at((t0 + k) * n + i, descending ? y0 + n - 1 : y0);
                        _mm_prefetch(reinterpret_cast<const char *>(p + 2 * kLine), _MM_HINT_T0);
                        held[k][i] = _mm512_loadu_si512(p);
                    }
                for (unsigned v = 0; v < n; ++v)
                    for (unsigned k = 0; k < count; ++k)
                        _mm512_stream_si512(line_of(y0 + v, t0 + k), held[k][v]);
            }
        }
    }
    _mm_sfence();
}

} // namespace g2g::bench
