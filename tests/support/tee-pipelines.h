// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for g2gtee in whole pipelines (tests/pipelines/*/test-tee-*.cpp): the source every
// case feeds the tee, GStreamer's own elements as the oracle for its frames, and the run's tee
// kept past the run to read its stats.
#pragma once

#include <gst/video/video.h>

#include <g2g/gst-ref.h>

#include <string>
#include <vector>

#include "pipeline.h"
#include "tee-stats.h"

namespace g2g::test::tee_pipeline {

// What source() sends: kFrames frames of SMPTE bars in kRgba.
inline constexpr int kFrames = 12;
inline constexpr const char *kRgba = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

// A gst-launch source of kFrames frames in kRgba.
std::string source();

// The run's g2gtee (named "t"), kept past the run to read its stats.
struct TeeStats {
    g2g::ElementRef tee;

    guint64 get(const char *field) const { return g2g::test::tee_stat(tee.get(), field); }
    guint64 pair(const char *name) const { return g2g::test::tee_conversions(tee.get(), name); }
};

// Runs `description` and keeps its tee in `stats`.
PipelineRun run_with_stats(const std::string &description, TeeStats &stats);

// The frames `chain` makes of the source on its own (GStreamer's elements as the oracle).
std::vector<g2g::BufferRef> reference(const std::string &chain = "");

// Every frame of `got` has the visible pixels of the same frame of `want` (both laid out as `info`).
void expect_frames_equal(const std::vector<g2g::BufferRef> &got, const std::vector<g2g::BufferRef> &want,
                         const GstVideoInfo &info, const char *branch);

// The buffer's first memory: equal for two branches that share one frame.
GstMemory *memory_of(const g2g::BufferRef &buffer);

} // namespace g2g::test::tee_pipeline
