// Reversed rows (horizontal flips) streamed past the caches with AVX-512 (reverse-avx512.cpp).
#pragma once

#include <cstdint>

namespace g2g::detail {

// The `count` elements of E bytes (1, 2, 4 or 8) of a row that ends at src_last (the source
// walks backwards), written forwards to dst: every whole output line with a non-temporal
// store, the partial lines at the ends through the cache; the caller fences. False, having
// written nothing, when dst is not a multiple of E from a line (no line is the row's alone).
// Only on a CPU with have_avx512().
template <unsigned E>
bool reverse_row_streamed_avx512(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count);

} // namespace g2g::detail
