// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: frames held at a pad (see flow-block.h).
#include "flow-block.h"

namespace g2g::test {

FlowBlock::FlowBlock(GstPad *pad) : pad_(Ref<GstPad>::borrow(pad))
{
    probe_ = gst_pad_add_probe(
        pad, static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_BUFFER), on_frame,
        this, nullptr);
}

FlowBlock::~FlowBlock()
{
    gst_pad_remove_probe(pad_.get(), probe_);
}

bool FlowBlock::wait_held(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return held_; });
}

GstPadProbeReturn FlowBlock::on_frame(GstPad *, GstPadProbeInfo *, gpointer data)
{
    // Called once the frame is blocked, in the streaming thread; returning OK keeps it blocked.
    auto *self = static_cast<FlowBlock *>(data);
    {
        const std::lock_guard lock(self->mutex_);
        self->held_ = true;
    }
    self->changed_.notify_all();
    return GST_PAD_PROBE_OK;
}

} // namespace g2g::test
