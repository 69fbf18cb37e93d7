// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plane-copy-private.h"
#include "simd-private.h"
#include "stream-rows-private.h"
#include "transpose-private.h"

#include <emmintrin.h>
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace g2g::detail {
namespace {

// ---- reversed rows (a horizontal flip): elements of 1, 2, 4, 8 bytes, 16 bytes at a time

// A row of `count` elements of `e` bytes ending at src_last (the source walks backwards),
// written forwards one element at a time: the short ends of the SIMD paths, and other sizes.
void reverse_row_any(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count, unsigned e)
{
    for (std::uint32_t x = 0; x < count; ++x)
        std::memcpy(dst + x * e, src_last - static_cast<std::int64_t>(x) * e, e);
}

// Row of `count` elements ending at src_last (the source walks backwards), written forwards.
template <unsigned E, bool Stream>
void reverse_row(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count)
{
    constexpr unsigned per_vector = 16 / E;
    std::uint32_t x = 0;
    for (; x + per_vector <= count; x += per_vector) {
        const std::uint8_t *block = src_last - (x + per_vector - 1) * E;
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(block));
        store16<Stream>(dst + x * E, reverse_elements<E>(v));
    }
    reverse_row_any(src_last - x * E, dst + x * E, count - x, E);
}

// The same, 64 bytes per step with AVX2 (two 32-byte vectors, each reversed across its lanes).
template <unsigned E>
__attribute__((target("avx2"), always_inline)) inline __m256i reverse_elements_avx2(__m256i v)
{
    if constexpr (E == 8)
        return _mm256_permute4x64_epi64(v, 0x1B);
    if constexpr (E == 4)
        return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    // Bytes or words reversed within each 128-bit lane, then the lanes swapped.
    const __m256i within = E == 1 ? _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15,
                                                     14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
                                  : _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14,
                                                     15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, within), 0x4E);
}

template <unsigned E, bool Stream>
__attribute__((target("avx2"))) void reverse_row_avx2(const std::uint8_t *src_last, std::uint8_t *dst,
                                                      std::uint32_t count)
{
    constexpr unsigned per_vector = 32 / E;
    std::uint32_t x = 0;
    for (; x + 2 * per_vector <= count; x += 2 * per_vector) {
        const std::uint8_t *block = src_last - (x + 2 * per_vector - 1) * E; // the 64 bytes, lowest first
        const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(block + 32));
        const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(block));
        if constexpr (Stream) {
            _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + x * E), reverse_elements_avx2<E>(high));
            _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + x * E + 32), reverse_elements_avx2<E>(low));
        } else {
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + x * E), reverse_elements_avx2<E>(high));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + x * E + 32), reverse_elements_avx2<E>(low));
        }
    }
    reverse_row<E, false>(src_last - x * E, dst + x * E, count - x);
}

// A reversed row of E-byte elements: AVX-512 or AVX2 where the machine has them, else SSE2.
// Streamed: whole lines with AVX-512, else aligned pieces (32 bytes with AVX2, 16 with SSE2)
// where the row's start allows.
template <unsigned E>
void reverse_row_best(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count, bool stream)
{
    const auto address = reinterpret_cast<std::uintptr_t>(dst);
    if (stream && have_avx512() && reverse_row_streamed_avx512<E>(src_last, dst, count))
        return;
    if (have_avx2()) {
        if (stream && address % 32 == 0)
            reverse_row_avx2<E, true>(src_last, dst, count);
        else
            reverse_row_avx2<E, false>(src_last, dst, count);
    } else if (stream && address % 16 == 0) {
        reverse_row<E, true>(src_last, dst, count);
    } else {
        reverse_row<E, false>(src_last, dst, count);
    }
}

void scalar_tiled_walk(const std::uint8_t *base, const Grid<std::int64_t> &g, unsigned e, std::uint8_t *dst,
                       std::int64_t dst_stride)
{
    constexpr std::uint32_t tile = 64;
    for (std::uint32_t ty = 0; ty < g.height; ty += tile)
        for (std::uint32_t tx = 0; tx < g.width; tx += tile)
            copy_element_range(base, g, e, tx, std::min(g.width, tx + tile), ty,
                               std::min(g.height, ty + tile), dst, dst_stride);
}

} // namespace

void copy_plane(const std::uint8_t *base, const Grid<std::int64_t> &g, unsigned e, std::uint8_t *dst,
                std::int64_t dst_stride, std::size_t frame_bytes)
{
    const std::int64_t elem = e;
    // Rows are visited in the order that keeps the source one monotonic stream (a vertical flip
    // walks rows upwards, as a horizontal one walks each row backwards): the hardware prefetcher
    // follows one direction, not a sawtooth.
    const bool upwards = (g.col > 0) != (g.row > 0);
    auto row_at = [&](std::uint32_t i) { return upwards ? g.height - 1 - i : i; };
    if (g.col == elem) {
        const bool stream = streams_output(frame_bytes) && have_avx512();
        for (std::uint32_t i = 0; i < g.height; ++i) {
            const std::uint32_t y = row_at(i);
            const std::size_t bytes = static_cast<std::size_t>(g.width) * e;
            if (stream)
                copy_row_streamed_avx512(base + g.at(0, y), dst + y * dst_stride, bytes);
            else
                std::memcpy(dst + y * dst_stride, base + g.at(0, y), bytes);
        }
        if (stream)
            _mm_sfence();
        return;
    }
    if (g.col == -elem) {
        const bool stream = streams_output(frame_bytes);
        for (std::uint32_t i = 0; i < g.height; ++i) {
            const std::uint32_t y = row_at(i);
            const std::uint8_t *last = base + g.at(0, y);
            std::uint8_t *out = dst + y * dst_stride;
            switch (e) {
            case 1:
                reverse_row_best<1>(last, out, g.width, stream);
                break;
            case 2:
                reverse_row_best<2>(last, out, g.width, stream);
                break;
            case 4:
                reverse_row_best<4>(last, out, g.width, stream);
                break;
            case 8:
                reverse_row_best<8>(last, out, g.width, stream);
                break;
            default:
                reverse_row_any(last, out, g.width, e);
                break;
            }
        }
        if (stream)
            _mm_sfence();
        return;
    }
    if ((g.row == elem || g.row == -elem) && transpose_plane(base, g, e, dst, dst_stride, frame_bytes))
        return;
    scalar_tiled_walk(base, g, e, dst, dst_stride);
}

void copy_packed_422(GstVideoFormat format, const std::uint8_t *src, std::int64_t src_stride,
                     const Grid<PixelStep> &pixels, std::uint8_t *dst, std::int64_t dst_stride)
{
    const GstVideoFormatInfo *finfo = gst_video_format_get_info(format);
    const unsigned y_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 0);
    const unsigned u_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 1);
    const unsigned v_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 2);
    // When walking a view row moves down source columns, the two pixels of an output
    // macropixel come from different source macropixels: their chroma is averaged.
    const bool averaged = pixels.col.y != 0;
    auto luma = [&](PixelStep at) { return src[at.y * src_stride + at.x * 2 + y_off]; };
    auto macropixel = [&](PixelStep at) { return src + at.y * src_stride + (at.x & ~std::int64_t{1}) * 2; };

    for (std::uint32_t y = 0; y < pixels.height; ++y) {
        std::uint8_t *out = dst + y * dst_stride;
        for (std::uint32_t x = 0; x < pixels.width; x += 2) {
            const PixelStep first = pixels.at(x, y);
            const bool pair = x + 1 < pixels.width;
            const std::uint8_t *m0 = macropixel(first);
            unsigned u = m0[u_off];
            unsigned v = m0[v_off];
            if (averaged && pair) {
                const std::uint8_t *m1 = macropixel(pixels.at(x + 1, y));
                u = (u + m1[u_off]) >> 1;
                v = (v + m1[v_off]) >> 1;
            }
            std::uint8_t *o = out + x * 2;
            o[u_off] = static_cast<std::uint8_t>(u);
            o[v_off] = static_cast<std::uint8_t>(v);
            o[y_off] = luma(first);
            // An odd-width row ends on a macropixel with one pixel: its second luma slot is
            // padding, which videoflip and videocrop leave as whatever the output memory held
            // (stale bytes of an earlier frame from a pool). It repeats the pixel's own luma here,
            // so every byte of the row is a function of the source (and a reader that takes
            // whole macropixels sees the edge repeated, not noise).
            o[y_off + 2] = pair ? luma(pixels.at(x + 1, y)) : o[y_off];
        }
    }
}

} // namespace g2g::detail
