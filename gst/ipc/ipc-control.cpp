// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-control.h"

#include <cmath>

#include "ipc-bytes.h"

namespace g2g::ipc {

namespace {

constexpr std::size_t kSegmentSize = 80;
constexpr std::size_t kTimesSize = 16;

Error refused(std::string what)
{
    return Error(ErrorCode::InvalidArgument, std::move(what));
}

bool usable_rate(double rate)
{
    return std::isfinite(rate) && rate != 0.0;
}

} // namespace

std::vector<std::uint8_t> encode_segment(const GstSegment &segment)
{
    std::vector<std::uint8_t> out;
    put_host(out, static_cast<std::uint32_t>(segment.flags));
    put_host(out, segment.rate);
    put_host(out, segment.applied_rate);
    put_host(out, static_cast<std::uint32_t>(segment.format));
    for (std::uint64_t v : {segment.base, segment.offset, segment.start, segment.stop, segment.time,
                            segment.position, segment.duration})
        put_host(out, v);
    return out;
}

Result<GstSegment> decode_segment(std::span<const std::uint8_t> payload)
{
    if (payload.size() != kSegmentSize)
        return refused("a SEGMENT of " + std::to_string(payload.size()) + " bytes, not " +
                       std::to_string(kSegmentSize));
    Reader reader(payload);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    std::uint32_t flags = 0, format = 0;
    reader.host(flags);
    reader.host(segment.rate);
    reader.host(segment.applied_rate);
    reader.host(format);
    for (guint64 *v : {&segment.base, &segment.offset, &segment.start, &segment.stop, &segment.time,
                       &segment.position, &segment.duration})
        reader.host(*v);
    segment.flags = static_cast<GstSegmentFlags>(flags);
    if (format != GST_FORMAT_TIME)
        return refused("a SEGMENT in format " + std::to_string(format) + ", not TIME");
    if (!usable_rate(segment.rate) || !usable_rate(segment.applied_rate))
        return refused("a SEGMENT of rate " + std::to_string(segment.rate) + " and applied rate " +
                       std::to_string(segment.applied_rate) + ": both must be finite and not zero");
    if (segment.stop != GST_CLOCK_TIME_NONE && segment.start > segment.stop)
        return refused("a SEGMENT starting at " + std::to_string(segment.start) + ", past its stop " +
                       std::to_string(segment.stop));
    return segment;
}

MetaRecord encode_times(const StreamTimes &times)
{
    MetaRecord record;
    record.name = kTimesRecordName;
    put_le(record.payload, times.pts);
    put_le(record.payload, times.dts);
    return record;
}

Result<StreamTimes> decode_times(const MetaRecord &record)
{
    if (record.version != 0 || record.payload.size() != kTimesSize)
        return refused(std::string(kTimesRecordName) + " record of version " +
                       std::to_string(record.version) + " and " + std::to_string(record.payload.size()) +
                       " bytes, not version 0 of " + std::to_string(kTimesSize));
    Reader reader(record.payload);
    StreamTimes times;
    reader.le(times.pts);
    reader.le(times.dts);
    return times;
}

} // namespace g2g::ipc
