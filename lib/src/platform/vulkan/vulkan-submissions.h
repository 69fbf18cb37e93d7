// SPDX-License-Identifier: LGPL-2.1-or-later
// An engine's submissions not known to have run, oldest first: each one's fence (of the engine's
// FencePool) and what the GPU may still read or write for it (its command buffer, the frames,
// descriptor sets and image views it recorded against), let go once the fence signals.
// This is what GStreamer's GstVulkanTrashList did for g2g, without its per-submission cost: the
// trash list takes a GstVulkanFence (a new VkFence per submission, destroyed at collection: about
// 0.7 ms of CPU per submission on NVIDIA's driver) and an object per thing kept.
// Not thread-safe: its engine calls it under its lock. The fences it hands out are safe anywhere.
#pragma once

#include "gst-vulkan.h"

#include <deque>
#include <memory>
#include <vector>

#include "vulkan-fence-pool.h"

namespace g2g::vulkan {

class Submissions {
public:
    // Submissions to one queue of `device` (collect relies on their order), fenced with fences of
    // a pool of its own.
    explicit Submissions(GstVulkanDevice *device);
    ~Submissions(); // waits for every submission, then lets go of what they kept

    Submissions(const Submissions &) = delete;
    Submissions &operator=(const Submissions &) = delete;

    FencePool &fences() { return *fences_; }

    // A submitted batch: `fence` signals once it has run; `kept` (one reference each, taken over)
    // is let go then.
    void add(Fence fence, std::vector<GstMiniObject *> kept);

    // Lets go of what the submissions that have run kept, oldest first, without waiting.
    void collect();

    // The fences of the submissions not collected yet, oldest first (for waiting outside a lock).
    std::vector<Fence> pending() const;
    std::size_t size() const { return in_flight_.size(); }

    // An empty list for a recording to keep objects in: one a collected submission used, so a
    // steady stream of submissions allocates none.
    std::vector<GstMiniObject *> take_list();

private:
    struct Submission {
        Fence fence;
        std::vector<GstMiniObject *> kept;
    };
    std::shared_ptr<FencePool> fences_;
    std::deque<Submission> in_flight_;
    std::vector<std::vector<GstMiniObject *>> spare_lists_;
};

} // namespace g2g::vulkan
