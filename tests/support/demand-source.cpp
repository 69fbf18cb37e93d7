// SPDX-License-Identifier: LGPL-2.1-or-later
#include "demand-source.h"

#include <gst/app/gstappsrc.h>

#include <algorithm>

namespace g2g::test {

void DemandSource::attach(GstElement *appsrc, FrameMaker make)
{
    make_ = make;
    GstAppSrcCallbacks callbacks{};
    callbacks.need_data = +[](GstAppSrc *src, guint, gpointer data) {
        auto *self = static_cast<DemandSource *>(data);
        std::unique_lock<std::mutex> hold(self->lock_);
        self->more_wanted_.wait(hold, [self] { return self->stopping_ || self->pushed_ < self->demand_; });
        if (self->stopping_)
            return;
        const guint32 n = self->pushed_++;
        hold.unlock();
        gst_app_src_push_buffer(src, self->make_(n));
    };
    gst_app_src_set_callbacks(GST_APP_SRC(appsrc), &callbacks, this, nullptr);
}

void DemandSource::want(guint64 frames)
{
    {
        const std::lock_guard<std::mutex> hold(lock_);
        demand_ = std::max(demand_, frames);
    }
    more_wanted_.notify_all();
}

void DemandSource::stop()
{
    {
        const std::lock_guard<std::mutex> hold(lock_);
        stopping_ = true;
    }
    more_wanted_.notify_all();
}

void count_buffers(GstPad *pad, std::atomic<guint64> &counter)
{
    gst_pad_add_probe(
        pad, GST_PAD_PROBE_TYPE_BUFFER,
        +[](GstPad *, GstPadProbeInfo *, gpointer data) -> GstPadProbeReturn {
            ++*static_cast<std::atomic<guint64> *>(data);
            return GST_PAD_PROBE_OK;
        },
        &counter, nullptr);
}

} // namespace g2g::test
