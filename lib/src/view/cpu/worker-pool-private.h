// SPDX-License-Identifier: LGPL-2.1-or-later
// WorkerPool's state (g2g/worker-pool.h): its threads, the jobs they take tasks from, and how
// finely a materialize on it splits a frame.
#pragma once

#include <g2g/worker-pool.h>

#include "band-sizing.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace g2g::detail {

// One run(): its tasks, handed out in order to whichever thread asks next.
struct WorkerJob {
    void (*call)(const void *, unsigned);
    const void *task;
    unsigned n_tasks;
    unsigned next = 0;     // the next task to hand out
    unsigned finished = 0; // tasks that returned
};

struct WorkerPoolState {
    // The smallest band a materialize makes (kMinBandBytes). The tests set 0 to split every frame,
    // however small, into one band per thread: how they cover every band edge on tiny frames.
    std::size_t min_band_bytes = kMinBandBytes;

    // Lock order: `lock` is the pool's only lock, never held while a task runs.
    std::mutex lock;
    std::condition_variable work;     // a job was queued, or the pool stops
    std::condition_variable finished; // a job's last task returned
    std::deque<WorkerJob *> jobs;     // jobs with tasks not handed out yet, oldest first
    bool stopping = false;
    std::vector<std::thread> workers;
};

} // namespace g2g::detail
