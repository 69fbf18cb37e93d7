// SPDX-License-Identifier: LGPL-2.1-or-later
// The view elements' n-threads (as videoconvert's): the property, and the WorkerPool a stream's
// CPU materializes are split across (g2g/worker-pool.h).
#pragma once

#include <gst/gst.h>

#include <g2g/worker-pool.h>

#include <cstddef>
#include <memory>

namespace g2g::element {

// n-threads' default: the streaming thread alone, as videoconvert's. A pipeline runs its elements
// and branches on threads of their own, often several streams at once: an element that took every
// core by default would oversubscribe them, and frames under 1 MiB gain nothing. Applications that
// know they have cores to spare (8K, one stream) ask for them.
inline constexpr guint kDefaultThreads = 1;

// Installs n-threads as property `id` of a view element's class: 0 to WorkerPool::kMaxThreads, a
// value outside refused by GLib as for any property (the value in effect kept); mutable while
// PLAYING.
void install_n_threads_property(GObjectClass *klass, guint id);

// The threads a stream's frames are materialized with. Streaming thread only (the element's stop
// runs under its stream lock). The pool is made at the first frame the CPU writes with n-threads
// other than 1 that is large enough to be split (1 MiB: an element that only hands views on, or
// writes small frames, starts no thread), made again at the first such frame after n-threads
// changed (the old one joined first), and joined at stop and when the element is finalized.
class StreamThreads {
public:
    // The n-threads this frame runs with, read from the property at its start.
    void want(guint n_threads) { wanted_ = WorkerPool::threads_for(n_threads); }

    // The pool for a frame of `frame_bytes` the CPU writes now, or nullptr for the streaming thread
    // alone.
    const WorkerPool *pool(GstElement *element, std::size_t frame_bytes);

    // Joins the pool's threads.
    void stop() { pool_.reset(); }

private:
    unsigned wanted_ = kDefaultThreads;
    unsigned made_for_ = 1; // the threads pool_ was asked for (it may have started fewer)
    std::unique_ptr<WorkerPool> pool_;
};

} // namespace g2g::element
