// SPDX-License-Identifier: LGPL-2.1-or-later
// The download's staging buffers: host-visible Vulkan buffers, each mapped once for its whole life
// (GStreamer's Vulkan memory maps with vkMapMemory and unmaps with vkUnmapMemory at every
// gst_memory_map), and the engine's free list of them, which hands out a buffer whose last copy has
// run before one that would make the caller wait.
#pragma once

#include "gst-vulkan.h"

#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

#include "vulkan-fence-pool.h"

namespace g2g::vulkan {

// A host-visible, host-coherent GstVulkanBufferMemory mapped from its allocation until it is freed.
class StagingBuffer {
public:
    // `size` bytes on `device`: host-cached memory first (a CPU reads it; uncached write-combined
    // memory reads several times slower), plain host-visible otherwise; nullopt if neither can be
    // allocated and mapped.
    static std::optional<StagingBuffer> allocate(GstVulkanDevice *device, gsize size);
    StagingBuffer(StagingBuffer &&other) noexcept;
    StagingBuffer &operator=(StagingBuffer &&other) noexcept;
    ~StagingBuffer(); // unmaps and frees

    GstVulkanBufferMemory *memory() const { return reinterpret_cast<GstVulkanBufferMemory *>(memory_); }
    VkBuffer buffer() const { return memory()->buffer; }
    guint8 *data() const { return map_.data; }
    gsize size() const { return memory_->size; }

private:
    StagingBuffer() = default;
    GstMemory *memory_ = nullptr;
    GstMapInfo map_{};
};

// The staging buffers of one size that no frame holds, each with the fence of the last copy into
// it (a frame dropped unread gives its buffer back before that copy has run). Shared by the engine
// with its frames' memories through a weak reference: a frame outliving its engine frees its buffer.
class StagingPool {
public:
    // Free buffers kept at most; also how many buffers of the size in use the pool makes before it
    // waits for one given back instead of making another.
    static constexpr std::size_t kMaxBuffers = 8;

    StagingPool() = default;
    ~StagingPool();
    StagingPool(const StagingPool &) = delete;
    StagingPool &operator=(const StagingPool &) = delete;

    // A buffer of `size` bytes that no copy writes any more: a free one whose copy has run (asked
    // without waiting); else a new one while fewer than kMaxBuffers of this size exist; else the
    // free one given back first, once its copy has run. Buffers of another size are freed (the
    // stream changed). nullopt if a new one cannot be made.
    std::optional<StagingBuffer> take(GstVulkanDevice *device, gsize size);

    // A buffer whose frame is gone, with the fence of the copy into it (both taken over; no fence:
    // nothing was submitted into it).
    void give_back(StagingBuffer buffer, Fence fence);

    // Buffers made so far (reuse keeps this small), and the ones free now.
    std::size_t created() const;
    std::size_t available() const;

    // Waits for `fence`, then frees `buffer`: where a buffer goes that the pool does not keep.
    static void release(StagingBuffer buffer, Fence fence);

private:
    struct Free {
        StagingBuffer buffer;
        Fence fence;
    };
    static void release(std::vector<Free> &buffers);

    mutable std::mutex lock_; // never held while waiting or allocating
    gsize size_ = 0;
    std::vector<Free> free_; // oldest first
    std::size_t live_ = 0;   // buffers of size_ made by this pool and not freed
    std::size_t created_ = 0;
};

} // namespace g2g::vulkan
