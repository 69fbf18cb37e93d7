// SPDX-License-Identifier: LGPL-2.1-or-later
// WorkerPool: threads made once, waiting on a condition variable for run()'s tasks.
#include "worker-pool-private.h"

#include <glib.h>
#include <pthread.h>

#include <algorithm>
#include <system_error>

#include "core/log-private.h"

namespace g2g {
namespace {

using detail::WorkerJob;
using detail::WorkerPoolState;

// Hands out `job`'s next task (the caller holds the lock); the job leaves the queue with its last.
unsigned take_task(WorkerPoolState &state, WorkerJob &job)
{
    const unsigned index = job.next++;
    if (job.next == job.n_tasks)
        state.jobs.erase(std::find(state.jobs.begin(), state.jobs.end(), &job));
    return index;
}

// Runs task `index` of `job` without the lock, then counts it (the lock held again on return).
// After the count the job is not touched: its run() may have returned.
void run_task(WorkerPoolState &state, WorkerJob &job, unsigned index, std::unique_lock<std::mutex> &held)
{
    held.unlock();
    job.call(job.task, index);
    held.lock();
    if (++job.finished == job.n_tasks)
        state.finished.notify_all();
}

void work(WorkerPoolState &state)
{
    std::unique_lock held(state.lock);
    for (;;) {
        state.work.wait(held, [&] { return state.stopping || !state.jobs.empty(); });
        if (state.jobs.empty())
            return; // stopping, and nothing left to do
        WorkerJob &job = *state.jobs.front();
        run_task(state, job, take_task(state, job), held);
    }
}

} // namespace

unsigned WorkerPool::threads_for(unsigned n_threads)
{
    const unsigned asked = n_threads == 0 ? g_get_num_processors() : n_threads;
    return std::clamp(asked, 1u, kMaxThreads);
}

WorkerPool::WorkerPool(unsigned n_threads) : state_(std::make_unique<detail::WorkerPoolState>())
{
    const unsigned threads = threads_for(n_threads);
    state_->workers.reserve(threads - 1);
    for (unsigned i = 1; i < threads; ++i) {
        try {
            state_->workers.emplace_back(work, std::ref(*state_));
        } catch (const std::system_error &refused) {
            GST_CAT_WARNING(G2G_CAT, "a worker pool of %u threads runs on %u: %s", threads, i,
                            refused.what());
            break;
        }
        // Named for debuggers and top; GStreamer's own threads are named by their element or pad.
        pthread_setname_np(state_->workers.back().native_handle(), "g2g-worker");
    }
}

WorkerPool::~WorkerPool()
{
    {
        const std::lock_guard held(state_->lock);
        state_->stopping = true;
    }
    state_->work.notify_all();
    for (std::thread &worker : state_->workers)
        worker.join();
}

unsigned WorkerPool::n_threads() const
{
    return static_cast<unsigned>(state_->workers.size()) + 1;
}

void WorkerPool::run_tasks(unsigned n_tasks, void (*call)(const void *, unsigned), const void *task) const
{
    if (n_tasks == 1 || state_->workers.empty()) {
        for (unsigned i = 0; i < n_tasks; ++i)
            call(task, i);
        return;
    }
    if (n_tasks == 0)
        return;
    WorkerPoolState &state = *state_;
    WorkerJob job{call, task, n_tasks};
    std::unique_lock held(state.lock);
    state.jobs.push_back(&job);
    // Wakes as many workers as there are tasks beyond the one this thread starts with.
    if (n_tasks - 1 >= state.workers.size()) {
        state.work.notify_all();
    } else {
        for (unsigned i = 1; i < n_tasks; ++i)
            state.work.notify_one();
    }
    while (job.next < job.n_tasks)
        run_task(state, job, take_task(state, job), held);
    state.finished.wait(held, [&] { return job.finished == job.n_tasks; });
}

} // namespace g2g
