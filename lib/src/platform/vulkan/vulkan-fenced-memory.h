// SPDX-License-Identifier: LGPL-2.1-or-later
// The system memory a download hands out: a host-visible Vulkan staging buffer that the GPU is
// still writing when the frame leaves. Mapping it waits for the copy's fence (once; later maps
// are plain), so the streaming thread never waits and a consumer waits only when it reads.
// Its memory type is "G2gVulkanDownload", which the domain table reads as System memory.
#pragma once

#include "platform/vulkan/gst-vulkan.h"

#include <functional>

namespace g2g::vulkan {

inline constexpr const char *kFencedMemoryType = "G2gVulkanDownload";

// Where a staging buffer goes when its frame is gone: with the fence of the copy into it (both
// references handed over), which a frame dropped unread may still be waiting for.
using StagingRecycler = std::function<void(GstMemory *staging, GstVulkanFence *fence)>;

// A memory over `staging` (a host-visible GstVulkanBufferMemory, taken over) of `size` bytes,
// readable once `fence` (a reference taken) has signalled. When this memory and every share of
// it are gone, `recycle` receives the staging buffer and the fence; without one, the memory waits
// for the fence and frees the buffer.
GstMemory *fenced_memory_new(GstMemory *staging, gsize size, GstVulkanFence *fence, StagingRecycler recycle);

// True for memories fenced_memory_new made (and their shares).
bool is_fenced_memory(GstMemory *memory);

} // namespace g2g::vulkan
