// SIMD building blocks shared by the copy kernels (x86-64 baseline: SSE2).
#pragma once

#include <emmintrin.h>

#include <cstdint>
#include <cstring>
#include <unistd.h>

#include <g2g/frame-view.h>

namespace g2g::detail {

// ---- stores: frames larger than the caches are written around them (non-temporal stores),
// so no cache line of the destination is read before it is overwritten. The threshold follows
// glibc's memcpy: three quarters of the last-level cache. Below it the output is better left
// in the cache for its next reader (and streaming past a large L3 only slows the copy down).
inline std::size_t stream_threshold()
{
    static const std::size_t threshold = [] {
        const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        return l3 > 0 ? static_cast<std::size_t>(l3) / 4 * 3 : std::size_t{8} << 20;
    }();
    return threshold;
}

template <bool Stream> inline void store16(std::uint8_t *dst, __m128i v)
{
    if constexpr (Stream)
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst), v);
    else
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), v);
}

// Streaming needs 16-byte aligned rows: the destination and its stride.
inline bool can_stream(const std::uint8_t *dst, std::int64_t dst_stride, std::size_t bytes)
{
    return bytes >= stream_threshold() && (reinterpret_cast<std::uintptr_t>(dst) % 16) == 0 &&
           dst_stride % 16 == 0;
}

// AVX2 kernels are compiled with target attributes and chosen at run time.
inline bool have_avx2()
{
    static const bool supported = __builtin_cpu_supports("avx2");
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
