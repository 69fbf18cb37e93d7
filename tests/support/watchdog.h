// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper for stress tests: a deadlock must fail the program with the step that hung, not
// hang CI until meson's timeout (which says nothing about where).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace g2g::test {

// Watches the steps of one test: a step that has not finished `limit` after it began aborts the
// program, naming the test and the step (a state change that never completes, a frame that
// never comes). A step ends when the next one begins or the watchdog goes.
class Watchdog {
public:
    explicit Watchdog(std::chrono::seconds limit);
    ~Watchdog();
    Watchdog(const Watchdog &) = delete;
    Watchdog &operator=(const Watchdog &) = delete;

    // What runs now; restarts the clock.
    void step(std::string what);

private:
    void watch();

    const std::chrono::seconds limit_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::string step_;
    std::chrono::steady_clock::time_point started_;
    bool done_ = false;
    std::thread thread_; // last: started once the fields it reads exist
};

} // namespace g2g::test
