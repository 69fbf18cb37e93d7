// Transposed walks: view rows that run down source columns (rotations by 90 degrees and the
// diagonal flips). Cache-blocked, transposed in registers, streamed past the caches when large.
#pragma once

#include <g2g/frame-view.h>

#include <cstdint>

namespace g2g::detail {

// Copies a grid whose row step is +element_size or -element_size (the source is contiguous down
// each view column). Returns false for element sizes it has no kernel for (the caller then
// copies element by element).
bool transpose_plane(const std::uint8_t *base, const Grid<std::int64_t> &grid, unsigned element_size,
                     std::uint8_t *dst, std::int64_t dst_stride);

} // namespace g2g::detail
