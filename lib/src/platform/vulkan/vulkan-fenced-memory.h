// SPDX-License-Identifier: LGPL-2.1-or-later
// The system memory a download hands out: a host-visible Vulkan staging buffer (mapped once, for
// its life: vulkan-staging.h) that the GPU is still writing when the frame leaves. Mapping it waits
// for the copy's fence (once; later maps are plain), so the streaming thread never waits and a
// consumer waits only when it reads. Its memory type is "G2gVulkanDownload", which the domain
// table reads as System memory.
#pragma once

#include "platform/vulkan/gst-vulkan.h"

#include <memory>

#include "vulkan-copy-due.h"
#include "vulkan-fence-pool.h"
#include "vulkan-staging.h"

namespace g2g::vulkan {

inline constexpr const char *kFencedMemoryType = "G2gVulkanDownload";

// A memory over the first `size` bytes of `staging` (taken over), readable once `fence` (the copy
// into it, submitted at `submitted_ns`, CLOCK_MONOTONIC) has signalled; its first map waits for it as
// wait_for_copy does, teaching `due` the copy's length. When this memory and every share of it are
// gone, the staging buffer and the fence go back to `home` while it lives (a frame dropped unread
// does not wait: the buffer's next taker does); otherwise the memory waits for the fence and frees
// the buffer.
GstMemory *fenced_memory_new(StagingBuffer staging, gsize size, Fence fence, std::weak_ptr<StagingPool> home,
                             std::shared_ptr<CopyDue> due, std::uint64_t submitted_ns);

// True for memories fenced_memory_new made (and their shares).
bool is_fenced_memory(GstMemory *memory);

// Waits for the copy into `memory` (a fenced memory or a share of it) as its first map does, which
// then does not wait; true once the copy has run. For a benchmark that times the wait apart.
bool fenced_memory_wait(GstMemory *memory);

// Whether the copy into `memory` (a fenced memory or a share of it) has run, without waiting
// (vkGetFenceStatus): its first map would not wait. For a benchmark that polls instead of waiting.
bool fenced_memory_ready(GstMemory *memory);

} // namespace g2g::vulkan
