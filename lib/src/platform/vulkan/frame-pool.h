// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames of one layout that nothing holds, reused: making one (allocations exported, imported
// into CUDA or another process) costs far more than a frame's copy. A frame comes back when the
// last reference handed out goes; frames are freed with the pool, or when the layout changes.
// The CUDA bridge's shared frames and the IPC elements' exported frames are pooled this way.
#pragma once

#include <gst/video/video.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <g2g/error.h>

namespace g2g::vulkan {

// `Frame` has `const GstVideoInfo &info() const`.
template <typename Frame> class FramePool : public std::enable_shared_from_this<FramePool<Frame>> {
public:
    // How a new frame of a layout is made.
    using Make = std::function<Result<std::unique_ptr<Frame>>(const GstVideoInfo &)>;

    static std::shared_ptr<FramePool> create(Make make)
    {
        return std::shared_ptr<FramePool>(new FramePool(std::move(make)));
    }

    // A frame of `info`'s format and size: a free one, or a new one.
    Result<std::shared_ptr<Frame>> acquire(const GstVideoInfo &info)
    {
        std::unique_ptr<Frame> frame;
        std::vector<std::unique_ptr<Frame>> stale;
        {
            const std::lock_guard lock(lock_);
            if (!free_.empty() && !same_frame(free_.back()->info(), info))
                stale.swap(free_);
            if (!free_.empty()) {
                frame = std::move(free_.back());
                free_.pop_back();
            }
        }
        stale.clear(); // outside the lock: freeing allocations takes time
        if (!frame) {
            Result<std::unique_ptr<Frame>> made = make_(info);
            if (!made)
                return made.error();
            ++allocated_;
            frame = std::move(*made);
        }
        const std::weak_ptr<FramePool> pool = this->weak_from_this();
        return std::shared_ptr<Frame>(frame.release(), [pool](Frame *done) {
            if (const std::shared_ptr<FramePool> owner = pool.lock())
                owner->give_back(done);
            else
                delete done;
        });
    }

    // Frames made since the pool was.
    guint64 allocated() const { return allocated_; }

private:
    explicit FramePool(Make make) : make_(std::move(make)) {}

    static bool same_frame(const GstVideoInfo &a, const GstVideoInfo &b)
    {
        return GST_VIDEO_INFO_FORMAT(&a) == GST_VIDEO_INFO_FORMAT(&b) &&
               GST_VIDEO_INFO_WIDTH(&a) == GST_VIDEO_INFO_WIDTH(&b) &&
               GST_VIDEO_INFO_HEIGHT(&a) == GST_VIDEO_INFO_HEIGHT(&b);
    }

    void give_back(Frame *frame)
    {
        std::unique_ptr<Frame> returned(frame);
        const std::lock_guard lock(lock_);
        if (free_.empty() || same_frame(free_.back()->info(), frame->info()))
            free_.push_back(std::move(returned));
        // else: a frame of a layout the stream left, freed here
    }

    Make make_;
    std::mutex lock_;
    std::vector<std::unique_ptr<Frame>> free_;
    std::atomic<guint64> allocated_ = 0;
};

} // namespace g2g::vulkan
