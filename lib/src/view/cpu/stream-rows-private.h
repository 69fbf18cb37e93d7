// SPDX-License-Identifier: LGPL-2.1-or-later
// Rows copied or reversed past the caches with AVX-512 (stream-rows-avx512.cpp): every whole
// output line with one non-temporal store, the partial lines at a row's ends through the cache.
// Only on a CPU with have_avx512(); the caller fences (_mm_sfence) after its last row.
#pragma once

#include <cstddef>
#include <cstdint>

namespace g2g::detail {

// `bytes` bytes from src to dst.
void copy_row_streamed_avx512(const std::uint8_t *src, std::uint8_t *dst, std::size_t bytes);

// The `count` elements of E bytes (1, 2, 4 or 8) of a row that ends at src_last (the source
// walks backwards), written forwards to dst. False, having written nothing, when dst is not a
// multiple of E from a line (no line would be the row's alone).
template <unsigned E>
bool reverse_row_streamed_avx512(const std::uint8_t *src_last, std::uint8_t *dst, std::uint32_t count);

} // namespace g2g::detail
