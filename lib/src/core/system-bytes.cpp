// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/memory-domain.h>

#include <utility>

#include "platform/platform.h"

namespace g2g {
namespace {

// A DMA-BUF's CPU reads are bracketed (DMA_BUF_IOCTL_SYNC); other memory ignores these.
void begin_reads(GstBuffer *buffer)
{
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i)
        platform::dmabuf::begin_cpu_read(gst_buffer_peek_memory(buffer, i));
}

void end_reads(GstBuffer *buffer)
{
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i)
        platform::dmabuf::end_cpu_read(gst_buffer_peek_memory(buffer, i));
}

} // namespace

SystemBytes::SystemBytes(BufferRef buffer, const GstMapInfo &map, bool borrowed)
    : buffer_(std::move(buffer)), map_(map), borrowed_(borrowed)
{
}

SystemBytes::SystemBytes(SystemBytes &&other) noexcept
    : buffer_(std::move(other.buffer_)), map_(other.map_), borrowed_(other.borrowed_)
{
    other.map_ = GST_MAP_INFO_INIT;
}

SystemBytes &SystemBytes::operator=(SystemBytes &&other) noexcept
{
    if (this != &other) {
        unmap();
        buffer_ = std::move(other.buffer_);
        map_ = other.map_;
        borrowed_ = other.borrowed_;
        other.map_ = GST_MAP_INFO_INIT;
    }
    return *this;
}

SystemBytes::~SystemBytes()
{
    unmap();
}

void SystemBytes::unmap()
{
    if (buffer_ && map_.memory) {
        gst_buffer_unmap(buffer_.get(), &map_);
        end_reads(buffer_.get());
    }
    map_ = GST_MAP_INFO_INIT;
}

std::optional<SystemBytes> SystemBytes::map(BufferRef buffer, bool borrowed)
{
    GstMapInfo map = GST_MAP_INFO_INIT;
    if (buffer && gst_buffer_n_memory(buffer.get()) == 0) // no bytes: an empty, valid slice
        return SystemBytes(std::move(buffer), map, borrowed);
    if (!buffer)
        return std::nullopt;
    begin_reads(buffer.get());
    if (!gst_buffer_map(buffer.get(), &map, GST_MAP_READ)) {
        end_reads(buffer.get());
        return std::nullopt;
    }
    return SystemBytes(std::move(buffer), map, borrowed);
}

WritableSystemBytes::WritableSystemBytes(WritableSystemBytes &&other) noexcept
    : buffer_(std::exchange(other.buffer_, nullptr)), map_(other.map_)
{
}

WritableSystemBytes::~WritableSystemBytes()
{
    if (buffer_)
        gst_buffer_unmap(buffer_, &map_);
}

} // namespace g2g
