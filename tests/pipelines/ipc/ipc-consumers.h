// SPDX-License-Identifier: LGPL-2.1-or-later
// What the IPC tests with real processes share: the source they send, a consumer process and the
// producer's counters (test-ipc-processes.cpp, and test-ipc-vulkan.cpp, whose shader runs need
// AddressSanitizer's fast unwinder: tests/meson.build's jit_env).
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>
#include <vector>

#include "log-capture.h"

#include "pipeline.h"
#include "processes.h"

namespace ipc_test {

using g2g::test::ChildProcess;
using g2g::test::Scratch;

// `frames` frames of a moving ball, NV12 64x48.
inline std::string source(int frames, const std::string &extra = "")
{
    return "videotestsrc num-buffers=" + std::to_string(frames) + " pattern=ball " + extra +
           " ! video/x-raw,format=NV12,width=64,height=48,framerate=30/1";
}

// A consumer process: `g2gipcsrc socket-path=<socket> ! <chain> ! filesink`, started once the
// producer listens; what it received is in the file `name`, what it said in `name`.log. The
// filesink writes each frame as it comes: by default it keeps 64 KiB of frames to write at once,
// more than the producer lets a consumer hold (max-queued), which would stall a producer that
// waits for it.
struct Consumer {
    std::string out, log;
    std::unique_ptr<ChildProcess> process;

    Consumer(const Scratch &scratch, const std::string &name, const std::string &chain,
             const std::string &options = "-q")
        : out(scratch.path(name)), log(scratch.path(name + ".log"))
    {
        const std::string socket = scratch.path("socket");
        process = std::make_unique<ChildProcess>(
            g2g::test::launch_when_socket(socket,
                                          "g2gipcsrc socket-path='" + socket + "' ! " + chain +
                                              " ! filesink buffer-mode=unbuffered location='" + out + "'",
                                          scratch.path("registry.bin"), log, options));
    }
    int wait() { return process->wait(); }
    std::string received() const { return g2g::test::read_file(out); }
    std::string said() const { return g2g::test::read_file(log); }
};

inline guint64 stat_of(const GstStructure *stats, const char *field)
{
    guint64 value = 0;
    if (!gst_structure_get_uint64(stats, field, &value))
        return G_MAXUINT64;
    return value;
}

// An `inspect` for run_pipeline: the stats of its g2gipcsink named "ipc" at EOS, into `stats`.
inline g2g::test::PipelineInspector stats_of_sink(GstStructure *&stats)
{
    return [&stats](GstBin *bin) {
        GstElement *sink = gst_bin_get_by_name(bin, "ipc");
        g_object_get(sink, "stats", &stats, nullptr);
        gst_object_unref(sink);
    };
}

// A producer run in this process to its end (its g2gipcsink named "ipc"): its error, its counters
// at EOS, and the warnings and criticals GStreamer and GLib logged meanwhile.
struct ProducerRun {
    std::string error;
    GstStructure *stats = nullptr; // owned
    std::vector<std::string> complaints;

    ProducerRun() = default;
    ~ProducerRun()
    {
        if (stats)
            gst_structure_free(stats);
    }
    ProducerRun(const ProducerRun &) = delete;
    ProducerRun &operator=(const ProducerRun &) = delete;
    guint64 stat(const char *field) const { return stat_of(stats, field); }
};

inline std::unique_ptr<ProducerRun> run_producer(const std::string &description,
                                                 const g2g::test::BufferTap &tap = {})
{
    auto run = std::make_unique<ProducerRun>();
    const g2g::test::LogCapture complaints;
    run->error = g2g::test::run_pipeline(description, tap, 60 * GST_SECOND, stats_of_sink(run->stats)).error;
    run->complaints = complaints.said();
    return run;
}

} // namespace ipc_test
