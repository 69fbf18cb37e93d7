// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper for pipelines kept across state changes, seeks and EOS (the stress tests): what one
// appsink received, each frame checked as it arrives (nothing kept, so a run of any length holds
// no frames), and a wait for what the test expects next.
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <g2g/gst-ref.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

namespace g2g::test {

// What an appsink received since the last reset.
struct SinkStatus {
    guint64 frames = 0;
    guint64 segment_frames = 0; // frames of the current segment
    GstSegment segment{};       // of the last frame (GST_FORMAT_UNDEFINED before the first)
    GstClockTime segment_first_pts = GST_CLOCK_TIME_NONE; // the first frame of that segment
    GstClockTime last_pts = GST_CLOCK_TIME_NONE;
    GstClockTime last_end = GST_CLOCK_TIME_NONE; // its pts + duration
    bool eos = false;
    // The first thing wrong: a frame its check refused, a frame missing or repeated within a
    // segment, a frame outside its segment, a frame after EOS.
    std::string problem;
};

// "" when `buffer` (laid out as `info`, from the sample's caps) is the right frame, else what is
// wrong with it. Runs in the streaming thread.
using FrameCheck = std::function<std::string(GstBuffer *buffer, const GstVideoInfo &info)>;

class SinkRecorder {
public:
    // Takes `appsink`'s callbacks (the pipeline not streaming yet) and runs `check` on each frame.
    SinkRecorder(GstElement *appsink, FrameCheck check);
    ~SinkRecorder(); // the pipeline must not be streaming any more
    SinkRecorder(const SinkRecorder &) = delete;
    SinkRecorder &operator=(const SinkRecorder &) = delete;

    const std::string &name() const { return name_; }

    // Forgets what came (a new stream starts: after NULL or READY).
    void reset();
    SinkStatus status() const;
    // Waits until `done` holds of the status (or a problem was found), at most `timeout`; whether
    // `done` holds.
    bool wait_until(const std::function<bool(const SinkStatus &)> &done, std::chrono::milliseconds timeout);

private:
    static GstFlowReturn on_sample(GstAppSink *sink, gpointer self);
    static void on_eos(GstAppSink *sink, gpointer self);
    void take(GstSample *sample);

    ElementRef sink_;
    std::string name_;
    FrameCheck check_;
    // Streaming thread only: the layout of the caps last seen.
    CapsRef caps_;
    GstVideoInfo info_{};

    mutable std::mutex mutex_; // guards status_
    std::condition_variable changed_;
    SinkStatus status_;
};

} // namespace g2g::test
