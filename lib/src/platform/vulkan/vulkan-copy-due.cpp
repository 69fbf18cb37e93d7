// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-copy-due.h"

#include <errno.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <thread>

#include "vulkan-fence-pool.h"

namespace g2g::vulkan {

namespace {

// One step of a poll: the core told it is spinning (a hyperthread sibling runs meanwhile).
inline void relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

Error wait_failed(VkResult result)
{
    return Error(ErrorCode::MapFailed,
                 "waiting for the download's copy failed (VkResult " + std::to_string(result) + ")");
}

} // namespace

std::uint64_t monotonic_ns()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return std::uint64_t(now.tv_sec) * 1'000'000'000u + std::uint64_t(now.tv_nsec);
}

void CopyDue::observe(std::size_t bytes, std::uint64_t ns)
{
    const std::lock_guard guard(lock_);
    Size *slot = nullptr;
    for (Size &size : sizes_)
        if (size.count > 0 && size.bytes == bytes)
            slot = &size;
    if (!slot) {
        // A size not seen lately takes the place of the one used longest ago.
        slot = &*std::min_element(sizes_.begin(), sizes_.end(),
                                  [](const Size &a, const Size &b) { return a.last_use < b.last_use; });
        *slot = Size{};
        slot->bytes = bytes;
    }
    slot->ns[static_cast<std::size_t>(slot->next)] = ns;
    slot->next = (slot->next + 1) % kKept;
    slot->count = std::min(slot->count + 1, kKept);
    slot->last_use = ++uses_;
}

std::optional<std::uint64_t> CopyDue::due_ns(std::size_t bytes) const
{
    const std::lock_guard guard(lock_);
    for (Size &size : sizes_) {
        if (size.count < kLeast || size.bytes != bytes)
            continue;
        size.last_use = ++uses_;
        std::array<std::uint64_t, kKept> kept = size.ns;
        const auto end = kept.begin() + size.count;
        const auto middle = kept.begin() + size.count / 2;
        std::nth_element(kept.begin(), middle, end);
        return *middle;
    }
    return std::nullopt;
}

CopyDue::Waits CopyDue::waits() const
{
    return {polled_.load(std::memory_order_relaxed), woken_.load(std::memory_order_relaxed),
            slept_.load(std::memory_order_relaxed), already_done_.load(std::memory_order_relaxed)};
}

Result<void> wait_for_copy(const Fence &fence, CopyDue &due, std::size_t bytes, std::uint64_t submitted_ns)
{
    // Read after the copy ran: its length is not known, nor needed.
    if (fence.signaled()) {
        due.already_done_.fetch_add(1, std::memory_order_relaxed);
        return {};
    }
    // The last time the copy was seen running. A copy seen done where it was last seen running
    // before a sleep is taught as that long: a length it had at least, never a later one, so a late
    // wake-up never makes the next dues later (which would make the next wake-ups later still), and
    // when copies become shorter than their due, the dues follow within a few copies.
    std::uint64_t running_at = monotonic_ns();
    if (const std::optional<std::uint64_t> expected = due.due_ns(bytes)) {
        const std::uint64_t due_at = submitted_ns + *expected;
        const std::uint64_t poll_from =
            due_at > CopyDue::kPollBeforeDueNs ? due_at - CopyDue::kPollBeforeDueNs : 0;
        // Asleep until then, in slices, the fence looked at after each: a copy that ends sooner
        // than due is seen within a slice. A plain sleep, not vkWaitForFences with a timeout:
        // NVIDIA's driver spins through a timed wait (the whole copy's length of CPU), and sleeps
        // only in an untimed one.
        while (running_at < poll_from) {
            const std::uint64_t wake = std::min(poll_from, running_at + CopyDue::kSleepSliceNs);
            const timespec until{static_cast<time_t>(wake / 1'000'000'000u),
                                 static_cast<long>(wake % 1'000'000'000u)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
            }
            if (fence.signaled()) {
                due.observe(bytes, running_at - submitted_ns);
                due.woken_.fetch_add(1, std::memory_order_relaxed);
                return {};
            }
            running_at = monotonic_ns();
        }
        const std::uint64_t give_up = due_at + CopyDue::kPollPastDueNs;
        for (std::uint64_t at = running_at; at < give_up; at = monotonic_ns()) {
            if (fence.signaled()) {
                due.observe(bytes, at - submitted_ns);
                due.polled_.fetch_add(1, std::memory_order_relaxed);
                return {};
            }
            relax();
        }
    }
    // No history yet, or the copy is held up past its due time: asleep until it signals.
    if (const VkResult waited = fence.wait(); waited != VK_SUCCESS)
        return wait_failed(waited);
    due.observe(bytes, monotonic_ns() - submitted_ns);
    due.slept_.fetch_add(1, std::memory_order_relaxed);
    return {};
}

} // namespace g2g::vulkan
