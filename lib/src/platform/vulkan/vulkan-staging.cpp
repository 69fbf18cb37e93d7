// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-staging.h"

#include <utility>

namespace g2g::vulkan {

std::optional<StagingBuffer> StagingBuffer::allocate(GstVulkanDevice *device, gsize size)
{
    const VkMemoryPropertyFlags visible =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    StagingBuffer made;
    made.memory_ = gst_vulkan_buffer_memory_alloc(device, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                  visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (!made.memory_)
        made.memory_ =
            gst_vulkan_buffer_memory_alloc(device, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, visible);
    // Coherent memory: what the copy wrote is visible through the mapping once its fence signalled
    // (the copy's barrier made it available to the host), with no vkInvalidateMappedMemoryRanges.
    if (!made.memory_ ||
        !gst_memory_map(made.memory_, &made.map_, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_WRITE)))
        return std::nullopt; // the destructor frees an unmapped memory
    return made;
}

StagingBuffer::StagingBuffer(StagingBuffer &&other) noexcept
    : memory_(std::exchange(other.memory_, nullptr)), map_(std::exchange(other.map_, GstMapInfo{}))
{
}

StagingBuffer &StagingBuffer::operator=(StagingBuffer &&other) noexcept
{
    if (this != &other) {
        StagingBuffer gone(std::move(*this));
        memory_ = std::exchange(other.memory_, nullptr);
        map_ = std::exchange(other.map_, GstMapInfo{});
    }
    return *this;
}

StagingBuffer::~StagingBuffer()
{
    if (!memory_)
        return;
    if (map_.memory)
        gst_memory_unmap(memory_, &map_);
    gst_memory_unref(memory_);
}

StagingPool::~StagingPool()
{
    release(free_);
}

void StagingPool::release(StagingBuffer buffer, Fence fence)
{
    // The GPU may still be writing it (a frame dropped unread): it must have finished before the
    // memory goes.
    fence.wait();
    StagingBuffer gone(std::move(buffer));
}

void StagingPool::release(std::vector<Free> &buffers)
{
    for (Free &entry : buffers)
        release(std::move(entry.buffer), std::move(entry.fence));
    buffers.clear();
}

std::optional<StagingBuffer> StagingPool::take(GstVulkanDevice *device, gsize wanted)
{
    std::vector<Free> stale;
    std::optional<Free> reused;
    bool must_wait = false;
    {
        std::lock_guard<std::mutex> guard(lock_);
        if (size_ != wanted) {
            stale.swap(free_);
            size_ = wanted;
            live_ = 0;
        }
        for (auto entry = free_.begin(); entry != free_.end(); ++entry) {
            if (!entry->fence || entry->fence.signaled()) {
                reused.emplace(std::move(*entry));
                free_.erase(entry);
                break;
            }
        }
        // Every free buffer's copy is still running (frames dropped unread faster than the GPU
        // copies): one more buffer keeps this thread going, up to kMaxBuffers, then it waits.
        if (!reused && !free_.empty() && live_ >= kMaxBuffers) {
            reused.emplace(std::move(free_.front()));
            free_.erase(free_.begin());
            must_wait = true;
        }
        if (!reused)
            ++live_; // counted before it is made, so two takers do not both pass the limit
    }
    release(stale);
    if (reused) {
        if (must_wait)
            reused->fence.wait();
        return std::move(reused->buffer); // its fence goes back to its pool
    }
    std::optional<StagingBuffer> made = StagingBuffer::allocate(device, wanted);
    std::lock_guard<std::mutex> guard(lock_);
    if (!made) {
        if (size_ == wanted && live_ > 0)
            --live_;
    } else {
        ++created_;
    }
    return made;
}

void StagingPool::give_back(StagingBuffer buffer, Fence fence)
{
    {
        std::lock_guard<std::mutex> guard(lock_);
        if (buffer.size() == size_) {
            if (free_.size() < kMaxBuffers) {
                free_.push_back(Free{std::move(buffer), std::move(fence)});
                return;
            }
            if (live_ > 0)
                --live_;
        }
    }
    release(std::move(buffer), std::move(fence));
}

std::size_t StagingPool::created() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return created_;
}

std::size_t StagingPool::available() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return free_.size();
}

} // namespace g2g::vulkan
