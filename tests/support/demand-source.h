// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper for stress tests: an appsrc that pushes numbered frames only as far as the test asks
// (want), so frames keep flowing while the test links and releases branches, a few per cycle,
// without the source taking a core of its own; and a count of the frames entering a pad.
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace g2g::test {

class DemandSource {
public:
    // Frame number n, a new reference.
    using FrameMaker = GstBuffer *(*)(guint32 n);

    // Feeds `appsrc` from frames of `make`; `this` must outlive the appsrc's streaming.
    void attach(GstElement *appsrc, FrameMaker make);
    // The source pushes frames until `frames` were pushed, then waits to be asked for more.
    void want(guint64 frames);
    // No frame is pushed any more; a waiting source returns.
    void stop();

private:
    FrameMaker make_ = nullptr;
    std::mutex lock_;
    std::condition_variable more_wanted_;
    guint64 demand_ = 0;
    guint32 pushed_ = 0;
    bool stopping_ = false;
};

// Counts the buffers entering `pad` into `counter` (a pad probe; `counter` outlives the pad's use).
void count_buffers(GstPad *pad, std::atomic<guint64> &counter);

} // namespace g2g::test
