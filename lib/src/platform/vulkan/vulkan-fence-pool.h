// SPDX-License-Identifier: LGPL-2.1-or-later
// The fences g2g submits with: VkFences of g2g's own, reset and reused, never made per submission.
// On NVIDIA's driver vkCreateFence takes 270 to 430 µs and vkDestroyFence (GStreamer's trash list
// collecting a GstVulkanFence) about 385 µs: a new fence per frame cost a download about a
// millisecond of CPU whatever the frame's size (docs/design-notes.md, "The Vulkan download's fixed
// cost"). GStreamer's GstVulkanFenceCache is no way out: gst_vulkan_fence_cache_new is not exported
// by libgstvulkan 1.22 or 1.26, a fence given back to it from inside its own dispose crashed, and the
// device's cache is shared with GStreamer's elements (the 1.22 crash in the design notes' known
// trouble). These fences are g2g's alone.
//
// A pool is reference-counted (std::shared_ptr) and every fence it hands out holds a reference to
// it: a frame may keep its download's fence after the engine that made the pool is gone, and giving
// that fence back then is safe (the pool, its fences and its device go with the last one).
#pragma once

#include "gst-vulkan.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include <g2g/error.h>

namespace g2g::vulkan {

class FencePool;

// One reference to a fence of a pool (or none). Copies share the fence; it goes back to its pool,
// reset, when the last is gone: waited for first if it was submitted and has not signalled, so a
// fence is never reused while a submission may still signal it. Not for GStreamer's functions
// (they take a GstVulkanFence): g2g tracks what a submission keeps alive itself
// (vulkan-submissions.h).
class Fence {
public:
    Fence() = default;
    Fence(const Fence &other) noexcept;
    Fence(Fence &&other) noexcept;
    Fence &operator=(Fence other) noexcept;
    ~Fence();

    explicit operator bool() const { return slot_ != nullptr; }
    VkFence handle() const;

    // Whether the work submitted with it has run, without waiting (vkGetFenceStatus). False for a
    // fence not submitted yet.
    bool signaled() const;
    // Waits until the work submitted with it has run (a fence not submitted would never signal:
    // returns at once with VK_NOT_READY).
    VkResult wait() const;
    // Marks it submitted (vkQueueSubmit took it): from then on it signals, and is waited for before
    // it is reused.
    void mark_submitted();

    // Lets go of this reference now.
    void reset() { Fence().swap(*this); }
    void swap(Fence &other) noexcept;

private:
    friend class FencePool;
    struct Slot;
    explicit Fence(Slot *slot) : slot_(slot) {}
    Slot *slot_ = nullptr;
};

class FencePool : public std::enable_shared_from_this<FencePool> {
public:
    // A pool of fences of `device` (one reference taken, kept while the pool lives).
    static std::shared_ptr<FencePool> create(GstVulkanDevice *device);
    ~FencePool(); // every fence is back (each one out holds the pool): destroys them

    FencePool(const FencePool &) = delete;
    FencePool &operator=(const FencePool &) = delete;

    // An unsignalled fence no one else holds: one given back (reset), or a new one while none is.
    Result<Fence> acquire();

    GstVulkanDevice *device() const { return device_; }
    // Fences made so far (reuse keeps this at the most ever out at once), and those back now.
    std::size_t created() const;
    std::size_t available() const;

private:
    explicit FencePool(GstVulkanDevice *device);
    friend class Fence;
    // Takes `slot` back (its last reference gone): waited for if submitted, reset, made available.
    void give_back(Fence::Slot *slot);

    GstVulkanDevice *device_;
    mutable std::mutex lock_;                         // slots_ and free_; never held while waiting
    std::vector<std::unique_ptr<Fence::Slot>> slots_; // every fence made, out or back
    std::vector<Fence::Slot *> free_;                 // the ones back, reset
};

// What a Fence points at: one VkFence of its pool, its references while it is out, and the pool,
// held while it is out.
struct Fence::Slot {
    VkFence fence = VK_NULL_HANDLE;
    std::atomic<unsigned> references{0};
    std::atomic<bool> submitted{false};
    std::shared_ptr<FencePool> pool;
};

} // namespace g2g::vulkan
