// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: the stress tests' watchdog (see watchdog.h).
#include "watchdog.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace g2g::test {

Watchdog::Watchdog(std::chrono::seconds limit)
    : limit_(limit), step_("starting"), started_(std::chrono::steady_clock::now()),
      thread_([this] { watch(); })
{
}

Watchdog::~Watchdog()
{
    {
        const std::lock_guard lock(mutex_);
        done_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void Watchdog::step(std::string what)
{
    {
        const std::lock_guard lock(mutex_);
        step_ = std::move(what);
        started_ = std::chrono::steady_clock::now();
    }
    wake_.notify_all();
}

void Watchdog::watch()
{
    std::unique_lock lock(mutex_);
    while (!done_) {
        const auto deadline = started_ + limit_;
        if (wake_.wait_until(lock, deadline) == std::cv_status::timeout && !done_ &&
            std::chrono::steady_clock::now() >= started_ + limit_) {
            // Another thread is stuck (in a state change, a push, a wait): no assertion can
            // reach it, so the program ends here, saying where it was.
            const testing::TestInfo *test = testing::UnitTest::GetInstance()->current_test_info();
            std::fprintf(stderr,
                         "FAILED: watchdog: %s%s%s: \"%s\" did not finish within %lld s (a deadlock?)\n",
                         test ? test->test_suite_name() : "", test ? "." : "", test ? test->name() : "",
                         step_.c_str(), static_cast<long long>(limit_.count()));
            std::fflush(stderr);
            std::abort();
        }
    }
}

} // namespace g2g::test
