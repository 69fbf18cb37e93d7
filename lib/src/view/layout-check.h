// SPDX-License-Identifier: LGPL-2.1-or-later
// The one check of a caller's frame layout that every entry point shares (the C API's
// g2g_buffer_materialize_into and g2g_frame_materialize_into, FrameView::materialize_into,
// TensorFrame::materialize_into, g2g_dmabuf_wrap, FrameView::of_frame, and so Python): where a
// plane's bytes end, computed without overflow; whether caller destinations can hold a frame's
// planes; whether the CPU can read a source frame at all. One text per fault, whichever API the
// caller came through: `caller` (the function the application called) opens it, then the plane and
// the argument that is wrong.
#pragma once

#include <gst/video/video.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <g2g/error.h>

namespace g2g::detail {

// One past the last byte of a plane at `offset` of `rows` rows `stride` bytes apart, each
// `row_bytes` long (no rows: `offset`); nullopt where that is past 2^64 (a wrapped sum would pass
// any "ends inside" test).
std::optional<std::uint64_t> plane_end(std::uint64_t offset, std::uint64_t stride, std::uint64_t rows,
                                       std::uint64_t row_bytes);

// "bytes 10..20" of a plane from `offset` to `end`, or "bytes from 18446744073709551515 on, past
// 2^64" where the end wrapped: never a wrapped number.
std::string byte_range_text(std::uint64_t offset, std::optional<std::uint64_t> end);

// Whether destination planes `dst` (dst_stride bytes between rows, dst_size bytes each where the
// caller says; `dst_size` nullptr where the API takes no sizes) hold the planes of a dense frame
// laid out as `dense`: each address set, each stride at least a row long (shorter strides overlap
// the rows; a stride of 0 or below writes every row over the first), each size at least
// (rows - 1) x stride + a row. Refused before a byte is written.
Result<void> check_destination(std::string_view caller, const GstVideoInfo &dense, const void *const dst[],
                               const gint dst_stride[], const gsize dst_size[]);

// Whether the CPU can read `source` through a mapping: host memory (System, SystemView, a linear
// mappable DMA-BUF). Else the refusal every host reader gives: the domain that arrived and the
// converter to insert (`caller reads system memory but received a VulkanTexture frame: insert
// vulkandownload before it, ...`); for a tiled DMA-BUF, why.
Result<void> check_host_readable(std::string_view caller, GstBuffer *source);

// `failure` with `caller: ` before its text (the code kept), for errors that do not name the
// caller themselves.
Error for_caller(std::string_view caller, const Error &failure);

} // namespace g2g::detail
