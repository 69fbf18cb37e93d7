// Reversed rows (horizontal flips) of frames that are streamed past the caches, with AVX-512:
// every whole output line leaves through one full-line non-temporal store.
//
// Why: a reversed row is written front to back, but its pieces are not line-aligned in
// general (a 2160-byte NV12 row starts anywhere in a line). Loads may start anywhere, stores
// should not: the output line at an aligned address is 64 contiguous source bytes read
// backwards, one unaligned load and one permute (VBMI's vpermb) away, whatever the row's
// alignment. Only the partial lines at the row's two ends go through the cache.
#include "reverse-private.h"

// GCC 12's AVX-512 intrinsics build their "undefined" operands by self-initialisation, which
// its own -Wmaybe-uninitialized then reports inside the headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

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

// `count` elements through the cache, the first at src_last, the source walking backwards.
template <unsigned E>
void reverse_elements(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count)
{
    for (std::uint32_t x = 0; x < count; ++x)
        std::memcpy(dst + x * E, src_last - static_cast<std::ptrdiff_t>(x) * E, E);
}

template <unsigned E>
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void
whole_lines(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count)
{
    constexpr unsigned per_line = kLine / E;
    static constexpr std::array<std::uint8_t, kLine> order = reversing_index<E>();
    const __m512i index = _mm512_loadu_si512(order.data());
    for (std::uint32_t x = 0; x + per_line <= count; x += per_line) {
        const std::uint8_t *block = src_last - (x + per_line - 1) * E; // the line's bytes, lowest first
        _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + x * E),
                            _mm512_permutexvar_epi8(index, _mm512_loadu_si512(block)));
    }
}

} // namespace

template <unsigned E>
bool reverse_row_streamed_avx512(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count)
{
    const unsigned to_line = (kLine - reinterpret_cast<std::uintptr_t>(dst) % kLine) % kLine;
    if (to_line % E != 0)
        return false; // a line boundary inside an element: no whole line is the row's alone
    const std::uint32_t head = std::min<std::uint32_t>(count, to_line / E);
    const std::uint32_t lines = (count - head) / (kLine / E);
    const std::uint32_t tail = head + lines * (kLine / E);
    reverse_elements<E>(src_last, dst, head);
    whole_lines<E>(src_last - static_cast<std::ptrdiff_t>(head) * E, dst + head * E, count - head);
    reverse_elements<E>(src_last - static_cast<std::ptrdiff_t>(tail) * E, dst + tail * E, count - tail);
    return true;
}

template bool reverse_row_streamed_avx512<1>(const std::uint8_t *, std::uint8_t *, std::uint32_t);
template bool reverse_row_streamed_avx512<2>(const std::uint8_t *, std::uint8_t *, std::uint32_t);
template bool reverse_row_streamed_avx512<4>(const std::uint8_t *, std::uint8_t *, std::uint32_t);
template bool reverse_row_streamed_avx512<8>(const std::uint8_t *, std::uint8_t *, std::uint32_t);

} // namespace g2g::detail
