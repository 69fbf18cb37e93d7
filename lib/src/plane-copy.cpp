#include "plane-copy-private.h"

#include <emmintrin.h>

#include <algorithm>
#include <cstring>

namespace g2g::detail {
namespace {

// ---- stores: frames larger than the caches are written around them (non-temporal stores),
// so no cache line of the destination is read before it is overwritten.

constexpr std::size_t kStreamThreshold = 1 << 20; // bytes of output per plane

template <bool Stream> inline void store16(std::uint8_t *dst, __m128i v)
{
    if constexpr (Stream)
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst), v);
    else
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), v);
}

template <bool Stream> inline void store8(std::uint8_t *dst, std::uint64_t v)
{
    if constexpr (Stream)
        _mm_stream_si64(reinterpret_cast<long long *>(dst), static_cast<long long>(v));
    else
        std::memcpy(dst, &v, 8);
}

// Streaming needs 16-byte aligned rows: the destination and its stride.
bool can_stream(const std::uint8_t *dst, std::int64_t dst_stride, std::size_t bytes)
{
    return bytes >= kStreamThreshold && (reinterpret_cast<std::uintptr_t>(dst) % 16) == 0 &&
           dst_stride % 16 == 0;
}

// ---- reversed rows (a horizontal flip): elements of 1, 2, 4, 8 bytes, 16 bytes at a time

template <unsigned E> __m128i reverse_elements(__m128i v)
{
    if constexpr (E == 8)
        return _mm_shuffle_epi32(v, 0x4E);
    v = _mm_shuffle_epi32(v, 0x1B); // reverse the four dwords
    if constexpr (E == 4)
        return v;
    v = _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xB1), 0xB1); // swap words in each dword
    if constexpr (E == 2)
        return v;
    return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8)); // swap bytes in each word
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
    for (; x < count; ++x)
        std::memcpy(dst + x * E, src_last - x * E, E);
}

void reverse_row_any(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count, unsigned e)
{
    for (std::uint32_t x = 0; x < count; ++x)
        std::memcpy(dst + x * e, src_last - static_cast<std::int64_t>(x) * e, e);
}

// ---- transposed walks: out row y runs along a source column. Blocks of 8 (or 4) elements are
// loaded along the contiguous source direction and transposed in registers.

// 8x8 bytes: in[i] holds 8 bytes in its low half; out[j] gets byte j of every in[i].
inline void transpose8x8_u8(const __m128i in[8], std::uint64_t out[8])
{
    __m128i a0 = _mm_unpacklo_epi8(in[0], in[1]), a1 = _mm_unpacklo_epi8(in[2], in[3]);
    __m128i a2 = _mm_unpacklo_epi8(in[4], in[5]), a3 = _mm_unpacklo_epi8(in[6], in[7]);
    __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
    __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
    __m128i c[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2), _mm_unpacklo_epi32(b1, b3),
                    _mm_unpackhi_epi32(b1, b3)};
    for (int k = 0; k < 4; ++k) {
        out[2 * k] = static_cast<std::uint64_t>(_mm_cvtsi128_si64(c[k]));
        out[2 * k + 1] = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(c[k], c[k])));
    }
}

// 8x8 of 16-bit elements.
inline void transpose8x8_u16(__m128i r[8])
{
    __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpackhi_epi16(r[0], r[1]);
    __m128i a2 = _mm_unpacklo_epi16(r[2], r[3]), a3 = _mm_unpackhi_epi16(r[2], r[3]);
    __m128i a4 = _mm_unpacklo_epi16(r[4], r[5]), a5 = _mm_unpackhi_epi16(r[4], r[5]);
    __m128i a6 = _mm_unpacklo_epi16(r[6], r[7]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
    __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
    __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
    __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    r[0] = _mm_unpacklo_epi64(b0, b4);
    r[1] = _mm_unpackhi_epi64(b0, b4);
    r[2] = _mm_unpacklo_epi64(b1, b5);
    r[3] = _mm_unpackhi_epi64(b1, b5);
    r[4] = _mm_unpacklo_epi64(b2, b6);
    r[5] = _mm_unpackhi_epi64(b2, b6);
    r[6] = _mm_unpacklo_epi64(b3, b7);
    r[7] = _mm_unpackhi_epi64(b3, b7);
}

// 4x4 of 32-bit elements.
inline void transpose4x4_u32(__m128i r[4])
{
    __m128i a0 = _mm_unpacklo_epi32(r[0], r[1]), a1 = _mm_unpackhi_epi32(r[0], r[1]);
    __m128i a2 = _mm_unpacklo_epi32(r[2], r[3]), a3 = _mm_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm_unpacklo_epi64(a0, a2);
    r[1] = _mm_unpackhi_epi64(a0, a2);
    r[2] = _mm_unpacklo_epi64(a1, a3);
    r[3] = _mm_unpackhi_epi64(a1, a3);
}

// One B x B block at view (x0, y0), for a grid whose row step is +E or -E (the source is
// contiguous down a view column).
template <unsigned E, bool Stream>
void transpose_block(const std::uint8_t *base, const Grid<std::int64_t> &g, std::uint32_t x0,
                     std::uint32_t y0, std::uint8_t *dst, std::int64_t dst_stride)
{
    const bool descending = g.row < 0;
    if constexpr (E == 1) {
        __m128i in[8];
        for (int i = 0; i < 8; ++i) {
            // Elements (x0 + i, y0 .. y0 + 7): 8 contiguous source bytes.
            const std::uint8_t *p = base + g.at(x0 + i, descending ? y0 + 7 : y0);
            std::uint64_t bytes;
            std::memcpy(&bytes, p, 8);
            if (descending)
                bytes = __builtin_bswap64(bytes);
            in[i] = _mm_cvtsi64_si128(static_cast<long long>(bytes));
        }
        std::uint64_t out[8];
        transpose8x8_u8(in, out);
        for (int j = 0; j < 8; ++j)
            store8<Stream>(dst + (y0 + j) * dst_stride + x0, out[j]);
    } else if constexpr (E == 2) {
        __m128i r[8];
        for (int i = 0; i < 8; ++i) {
            const std::uint8_t *p = base + g.at(x0 + i, descending ? y0 + 7 : y0);
            __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
            r[i] = descending ? reverse_elements<2>(v) : v;
        }
        transpose8x8_u16(r);
        for (int j = 0; j < 8; ++j)
            store16<Stream>(dst + (y0 + j) * dst_stride + x0 * 2, r[j]);
    } else {
        static_assert(E == 4);
        __m128i r[4];
        for (int i = 0; i < 4; ++i) {
            const std::uint8_t *p = base + g.at(x0 + i, descending ? y0 + 3 : y0);
            __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
            r[i] = descending ? reverse_elements<4>(v) : v;
        }
        transpose4x4_u32(r);
        for (int j = 0; j < 4; ++j)
            store16<Stream>(dst + (y0 + j) * dst_stride + x0 * 4, r[j]);
    }
}

void copy_element_range(const std::uint8_t *base, const Grid<std::int64_t> &g, unsigned e,
                        std::uint32_t x_begin, std::uint32_t x_end, std::uint32_t y_begin,
                        std::uint32_t y_end, std::uint8_t *dst, std::int64_t dst_stride)
{
    for (std::uint32_t y = y_begin; y < y_end; ++y) {
        std::uint8_t *out = dst + y * dst_stride;
        for (std::uint32_t x = x_begin; x < x_end; ++x)
            std::memcpy(out + x * e, base + g.at(x, y), e);
    }
}

// A tile writes one cache line (64 bytes) of each of up to 1024 view rows while it reads the
// 64/E source lines those bytes come from: every line fetched or written is used whole before
// it leaves the cache.
template <unsigned E, bool Stream>
void transpose_tiles(const std::uint8_t *base, const Grid<std::int64_t> &g, std::uint8_t *dst,
                     std::int64_t dst_stride, std::uint32_t full_w, std::uint32_t full_h)
{
    constexpr std::uint32_t B = E == 4 ? 4 : 8;
    constexpr std::uint32_t tile_rows = 1024;
    constexpr std::uint32_t tile_cols = 64 / E;
    for (std::uint32_t ty = 0; ty < full_h; ty += tile_rows) {
        const std::uint32_t ty_end = std::min(full_h, ty + tile_rows);
        for (std::uint32_t tx = 0; tx < full_w; tx += tile_cols) {
            const std::uint32_t tx_end = std::min(full_w, tx + tile_cols);
            for (std::uint32_t y0 = ty; y0 < ty_end; y0 += B)
                for (std::uint32_t x0 = tx; x0 < tx_end; x0 += B)
                    transpose_block<E, Stream>(base, g, x0, y0, dst, dst_stride);
        }
    }
}

template <unsigned E>
void transpose_walk(const std::uint8_t *base, const Grid<std::int64_t> &g, std::uint8_t *dst,
                    std::int64_t dst_stride)
{
    constexpr std::uint32_t B = E == 4 ? 4 : 8;
    const std::uint32_t full_w = g.width - g.width % B;
    const std::uint32_t full_h = g.height - g.height % B;
    if (can_stream(dst, dst_stride, static_cast<std::size_t>(g.width) * g.height * E)) {
        transpose_tiles<E, true>(base, g, dst, dst_stride, full_w, full_h);
        _mm_sfence();
    } else {
        transpose_tiles<E, false>(base, g, dst, dst_stride, full_w, full_h);
    }
    // Right and bottom edges that do not fill a block.
    copy_element_range(base, g, E, full_w, g.width, 0, g.height, dst, dst_stride);
    copy_element_range(base, g, E, 0, full_w, full_h, g.height, dst, dst_stride);
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
                std::int64_t dst_stride)
{
    const std::int64_t elem = e;
    // Rows are visited in the order that keeps the source one monotonic stream (a vertical flip
    // walks rows upwards, as a horizontal one walks each row backwards): the hardware prefetcher
    // follows one direction, not a sawtooth.
    const bool upwards = (g.col > 0) != (g.row > 0);
    auto row_at = [&](std::uint32_t i) { return upwards ? g.height - 1 - i : i; };
    if (g.col == elem) {
        for (std::uint32_t i = 0; i < g.height; ++i) {
            const std::uint32_t y = row_at(i);
            std::memcpy(dst + y * dst_stride, base + g.at(0, y), static_cast<std::size_t>(g.width) * e);
        }
        return;
    }
    if (g.col == -elem) {
        const bool stream = can_stream(dst, dst_stride, static_cast<std::size_t>(g.width) * g.height * e);
        for (std::uint32_t i = 0; i < g.height; ++i) {
            const std::uint32_t y = row_at(i);
            const std::uint8_t *last = base + g.at(0, y);
            std::uint8_t *out = dst + y * dst_stride;
            switch (e * 2 + (stream ? 1 : 0)) {
            case 2:
                reverse_row<1, false>(last, out, g.width);
                break;
            case 3:
                reverse_row<1, true>(last, out, g.width);
                break;
            case 4:
                reverse_row<2, false>(last, out, g.width);
                break;
            case 5:
                reverse_row<2, true>(last, out, g.width);
                break;
            case 8:
                reverse_row<4, false>(last, out, g.width);
                break;
            case 9:
                reverse_row<4, true>(last, out, g.width);
                break;
            case 16:
                reverse_row<8, false>(last, out, g.width);
                break;
            case 17:
                reverse_row<8, true>(last, out, g.width);
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
    if (g.row == elem || g.row == -elem) {
        switch (e) {
        case 1:
            return transpose_walk<1>(base, g, dst, dst_stride);
        case 2:
            return transpose_walk<2>(base, g, dst, dst_stride);
        case 4:
            return transpose_walk<4>(base, g, dst, dst_stride);
        default:
            break;
        }
    }
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
            if (pair)
                o[y_off + 2] = luma(pixels.at(x + 1, y));
        }
    }
}

} // namespace g2g::detail
