// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-fence-pool.h"

#include <utility>

#include "vulkan-commands.h"

namespace g2g::vulkan {

Fence::Fence(const Fence &other) noexcept : slot_(other.slot_)
{
    if (slot_)
        slot_->references.fetch_add(1, std::memory_order_relaxed);
}

Fence::Fence(Fence &&other) noexcept : slot_(std::exchange(other.slot_, nullptr))
{
}

Fence &Fence::operator=(Fence other) noexcept
{
    swap(other);
    return *this;
}

void Fence::swap(Fence &other) noexcept
{
    std::swap(slot_, other.slot_);
}

Fence::~Fence()
{
    // The last reference: what the holders did with the fence happens-before its reuse.
    if (slot_ && slot_->references.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // The slot's pool reference is taken out first: give_back may hand the slot out again at
        // once, and the pool may go with this reference, after give_back returned.
        std::shared_ptr<FencePool> pool = std::move(slot_->pool);
        pool->give_back(slot_);
    }
}

VkFence Fence::handle() const
{
    return slot_ ? slot_->fence : VK_NULL_HANDLE;
}

bool Fence::signaled() const
{
    return slot_ && slot_->submitted.load(std::memory_order_acquire) &&
           vkGetFenceStatus(slot_->pool->device()->device, slot_->fence) == VK_SUCCESS;
}

VkResult Fence::wait() const
{
    if (!slot_ || !slot_->submitted.load(std::memory_order_acquire))
        return VK_NOT_READY;
    return vkWaitForFences(slot_->pool->device()->device, 1, &slot_->fence, VK_TRUE, G_MAXUINT64);
}

void Fence::mark_submitted()
{
    if (slot_)
        slot_->submitted.store(true, std::memory_order_release);
}

FencePool::FencePool(GstVulkanDevice *device) : device_(GST_VULKAN_DEVICE(gst_object_ref(device)))
{
}

std::shared_ptr<FencePool> FencePool::create(GstVulkanDevice *device)
{
    return std::shared_ptr<FencePool>(new FencePool(device));
}

FencePool::~FencePool()
{
    for (const std::unique_ptr<Fence::Slot> &slot : slots_)
        vkDestroyFence(device_->device, slot->fence, nullptr);
    gst_object_unref(device_);
}

Result<Fence> FencePool::acquire()
{
    Fence::Slot *slot = nullptr;
    {
        std::lock_guard<std::mutex> guard(lock_);
        if (!free_.empty()) {
            slot = free_.back();
            free_.pop_back();
        }
    }
    if (!slot) {
        // Made outside the lock: the slow call this pool exists to make rarely.
        VkFenceCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        VkFence fence = VK_NULL_HANDLE;
        if (VkResult r = vkCreateFence(device_->device, &info, nullptr, &fence); r != VK_SUCCESS)
            return failure("vkCreateFence", r);
        auto made = std::make_unique<Fence::Slot>();
        made->fence = fence;
        slot = made.get();
        std::lock_guard<std::mutex> guard(lock_);
        slots_.push_back(std::move(made));
    }
    slot->references.store(1, std::memory_order_relaxed);
    slot->pool = shared_from_this();
    return Fence(slot);
}

void FencePool::give_back(Fence::Slot *slot)
{
    if (slot->submitted.exchange(false, std::memory_order_acq_rel)) {
        // Its holders let go once they knew it signalled (or never needed to know): this is
        // normally no wait. A fence whose wait failed (the device lost) is not reused; it is
        // destroyed with the pool.
        if (vkWaitForFences(device_->device, 1, &slot->fence, VK_TRUE, G_MAXUINT64) != VK_SUCCESS)
            return;
        vkResetFences(device_->device, 1, &slot->fence);
    }
    std::lock_guard<std::mutex> guard(lock_);
    free_.push_back(slot);
}

std::size_t FencePool::created() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return slots_.size();
}

std::size_t FencePool::available() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return free_.size();
}

} // namespace g2g::vulkan
