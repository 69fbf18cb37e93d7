// Transposed walks: view rows that run down source columns (rotations by 90 degrees and the
// diagonal flips). Cache-blocked, transposed in registers; AVX-512 kernels (streamed past the
// caches when large) where the CPU has them, AVX2 / SSE2 ones elsewhere.
#pragma once

#include <g2g/frame-view.h>

#include <cstddef>
#include <cstdint>

namespace g2g::detail {

// Copies a grid whose row step is +element_size or -element_size (the source is contiguous down
// each view column). Returns false for element sizes it has no kernel for (the caller then
// copies element by element). `frame_bytes`: the whole output frame's size (see
// transpose_streams).
bool transpose_plane(const std::uint8_t *base, const Grid<std::int64_t> &grid, unsigned element_size,
                     std::uint8_t *dst, std::int64_t dst_stride, std::size_t frame_bytes);

// Whether a transposed frame of `frame_bytes` is written past the caches. A transpose reads
// and writes the whole frame through the cache with no reuse; once source and output together
// no longer fit in the part of an L3 a core can count on (a core complex's 32 MiB, less what
// the rest of the pipeline keeps there), full-line non-temporal stores win: measured at 4K
// (RGBA 33 MB, NV12 12 MB, a cropped NV12 10 MB), while 1080p (8 MB and less) is faster
// through the cache. sysconf's L3 size is not used: virtual machines report the whole socket's.
constexpr bool transpose_streams(std::size_t frame_bytes)
{
    return frame_bytes >= (std::size_t{9} << 20);
}

// AVX-512 F + BW + VBMI, checked at run time (and not switched off by G2G_NO_AVX512).
bool have_avx512();

// The AVX-512 kernels (transpose-avx512.cpp) for E-byte elements (1, 2 or 4), with full-line
// non-temporal stores when `stream`.
template <unsigned E>
void transpose_avx512(const std::uint8_t *base, const Grid<std::int64_t> &grid, std::uint8_t *dst,
                      std::int64_t dst_stride, bool stream);

} // namespace g2g::detail
