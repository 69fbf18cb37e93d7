// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: holds the frames at one pad of a streaming pipeline, so that what lies after it in
// the same streaming thread is known to be idle (the Vulkan work of a pipeline stopped while it
// streams: see StressPipeline in tests/stress).
#pragma once

#include <gst/gst.h>

#include <g2g/gst-ref.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace g2g::test {

// While it lives, the next frame to reach `pad` waits there (until the block goes or the pad
// flushes, as a pipeline going down flushes it); the streaming thread that brought it has then
// returned from everything downstream of `pad` it ran for the frame before.
class FlowBlock {
public:
    explicit FlowBlock(GstPad *pad);
    ~FlowBlock();
    FlowBlock(const FlowBlock &) = delete;
    FlowBlock &operator=(const FlowBlock &) = delete;

    // Whether a frame is held at the pad, waiting at most `timeout` for one to come.
    bool wait_held(std::chrono::milliseconds timeout);

private:
    static GstPadProbeReturn on_frame(GstPad *pad, GstPadProbeInfo *info, gpointer self);

    Ref<GstPad> pad_;
    gulong probe_ = 0;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool held_ = false;
};

} // namespace g2g::test
