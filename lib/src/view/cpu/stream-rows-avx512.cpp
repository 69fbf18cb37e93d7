// SPDX-License-Identifier: LGPL-2.1-or-later
// Rows of frames that are streamed past the caches (see streams_output), copied as they are or
// reversed (horizontal flips), with AVX-512: every whole output line leaves through one
// full-line non-temporal store.
//
// Why: a row's output is not line-aligned in general (a 2160-byte NV12 row starts anywhere in
// a line). Loads may start anywhere, stores should not: the output line at an aligned address
// is 64 contiguous source bytes, read forwards or backwards, one unaligned load (and for a
// reversal one permute, VBMI's vpermb) away, whatever the row's alignment. Only the partial
// lines at the row's two ends go through the cache. (memcpy would stream only rows larger than
// three quarters of the L3, by glibc's rule, i.e. never for a video row.)
#include "stream-rows-private.h"

// GCC 12's AVX-512 intrinsics build their "undefined" operands by self-initialisation, which
// its own -Wmaybe-uninitialized then reports inside the headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

#define G2G_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))

namespace g2g::detail {
namespace {

constexpr unsigned kLine = 64;

// vpermb's index that reverses the order of the E-byte elements of a vector (the bytes within
// an element keep theirs).
template <unsigned E> constexpr std::array<std::uint8_t, kLine> reversing_index()
{
    std::array<std::uint8_t, kLine> index{};
    for (unsigned i = 0; i < kLine; ++i)
        index[i] = static_cast<std::uint8_t>((kLine / E - 1 - i / E) * E + i % E);
    return index;
}

// `lines` whole lines to the line-aligned dst: from src forwards, or (Reverse) the E-byte
// elements ending at src walking backwards.
template <bool Reverse, unsigned E>
G2G_AVX512 void whole_lines(const std::uint8_t *src, std::uint8_t *dst, std::size_t lines)
{
    static constexpr std::array<std::uint8_t, kLine> order = reversing_index<E>();
    const __m512i index = _mm512_loadu_si512(order.data());
    for (std::size_t i = 0; i < lines; ++i) {
        __m512i line;
        if constexpr (Reverse)
            line = _mm512_permutexvar_epi8(index, _mm512_loadu_si512(src - (i + 1) * kLine + E));
        else
            line = _mm512_loadu_si512(src + i * kLine);
        _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + i * kLine), line);
    }
}

// `count` (fewer than 64 / E) elements ending at src_last, reversed into dst through the cache:
// a row's partial lines at either end. One masked load, one permute and one masked store: the
// bytes around the row's are neither read nor written. (Element by element, the ends of each
// row cost as much as its whole lines: NV12 180 and horizontal flips into rows starting 16 bytes
// into a line, as a malloc'd destination's do, took 1.6-2x as long as a copy.)
template <unsigned E>
G2G_AVX512 void reverse_partial_line(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count)
{
    if (count == 0)
        return;
    static constexpr std::array<std::uint8_t, kLine> order = reversing_index<E>();
    const unsigned bytes = count * E;
    // The 64 bytes that end with src_last's element; the row's are the last `bytes` of them.
    const std::uint8_t *block = src_last + E - kLine;
    const __m512i elements = _mm512_maskz_loadu_epi8(~__mmask64{0} << (kLine - bytes), block);
    const __m512i reversed = _mm512_permutexvar_epi8(_mm512_loadu_si512(order.data()), elements);
    _mm512_mask_storeu_epi8(dst, ~__mmask64{0} >> (kLine - bytes), reversed);
}

// Bytes from dst to its next line boundary.
inline unsigned to_line(const std::uint8_t *dst)
{
    return (kLine - reinterpret_cast<std::uintptr_t>(dst) % kLine) % kLine;
}

} // namespace

void copy_row_streamed_avx512(const std::uint8_t *src, std::uint8_t *dst, std::size_t bytes)
{
    const std::size_t head = std::min<std::size_t>(bytes, to_line(dst));
    const std::size_t lines = (bytes - head) / kLine, tail = head + lines * kLine;
    std::memcpy(dst, src, head);
    whole_lines<false, 1>(src + head, dst + head, lines);
    std::memcpy(dst + tail, src + tail, bytes - tail);
}

template <unsigned E>
bool reverse_row_streamed_avx512(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count)
{
    if (to_line(dst) % E != 0)
        return false; // a line boundary inside an element: no whole line is the row's alone
    const std::uint32_t head = std::min<std::uint32_t>(count, to_line(dst) / E);
    const std::uint32_t lines = (count - head) / (kLine / E);
    const std::uint32_t tail = head + lines * (kLine / E);
    reverse_partial_line<E>(src_last, dst, head); // the ends through the cache
    whole_lines<true, E>(src_last - static_cast<std::ptrdiff_t>(head) * E, dst + head * E, lines);
    reverse_partial_line<E>(src_last - static_cast<std::ptrdiff_t>(tail) * E, dst + tail * E, count - tail);
    return true;
}

template bool reverse_row_streamed_avx512<1>(const std::uint8_t *, std::uint8_t *, std::uint32_t);
template bool reverse_row_streamed_avx512<2>(const std::uint8_t *, std::uint8_t *, std::uint32_t);
template bool reverse_row_streamed_avx512<4>(const std::uint8_t *, std::uint8_t *, std::uint32_t);
template bool reverse_row_streamed_avx512<8>(const std::uint8_t *, std::uint8_t *, std::uint32_t);

} // namespace g2g::detail
