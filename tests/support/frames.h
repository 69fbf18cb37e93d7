// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for video frames: deterministic random frames, visible-pixel comparison,
// GstHarness runs of an element chain.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <g2g/gst-ref.h>

#include "pipeline.h"

#include <string>
#include <vector>

namespace g2g::test {

// A frame of `info` filled with pseudo-random bytes from `seed` (padding included).
BufferRef random_frame(const GstVideoInfo &info, guint32 seed);

// The video info of a `format` frame of width x height, laid out as GStreamer's default.
GstVideoInfo video_info(GstVideoFormat format, int width, int height);

// The video info of the caps the harness's sink pad has now (all fields zero without caps).
GstVideoInfo current_sink_info(GstHarness *harness);

// The video info of a caps string (all fields zero when it is not video caps).
GstVideoInfo video_info_of_caps(const std::string &caps_string);

// "" when the visible pixels of a (laid out as info_a, or its video meta) and b are equal;
// else where they first differ.
std::string compare_frames(const GstVideoInfo &info_a, GstBuffer *a, const GstVideoInfo &info_b,
                           GstBuffer *b);

// Every frame appsink `sink` of `ours` received equals the same frame of `peer`'s appsink "sink",
// visible pixels, both runs without error (gtest assertions).
void expect_same_frames(const PipelineRun &ours, const PipelineRun &peer, const std::string &what,
                        const char *sink = "sink");

struct HarnessOutput {
    BufferRef buffer;
    GstVideoInfo info{}; // from the caps the chain negotiated at its end
    std::string caps;
    std::string error;        // an element error posted while running, or a flow error
    std::string error_source; // the name of the element that posted it
};

struct HarnessInput {
    GstVideoInfo info; // its caps
    GstBuffer *buffer;
};

// Pushes each input in turn (its caps first) through one GstHarness running `description` and
// pulls each output, stopping after the first error: frames of several sizes through one
// pipeline, renegotiated between them, cost one pipeline's setup. `sink_caps` and `allocator` as
// run_chain's.
std::vector<HarnessOutput> run_chain_on_each(const std::string &description,
                                             const std::vector<HarnessInput> &inputs,
                                             const char *sink_caps = nullptr,
                                             GstAllocator *allocator = nullptr);

// Pushes `input` (caps `in_caps`) through the gst-launch chain `description` in a GstHarness and
// pulls the output; `sink_caps` (optional) is what the harness's sink accepts; `allocator`
// (optional) is the one the harness's sink proposes (filled-memory.h: output that starts as garbage).
HarnessOutput run_chain(const std::string &description, const GstVideoInfo &in_info, GstBuffer *input,
                        const char *sink_caps = nullptr, GstAllocator *allocator = nullptr);

} // namespace g2g::test
