// SPDX-License-Identifier: LGPL-2.1-or-later
// Threads that share a CPU materialize: FrameView::materialize_into (and materialize,
// materialize_to) split the dense frame into row bands, one per thread, each thread writing
// contiguous rows of every plane. A pool is made once (an element at its first multi-threaded
// frame, an application at its setup), used for every frame, and joined when it is destroyed:
// never a thread per frame.
//
//   g2g::WorkerPool workers(0);                            // one thread per processor
//   view.materialize_into(frame, planes, strides, workers); // byte for byte the one-thread frame
#pragma once

#include <memory>

namespace g2g {

namespace detail {
struct WorkerPoolState; // lib/src/view/cpu/worker-pool-private.h
}

class WorkerPool {
public:
    // The most threads a pool has. A copy is bound by memory bandwidth, which a few dozen cores
    // of any machine of today saturate; more threads only add wake-ups and band edges.
    static constexpr unsigned kMaxThreads = 64;

    // The threads `n_threads` asks for, as the view elements' n-threads property reads it: 0 is one
    // per processor this process may run on (g_get_num_processors), any other value itself; at most
    // kMaxThreads either way.
    static unsigned threads_for(unsigned n_threads);

    // A pool of threads_for(n_threads) threads: the calling thread of each run() and that many
    // minus one workers, started now (1: none). A worker the system refuses to start (out of
    // threads) is logged and left out: the pool runs on those it has.
    explicit WorkerPool(unsigned n_threads);
    // Joins the workers. No run() may be in progress.
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    // The threads a run() may use at once: the workers started, plus its caller.
    unsigned n_threads() const;

    // Calls task(i) once for every i in [0, n_tasks), on the workers and the calling thread, and
    // returns once every call has returned. Several threads may run() on one pool at once: each
    // caller also runs its own tasks, so none ever waits for a worker another caller holds. A task
    // must not throw.
    template <typename Task> void run(unsigned n_tasks, const Task &task) const
    {
        run_tasks(
            n_tasks, [](const void *t, unsigned i) { (*static_cast<const Task *>(t))(i); }, &task);
    }

    // The pool's internals, for the library (its materialize's band sizes) and its tests.
    detail::WorkerPoolState &state() const { return *state_; }

private:
    void run_tasks(unsigned n_tasks, void (*call)(const void *, unsigned), const void *task) const;

    std::unique_ptr<detail::WorkerPoolState> state_;
};

} // namespace g2g
