// SPDX-License-Identifier: LGPL-2.1-or-later
// The copy kernels behind the CPU backend (FrameView::materialize, materialize_into).
//
// lib/src/view/cpu/ is the CPU backend:
//   cpu-backend         the ViewBackend for host memory; maps the frames, calls the kernels
//   plane-copy          one plane: rows copied, reversed, or handed to the transposes; packed 4:2:2
//   transpose           transposed walks (90-degree rotations, diagonal flips): SSE2 / AVX2
//   transpose-avx512    the same with AVX-512, streamed past the caches for large frames
//   stream-rows-avx512  copied and reversed rows with non-temporal AVX-512 stores
//   simd-private, register-transpose-private   the building blocks they share
//   row-bands-private   how a multi-threaded materialize splits a frame (bands of rows, blocks)
//   band-sizing         how many bands it makes of a frame (what the view elements ask too)
//   worker-pool         the threads it runs on (g2g/worker-pool.h), made once and reused
#pragma once

#include <g2g/frame-view.h>

#include <cstdint>

namespace g2g::detail {

// Writes the grid's elements (element_size bytes each, at base + grid.at(x, y)) densely into
// dst, row y at dst + y * dst_stride. One pass; rows, reversed rows and transposed walks each
// take their own path (memcpy, SIMD reversal, cache-blocked SIMD transposes). `frame_bytes`,
// the whole output frame's size, decides whether the output is streamed past the caches.
void copy_plane(const std::uint8_t *base, const Grid<std::int64_t> &grid, unsigned element_size,
                std::uint8_t *dst, std::int64_t dst_stride, std::size_t frame_bytes);

// Packed 4:2:2 (YUY2/UYVY/YVYU) through any composed orientation and crop: luma per pixel,
// chroma per output macropixel, as videoflip computes it (two source chroma samples averaged
// where the orientation turns columns into rows). Every byte of every output macropixel is
// written: the padding luma of an odd-width row's last macropixel repeats its pixel's luma.
// (Strided views of packed 4:2:2 go through copy_plane, whose 4-byte elements move whole source
// macropixels, padding luma included, exactly as a passthrough hands them on.)
void copy_packed_422(GstVideoFormat format, const std::uint8_t *src, std::int64_t src_stride,
                     const Grid<PixelStep> &pixels, std::uint8_t *dst, std::int64_t dst_stride);

} // namespace g2g::detail
