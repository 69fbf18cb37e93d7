// SPDX-License-Identifier: LGPL-2.1-or-later
// g2g's messages beside unixfd's (ipc-wire.h): types unixfdsink and unixfdsrc ignore, so a g2g
// peer speaks to them in their format and to g2g's in more. A consumer says which caps it takes
// (HELLO), the producer answers with the caps of its route (unixfd's CAPS) or why it has none
// (REFUSED), and carries the stream's segment and flushes; each frame's own timestamps travel in
// a meta record (unixfd's NEW_BUFFER holds clock times, see ipc-clock.h).
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <g2g/error.h>

#include "ipc-wire.h"

namespace g2g::ipc {

enum class ControlType : std::uint32_t {
    Hello = 16,      // consumer to producer: the caps it takes (gst_caps_to_string and its NUL)
    Refused = 17,    // producer to consumer: why no caps it takes can carry the stream (text, NUL)
    Segment = 18,    // producer to consumer: the stream's segment (encode_segment)
    FlushStart = 19, // producer to consumer: no payload
    FlushStop = 20,  // producer to consumer: one byte, reset-time
    // A lane (ipc-lane.h): the consumer asks before its HELLO; the producer answers with the lane's,
    // the bell's and the doorbell's descriptors (no payload), and from then on writes every message
    // to the lane, sending on the socket only the descriptors of a record (DESCRIPTORS, just before
    // the record that names them).
    WantLane = 21,
    Lane = 22,
    Descriptors = 23,
};

constexpr MessageType message_type(ControlType type)
{
    return static_cast<MessageType>(type);
}

// A text payload (HELLO's caps, REFUSED's reason) is unixfd's CAPS payload: encode_caps and
// decode_caps.

// GstSegment's fields in the host's order: flags, rate, applied rate, format, base, offset, start,
// stop, time, position, duration (80 bytes).
std::vector<std::uint8_t> encode_segment(const GstSegment &segment);
// Refused: another length, a format other than TIME, a rate or applied rate that is zero or not
// finite, a start past the stop.
Result<GstSegment> decode_segment(std::span<const std::uint8_t> payload);

// The frame's timestamps as its producer's segment has them (NEW_BUFFER's are clock times).
struct StreamTimes {
    std::uint64_t pts = UINT64_MAX;
    std::uint64_t dts = UINT64_MAX;
};
inline constexpr const char *kTimesRecordName = "G2gIpcStreamTimes";
MetaRecord encode_times(const StreamTimes &times);
// Refused: another version or length.
Result<StreamTimes> decode_times(const MetaRecord &record);

} // namespace g2g::ipc
