// SPDX-License-Identifier: LGPL-2.1-or-later
// NEW_BUFFER's timestamps, as unixfdsink writes them and unixfdsrc reads them (gst/unixfd 1.24.3
// on): the clock time of the frame's running time, moved onto the monotonic clock by the
// pipeline clock's offset from it. unixfd's offset is the clock's time minus the monotonic time and
// both ends add it where one should subtract; copied exactly, so that each end agrees with
// unixfd's other end (the two agree with the monotonic clock whenever the pipeline clock is it,
// GStreamer's default).
#pragma once

#include <gst/gst.h>

#include <cstdint>

namespace g2g::ipc {

// `clock`'s time minus the monotonic clock's (0 for the monotonic system clock and without a clock).
GstClockTimeDiff clock_offset(GstClock *clock);

// The wire's time of `timestamp` in `segment` (GST_CLOCK_TIME_NONE stays so, as does a timestamp
// outside the segment).
std::uint64_t to_wire(const GstSegment &segment, GstClockTime timestamp, GstClockTime base_time,
                      GstClockTime latency, GstClockTimeDiff offset);

// The receiving pipeline's running time of a wire time (0 for times before its base time).
GstClockTime from_wire(std::uint64_t wire, GstClockTime base_time, GstClockTimeDiff offset);

} // namespace g2g::ipc
