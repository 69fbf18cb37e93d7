// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink and g2gipcsrc with real processes: the producer runs in this test's process, each
// consumer is a gst-launch-1.0 of its own (or the reverse), and what a consumer received is compared
// with what GStreamer's own elements make of the same frames.
#include <gst/gst.h>
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "g2g-config.h"
#include "log-capture.h"
#include "open-fds.h"
#include "pipeline.h"
#include "processes.h"

#include "ipc-consumers.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <optional>
#include <thread>
#include <vector>

using g2g::test::ChildProcess;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::Scratch;

using ipc_test::Consumer;
using ipc_test::source;
using ipc_test::stat_of;
using ipc_test::stats_of_sink;

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
        source(frames) +
            " ! g2gview video-direction=90r ! g2gipcsink name=ipc min-consumers=3 queue-full=wait "
            "sync=false socket-path=" +
            scratch.path("socket"),
        {}, 60 * GST_SECOND, stats_of_sink(stats));
    EXPECT_EQ(producer.error, "");
    EXPECT_EQ(dense.wait(), 0) << dense.said();
    EXPECT_EQ(view.wait(), 0) << view.said();
    EXPECT_EQ(dmabuf.wait(), 0) << dmabuf.said();

    const PipelineRun peer =
        run_pipeline(source(frames) + " ! videoflip video-direction=90r ! appsink name=sink sync=false");
    ASSERT_EQ(peer.buffers.size(), static_cast<std::size_t>(frames));
    const std::string expected = g2g::test::bytes_of(peer.buffers);
    EXPECT_TRUE(dense.received() == expected) << dense.received().size() << " bytes";
    EXPECT_TRUE(view.received() == expected) << view.received().size() << " bytes";
    EXPECT_TRUE(dmabuf.received() == expected) << dmabuf.received().size() << " bytes";

    ASSERT_NE(stats, nullptr);
    EXPECT_EQ(stat_of(stats, "frames"), guint64(frames));
    EXPECT_EQ(stat_of(stats, "shares"), guint64(3 * frames));
    EXPECT_EQ(stat_of(stats, "dropped"), 0u);
    // The view's memory is videotestsrc's, written into the memfds g2gipcsink offered through
    // g2gview: it crosses as it is, no byte copied.
    EXPECT_EQ(stat_of(stats, "copies"), 0u);
    // Once per frame per domain, however many consumers take it.
    EXPECT_EQ(stat_of(stats, "conversions.SystemView-to-System"), guint64(frames));
    EXPECT_EQ(stat_of(stats, "conversions.SystemView-to-DmaBuf"), guint64(frames));
    gst_structure_free(stats);
}

namespace {

// A producer process: `<chain> ! g2gipcsink socket-path=<socket> <sink options>`, its output in
// producer.log.
std::unique_ptr<ChildProcess> producer_process(const Scratch &scratch, const std::string &chain,
                                               const std::string &sink_options = "")
{
    return std::make_unique<ChildProcess>(g2g::test::launch(
        chain + " ! g2gipcsink socket-path='" + scratch.path("socket") + "' " + sink_options,
        scratch.path("registry.bin"), scratch.path("producer.log")));
}

} // namespace

namespace {

// nvh264dec decoding 20 chunks of the 1080p sample stream, or "" and why this machine cannot.
std::string nvh264dec_sample(std::string &why)
{
    if (!g2g::test::have_cuda_device()) {
        why = "needs a CUDA device and the nvcodec plugin (nvh264dec)";
        return "";
    }
    const std::string media = g2g::test::media_path("ball-1920x1080-300f.h264");
    if (media.empty())
        why = "the sample stream ball-1920x1080-300f.h264 is not on this machine";
    return media.empty() ? "" : "filesrc location=" + media + " num-buffers=20 ! h264parse ! nvh264dec";
}

} // namespace

// CUDA frames cross as their memory: nvh264dec's frames go to one consumer process as CUDA IPC
// handles (it reads the producer's device memory in place) and to another as DMA-BUFs over the
// same memory; neither is a copy. The CUDA consumer's bytes equal nvh264dec's in this process, and
// a consumer of system memory is told to download before the producer.
TEST(IpcProcesses, CudaFramesCrossAsTheirMemory)
{
    std::string why;
    const std::string decode = nvh264dec_sample(why);
    if (decode.empty())
        GTEST_SKIP() << why;
    Scratch scratch("g2g-ipc");
    Consumer cuda(scratch, "cuda", "g2gprobe require=cuda ! cudadownload ! video/x-raw,format=NV12");
    // CUDA memory exported as a DMA-BUF does not map for the CPU: the consumer checks its frames'
    // domain and drops them before its filesink.
    Consumer dmabuf(
        scratch, "dmabuf",
        "\"video/x-raw(memory:DMABuf)\" ! g2gprobe require=dma-buf ! identity drop-probability=1.0");
    Consumer refused(scratch, "refused", "g2gprobe require=system");
    const auto producer = ipc_test::run_producer(
        decode + " ! g2gipcsink name=ipc min-consumers=2 queue-full=wait sync=false socket-path=" +
        scratch.path("socket"));
    EXPECT_EQ(producer->error, "");
    EXPECT_TRUE(producer->complaints.empty()) << producer->complaints.front();
    EXPECT_EQ(cuda.wait(), 0) << cuda.said();
    const PipelineRun peer =
        run_pipeline(decode + " ! cudadownload ! video/x-raw,format=NV12 ! appsink name=sink sync=false");
    ASSERT_FALSE(peer.buffers.empty()) << peer.error;
    EXPECT_TRUE(cuda.received() == g2g::test::bytes_of(peer.buffers))
        << cuda.received().size() << " bytes against " << g2g::test::bytes_of(peer.buffers).size();
    EXPECT_NE(refused.wait(), 0);
    EXPECT_NE(refused.said().find("as CUDA memory"), std::string::npos) << refused.said();
    EXPECT_NE(refused.said().find(": download them before ipc (cudadownload) for system memory"),
              std::string::npos)
        << refused.said();
    ASSERT_NE(producer->stats, nullptr);
    const guint64 frames = producer->stat("frames");
    EXPECT_EQ(frames, guint64(peer.buffers.size()));
    EXPECT_EQ(producer->stat("copies"), 0u);
    EXPECT_EQ(producer->stat("conversions"), 0u);
    EXPECT_EQ(dmabuf.wait(), 0) << dmabuf.said();
    EXPECT_EQ(producer->stat("shares"), 2 * frames);
}

// A view of CUDA frames crosses as its view over the producer's memory (its IPC handle, no byte
// copied); a consumer of dense CUDA frames gets the view written once by the library's kernel on
// the producer's device, and a consumer of DMA-BUFs that dense frame exported. The view's and the
// dense consumer's bytes equal videoflip's of nvh264dec's frames.
TEST(IpcProcesses, CudaViewsCrossAsViewsAndEqualVideoflip)
{
    std::string why;
    const std::string decode = nvh264dec_sample(why);
    if (decode.empty())
        GTEST_SKIP() << why;
    Scratch scratch("g2g-ipc");
    Consumer view(scratch, "view",
                  "\"video/x-raw(memory:CUDAMemory,meta:G2gTensorView)\" ! g2gprobe require=cuda ! "
                  "g2gmaterialize ! cudadownload ! video/x-raw,format=NV12");
    Consumer dense(scratch, "dense",
                   "\"video/x-raw(memory:CUDAMemory)\" ! cudadownload ! video/x-raw,format=NV12");
    Consumer dmabuf(
        scratch, "dmabuf",
        "\"video/x-raw(memory:DMABuf)\" ! g2gprobe require=dma-buf ! identity drop-probability=1.0");
    Consumer refused(scratch, "refused", "g2gprobe require=system");
    const auto producer = ipc_test::run_producer(
        decode +
        " ! g2gview video-direction=90r ! g2gipcsink name=ipc min-consumers=3 queue-full=wait "
        "sync=false socket-path=" +
        scratch.path("socket"));
    EXPECT_EQ(producer->error, "");
    EXPECT_TRUE(producer->complaints.empty()) << producer->complaints.front();
    EXPECT_EQ(view.wait(), 0) << view.said();
    EXPECT_EQ(dense.wait(), 0) << dense.said();
    EXPECT_EQ(dmabuf.wait(), 0) << dmabuf.said();
    const PipelineRun peer = run_pipeline(decode + " ! cudadownload ! video/x-raw,format=NV12 ! videoflip "
                                                   "video-direction=90r ! appsink name=sink sync=false");
    ASSERT_FALSE(peer.buffers.empty()) << peer.error;
    const std::string expected = g2g::test::bytes_of(peer.buffers);
    EXPECT_TRUE(view.received() == expected)
        << view.received().size() << " bytes against " << expected.size();
    EXPECT_TRUE(dense.received() == expected)
        << dense.received().size() << " bytes against " << expected.size();
    EXPECT_NE(refused.wait(), 0);
    EXPECT_NE(refused.said().find("as CUDA memory (as views, or written dense) or DMA-BUFs"),
              std::string::npos)
        << refused.said();
    EXPECT_NE(
        refused.said().find(": write them dense and download them before ipc (g2gmaterialize ! cudadownload) "
                            "for system memory"),
        std::string::npos)
        << refused.said();
    ASSERT_NE(producer->stats, nullptr);
    const guint64 frames = producer->stat("frames");
    EXPECT_EQ(frames, guint64(peer.buffers.size()));
    EXPECT_EQ(producer->stat("shares"), 3 * frames);
    EXPECT_EQ(producer->stat("copies"), 0u);
    // The view written dense once per frame, for the dense consumer and the DMA-BUF one alike.
    EXPECT_EQ(producer->stat("conversions.Cuda-to-Cuda"), frames);
}

// A producer killed with SIGKILL ends its consumer with an error naming the socket, at once (the
// socket closes with the process): never a hang.
TEST(IpcProcesses, AProducerThatDiesEndsItsConsumerWithAnErrorNamingTheSocket)
{
    Scratch scratch("g2g-ipc");
    auto producer = producer_process(scratch, source(-1, "is-live=true"));
    ASSERT_TRUE(producer->started());
    gint64 killed_at = 0;
    int seen = 0;
    const PipelineRun consumer = run_pipeline(
        "g2gipcsrc socket-path=" + scratch.path("socket") +
            " ! identity name=tap ! appsink name=sink sync=false",
        [&](GstBuffer *) {
            if (++seen == 5) {
                killed_at = g_get_monotonic_time();
                producer->kill();
            }
        },
        20 * GST_SECOND);
    const gint64 ended_at = g_get_monotonic_time();
    ASSERT_GT(killed_at, 0) << consumer.error << g2g::test::read_file(scratch.path("producer.log"));
    EXPECT_EQ(consumer.error, "g2gipcsrc0: the producer at " + scratch.path("socket") +
                                  " went away: the peer closed the connection");
    EXPECT_LT(ended_at - killed_at, G_USEC_PER_SEC) << "from the kill to the consumer's end";
}

namespace {

// Starts the consumer a test goes on with once `refused` has ended: the producer (min-consumers=1)
// waits for it, so the refused one has its answer before the stream, whatever a process takes to
// start (on the GPU host, a new registry's scan of nvcodec took longer than a 2 s stream).
struct AfterRefusal {
    std::optional<Consumer> next;
    int refused_status = -1;
    std::thread thread;

    AfterRefusal(Consumer &refused, const Scratch &scratch, const std::string &name, const std::string &chain)
        : thread([&, name, chain] {
              refused_status = refused.wait();
              next.emplace(scratch, name, chain);
          })
    {
    }
    // The consumer that went on, once it was started.
    Consumer &consumer()
    {
        if (thread.joinable())
            thread.join();
        return *next;
    }
    ~AfterRefusal()
    {
        if (thread.joinable())
            thread.join();
    }
};

} // namespace

// A consumer whose caps no route reaches is told why, by the producer, and ends with that error;
// the producer goes on for the others.
TEST(IpcProcesses, AConsumerNoRouteReachesIsRefusedWithWhy)
{
    Scratch scratch("g2g-ipc");
    Consumer refused(scratch, "refused", "video/x-raw,format=RGBA");
    AfterRefusal after(refused, scratch, "dense", "g2gprobe require=system");
    GstStructure *stats = nullptr;
    const PipelineRun producer =
        run_pipeline(source(60, "is-live=true") +
                         " ! g2gipcsink name=ipc min-consumers=1 queue-full=wait sync=false socket-path=" +
                         scratch.path("socket"),
                     {}, 60 * GST_SECOND, stats_of_sink(stats));
    EXPECT_EQ(producer.error, "");
    Consumer &dense = after.consumer();
    EXPECT_NE(after.refused_status, 0);
    EXPECT_NE(
        refused.said().find("g2gipcsrc0: the producer at " + scratch.path("socket") +
                            " has no frames this consumer takes: ipc sends video/x-raw, format=(string)NV12"),
        std::string::npos)
        << refused.said();
    EXPECT_NE(refused.said().find("the consumer takes video/x-raw, format=(string)RGBA"), std::string::npos)
        << refused.said();
    EXPECT_EQ(dense.wait(), 0) << dense.said();
    ASSERT_NE(stats, nullptr);
    EXPECT_GE(stat_of(stats, "refused"), 1u);
    gst_structure_free(stats);
}

// A socket path no socket can have (empty, or past sun_path's 107 bytes) is refused at start with
// why, by the producer and by a consumer alike; the consumer does not try it for connection-timeout
// first, as it does a path where no producer listens yet.
TEST(IpcProcesses, ASocketPathNoSocketCanHaveIsRefusedAtOnce)
{
    const std::string too_long = "/tmp/" + std::string(110, 'x');
    const std::string said = "socket path \"" + too_long + "\" is empty or longer than 107 bytes";
    const PipelineRun producer =
        run_pipeline(source(1, "") + " ! g2gipcsink name=ipc socket-path=" + too_long, {}, 10 * GST_SECOND);
    EXPECT_EQ(producer.error, "ipc: " + said);
    const auto started = std::chrono::steady_clock::now();
    const PipelineRun consumer =
        run_pipeline("g2gipcsrc name=src connection-timeout=5 socket-path=" + too_long + " ! fakesink", {},
                     10 * GST_SECOND);
    EXPECT_EQ(consumer.error, "src: " + said);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
    EXPECT_EQ(run_pipeline(source(1, "") + " ! g2gipcsink name=ipc", {}, 10 * GST_SECOND).error,
              "ipc: socket-path is not set");
    EXPECT_EQ(run_pipeline("g2gipcsrc name=src ! fakesink", {}, 10 * GST_SECOND).error,
              "src: socket-path is not set");
}

// What is at the socket path already: a socket a dead producer left is replaced; a file or a folder
// of that name is the user's, refused by name and left as it was (the producer once removed a file
// there as it removes a stale socket). A consumer is refused there at once: no producer can come.
TEST(IpcProcesses, OnlyASocketAProducerLeftIsReplaced)
{
    Scratch scratch("g2g-ipc");
    const auto produce_at = [](const std::string &path) {
        return run_pipeline(source(1, "") + " ! g2gipcsink name=ipc socket-path=" + path, {},
                            10 * GST_SECOND);
    };
    const std::string file = scratch.path("notes.txt");
    g_file_set_contents(file.c_str(), "the user's", -1, nullptr);
    EXPECT_EQ(produce_at(file).error, "ipc: cannot listen at " + file +
                                          ": a file that is not a socket is there (only a socket a producer "
                                          "left is replaced)");
    EXPECT_EQ(run_pipeline("g2gipcsrc name=src connection-timeout=5 socket-path=" + file + " ! fakesink", {},
                           10 * GST_SECOND)
                  .error,
              "src: socket path " + file + " is a file that is not a socket");
    gchar *kept = nullptr;
    ASSERT_TRUE(g_file_get_contents(file.c_str(), &kept, nullptr, nullptr));
    EXPECT_STREQ(kept, "the user's");
    g_free(kept);
    const std::string folder = scratch.path("folder");
    ASSERT_EQ(mkdir(folder.c_str(), 0700), 0);
    EXPECT_EQ(produce_at(folder).error,
              "ipc: cannot listen at " + folder +
                  ": a folder is there (only a socket a producer left is replaced)");
    EXPECT_TRUE(g_file_test(folder.c_str(), G_FILE_TEST_IS_DIR));
    rmdir(folder.c_str());
    // A dead producer's socket: bound, closed, its file left behind.
    const std::string stale = scratch.path("socket");
    {
        const int left = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::snprintf(address.sun_path, sizeof address.sun_path, "%s", stale.c_str());
        ASSERT_EQ(bind(left, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
        close(left);
    }
    ASSERT_TRUE(g_file_test(stale.c_str(), G_FILE_TEST_EXISTS));
    EXPECT_EQ(produce_at(stale).error, "");
    // A symbolic link: a producer never replaces one (whatever it points to); a consumer connects
    // through one to the socket it points to.
    const std::string link = scratch.path("link");
    ASSERT_EQ(symlink(stale.c_str(), link.c_str()), 0);
    EXPECT_EQ(produce_at(link).error,
              "ipc: cannot listen at " + link +
                  ": a symbolic link is there (only a socket a producer left is replaced)");
    ChildProcess producer(g2g::test::launch(
        source(30, "is-live=true") + " ! g2gipcsink min-consumers=1 max-queued=64 socket-path=" + stale,
        scratch.path("registry.bin"), scratch.path("producer.log")));
    for (int i = 0; i < 400 && !g_file_test(stale.c_str(), G_FILE_TEST_EXISTS); ++i)
        g_usleep(20000);
    const PipelineRun through_link =
        run_pipeline("g2gipcsrc socket-path=" + link + " ! appsink name=sink", {}, 30 * GST_SECOND);
    EXPECT_EQ(through_link.error, "");
    EXPECT_EQ(through_link.buffers.size(), 30u);
    EXPECT_EQ(producer.wait(), 0) << g2g::test::read_file(scratch.path("producer.log"));
}

// A producer removes its socket file as it ends, but only its own: where the file was removed
// meanwhile and another producer listens at the path (a supervisor restarting a stuck producer),
// the first one's end leaves the second's file, and consumers still find the second.
TEST(IpcProcesses, AProducerThatEndsRemovesOnlyItsOwnSocketFile)
{
    Scratch scratch("g2g-ipc");
    const std::string socket = scratch.path("socket");
    const auto wait_for_file = [&] {
        for (int i = 0; i < 400 && !g_file_test(socket.c_str(), G_FILE_TEST_EXISTS); ++i)
            g_usleep(20000);
        return g_file_test(socket.c_str(), G_FILE_TEST_EXISTS);
    };
    ChildProcess first(g2g::test::launch(source(30, "is-live=true") + " ! g2gipcsink socket-path=" + socket,
                                         scratch.path("registry.bin"), scratch.path("first.log")));
    ASSERT_TRUE(wait_for_file()) << g2g::test::read_file(scratch.path("first.log"));
    ASSERT_EQ(unlink(socket.c_str()), 0);
    ChildProcess second(
        g2g::test::launch(source(150, "is-live=true") + " ! g2gipcsink min-consumers=1 socket-path=" + socket,
                          scratch.path("registry.bin"), scratch.path("second.log")));
    ASSERT_TRUE(wait_for_file()) << g2g::test::read_file(scratch.path("second.log"));
    EXPECT_EQ(first.wait(), 0) << g2g::test::read_file(scratch.path("first.log"));
    EXPECT_TRUE(g_file_test(socket.c_str(), G_FILE_TEST_EXISTS))
        << "the first producer removed the second's socket";
    const PipelineRun consumer =
        run_pipeline("g2gipcsrc socket-path=" + socket + " ! fakesink", {}, 30 * GST_SECOND);
    EXPECT_EQ(consumer.error, "");
    EXPECT_EQ(second.wait(), 0) << g2g::test::read_file(scratch.path("second.log"));
    EXPECT_FALSE(g_file_test(socket.c_str(), G_FILE_TEST_EXISTS))
        << "the second producer left its own socket";
}

// A format DRM has no fourcc for (AYUV, what videotestsrc picks unasked on GStreamer 1.26) cannot
// cross as a DMA-BUF: a DMA-BUF consumer is refused at its caps with why, and the producer goes on
// for the others (it once took the route and failed every frame at its export).
TEST(IpcProcesses, ADmaBufConsumerOfAFormatWithNoDrmFourccIsRefusedWithWhy)
{
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature (no DMA-BUF consumer)";
    Scratch scratch("g2g-ipc");
    Consumer dmabuf(scratch, "dmabuf", "\"video/x-raw(memory:DMABuf)\" ! g2gprobe require=dma-buf");
    AfterRefusal after(dmabuf, scratch, "dense", "g2gprobe require=system");
    GstStructure *stats = nullptr;
    const PipelineRun producer = run_pipeline(
        "videotestsrc num-buffers=60 is-live=true ! video/x-raw,format=AYUV,width=64,height=48 ! g2gipcsink "
        "name=ipc min-consumers=1 queue-full=wait sync=false socket-path=" +
            scratch.path("socket"),
        {}, 60 * GST_SECOND, stats_of_sink(stats));
    EXPECT_EQ(producer.error, "");
    Consumer &dense = after.consumer();
    EXPECT_NE(after.refused_status, 0);
    EXPECT_NE(
        dmabuf.said().find("g2gipcsrc0: the producer at " + scratch.path("socket") +
                           " has no frames this consumer takes: ipc sends video/x-raw, format=(string)AYUV"),
        std::string::npos)
        << dmabuf.said();
    EXPECT_NE(dmabuf.said().find("as it is, in system memory (not in DMA-BUFs: AYUV has no DRM fourcc); the "
                                 "consumer takes video/x-raw(memory:DMABuf)"),
              std::string::npos)
        << dmabuf.said();
    EXPECT_EQ(dense.wait(), 0) << dense.said();
    EXPECT_EQ(dense.received().size(), std::size_t(60 * 64 * 48 * 4));
    ASSERT_NE(stats, nullptr);
    EXPECT_GE(stat_of(stats, "refused"), 1u);
    gst_structure_free(stats);
}

// A consumer gets each frame with its producer's own timestamps, offsets and duration, in caps the
// producer sent, the frame's GstVideoMeta with it.
TEST(IpcProcesses, FramesKeepTheirProducersTimestamps)
{
    Scratch scratch("g2g-ipc");
    // The appsink keeps every frame: max-queued lets it hold all ten.
    auto producer =
        producer_process(scratch, source(10), "min-consumers=1 sync=false queue-full=wait max-queued=16");
    ASSERT_TRUE(producer->started());
    const PipelineRun consumer =
        run_pipeline("g2gipcsrc socket-path=" + scratch.path("socket") + " ! appsink name=sink sync=false",
                     {}, 20 * GST_SECOND);
    EXPECT_EQ(consumer.error, "");
    ASSERT_EQ(consumer.buffers.size(), 10u) << g2g::test::read_file(scratch.path("producer.log"));
    for (std::size_t i = 0; i < consumer.buffers.size(); ++i) {
        GstBuffer *frame = consumer.buffers[i].get();
        EXPECT_EQ(GST_BUFFER_PTS(frame), gst_util_uint64_scale(i, GST_SECOND, 30)) << i;
        EXPECT_EQ(GST_BUFFER_OFFSET(frame), i) << i;
        EXPECT_EQ(GST_BUFFER_DURATION(frame),
                  gst_util_uint64_scale(i + 1, GST_SECOND, 30) - gst_util_uint64_scale(i, GST_SECOND, 30))
            << i;
    }
    EXPECT_EQ(producer->wait(), 0);
}

// Where frames come at a steady rate, a consumer with a spin window (spin-us) watches for each
// around its due time instead of sleeping until the producer wakes it: it still gets every frame,
// in order with its timestamps, and its stats say that frames were seen while it watched (the
// others woke it: a busy machine may reach a window late). A consumer without a window is always
// woken.
TEST(IpcProcesses, AConsumerWithASpinWindowWatchesForItsFrames)
{
    Scratch scratch("g2g-ipc");
    // The appsink keeps every frame: max-queued lets it hold all of them.
    const int frames = 60; // live, 2 s
    auto producer = producer_process(scratch, source(frames, "is-live=true"),
                                     "min-consumers=2 sync=false queue-full=wait max-queued=64");
    ASSERT_TRUE(producer->started());
    auto stats_of = [](GstStructure *&stats) {
        return [&stats](GstBin *bin) {
            GstElement *src = gst_bin_get_by_name(bin, "src");
            g_object_get(src, "stats", &stats, nullptr);
            gst_object_unref(src);
        };
    };
    GstStructure *sleeping_stats = nullptr;
    std::thread sleeper([&] {
        const PipelineRun sleeping = run_pipeline("g2gipcsrc name=src socket-path=" + scratch.path("socket") +
                                                      " ! fakesink sync=false",
                                                  {}, 20 * GST_SECOND, stats_of(sleeping_stats));
        EXPECT_EQ(sleeping.error, "");
    });
    GstStructure *stats = nullptr;
    const PipelineRun consumer =
        run_pipeline("g2gipcsrc name=src spin-us=3000 socket-path=" + scratch.path("socket") +
                         " ! appsink name=sink sync=false",
                     {}, 20 * GST_SECOND, stats_of(stats));
    sleeper.join();
    EXPECT_EQ(consumer.error, "");
    ASSERT_EQ(consumer.buffers.size(), static_cast<std::size_t>(frames))
        << g2g::test::read_file(scratch.path("producer.log"));
    // A live source's frames: a period apart from its first, each once, in order.
    const GstClockTime first = GST_BUFFER_PTS(consumer.buffers[0].get());
    for (std::size_t i = 0; i < consumer.buffers.size(); ++i) {
        EXPECT_EQ(GST_BUFFER_PTS(consumer.buffers[i].get()) - first, gst_util_uint64_scale(i, GST_SECOND, 30))
            << i;
        EXPECT_EQ(GST_BUFFER_OFFSET(consumer.buffers[i].get()), i) << i;
    }
    ASSERT_NE(stats, nullptr);
    ASSERT_NE(sleeping_stats, nullptr);
    guint64 watched = 0, woken = 0;
    gst_structure_get_uint64(stats, "rings-watched", &watched);
    gst_structure_get_uint64(stats, "rings-woken", &woken);
    EXPECT_GT(watched, 0u) << "no frame came inside the window (" << woken << " woke it)";
    EXPECT_GE(watched + woken, guint64(frames / 2));
    gst_structure_get_uint64(sleeping_stats, "rings-watched", &watched);
    gst_structure_get_uint64(sleeping_stats, "rings-woken", &woken);
    EXPECT_EQ(watched, 0u);
    EXPECT_GE(woken, guint64(frames / 2));
    gst_structure_free(stats);
    gst_structure_free(sleeping_stats);
    EXPECT_EQ(producer->wait(), 0);
}

// Consumers killed with SIGKILL and started again while 1000 frames flow: the others are not
// stalled, what the killed ones held goes back, and the producer's frame memory stays bounded
// (its memfds do not grow with the kills) and is all let go of at the end.
TEST(IpcProcesses, KilledConsumersLetGoOfWhatTheyHeld)
{
    Scratch scratch("g2g-ipc");
    const int fds_before = g2g::test::open_frame_fd_count();
    Consumer steady(scratch, "steady", "g2gprobe require=system");
    std::atomic<bool> flowing = true;
    std::atomic<int> kills = 0;
    std::vector<int> fd_samples;
    std::vector<guint> held_samples;
    std::mutex sink_lock; // the producer's sink while its pipeline plays
    GstElement *sink = nullptr;
    std::thread churn([&] {
        // Waits for the stream, then starts consumers one after the other, each killed 40 ms after it
        // joined.
        while (flowing && !g_file_test(scratch.path("socket").c_str(), G_FILE_TEST_EXISTS))
            g_usleep(10000);
        const auto joined = [&] {
            guint64 count = 0;
            std::lock_guard lock(sink_lock);
            GstStructure *stats = nullptr;
            if (sink)
                g_object_get(sink, "stats", &stats, nullptr);
            if (stats) {
                gst_structure_get_uint64(stats, "joined", &count);
                gst_structure_free(stats);
            }
            return count;
        };
        while (flowing) {
            const guint64 before = joined();
            ChildProcess victim(g2g::test::launch("g2gipcsrc socket-path=" + scratch.path("socket") +
                                                      " ! fakesink sync=false",
                                                  scratch.path("registry.bin"), scratch.path("victim.log")));
            // Killed once it has joined and taken frames (a sanitizer build's gst-launch-1.0 takes
            // a while to start).
            for (int i = 0; i < 300 && flowing && joined() == before; ++i)
                g_usleep(10000);
            g_usleep(40000);
            victim.kill();
            ++kills;
            g_usleep(20000);
            fd_samples.push_back(g2g::test::open_frame_fd_count());
            GstStructure *stats = nullptr;
            {
                std::lock_guard lock(sink_lock);
                if (sink)
                    g_object_get(sink, "stats", &stats, nullptr);
            }
            if (stats) {
                guint held = 0;
                gst_structure_get_uint(stats, "frames-held", &held);
                held_samples.push_back(held);
                gst_structure_free(stats);
            }
        }
    });
    GstStructure *stats = nullptr;
    const PipelineRun producer = run_pipeline(
        "videotestsrc is-live=true num-buffers=1000 pattern=ball ! "
        "video/x-raw,format=NV12,width=64,height=48,framerate=250/1 ! g2gipcsink name=ipc max-queued=4 "
        "sync=false "
        "min-consumers=1 socket-path=" +
            scratch.path("socket"),
        {}, 60 * GST_SECOND,
        [&](GstBin *) {
            std::lock_guard lock(sink_lock);
            g_object_get(sink, "stats", &stats, nullptr);
            gst_object_unref(sink);
            sink = nullptr;
        },
        [&](GstBin *bin) {
            std::lock_guard lock(sink_lock);
            sink = gst_bin_get_by_name(bin, "ipc");
        });
    flowing = false;
    churn.join();
    EXPECT_EQ(producer.error, "");
    EXPECT_EQ(steady.wait(), 0) << steady.said();
    ASSERT_NE(stats, nullptr);
    EXPECT_EQ(stat_of(stats, "frames"), 1000u);
    // A sanitizer build's gst-launch-1.0 takes up to a second to start on a loaded 2-core machine.
    EXPECT_GE(kills.load(), 3) << "the stream lasts 4 s";
    // Every consumer that joined (some were killed before they could) has left, but the steady one
    // and perhaps one killed as the stream ended. The producer was never stalled (it rendered its
    // 1000 frames, with drop); the steady consumer took most of them (a loaded 2-core machine may
    // drop some of its frames while it holds max-queued, which is what drop is for).
    EXPECT_GE(stat_of(stats, "joined"), 3u);
    EXPECT_GE(stat_of(stats, "left") + 2, stat_of(stats, "joined"));
    EXPECT_GE(stat_of(stats, "shares"), 500u);
    gst_structure_free(stats);
    // At most what two consumers may hold (max-queued each), whenever it was looked at.
    for (guint held : held_samples)
        EXPECT_LE(held, 8u);
    // The producer's memfds: its pool's frames, as many as two consumers hold and the pipeline has
    // in flight (at most 16), never more with each kill (a killed consumer's frames not given back
    // would also show in frames-held above, 4 more a kill). The last samples stay within 2 of the
    // first half's most (the pool may still make a frame when a consumer happens to hold its most),
    // and none is left once the producer stopped.
    ASSERT_GE(fd_samples.size(), 3u);
    const int first_half = *std::max_element(fd_samples.begin(), fd_samples.begin() + fd_samples.size() / 2);
    for (std::size_t i = 0; i < fd_samples.size(); ++i) {
        EXPECT_LE(fd_samples[i] - fds_before, 16) << "sample " << i;
        if (i >= fd_samples.size() - std::min<std::size_t>(5, fd_samples.size() / 2)) {
            EXPECT_LE(fd_samples[i], first_half + 2) << "sample " << i;
        }
    }
    EXPECT_EQ(g2g::test::open_frame_fd_count(), fds_before);
}

// A consumer that reads every byte of every frame faults a pool frame's pages in once: the
// producer's pool sends the same memfds frame after frame, and the consumer keeps each file mapped
// (a memory wrapped anew for each arrival would be mapped anew, a fault per page of every frame).
// The faults are the reading thread's own (RUSAGE_THREAD), around the map and the reads alone.
TEST(IpcProcesses, AConsumerFaultsThePoolsPagesInOnce)
{
    Scratch scratch("g2g-ipc");
    const int frames = 120;
    auto producer = producer_process(scratch,
                                     "videotestsrc num-buffers=" + std::to_string(frames) +
                                         " ! video/x-raw,format=GRAY8,width=1024,height=1024,framerate=30/1",
                                     "min-consumers=1 queue-full=wait sync=false");
    ASSERT_TRUE(producer->started());
    const long page = ::sysconf(_SC_PAGESIZE);
    const long pages = 1024 * 1024 / page;
    std::vector<long> faults;
    const PipelineRun consumer = run_pipeline(
        "g2gipcsrc socket-path=" + scratch.path("socket") + " ! identity name=tap ! fakesink sync=false",
        [&](GstBuffer *frame) {
            rusage before{}, after{};
            ::getrusage(RUSAGE_THREAD, &before);
            GstMapInfo map;
            if (gst_buffer_map(frame, &map, GST_MAP_READ)) {
                volatile guint8 sum = 0;
                for (gsize at = 0; at < map.size; at += static_cast<gsize>(page))
                    sum = sum + map.data[at];
                gst_buffer_unmap(frame, &map);
            }
            ::getrusage(RUSAGE_THREAD, &after);
            faults.push_back(after.ru_minflt - before.ru_minflt);
        },
        60 * GST_SECOND);
    EXPECT_EQ(consumer.error, "");
    EXPECT_EQ(producer->wait(), 0) << g2g::test::read_file(scratch.path("producer.log"));
    ASSERT_EQ(faults.size(), static_cast<std::size_t>(frames));
    // The first frame maps its file and faults its pages in (the kernel maps up to 16 pages of a
    // memfd a fault): the measure sees faults.
    const long first = faults[0];
    EXPECT_GE(first, pages / 32);
    // Past the pool's first round, a frame faults its pages in only where the pool made a new one
    // (it holds max-queued frames and a few, 8 by default): not every frame, as a frame mapped anew
    // would. Counted are the frames that took half the first frame's faults or more.
    std::string counts;
    int faulting = 0;
    for (std::size_t i = 40; i < faults.size(); ++i) {
        faulting += faults[i] * 2 >= first ? 1 : 0;
        counts += std::to_string(faults[i]) + " ";
    }
    EXPECT_LT(faulting, 8) << "faults of frames 40.." << frames << ": " << counts
                           << "(the first frame: " << first << ")";
}

// GStreamer's unixfdsrc reads g2gipcsink: it says no HELLO, so it takes the stream as unixfdsink
// would send it, a view dense; its frames equal videoflip's.
TEST(IpcProcesses, UnixfdsrcReadsG2gipcsink)
{
    if (const std::string why = g2g::test::unixfd_peers_missing(); !why.empty())
        GTEST_SKIP() << why;
    Scratch scratch("g2g-ipc");
    const std::string socket = scratch.path("socket");
    ChildProcess plain(g2g::test::launch_when_socket(
        socket,
        "unixfdsrc socket-path=" + socket +
            " ! g2gprobe require=system ! filesink buffer-mode=unbuffered location=" + scratch.path("plain"),
        scratch.path("registry.bin"), scratch.path("plain.log")));
    const PipelineRun producer = run_pipeline(source(20) +
                                                  " ! g2gview video-direction=90r ! g2gipcsink "
                                                  "min-consumers=1 queue-full=wait sync=false socket-path=" +
                                                  socket,
                                              {}, 60 * GST_SECOND);
    EXPECT_EQ(producer.error, "");
    EXPECT_EQ(plain.wait(), 0) << g2g::test::read_file(scratch.path("plain.log"));
    const PipelineRun peer =
        run_pipeline(source(20) + " ! videoflip video-direction=90r ! appsink name=sink sync=false");
    EXPECT_TRUE(g2g::test::read_file(scratch.path("plain")) == g2g::test::bytes_of(peer.buffers))
        << g2g::test::read_file(scratch.path("plain")).size() << " bytes";
}

// g2gipcsrc reads GStreamer's unixfdsink: the HELLO it sends is a type unixfdsink skips, its
// releases are unixfd's; the frames are unixfdsink's memfds, mapped.
TEST(IpcProcesses, G2gipcsrcReadsUnixfdsink)
{
    if (const std::string why = g2g::test::unixfd_peers_missing(); !why.empty())
        GTEST_SKIP() << why;
    Scratch scratch("g2g-ipc");
    const std::string socket = scratch.path("socket");
    auto producer = std::make_unique<ChildProcess>(g2g::test::launch(
        source(20) + " ! unixfdsink wait-for-connection=true sync=false socket-path=" + socket,
        scratch.path("registry.bin"), scratch.path("producer.log")));
    const PipelineRun consumer = run_pipeline("g2gipcsrc socket-path=" + socket +
                                                  " ! g2gprobe require=system ! "
                                                  "appsink name=sink sync=false",
                                              {}, 30 * GST_SECOND);
    EXPECT_EQ(consumer.error, "");
    EXPECT_EQ(producer->wait(), 0) << g2g::test::read_file(scratch.path("producer.log"));
    const PipelineRun peer = run_pipeline(source(20) + " ! appsink name=sink sync=false");
    ASSERT_EQ(consumer.buffers.size(), 20u);
    EXPECT_TRUE(g2g::test::bytes_of(consumer.buffers) == g2g::test::bytes_of(peer.buffers));
}

// A flushing seek on the producer reaches the consumer: its flush, then the new segment (stream
// time from 5 s) and frames from 5 s, with the producer's timestamps.
TEST(IpcProcesses, AProducersSeekFlushesItsConsumersAndBringsTheNewSegment)
{
    Scratch scratch("g2g-ipc");
    Consumer consumer(scratch, "events", "identity silent=false", "-v");
    GstElement *pipeline = nullptr;
    int frames = 0;
    const PipelineRun producer = run_pipeline(
        "videotestsrc pattern=ball ! video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! identity "
        "name=tap ! "
        "g2gipcsink min-consumers=1 sync=false queue-full=wait socket-path=" +
            scratch.path("socket"),
        [&](GstBuffer *) {
            if (++frames == 10)
                gst_element_call_async(
                    pipeline,
                    [](GstElement *element, gpointer) {
                        gst_element_seek(element, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
                                         GST_SEEK_TYPE_SET, 5 * GST_SECOND, GST_SEEK_TYPE_SET,
                                         5 * GST_SECOND + GST_SECOND / 2);
                    },
                    nullptr, nullptr);
        },
        30 * GST_SECOND, {}, [&](GstBin *bin) { pipeline = GST_ELEMENT(bin); });
    EXPECT_EQ(producer.error, "");
    EXPECT_EQ(consumer.wait(), 0) << consumer.said();
    const std::string said = consumer.said();
    const std::size_t flush_start = said.find("E (type: flush-start");
    const std::size_t flush_stop = said.find("E (type: flush-stop", flush_start);
    const std::size_t segment = said.find(
        "start=(guint64)5000000000, stop=(guint64)5500000000, time=(guint64)5000000000", flush_stop);
    const std::size_t frame = said.find("pts: 0:00:05.000000000", segment);
    ASSERT_NE(flush_start, std::string::npos) << said;
    EXPECT_NE(flush_stop, std::string::npos) << said;
    EXPECT_NE(segment, std::string::npos) << said;
    EXPECT_NE(frame, std::string::npos) << said;
}

// A frame with a GstVideoCropMeta (videocrop's form: caps of the crop, a GstVideoMeta of the whole
// frame) crosses as the frame it shows, never as the whole frame under the crop's caps: no wire
// carries the crop meta.
TEST(IpcProcesses, AFrameWithACropMetaCrossesAsWhatItShows)
{
    Scratch scratch("g2g-ipc");
    Consumer consumer(scratch, "cropped", "g2gprobe require=system");
    // NV12 64x48, each byte its own offset's low bits, cropped to 48x32 from (8, 8).
    const gsize size = 64 * 48 * 3 / 2;
    std::vector<g2g::BufferRef> frames;
    std::string expected;
    for (int f = 0; f < 3; ++f) {
        GstBuffer *frame = gst_buffer_new_allocate(nullptr, size, nullptr);
        GstMapInfo map;
        gst_buffer_map(frame, &map, GST_MAP_WRITE);
        for (gsize i = 0; i < size; ++i)
            map.data[i] = static_cast<guint8>(i * 7 + f);
        for (int y = 8; y < 40; ++y)
            expected.append(reinterpret_cast<const char *>(map.data) + y * 64 + 8, 48);
        for (int y = 4; y < 20; ++y)
            expected.append(reinterpret_cast<const char *>(map.data) + 64 * 48 + y * 64 + 8, 48);
        gst_buffer_unmap(frame, &map);
        gst_buffer_add_video_meta(frame, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 64, 48);
        GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(frame);
        crop->x = 8;
        crop->y = 8;
        crop->width = 48;
        crop->height = 32;
        GST_BUFFER_PTS(frame) = f * GST_SECOND / 30;
        frames.push_back(g2g::BufferRef::adopt(frame));
    }
    const PipelineRun producer = run_pipeline(
        "appsrc name=src format=time ! g2gipcsink min-consumers=1 queue-full=wait sync=false socket-path=" +
            scratch.path("socket"),
        {}, 30 * GST_SECOND, {},
        g2g::test::feed_appsrc("video/x-raw,format=NV12,width=48,height=32,framerate=30/1", frames));
    EXPECT_EQ(producer.error, "");
    EXPECT_EQ(consumer.wait(), 0) << consumer.said();
    EXPECT_TRUE(consumer.received() == expected)
        << consumer.received().size() << " bytes, not " << expected.size();
}
