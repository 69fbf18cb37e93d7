// SPDX-License-Identifier: LGPL-2.1-or-later
// Waiting for a download's copy (Engine::download's frames, vulkan-fenced-memory.h) without waking
// late. A reader asleep in vkWaitForFences is woken some time after the copy's fence signals: 18-55 µs
// after the copy ended on NVIDIA's driver (bench-vulkan 3c, the map's wait against a poll of the
// fence, H100, driver 580, 2026-12-06), up to a tenth of a 1080p RGBA frame's 170 µs copy. So the reader
// sleeps only until shortly before the copy is due, from how long the last copies of the same size
// took (CopyDue), then polls the fence until it signals (wait_for_copy). A reader that comes after the
// copy has run does not wait at all; one with no history, or whose copy is held up past its due time,
// sleeps until the fence signals, as before. The poll costs the reader's core about
// kPollBeforeDueNs a frame, less a sleep's lateness (45-90 µs a frame measured on the H100).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include <g2g/error.h>

#include "gst-vulkan.h"

namespace g2g::vulkan {

class Fence;

class CopyDue {
public:
    // How long before a copy is due its reader stops sleeping and polls: more than a timed sleep
    // wakes late (Linux's default timer slack is 50 µs) and than a copy's length varies.
    static constexpr std::uint64_t kPollBeforeDueNs = 100'000;
    // How long past its due time a reader polls before it sleeps until the fence signals (a copy
    // held up behind other work on the queue).
    static constexpr std::uint64_t kPollPastDueNs = 200'000;
    // The longest a reader sleeps without looking at the fence: how late it sees a copy that ended
    // well before its due.
    static constexpr std::uint64_t kSleepSliceNs = 500'000;

    // A copy of `bytes` was seen done `ns` after its submission.
    void observe(std::size_t bytes, std::uint64_t ns);
    // How long after its submission a copy of `bytes` is due: the median of the last copies of that
    // size seen (up to 9), once at least 3 were; nothing before. The 4 sizes last used are kept.
    std::optional<std::uint64_t> due_ns(std::size_t bytes) const;

    // How the waits went since this was made: the copy seen done while polling, at the end of a
    // slice of the sleep before (it ended sooner than due), by the driver's wait (no history yet, or
    // a copy held up), or already done when its reader came.
    struct Waits {
        std::uint64_t polled = 0, woken = 0, slept = 0, already_done = 0;
    };
    Waits waits() const;

private:
    friend Result<void> wait_for_copy(const Fence &, CopyDue &, std::size_t, std::uint64_t);
    static constexpr int kKept = 9, kLeast = 3, kSizes = 4;
    struct Size {
        std::size_t bytes = 0;
        std::array<std::uint64_t, kKept> ns{};
        int count = 0, next = 0;
        std::uint64_t last_use = 0;
    };
    mutable std::mutex lock_;
    mutable std::array<Size, kSizes> sizes_{};
    mutable std::uint64_t uses_ = 0;
    std::atomic<std::uint64_t> polled_{0}, woken_{0}, slept_{0}, already_done_{0};
};

// CLOCK_MONOTONIC in ns: a copy's submission time, as wait_for_copy takes it.
std::uint64_t monotonic_ns();

// Waits until `fence` (a submitted copy of `bytes`, submitted at `submitted_ns`) has signalled:
// asleep (in slices of CopyDue::kSleepSliceNs) until CopyDue::kPollBeforeDueNs before `due` says it
// is due, then polling; the length seen is taught to `due`. An error where the driver's wait fails.
Result<void> wait_for_copy(const Fence &fence, CopyDue &due, std::size_t bytes, std::uint64_t submitted_ns);

} // namespace g2g::vulkan
