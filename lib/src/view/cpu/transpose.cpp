// SPDX-License-Identifier: LGPL-2.1-or-later
#include "transpose-private.h"

#include <immintrin.h>

#include <algorithm>

#include "register-transpose-private.h"
#include "simd-private.h"

namespace g2g::detail {
namespace {

template <unsigned E> struct Unpack128 {
    static void lo(const __m128i &a, const __m128i &b, __m128i &out)
    {
        if constexpr (E == 1)
            out = _mm_unpacklo_epi8(a, b);
        else if constexpr (E == 2)
            out = _mm_unpacklo_epi16(a, b);
        else
            out = _mm_unpacklo_epi32(a, b);
    }
    static void hi(const __m128i &a, const __m128i &b, __m128i &out)
    {
        if constexpr (E == 1)
            out = _mm_unpackhi_epi8(a, b);
        else if constexpr (E == 2)
            out = _mm_unpackhi_epi16(a, b);
        else
            out = _mm_unpackhi_epi32(a, b);
    }
};

template <unsigned E> struct Unpack256 {
    __attribute__((target("avx2"))) static void lo(const __m256i &a, const __m256i &b, __m256i &out)
    {
        if constexpr (E == 1)
            out = _mm256_unpacklo_epi8(a, b);
        else
            out = _mm256_unpacklo_epi16(a, b);
    }
    __attribute__((target("avx2"))) static void hi(const __m256i &a, const __m256i &b, __m256i &out)
    {
        if constexpr (E == 1)
            out = _mm256_unpackhi_epi8(a, b);
        else
            out = _mm256_unpackhi_epi16(a, b);
    }
};

// SSE2 block of B x B elements of E bytes: B = 16 / E.
// Transposes the view's B x B block at (x0, y0) to `out` (its first row; rows out_stride apart).
template <unsigned E>
[[gnu::always_inline]] inline void sse2_block(const std::uint8_t *base, const Grid<std::int64_t> &g,
                                              std::uint32_t x0, std::uint32_t y0, std::uint8_t *out,
                                              std::int64_t out_stride)
{
    constexpr unsigned B = 16 / E;
    const bool descending = g.row < 0;
    __m128i r[B];
#pragma GCC unroll 16
    for (unsigned i = 0; i < B; ++i) {
        // Elements (x0 + i, y0 .. y0 + B - 1): 16 contiguous source bytes.
        const std::uint8_t *p = base + g.at(x0 + i, descending ? y0 + B - 1 : y0);
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        r[i] = descending ? reverse_elements<E>(v) : v;
    }
    transpose_rounds<B, __m128i, Unpack128<E>>(r);
#pragma GCC unroll 16
    for (unsigned j = 0; j < B; ++j)
        store16<false>(out + j * out_stride, r[j]);
}

// A tile writes one cache line (64 bytes) of each of up to 512 view rows while it reads the
// 64 / E source lines those bytes come from: every line fetched or written is used whole while
// it is in the cache.
constexpr std::uint32_t kTileRows = 512;
constexpr std::uint32_t kLine = 64;

template <unsigned E>
void sse2_tiles(std::uint32_t y_begin, const std::uint8_t *base, const Grid<std::int64_t> &g,
                std::uint8_t *dst, std::int64_t dst_stride, std::uint32_t full_w, std::uint32_t full_h)
{
    constexpr std::uint32_t B = 16 / E;
    constexpr std::uint32_t tile_cols = kLine / E;
    for (std::uint32_t ty = y_begin; ty < full_h; ty += kTileRows) {
        const std::uint32_t ty_end = std::min(full_h, ty + kTileRows);
        for (std::uint32_t tx = 0; tx < full_w; tx += tile_cols) {
            const std::uint32_t tx_end = std::min(full_w, tx + tile_cols);
            for (std::uint32_t y0 = ty; y0 < ty_end; y0 += B) {
                for (std::uint32_t x0 = tx; x0 < tx_end; x0 += B)
                    sse2_block<E>(base, g, x0, y0, dst + y0 * dst_stride + x0 * E, dst_stride);
            }
        }
    }
}

// The unpacks of 4-byte and 8-byte elements of 256-bit vectors.
struct Dwords256 {
    __attribute__((target("avx2"))) static void lo32(const __m256i &a, const __m256i &b, __m256i &out)
    {
        out = _mm256_unpacklo_epi32(a, b);
    }
    __attribute__((target("avx2"))) static void hi32(const __m256i &a, const __m256i &b, __m256i &out)
    {
        out = _mm256_unpackhi_epi32(a, b);
    }
    __attribute__((target("avx2"))) static void lo64(const __m256i &a, const __m256i &b, __m256i &out)
    {
        out = _mm256_unpacklo_epi64(a, b);
    }
    __attribute__((target("avx2"))) static void hi64(const __m256i &a, const __m256i &b, __m256i &out)
    {
        out = _mm256_unpackhi_epi64(a, b);
    }
};

// AVX2: 8 x 8 elements of 4 bytes (RGBA and friends), 32-byte loads, two 16-byte stores a row.
__attribute__((target("avx2"), always_inline)) inline void transpose8x8_u32(__m256i r[8])
{
    __m256i u[8];
    dword_qword_rounds<8, __m256i, Dwords256>(r, u);
#pragma GCC unroll 8
    for (int k = 0; k < 4; ++k) {
        r[k] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x20);
        r[k + 4] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x31);
    }
}

__attribute__((target("avx2"))) void avx2_tiles_u32(const std::uint8_t *base, const Grid<std::int64_t> &g,
                                                    std::uint8_t *dst, std::int64_t dst_stride,
                                                    std::uint32_t full_w, std::uint32_t full_h)
{
    constexpr std::uint32_t B = 8;
    constexpr std::uint32_t tile_cols = kLine / 4;
    const bool descending = g.row < 0;
    const __m256i reverse = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    for (std::uint32_t ty = 0; ty < full_h; ty += kTileRows) {
        const std::uint32_t ty_end = std::min(full_h, ty + kTileRows);
        for (std::uint32_t tx = 0; tx < full_w; tx += tile_cols) {
            const std::uint32_t tx_end = std::min(full_w, tx + tile_cols);
            for (std::uint32_t y0 = ty; y0 < ty_end; y0 += B) {
                for (std::uint32_t x0 = tx; x0 < tx_end; x0 += B) {
                    __m256i r[8];
#pragma GCC unroll 16
                    for (unsigned i = 0; i < B; ++i) {
                        const std::uint8_t *p = base + g.at(x0 + i, descending ? y0 + B - 1 : y0);
                        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
                        r[i] = descending ? _mm256_permutevar8x32_epi32(v, reverse) : v;
                    }
                    transpose8x8_u32(r);
#pragma GCC unroll 8
                    for (unsigned j = 0; j < B; ++j)
                        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + (y0 + j) * dst_stride + x0 * 4),
                                            r[j]);
                }
            }
        }
    }
}

// AVX2 for 1- and 2-byte elements: each 32-byte load covers two SSE blocks stacked along the
// view column (source rows y0 .. y0 + 2B - 1), and the in-lane unpacks transpose both at once:
// half the instructions per byte of the SSE2 path.
template <unsigned E>
__attribute__((target("avx2"))) void avx2_tiles_paired(const std::uint8_t *base, const Grid<std::int64_t> &g,
                                                       std::uint8_t *dst, std::int64_t dst_stride,
                                                       std::uint32_t full_w, std::uint32_t full_h)
{
    constexpr std::uint32_t B = 16 / E;
    constexpr std::uint32_t tile_cols = kLine / E;
    const bool descending = g.row < 0;
    // Reverses the 32 bytes of a vector in units of E: within each lane, then the lanes.
    const __m256i reverse_in_lane =
        E == 1 ? _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11,
                                  10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
               : _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10,
                                  11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    for (std::uint32_t ty = 0; ty < full_h; ty += kTileRows) {
        const std::uint32_t ty_end = std::min(full_h, ty + kTileRows);
        for (std::uint32_t tx = 0; tx < full_w; tx += tile_cols) {
            const std::uint32_t tx_end = std::min(full_w, tx + tile_cols);
            for (std::uint32_t y0 = ty; y0 < ty_end; y0 += 2 * B) {
                for (std::uint32_t x0 = tx; x0 < tx_end; x0 += B) {
                    __m256i r[B];
#pragma GCC unroll 16
                    for (unsigned i = 0; i < B; ++i) {
                        const std::uint8_t *p = base + g.at(x0 + i, descending ? y0 + 2 * B - 1 : y0);
                        __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
                        if (descending)
                            v = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, reverse_in_lane), 0x4E);
                        r[i] = v;
                    }
                    transpose_rounds<B, __m256i, Unpack256<E>>(r);
#pragma GCC unroll 16
                    for (unsigned j = 0; j < B; ++j) {
                        std::uint8_t *upper = dst + (y0 + j) * dst_stride + x0 * E;
                        std::uint8_t *lower = dst + (y0 + B + j) * dst_stride + x0 * E;
                        _mm_storeu_si128(reinterpret_cast<__m128i *>(upper), _mm256_castsi256_si128(r[j]));
                        _mm_storeu_si128(reinterpret_cast<__m128i *>(lower),
                                         _mm256_extracti128_si256(r[j], 1));
                    }
                }
            }
        }
    }
}

// The cached kernels (AVX2 where the CPU has it, else SSE2) and element copies for the edges.
template <unsigned E>
void cached_walk(const std::uint8_t *base, const Grid<std::int64_t> &g, std::uint8_t *dst,
                 std::int64_t dst_stride)
{
    const bool avx2 = have_avx2();
    const std::uint32_t B = E == 4 && avx2 ? 8 : 16 / E;
    const std::uint32_t full_w = g.width - g.width % B;
    const std::uint32_t full_h = g.height - g.height % B;
    std::uint32_t done_h = 0; // rows the AVX2 kernels covered
    if (E == 4 && avx2) {
        avx2_tiles_u32(base, g, dst, dst_stride, full_w, full_h);
        done_h = full_h;
    } else if (E < 4 && avx2) {
        done_h = g.height - g.height % (2 * B);
        avx2_tiles_paired<E>(base, g, dst, dst_stride, full_w, done_h);
    }
    if (done_h < full_h)
        sse2_tiles<E>(done_h, base, g, dst, dst_stride, full_w, full_h);
    // Right and bottom edges that do not fill a block.
    copy_element_range(base, g, E, full_w, g.width, 0, g.height, dst, dst_stride);
    copy_element_range(base, g, E, 0, full_w, full_h, g.height, dst, dst_stride);
}

template <unsigned E>
void transpose_walk(const std::uint8_t *base, const Grid<std::int64_t> &g, std::uint8_t *dst,
                    std::int64_t dst_stride, std::size_t frame_bytes)
{
    if (have_avx512())
        transpose_avx512<E>(base, g, dst, dst_stride, streams_output(frame_bytes));
    else
        cached_walk<E>(base, g, dst, dst_stride);
}

} // namespace

bool transpose_plane(const std::uint8_t *base, const Grid<std::int64_t> &grid, unsigned element_size,
                     std::uint8_t *dst, std::int64_t dst_stride, std::size_t frame_bytes)
{
    switch (element_size) {
    case 1:
        transpose_walk<1>(base, grid, dst, dst_stride, frame_bytes);
        return true;
    case 2:
        transpose_walk<2>(base, grid, dst, dst_stride, frame_bytes);
        return true;
    case 4:
        transpose_walk<4>(base, grid, dst, dst_stride, frame_bytes);
        return true;
    default:
        return false;
    }
}

} // namespace g2g::detail
