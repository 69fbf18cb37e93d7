// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink and g2gipcsrc with real processes: the producer runs in this test's process, each
// consumer is a gst-launch-1.0 of its own (or the reverse), and what a consumer received is compared
// with what GStreamer's own elements make of the same frames.
#include <gst/gst.h>
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "g2g-config.h"
#include "open-fds.h"
#include "pipeline.h"
#include "processes.h"

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using g2g::test::ChildProcess;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::Scratch;

namespace {

// `frames` frames of a moving ball, NV12 64x48.
std::string source(int frames, const std::string &extra = "")
{
    return "videotestsrc num-buffers=" + std::to_string(frames) + " pattern=ball " + extra +
           " ! video/x-raw,format=NV12,width=64,height=48,framerate=30/1";
}

// The bytes of every frame `run` received, one after the other.
std::string bytes_of(const std::vector<g2g::BufferRef> &frames)
{
    std::string all;
    for (const g2g::BufferRef &buffer : frames) {
        GstMapInfo map;
        if (!gst_buffer_map(buffer.get(), &map, GST_MAP_READ))
            return "(unmappable)";
        all.append(reinterpret_cast<const char *>(map.data), map.size);
        gst_buffer_unmap(buffer.get(), &map);
    }
    return all;
}

// A consumer process: `g2gipcsrc socket-path=<socket> ! <chain> ! filesink`, started once the
// producer listens; what it received is in the file `name`, what it said in `name`.log. The
// filesink writes each frame as it comes: by default it keeps 64 KiB of frames to write at once,
// more than the producer lets a consumer hold (max-queued), which would stall a producer that
// waits for it.
struct Consumer {
    std::string out, log;
    std::unique_ptr<ChildProcess> process;

    Consumer(const Scratch &scratch, const std::string &name, const std::string &chain)
        : out(scratch.path(name)), log(scratch.path(name + ".log"))
    {
        const std::string socket = scratch.path("socket");
        process = std::make_unique<ChildProcess>(g2g::test::launch_when_socket(
            socket, "g2gipcsrc socket-path='" + socket + "' ! " + chain + " ! filesink buffer-mode=unbuffered location='" + out + "'",
            scratch.path("registry.bin"), log));
    }
    int wait() { return process->wait(); }
    std::string received() const { return g2g::test::read_file(out); }
    std::string said() const { return g2g::test::read_file(log); }
};

guint64 stat_of(const GstStructure *stats, const char *field)
{
    guint64 value = 0;
    if (!gst_structure_get_uint64(stats, field, &value))
        return G_MAXUINT64;
    return value;
}

// The producer's stats at EOS (its element message).
struct ProducerRun {
    PipelineRun run;
    g2g::Ref<GstStructure> stats;
};

} // namespace

// One producer, three consumer processes, each in its own domain: a dense system consumer gets
// the 90r view materialized once, a consumer that reads views gets the view (and materializes it
// itself), a DMA-BUF consumer gets it copied once into a DMA-BUF; every one equals videoflip's.
TEST(IpcProcesses, ThreeConsumersEachInItsDomainEqualVideoflip)
{
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature (no DMA-BUF consumer)";
    Scratch scratch("g2g-ipc");
    const int frames = 30;
    Consumer dense(scratch, "dense", "g2gprobe require=system");
    Consumer view(scratch, "view", "g2gprobe require=system-view ! g2gmaterialize");
    Consumer dmabuf(scratch, "dmabuf", "\"video/x-raw(memory:DMABuf)\" ! g2gprobe require=dma-buf");
    GstStructure *stats = nullptr;
    const PipelineRun producer = run_pipeline(
        source(frames) + " ! g2gview video-direction=90r ! g2gipcsink name=ipc min-consumers=3 queue-full=wait "
                         "sync=false socket-path=" + scratch.path("socket"),
        {}, 60 * GST_SECOND, [&](GstBin *bin) {
            GstElement *sink = gst_bin_get_by_name(bin, "ipc");
            g_object_get(sink, "stats", &stats, nullptr);
            gst_object_unref(sink);
        });
    EXPECT_EQ(producer.error, "");
    EXPECT_EQ(dense.wait(), 0) << dense.said();
    EXPECT_EQ(view.wait(), 0) << view.said();
    EXPECT_EQ(dmabuf.wait(), 0) << dmabuf.said();

    const PipelineRun peer = run_pipeline(source(frames) + " ! videoflip video-direction=90r ! appsink name=sink sync=false");
    ASSERT_EQ(peer.buffers.size(), static_cast<std::size_t>(frames));
    const std::string expected = bytes_of(peer.buffers);
    EXPECT_TRUE(dense.received() == expected) << dense.received().size() << " bytes";
    EXPECT_TRUE(view.received() == expected) << view.received().size() << " bytes";
    EXPECT_TRUE(dmabuf.received() == expected) << dmabuf.received().size() << " bytes";

    ASSERT_NE(stats, nullptr);
    EXPECT_EQ(stat_of(stats, "frames"), guint64(frames));
    EXPECT_EQ(stat_of(stats, "shares"), guint64(3 * frames));
    EXPECT_EQ(stat_of(stats, "dropped"), 0u);
    // Once per frame per domain, however many consumers take it.
    EXPECT_EQ(stat_of(stats, "conversions.SystemView-to-System"), guint64(frames));
    EXPECT_EQ(stat_of(stats, "conversions.SystemView-to-DmaBuf"), guint64(frames));
    gst_structure_free(stats);
}
