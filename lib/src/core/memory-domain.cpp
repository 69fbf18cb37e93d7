// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/memory-domain.h>

#include <g2g/classify.h>
#include <g2g/converters.h>
#include <g2g/dmabuf.h>
#include <g2g/tensor-view-meta.h>

#include <string>

#include "core/domain-table.h"
#include "core/log-private.h"

namespace g2g {
namespace {

// How a CPU reads this frame. A view (meta:G2gTensorView) over memory the CPU maps (system memory,
// a mappable DMA-BUF) is materialized: its bytes as they are would be misread. A view of system
// memory classifies as SystemView; one of a DMA-BUF stays DmaBuf, and is read the same way.
detail::HostRead host_read(MemoryDomainKind kind, GstBuffer *buffer)
{
    const detail::HostRead read = detail::domain_info(kind).host_read;
    if ((read == detail::HostRead::InPlace || read == detail::HostRead::WhenMappable) &&
        tensor_view_of(buffer))
        return detail::HostRead::Materialized;
    return read;
}

// Frames whose memory a CPU maps as it is: System always, DmaBuf when its memory maps.
bool maps_in_place(detail::HostRead read)
{
    return read == detail::HostRead::InPlace || read == detail::HostRead::WhenMappable;
}

Error logged(Error error, GstObject *log_object)
{
    GST_CAT_ERROR_OBJECT(G2G_CAT, log_object, "%s", error.message().c_str());
    return error;
}

} // namespace

Result<MemoryDomain> MemoryDomain::from_buffer(GstBuffer *buffer)
{
    return adopt(buffer ? gst_buffer_ref(buffer) : nullptr);
}

Result<MemoryDomain> MemoryDomain::adopt(GstBuffer *buffer)
{
    BufferRef owned = BufferRef::adopt(buffer);
    Result<MemoryDomainKind> kind = classify_buffer(owned.get());
    if (!kind)
        return kind.error();
    return MemoryDomain(std::move(owned), *kind);
}

Result<SystemBytes> MemoryDomain::require_system_slice(std::string_view category, GstObject *log_object) const
{
    // A view's bytes are strided: handing them out as a dense slice would misread them.
    const detail::HostRead read = host_read(kind_, buffer_.get());
    if (read == detail::HostRead::Materialized)
        return logged(wrong_domain_error(category, {MemoryDomainKind::System}, MemoryDomainKind::SystemView),
                      log_object);
    if (maps_in_place(read)) {
        if (std::optional<SystemBytes> bytes = SystemBytes::map(buffer_, true))
            return std::move(*bytes);
        if (read == detail::HostRead::InPlace)
            return logged(Error(ErrorCode::MapFailed, std::string(category) + " could not map a " +
                                                          std::string(name(kind_)) + " frame for reading"),
                          log_object);
        // A DMABuf that cannot be mapped needs an importer, like any device frame.
    }
    Error refusal = wrong_domain_error(category, {MemoryDomainKind::System}, kind_);
    if (kind_ == MemoryDomainKind::DmaBuf) {
        // Say why where the frame says it: a tiled layout no mapping may read as rows.
        if (Result<dmabuf::FrameLayout> layout = dmabuf::layout_of(buffer_.get());
            layout && !layout->format.linear())
            refusal =
                Error(refusal.code(), refusal.message() + " (its DRM format " + layout->format.to_string() +
                                          " is not linear: its bytes are tiles, not rows, and g2g never "
                                          "reads them through a mapping)");
    }
    return logged(std::move(refusal), log_object);
}

Result<SystemBytes> MemoryDomain::require_system_bytes(std::string_view category, GstObject *log_object) const
{
    if (host_read(kind_, buffer_.get()) != detail::HostRead::Materialized)
        return require_system_slice(category, log_object);
    // The one copy a strided chain pays: the view, materialized densely.
    Result<BufferRef> dense = tensor_view_of(buffer_.get())->materialize(buffer_.get());
    if (!dense)
        return logged(
            Error(dense.error().code(), std::string(category) + " could not materialize a view of a " +
                                            std::string(name(kind_)) + " frame: " + dense.error().message()),
            log_object);
    if (std::optional<SystemBytes> bytes = SystemBytes::map(std::move(*dense), false))
        return std::move(*bytes);
    return logged(Error(ErrorCode::MapFailed, std::string(category) + " could not map a materialized frame"),
                  log_object);
}

std::optional<SystemBytes> MemoryDomain::as_system_slice() const
{
    if (!maps_in_place(host_read(kind_, buffer_.get())))
        return std::nullopt;
    return SystemBytes::map(buffer_, true);
}

bool buffer_is_shareable(GstBuffer *buffer)
{
    for (guint i = 0, n = gst_buffer_n_memory(buffer); i < n; ++i) {
        if (GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(buffer, i), GST_MEMORY_FLAG_NO_SHARE))
            return false;
    }
    return true;
}

bool MemoryDomain::is_shareable() const
{
    return buffer_is_shareable(buffer_.get());
}

Result<WritableSystemBytes> MemoryDomain::as_mut_system_slice(std::string_view category,
                                                              GstObject *log_object)
{
    const detail::HostRead read = host_read(kind_, buffer_.get());
    if (!maps_in_place(read))
        return logged(
            wrong_domain_error(category, {MemoryDomainKind::System},
                               read == detail::HostRead::Materialized ? MemoryDomainKind::SystemView : kind_),
            log_object);
    // Our own GstBuffer first (a shallow copy when another share holds it), then a write map:
    // GStreamer copies every memory another buffer can see, or that is read-only, into this
    // buffer alone. That is the copy-on-write; the other shares keep the original bytes.
    buffer_.reset(gst_buffer_make_writable(buffer_.release()));
    GstMapInfo map = GST_MAP_INFO_INIT;
    if (!gst_buffer_map(buffer_.get(), &map, GST_MAP_READWRITE))
        return logged(Error(ErrorCode::MapFailed, std::string(category) + " could not map a " +
                                                      std::string(name(kind_)) + " frame for writing"),
                      log_object);
    return WritableSystemBytes(buffer_.get(), map);
}

} // namespace g2g
