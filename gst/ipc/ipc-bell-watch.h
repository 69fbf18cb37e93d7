// SPDX-License-Identifier: LGPL-2.1-or-later
// How a consumer on a lane waits for its producer's bell (ipc-lane.h), with g2gipcsrc's spin-us.
//
// Asleep on the futex, a consumer costs its producer a wake-up inside the one FUTEX_WAKE of each
// frame (the kernel's work for each sleeper, charged to the waker), and costs the frame the host's
// wake-up latency (100 us where idle cores sleep deeply). Those are what is left of the producer's
// CPU that grows with its consumers, and of the latency above the frame's own work.
//
// With a window (spin-us > 0), a consumer whose frames come at a steady rate sleeps on the futex
// only until the window before the next frame is due, then watches the bell word without sleeping
// until it rings or the window ends: the producer's FUTEX_WAKE finds it awake (no wake-up to pay)
// and it sees the ring at once. When is "due": each of the last frames' rings, carried forward by
// the median interval between them to the next frame, and the median of those (one frame's ring
// is late by the producer's own scheduling, and the next is not: from the last ring alone the
// window would miss by that). Each ring at the time the producer wrote beside the bell word as it
// rang: the consumer's own clock would be late by its wake-up. A frame earlier than the window
// still wakes it (the producer pays that one); one later than the window finds it asleep again, as
// without a window. The price is the consumer's CPU: about the window once a frame. Between two
// looks at the word the consumer yields its core, so that where consumers watch on every core the
// producer's threads still get one.
#pragma once

#include <cstdint>
#include <ctime>
#include <deque>
#include <functional>

#include "ipc-lane.h"

namespace g2g::ipc {

class BellWatch {
public:
    // `spin_us`: the window (0: always asleep on the futex).
    explicit BellWatch(std::uint32_t spin_us = 0) : spin_ns_(std::int64_t(spin_us) * 1000) {}

    // A frame's record taken just after a wait saw the bell ring (not one that was waiting already:
    // when it came is not known). `rang_ns`: when the producer says it rang (Bell::rang_ns), taken
    // where it lies within the last second (else: now, late by this consumer's wake-up).
    void frame_seen(std::int64_t rang_ns);
    // A frame's record that was waiting already: the consumer is behind, and the next due time is
    // not known until it catches up.
    void behind() { behind_ = true; }

    // Waits while `bell` reads `seen`, at most `timeout_ms`, or until `stop` says so (checked while
    // watching; an unlock also wakes the futex). True where it rang (or may have); false where the
    // time ran out.
    bool wait(const Bell &bell, std::uint32_t seen, int timeout_ms, const std::function<bool()> &stop);

    // When the next frame is due (CLOCK_MONOTONIC ns), or -1 where no steady rate is known.
    std::int64_t due_ns() const;

    // Rings this consumer saw while watching (the producer woke no one), and rings that woke it
    // from the futex: how well the window fits the stream (g2gipcsrc's stats).
    std::uint64_t rings_watched() const { return watched_; }
    std::uint64_t rings_woken() const { return woken_; }

    static std::int64_t now_ns();

private:
    static constexpr std::size_t kRings = 9; // the last frames' ring times kept
    std::int64_t spin_ns_;
    bool behind_ = true;             // the last frame's record was waiting already
    std::deque<std::int64_t> rings_; // CLOCK_MONOTONIC ns, oldest first
    std::uint64_t watched_ = 0, woken_ = 0;
};

} // namespace g2g::ipc
