// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24's unixfdsink / unixfdsrc carry fd-backed frames to another process: g2g's DMA-BUF
// frames arrive as DMA-BUFs, g2gview's dense output (written into the memfd memory unixfdsink
// proposes) as system memory, each equal to what GStreamer's own elements make of the same frames;
// a view, whose G2gTensorViewMeta no process boundary carries, is refused on the other side, never
// read as a dense frame of its caps. The receiver is a second process (gst-launch-1.0) that writes
// what it received to a file. GStreamer 1.22 has no unixfd plugin: there every test skips.
#include <gst/gst.h>
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "g2g-config.h"
#include "pipeline.h"
#include "processes.h"

#include <sstream>
#include <string>
#include <vector>

using g2g::test::PipelineRun;
using g2g::test::run_pipeline;

namespace {

// `frames` frames of a moving ball, NV12 64x48.
std::string source(int frames)
{
    return "videotestsrc num-buffers=" + std::to_string(frames) +
           " pattern=ball ! video/x-raw,format=NV12,width=64,height=48";
}

#define SKIP_WITHOUT_UNIXFD()                                                                                \
    do {                                                                                                     \
        if (const std::string why = g2g::test::unixfd_peers_missing(); !why.empty())                         \
            GTEST_SKIP() << why;                                                                             \
    } while (false)

// Sends `frames` frames through `sender_chain` into unixfdsink; the receiver runs `receiver_chain`.
struct Crossing {
    PipelineRun sender;
    int receiver_status = -1;
    std::string received; // the file the receiver wrote
    std::string receiver_log;
};

Crossing cross(const std::string &sender_chain, const std::string &receiver_chain, int frames = 6)
{
    g2g::test::Scratch scratch("g2g-unixfd");
    Crossing result;
    // The receiving process: waits for the socket, then writes every frame it gets to a file.
    g2g::test::ChildProcess receiver(g2g::test::launch_when_socket(
        scratch.path("socket"),
        "unixfdsrc socket-path='" + scratch.path("socket") + "' ! " + receiver_chain +
            " ! filesink location='" + scratch.path("frames") + "'",
        scratch.path("registry.bin"), scratch.path("log")));
    EXPECT_TRUE(receiver.started());
    result.sender =
        run_pipeline(source(frames) + " ! " + sender_chain +
                         " ! unixfdsink wait-for-connection=true socket-path=" + scratch.path("socket"),
                     {}, 60 * GST_SECOND);
    result.receiver_status = receiver.wait();
    result.received = g2g::test::read_file(scratch.path("frames"));
    result.receiver_log = g2g::test::read_file(scratch.path("log"));
    return result;
}

} // namespace

TEST(UnixFd, G2gsDmaBufFramesCrossAsDmaBufsWithTheirBytes)
{
    SKIP_WITHOUT_UNIXFD();
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature (no g2gdmabufupload)";
    const Crossing crossed = cross("g2gdmabufupload", "g2gprobe require=dma-buf");
    EXPECT_EQ(crossed.sender.error, "");
    EXPECT_EQ(crossed.receiver_status, 0) << crossed.receiver_log;
    const PipelineRun sent = run_pipeline(source(6) + " ! appsink name=sink sync=false");
    ASSERT_EQ(sent.buffers.size(), 6u);
    EXPECT_TRUE(crossed.received == g2g::test::bytes_of(sent.buffers))
        << crossed.received.size() << " bytes received";
}

TEST(UnixFd, AViewCrossesMaterializedIntoTheMemfdUnixfdsinkProposes)
{
    SKIP_WITHOUT_UNIXFD();
    // unixfdsink takes ANY caps, and no view: g2gview writes the dense frame into its memfd pool.
    const Crossing crossed = cross("g2gview video-direction=90r", "g2gprobe require=system");
    EXPECT_EQ(crossed.sender.error, "");
    EXPECT_EQ(crossed.receiver_status, 0) << crossed.receiver_log;
    const PipelineRun peer =
        run_pipeline(source(6) + " ! videoflip video-direction=90r ! appsink name=sink sync=false");
    ASSERT_EQ(peer.buffers.size(), 6u);
    EXPECT_TRUE(crossed.received == g2g::test::bytes_of(peer.buffers))
        << crossed.received.size() << " bytes received";
}

TEST(UnixFd, AViewForcedAcrossIsRefusedOnTheOtherSideNeverReadAsDense)
{
    SKIP_WITHOUT_UNIXFD();
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature (no g2gdmabufupload)";
    // View caps forced into unixfdsink over fd memory: the fds cross, the G2gTensorViewMeta does not,
    // and the caps still say view (48x64 over the 64x48 source's bytes, the same size).
    const Crossing crossed =
        cross("g2gdmabufupload ! g2gview video-direction=90r ! "
              "video/x-raw(memory:SystemMemory,meta:G2gTensorView)",
              "g2gmaterialize name=reader ! video/x-raw",
              1); // one frame: unixfdsink would wait for another receiver to send a second

    EXPECT_NE(crossed.receiver_status, 0);
    EXPECT_NE(
        crossed.receiver_log.find("reader received a frame in view caps (meta:G2gTensorView) without its "
                                  "G2gTensorViewMeta"),
        std::string::npos)
        << crossed.receiver_log;
    EXPECT_EQ(crossed.received, "");
}
