// SPDX-License-Identifier: LGPL-2.1-or-later
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
// streams_output).
bool transpose_plane(const std::uint8_t *base, const Grid<std::int64_t> &grid, unsigned element_size,
                     std::uint8_t *dst, std::int64_t dst_stride, std::size_t frame_bytes);

// The AVX-512 kernels (transpose-avx512.cpp) for E-byte elements (1, 2 or 4), with full-line
// non-temporal stores when `stream`.
template <unsigned E>
void transpose_avx512(const std::uint8_t *base, const Grid<std::int64_t> &grid, std::uint8_t *dst,
                      std::int64_t dst_stride, bool stream);

} // namespace g2g::detail
