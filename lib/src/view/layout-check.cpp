// SPDX-License-Identifier: LGPL-2.1-or-later
#include "layout-check.h"

#include <g2g/converters.h>
#include <g2g/memory-domain.h>
#include <g2g/tensor-view-meta.h>

#include <limits>

#include "frame-view-private.h"

namespace g2g::detail {

std::optional<std::uint64_t> plane_end(std::uint64_t offset, std::uint64_t stride, std::uint64_t rows,
                                       std::uint64_t row_bytes)
{
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    if (rows == 0)
        return offset;
    // offset + stride x (rows - 1) + row_bytes, each step checked before it is taken.
    const std::uint64_t steps = rows - 1;
    if (stride != 0 && steps > kMax / stride)
        return std::nullopt;
    const std::uint64_t span = stride * steps;
    if (span > kMax - row_bytes)
        return std::nullopt;
    if (offset > kMax - (span + row_bytes))
        return std::nullopt;
    return offset + span + row_bytes;
}

std::string byte_range_text(std::uint64_t offset, std::optional<std::uint64_t> end)
{
    if (!end)
        return "bytes from " + std::to_string(offset) + " on, past 2^64";
    return "bytes " + std::to_string(offset) + ".." + std::to_string(*end);
}

Result<void> check_destination(std::string_view caller, const GstVideoInfo &dense, const void *const dst[],
                               const gint dst_stride[], const gsize dst_size[])
{
    const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&dense);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&dense); ++p) {
        const std::uint64_t rows = plane_rows(dense, p);
        const std::uint64_t row_bytes = plane_row_bytes(dense, p);
        const std::string index = "[" + std::to_string(p) + "]";
        const std::string plane = std::string(caller) + ": plane " + std::to_string(p) + " of this " +
                                  gst_video_format_to_string(format) + " frame is " + std::to_string(rows) +
                                  (rows == 1 ? " row" : " rows") + " of " + std::to_string(row_bytes) +
                                  " bytes";
        if (!dst[p])
            return Error(ErrorCode::InvalidArgument, plane + "; its destination dst" + index + " is NULL");
        if (dst_stride[p] <= 0 || static_cast<std::uint64_t>(dst_stride[p]) < row_bytes)
            return Error(ErrorCode::InvalidArgument, plane + "; dst_stride" + index + " is " +
                                                         std::to_string(dst_stride[p]) +
                                                         ", shorter than a row: the rows would overlap");
        if (!dst_size)
            continue;
        // A stride of gint and rows of a GstVideoInfo: no overflow in 64 bits, checked all the same.
        const std::optional<std::uint64_t> needed =
            plane_end(0, static_cast<std::uint64_t>(dst_stride[p]), rows, row_bytes);
        if (!needed || dst_size[p] < *needed)
            return Error(ErrorCode::InvalidArgument,
                         plane + "; at dst_stride" + index + " = " + std::to_string(dst_stride[p]) +
                             " they take " + (needed ? std::to_string(*needed) : std::string("over 2^64")) +
                             " bytes but dst_size" + index + " is " + std::to_string(dst_size[p]));
    }
    return {};
}

Result<void> check_host_readable(std::string_view caller, GstBuffer *source)
{
    Result<MemoryDomain> domain = MemoryDomain::from_buffer(source);
    // Memory of a type g2g does not know (a display's pool under system-memory caps) is tried
    // through a mapping, as GStreamer's own video elements do; a failed map says so then.
    if (!domain)
        return {};
    const MemoryDomainKind kind = domain->kind();
    if (!is_host_domain(kind))
        return wrong_domain_error(caller, {MemoryDomainKind::System}, kind);
    for (guint i = 0, n = gst_buffer_n_memory(source); i < n; ++i) {
        if (!GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(source, i), GST_MEMORY_FLAG_NOT_MAPPABLE))
            continue;
        // A DMA-BUF no mapping may read (a tiled layout): what a host reader is told, and why. A
        // view of one is refused as that DMA-BUF: the view changes nothing about its memory.
        if (!tensor_view_of(source)) {
            Result<SystemBytes> refusal = domain->require_system_slice(caller);
            if (!refusal)
                return refusal.error();
        }
        return wrong_domain_error(caller, {MemoryDomainKind::System}, kind);
    }
    return {};
}

Error for_caller(std::string_view caller, const Error &failure)
{
    return Error(failure.code(), std::string(caller) + ": " + failure.message());
}

} // namespace g2g::detail
