// SPDX-License-Identifier: LGPL-2.1-or-later
// bench-view's sections 5 to 9 (bench-view-scaling.cpp and its -parts, -stores, -goals neighbours):
// FrameView::materialize_into against libyuv, one thread each, at 1080p, 4K and 8K; materialize
// split across 1 to 16 threads against memcpy in as many threads over buffers larger than the
// last-level cache; what a split costs, the store choice, the goal lines.
#pragma once

#include <string>
#include <vector>

namespace g2g::bench {

struct FrameSize {
    std::string name; // "1080p", or "WxH" as given
    int width = 0, height = 0;
};

struct ScalingOptions {
    std::vector<FrameSize> sizes;  // --sizes (default 1080p, 4K, 8K)
    std::vector<unsigned> threads; // --threads (default 1, 2, 4, 8, 16: those the machine has)
    bool threads_given = false;    // whether --threads was
    int rounds = 0;                // --rounds (default: 9 for section 5, 5 for section 6)
    // --cycle-mib: sections 6 and 7 cycle through frames and destinations of at least this
    // many MiB in all (default -1: as many as memcpy's buffer; 0: one frame, rewritten in place).
    long cycle_mib = -1;
};

// Reads --sizes LIST, --threads LIST, --rounds N and --cycle-mib N from the arguments ("1080p,4K,8K" or
// "3840x2160"; "1,2,4"); false with a message on stderr for a value it cannot read.
bool parse_scaling_options(int argc, char **argv, ScalingOptions &options);

// 5. The methods libyuv has an equivalent of, for RGBA, I420 and NV12: g2g's one-thread
// materialize and libyuv's call on the same frames (alternating rounds), as a markdown table.
void libyuv_against_ours(const ScalingOptions &options);

// 6. RGBA and NV12 90r, 90l, 180 and horiz on 1, 2, 4, 8, 16 threads: frame rate against one
// thread's, bandwidth against the machine's memcpy on as many threads, as a markdown table; then
// the goal figures (8 threads, 8K rotations). Both sides run from memory, not the cache:
// memcpy over buffers twice the last-level cache, materialize cycling through as many bytes of
// frames and destinations.
void thread_scaling(const ScalingOptions &options);

// 7. The cost of a split: each part of RGBA and NV12 90r and 90l rotations into 2 to 16 parts (the
// --threads counts) timed alone on one thread, bands of rows against the blocks materialize cuts,
// the parts' total and slowest time against the one-thread walk's (bench-view-parts.cpp).
void part_costs(const ScalingOptions &options);

// 8. The store choice by frame size: vert, horiz and 90r of RGBA and NV12 frames written through
// the cache and streamed, alone and followed by a read of the frame (bench-view-stores.cpp).
void store_choice(const ScalingOptions &options);

// 9. Issue 19's goal lines (8K RGBA and NV12 90r and 90l on 8 threads against one thread and
// against memcpy on 8), all three figures measured back to back in every round, their medians and
// spread over --rounds rounds (default 15) (bench-view-goals.cpp).
void goal_lines(const ScalingOptions &options);

} // namespace g2g::bench
