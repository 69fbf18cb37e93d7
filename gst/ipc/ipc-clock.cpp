// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-clock.h"

namespace g2g::ipc {

namespace {

bool is_monotonic_system_clock(GstClock *clock)
{
    if (!GST_IS_SYSTEM_CLOCK(clock))
        return false;
    GstClockType type = GST_CLOCK_TYPE_REALTIME;
    g_object_get(clock, "clock-type", &type, nullptr);
    return type == GST_CLOCK_TYPE_MONOTONIC;
}

} // namespace

GstClockTimeDiff clock_offset(GstClock *clock)
{
    if (!clock || is_monotonic_system_clock(clock))
        return 0;
    return GST_CLOCK_DIFF(static_cast<GstClockTime>(g_get_monotonic_time()) * 1000,
                          gst_clock_get_time(clock));
}

std::uint64_t to_wire(const GstSegment &segment, GstClockTime timestamp, GstClockTime base_time,
                      GstClockTime latency, GstClockTimeDiff offset)
{
    if (!GST_CLOCK_TIME_IS_VALID(timestamp))
        return GST_CLOCK_TIME_NONE;
    guint64 running = 0;
    const int sign = gst_segment_to_running_time_full(&segment, GST_FORMAT_TIME, timestamp, &running);
    if (sign == 0)
        return GST_CLOCK_TIME_NONE;
    GstClockTime time;
    if (sign > 0)
        time = base_time + running;
    else
        time = base_time > running ? base_time - running : 0;
    time += latency;
    if (offset < 0 && static_cast<GstClockTime>(-offset) > time)
        return 0;
    return time + offset;
}

GstClockTime from_wire(std::uint64_t wire, GstClockTime base_time, GstClockTimeDiff offset)
{
    if (!GST_CLOCK_TIME_IS_VALID(wire))
        return GST_CLOCK_TIME_NONE;
    GstClockTimeDiff time = static_cast<GstClockTimeDiff>(wire) - offset;
    if (time < static_cast<GstClockTimeDiff>(base_time))
        return 0;
    return static_cast<GstClockTime>(time) - base_time;
}

} // namespace g2g::ipc
