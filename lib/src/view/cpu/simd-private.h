// SPDX-License-Identifier: LGPL-2.1-or-later
// SIMD building blocks shared by the copy kernels (x86-64 baseline: SSE2).
#pragma once

#include <emmintrin.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <g2g/frame-view.h>

namespace g2g::detail {

// ---- stores: whether a frame's output is written past the caches with non-temporal stores.
// Each output byte is written once and read by another element later, so once source and
// output together no longer fit in the part of an L3 a core can count on (a core complex's
// 32 MiB, less what the rest of the pipeline keeps there), streaming wins: measured at 4K
// (RGBA 33 MB, NV12 12 MB, a cropped NV12 10 MB; transposed, reversed and copied rows alike),
// while 1080p (8 MB and less) is faster through the cache, where the next element reads it.
// sysconf's L3 size is not used: virtual machines report the whole socket's (508 MB here).
constexpr bool streams_output(std::size_t frame_bytes)
{
    return frame_bytes >= (std::size_t{9} << 20);
}

template <bool Stream> inline void store16(std::uint8_t *dst, __m128i v)
{
    if constexpr (Stream)
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst), v);
    else
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), v);
}

// AVX2 kernels are compiled with target attributes and chosen at run time.
inline bool have_avx2()
{
    static const bool supported = __builtin_cpu_supports("avx2");
    return supported;
}

// AVX-512 F + BW + VBMI, checked at run time. G2G_NO_AVX512 (any value) runs the AVX2 / SSE2
// kernels instead: how the tests cover them on a machine that has AVX-512.
inline bool have_avx512()
{
    static const bool supported = !std::getenv("G2G_NO_AVX512") && __builtin_cpu_supports("avx512f") &&
                                  __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
    return supported;
}

// Reverses the order of the 16/E elements of E bytes in a vector.
template <unsigned E> inline __m128i reverse_elements(__m128i v)
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

// Element by element, for edges and odd element sizes.
inline void copy_element_range(const std::uint8_t *base, const Grid<std::int64_t> &g, unsigned e,
                               std::uint32_t x_begin, std::uint32_t x_end, std::uint32_t y_begin,
                               std::uint32_t y_end, std::uint8_t *dst, std::int64_t dst_stride)
{
    for (std::uint32_t y = y_begin; y < y_end; ++y) {
        std::uint8_t *out = dst + y * dst_stride;
        for (std::uint32_t x = x_begin; x < x_end; ++x)
            std::memcpy(out + x * e, base + g.at(x, y), e);
    }
}

} // namespace g2g::detail
