// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-bell-watch.h"

#include <sched.h>

#include <algorithm>
#include <array>

namespace g2g::ipc {

namespace {

// Between two looks at the bell: the core is given to any thread waiting for it (the producer's,
// where consumers watch on every core at once), else this one goes on at once.
inline void relax()
{
    sched_yield();
}

} // namespace

std::int64_t BellWatch::now_ns()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return std::int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

void BellWatch::frame_seen(std::int64_t rang_ns)
{
    // The producer's word is trusted only as far as it is plausible: a lie moves this consumer's
    // window (its own CPU), never past a second.
    const std::int64_t now = now_ns();
    const std::int64_t at = rang_ns <= now && rang_ns > now - 1000000000 ? rang_ns : now;
    // A gap of more than a second (a pause), or a frame after others were waiting, starts again.
    if (behind_ || (!rings_.empty() && (at <= rings_.back() || at - rings_.back() > 1000000000)))
        rings_.clear();
    behind_ = false;
    rings_.push_back(at);
    if (rings_.size() > kRings)
        rings_.pop_front();
}

namespace {

// The median of the first `count` of `values` (reordered), with no allocation: once a frame.
template <std::size_t N> std::int64_t median(std::array<std::int64_t, N> &values, std::size_t count)
{
    std::nth_element(values.begin(), values.begin() + count / 2, values.begin() + count);
    return values[count / 2];
}

} // namespace

std::int64_t BellWatch::due_ns() const
{
    const std::size_t rings = rings_.size();
    if (rings < 4)
        return -1;
    std::array<std::int64_t, kRings> values{};
    for (std::size_t i = 1; i < rings; ++i)
        values[i - 1] = rings_[i] - rings_[i - 1];
    const std::int64_t period = median(values, rings - 1);
    if (period < 100000) // under 0.1 ms: no rate to watch for
        return -1;
    // Each ring carried forward to the frame after the last (a frame dropped between counts whole
    // periods), then the median.
    const std::int64_t last = rings_.back();
    for (std::size_t i = 0; i < rings; ++i)
        values[i] = rings_[i] + ((last - rings_[i] + period / 2) / period + 1) * period;
    std::int64_t due = median(values, rings);
    // A frame that did not come in its window (dropped, or the stream paused) is looked for a
    // period later.
    const std::int64_t now = now_ns();
    if (due + spin_ns_ / 2 < now)
        due += ((now - due - spin_ns_ / 2) / period + 1) * period;
    return due;
}

bool BellWatch::wait(const Bell &bell, std::uint32_t seen, int timeout_ms, const std::function<bool()> &stop)
{
    const std::int64_t start = now_ns();
    const std::int64_t end = start + std::int64_t(timeout_ms) * 1000000;
    const std::int64_t due = spin_ns_ > 0 ? due_ns() : -1;
    if (due >= 0) {
        const std::int64_t open = due - spin_ns_ / 2, close = std::min(due + spin_ns_ / 2, end);
        if (open > start && open < end && bell.wait_ns(seen, open - start)) {
            ++woken_; // it rang before the window
            return true;
        }
        for (std::int64_t now = now_ns(); now < close; now = now_ns()) {
            if (bell.value() != seen) {
                ++watched_;
                return true;
            }
            if (stop())
                return true;
            relax();
        }
    }
    const std::int64_t left = end - now_ns();
    if (left <= 0 || !bell.wait_ns(seen, left))
        return false;
    ++woken_;
    return true;
}

} // namespace g2g::ipc
