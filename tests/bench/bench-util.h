// Timing helpers for the benchmark programs: best-of-N wall time, machine-noise tolerant.
#pragma once

#include <chrono>
#include <functional>

namespace g2g::bench {

// Seconds per call of `body`: the best of `rounds` rounds of `calls` calls each (the best round
// is the one least disturbed by the rest of a shared machine).
inline double seconds_per_call(const std::function<void()> &body, int calls, int rounds = 5)
{
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            body();
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count() / calls);
    }
    return best;
}

} // namespace g2g::bench
