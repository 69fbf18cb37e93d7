// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames of g2g's DMA-BUF pool (sealed memfds on a machine without dma-heap or udmabuf) in real
// pipelines, under system caps since they map (GStreamer 1.22's rule): g2gview's views of them
// are their own memory (crops by offsets, flips and rotations by strides) and what they
// materialize through the mapping equals videoflip and videocrop; g2gtee hands every branch the
// same memory with no copy, under system caps and under memory:DMABuf; and every fd is closed
// exactly once, after its last share: over thousands of frames through g2gtee and g2gview, a
// renegotiation to a new pool and the pools' shutdown, and for an application's fd wrap()ped.
#include <g2g/classify.h>
#include <g2g/dmabuf.h>
#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "dmabuf-pool-frames.h"
#include "frames.h"
#include "memfd-dmabuf.h"
#include "open-fds.h"
#include "pipeline.h"
#include "tee-pipelines.h"

using g2g::BufferRef;
using g2g::CapsRef;
using g2g::ElementRef;
using g2g::Ref;
using g2g::test::compare_frames;
using g2g::test::dmabuf_pool;
using g2g::test::dmabuf_pool_frame;
using g2g::test::fd_is_open;
using g2g::test::open_frame_fd_count;
using g2g::test::PipelineRun;
using g2g::test::random_frame;
using g2g::test::run_chain;
using g2g::test::run_pipeline;
using g2g::test::video_info;
using g2g::test::tee_pipeline::memory_of;
using g2g::test::tee_pipeline::TeeStats;

namespace {

constexpr const char *kViewCaps = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)";

int fd_of(GstBuffer *frame)
{
    return gst_dmabuf_memory_get_fd(gst_buffer_peek_memory(frame, 0));
}

// "" when `frame`'s memory is a DMA-BUF of g2g's allocator, else what it is.
std::string dmabuf_problem(GstBuffer *frame)
{
    const g2g::Result<g2g::MemoryDomainKind> kind = g2g::classify_buffer(frame);
    if (!kind)
        return kind.error().message();
    if (*kind != g2g::MemoryDomainKind::DmaBuf)
        return "a " + std::string(g2g::name(*kind)) + " frame";
    return "";
}

// One geometry of g2gview and the chain of GStreamer's elements that makes the same frame.
struct Geometry {
    const char *name;
    std::string ours; // g2gview's properties
    std::string peer; // videoflip and videocrop
};

std::vector<Geometry> geometries()
{
    std::vector<Geometry> all;
    for (const char *method : {"identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"})
        all.push_back({method, std::string("video-direction=") + method,
                       std::string("videoflip video-direction=") + method});
    const std::string crops[] = {"left=1", "left=3 right=2 top=1 bottom=4", "right=5 top=3",
                                 "left=2 right=2 top=2 bottom=2"};
    const char *names[] = {"crop_l1", "crop_l3r2t1b4", "crop_r5t3", "crop_2each"};
    for (int i = 0; i < 4; ++i)
        all.push_back({names[i], crops[i], "videocrop " + crops[i]});
    all.push_back({"crop_then_90r", "left=2 right=4 top=6 bottom=2 video-direction=90r",
                   "videocrop left=2 right=4 top=6 bottom=2 ! videoflip video-direction=90r"});
    return all;
}

// For GoogleTest's messages: the geometry's name, not its bytes.
void PrintTo(const Geometry &geometry, std::ostream *os)
{
    *os << geometry.name;
}

using ViewCase = std::tuple<const char *, Geometry, std::pair<int, int>>;
class DmaBufViews : public testing::TestWithParam<ViewCase> {};

} // namespace

// Towards a peer that takes views: the view is the pool frame's own memory (the same GstMemory,
// the same fd), and materializing it reads through the mapping the peer's bytes. Towards one that
// does not: g2gview writes the peer's bytes, reading the DMA-BUF through its mapping.
TEST_P(DmaBufViews, AreTheFramesOwnMemoryAndMaterializeToThePeersBytes)
{
    const auto &[format, geometry, size] = GetParam();
    const GstVideoInfo in = video_info(gst_video_format_from_string(format), size.first, size.second);
    const BufferRef content = random_frame(in, 17);
    Ref<GstBufferPool> pool = dmabuf_pool(in);
    ASSERT_TRUE(pool);
    const BufferRef frame = dmabuf_pool_frame(pool.get(), content.get());
    ASSERT_TRUE(frame);
    ASSERT_EQ(dmabuf_problem(frame.get()), "");
    GstMemory *memory = gst_buffer_peek_memory(frame.get(), 0);

    const auto peer = run_chain(geometry.peer, in, content.get());
    ASSERT_EQ(peer.error, "");
    ASSERT_TRUE(peer.buffer);

    const auto view = run_chain("g2gview " + geometry.ours, in, frame.get(), kViewCaps);
    ASSERT_EQ(view.error, "");
    ASSERT_TRUE(view.buffer);
    EXPECT_NE(view.caps.find(G2G_CAPS_FEATURE_META_TENSOR_VIEW), std::string::npos) << view.caps;
    const g2g::FrameView *shown = g2g::tensor_view_of(view.buffer.get());
    ASSERT_NE(shown, nullptr);
    ASSERT_EQ(gst_buffer_n_memory(view.buffer.get()), 1u);
    EXPECT_EQ(gst_buffer_peek_memory(view.buffer.get(), 0), memory) << "the view copied the frame";
    EXPECT_EQ(fd_of(view.buffer.get()), fd_of(frame.get()));
    g2g::Result<BufferRef> materialized = shown->materialize(view.buffer.get());
    ASSERT_TRUE(materialized.ok()) << materialized.error().message();
    EXPECT_EQ(compare_frames(shown->info(), materialized->get(), peer.info, peer.buffer.get()), "");

    const auto dense = run_chain("g2gview " + geometry.ours, in, frame.get());
    ASSERT_EQ(dense.error, "");
    ASSERT_TRUE(dense.buffer);
    EXPECT_EQ(dense.caps.find(G2G_CAPS_FEATURE_META_TENSOR_VIEW), std::string::npos) << dense.caps;
    EXPECT_EQ(g2g::tensor_view_of(dense.buffer.get()), nullptr);
    EXPECT_EQ(compare_frames(dense.info, dense.buffer.get(), peer.info, peer.buffer.get()), "");
}

namespace {

const std::pair<int, int> kViewSizes[] = {{64, 48}, {33, 17}};

std::string view_case_name(const testing::TestParamInfo<ViewCase> &info)
{
    const std::pair<int, int> size = std::get<2>(info.param);
    std::string name = std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param).name + "_" +
                       std::to_string(size.first) + "x" + std::to_string(size.second);
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

} // namespace

INSTANTIATE_TEST_SUITE_P(PoolFrames, DmaBufViews,
                         testing::Combine(testing::Values("NV12", "I420", "RGBA"),
                                          testing::ValuesIn(geometries()), testing::ValuesIn(kViewSizes)),
                         view_case_name);

namespace {

constexpr int kTeeFrames = 8;
constexpr int kTeeWidth = 64;
constexpr int kTeeHeight = 48;

GstVideoInfo tee_info()
{
    return video_info(GST_VIDEO_FORMAT_RGBA, kTeeWidth, kTeeHeight);
}

// kTeeFrames frames of a DMA-BUF pool, each its own random pixels; `contents` gets their system copies.
std::vector<BufferRef> pool_frames(GstBufferPool *pool, std::vector<BufferRef> &contents)
{
    std::vector<BufferRef> frames;
    for (int i = 0; i < kTeeFrames; ++i) {
        contents.push_back(random_frame(tee_info(), 100 + i));
        frames.push_back(dmabuf_pool_frame(pool, contents.back().get()));
    }
    return frames;
}

// Runs "appsrc name=src ! <rest>" with `frames` handed to the appsrc (of caps `caps`) before it
// starts, then EOS; the tee named "t" kept in `stats`. A frame the caller keeps a reference to is
// copied by the source when it marks it (DISCONT): NO_SHARE memory then becomes a deep copy.
PipelineRun run_frames(const std::string &caps, std::vector<BufferRef> frames, const std::string &rest,
                       TeeStats &stats, const g2g::test::PipelineInspector &inspect = {})
{
    return run_pipeline(
        "appsrc name=src format=time ! " + rest, {}, 20 * GST_SECOND,
        [&](GstBin *pipeline) {
            stats.tee = ElementRef::adopt(gst_bin_get_by_name(pipeline, "t"));
            if (inspect)
                inspect(pipeline);
        },
        g2g::test::feed_appsrc(caps, std::move(frames)));
}

std::string raw_caps(const char *features)
{
    return std::string("video/x-raw") + features + ",format=RGBA,width=" + std::to_string(kTeeWidth) +
           ",height=" + std::to_string(kTeeHeight) + ",framerate=30/1";
}

} // namespace

// Mappable DMA-BUF frames travel as system memory; every system branch, whatever it does with
// them, gets the frame's own memory: no copy, one share per branch.
TEST(DmaBufTee, EverySystemBranchGetsTheSameMemoryAndNothingIsCopied)
{
    Ref<GstBufferPool> pool = dmabuf_pool(tee_info());
    ASSERT_TRUE(pool);
    std::vector<BufferRef> contents;
    const std::vector<BufferRef> frames = pool_frames(pool.get(), contents);
    TeeStats stats;
    PipelineRun run = run_frames(raw_caps(""), frames,
                                 "g2gtee name=t "
                                 "t. ! queue ! appsink name=queued "
                                 "t. ! queue ! g2gview video-direction=90r ! appsink name=view caps=\"" +
                                     std::string(kViewCaps) +
                                     "\" "
                                     "t. ! queue ! g2gview video-direction=90r ! appsink name=rotated "
                                     // Last: it waits in the tee's thread until the others prerolled.
                                     "t. ! appsink name=direct caps=video/x-raw async=false",
                                 stats);
    ASSERT_EQ(run.error, "");
    for (const char *sink : {"queued", "direct", "view"}) {
        SCOPED_TRACE(sink);
        const std::vector<BufferRef> &got = run.sinks[sink];
        ASSERT_EQ(got.size(), frames.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(memory_of(got[i]), memory_of(frames[i])) << "frame " << i;
            EXPECT_EQ(fd_of(got[i].get()), fd_of(frames[i].get())) << "frame " << i;
            EXPECT_EQ(dmabuf_problem(got[i].get()), "") << "frame " << i;
        }
    }
    EXPECT_NE(run.sink_caps["view"].find(G2G_CAPS_FEATURE_META_TENSOR_VIEW), std::string::npos);
    const auto rotated_peer = [&](std::size_t i) {
        return run_chain("videoflip video-direction=90r", tee_info(), contents[i].get());
    };
    const std::vector<BufferRef> &rotated = run.sinks["rotated"];
    ASSERT_EQ(rotated.size(), frames.size());
    for (std::size_t i = 0; i < rotated.size(); ++i) {
        const auto peer = rotated_peer(i);
        ASSERT_EQ(peer.error, "");
        EXPECT_EQ(compare_frames(peer.info, rotated[i].get(), peer.info, peer.buffer.get()), "")
            << "frame " << i;
    }
    ASSERT_TRUE(stats.tee);
    EXPECT_EQ(stats.get("frames"), static_cast<guint64>(kTeeFrames));
    EXPECT_EQ(stats.get("shares"), static_cast<guint64>(4 * kTeeFrames));
    EXPECT_EQ(stats.get("copies"), 0u);
    EXPECT_EQ(stats.get("bytes-copied"), 0u);
    EXPECT_EQ(stats.get("conversions"), 0u);
}

// Under memory:DMABuf caps, a branch that names DMABuf gets the frames as they are and the system
// branches get them relabelled (system caps, read in place): the same memory everywhere, no copy.
TEST(DmaBufTee, DmaBufCapsReachADmaBufBranchAndSystemBranchesReadInPlace)
{
    Ref<GstBufferPool> pool = dmabuf_pool(tee_info());
    ASSERT_TRUE(pool);
    std::vector<BufferRef> contents;
    const std::vector<BufferRef> frames = pool_frames(pool.get(), contents);
    TeeStats stats;
    PipelineRun run = run_frames(raw_caps("(memory:DMABuf)"), frames,
                                 "g2gtee name=t "
                                 "t. ! queue ! appsink name=dmabuf caps=video/x-raw(memory:DMABuf) "
                                 "t. ! queue ! appsink name=system caps=video/x-raw "
                                 "t. ! queue ! videoflip video-direction=vert ! appsink name=flipped",
                                 stats);
    ASSERT_EQ(run.error, "");
    EXPECT_NE(run.sink_caps["dmabuf"].find("memory:DMABuf"), std::string::npos) << run.sink_caps["dmabuf"];
    EXPECT_EQ(run.sink_caps["system"].find("memory:DMABuf"), std::string::npos) << run.sink_caps["system"];
    for (const char *sink : {"dmabuf", "system"}) {
        SCOPED_TRACE(sink);
        const std::vector<BufferRef> &got = run.sinks[sink];
        ASSERT_EQ(got.size(), frames.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(memory_of(got[i]), memory_of(frames[i])) << "frame " << i;
            EXPECT_EQ(fd_of(got[i].get()), fd_of(frames[i].get())) << "frame " << i;
        }
    }
    const std::vector<BufferRef> &flipped = run.sinks["flipped"];
    ASSERT_EQ(flipped.size(), frames.size());
    for (std::size_t i = 0; i < flipped.size(); ++i) {
        const auto peer = run_chain("videoflip video-direction=vert", tee_info(), contents[i].get());
        ASSERT_EQ(peer.error, "");
        EXPECT_EQ(compare_frames(peer.info, flipped[i].get(), peer.info, peer.buffer.get()), "")
            << "frame " << i;
    }
    ASSERT_TRUE(stats.tee);
    EXPECT_EQ(stats.get("shares"), static_cast<guint64>(3 * kTeeFrames));
    EXPECT_EQ(stats.get("copies"), 0u);
    EXPECT_EQ(stats.get("bytes-converted"), 0u) << "relabelling reads in place";
    EXPECT_EQ(stats.pair("DmaBuf-to-System"), static_cast<guint64>(kTeeFrames));
}

namespace {

// The fd-lifetime run's numbers. Small frames: the run is about fds, not bytes.
constexpr int kLifetimeFrames = 3000;
constexpr guint kPoolMax = 6;

// Counts the frames reaching a pad.
void count_frames(GstElement *pipeline, const char *element, std::atomic<int> &count)
{
    const ElementRef found = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline), element));
    ASSERT_TRUE(found) << element;
    const Ref<GstPad> pad = Ref<GstPad>::adopt(gst_element_get_static_pad(found.get(), "sink"));
    gst_pad_add_probe(
        pad.get(), GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad *, GstPadProbeInfo *, gpointer counter) {
            ++*static_cast<std::atomic<int> *>(counter);
            return GST_PAD_PROBE_OK;
        },
        &count, nullptr);
}

// What one run of the lifetime pipeline saw.
struct LifetimeRun {
    int most_fds = 0;             // the most open fds sampled while it streamed
    std::vector<int> fds_sampled; // every 100 frames
    int counted[3] = {};          // frames at each branch's sink
    guint64 tee_frames = 0, tee_shares = 0, tee_copies = 0;
    std::string error;
};

// `frames` frames from DMA-BUF pools (kPoolMax frames each, so the pipeline's frames wait for the
// pool) pushed by an appsrc through g2gtee: a branch behind a queue, one whose g2gview rotates
// (views, over the pool's fds), one whose g2gview crops and flips into dense frames (reading the
// mapping); the sinks of the branches without a queue do not hold the pipeline's preroll. Halfway the caps
// change to another size: a new pool, the old one shut down.
LifetimeRun run_lifetime(int frames)
{
    LifetimeRun result;
    const GstVideoInfo sizes[] = {video_info(GST_VIDEO_FORMAT_NV12, 48, 32),
                                  video_info(GST_VIDEO_FORMAT_NV12, 38, 26)};
    const std::string description =
        "appsrc name=src format=time ! g2gtee name=t "
        "t. ! queue ! fakesink name=queued "
        "t. ! g2gview video-direction=90r ! capsfilter caps=\"" +
        std::string(kViewCaps) +
        "\" ! fakesink name=view async=false "
        "t. ! g2gview left=3 top=1 video-direction=180 ! fakesink name=dense async=false";
    ElementRef pipeline = ElementRef::adopt(gst_parse_launch(description.c_str(), nullptr));
    if (!pipeline) {
        result.error = "no pipeline";
        return result;
    }
    std::atomic<int> counted[3] = {0, 0, 0};
    count_frames(pipeline.get(), "queued", counted[0]);
    count_frames(pipeline.get(), "view", counted[1]);
    count_frames(pipeline.get(), "dense", counted[2]);
    const ElementRef src = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "src"));
    const ElementRef tee = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "t"));
    gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
    {
        Ref<GstBufferPool> pool;
        BufferRef content;
        for (int i = 0; i < frames; ++i) {
            if (i == 0 || i == frames / 2) {
                // A new size: its caps, a new pool; the old pool shuts down as its frames come back.
                const GstVideoInfo &info = sizes[i == 0 ? 0 : 1];
                if (pool)
                    gst_buffer_pool_set_active(pool.get(), FALSE);
                pool = dmabuf_pool(info, 0, kPoolMax);
                if (!pool) {
                    result.error = "no pool";
                    break;
                }
                content = random_frame(info, static_cast<guint32>(i));
                const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
                gst_app_src_set_caps(GST_APP_SRC(src.get()), caps.get());
            }
            BufferRef frame = dmabuf_pool_frame(pool.get(), content.get());
            if (!frame) {
                result.error = "no pool frame came back for frame " + std::to_string(i);
                break;
            }
            if (gst_app_src_push_buffer(GST_APP_SRC(src.get()), frame.release()) != GST_FLOW_OK) {
                result.error = "appsrc refused frame " + std::to_string(i);
                break;
            }
            if (i % 100 == 99) {
                result.fds_sampled.push_back(open_frame_fd_count());
                result.most_fds = std::max(result.most_fds, result.fds_sampled.back());
            }
        }
        if (pool)
            gst_buffer_pool_set_active(pool.get(), FALSE);
    }
    gst_app_src_end_of_stream(GST_APP_SRC(src.get()));
    const Ref<GstBus> bus = Ref<GstBus>::adopt(gst_element_get_bus(pipeline.get()));
    const Ref<GstMessage> message = Ref<GstMessage>::adopt(gst_bus_timed_pop_filtered(
        bus.get(), 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
    if (!message)
        result.error += " (no EOS)";
    else if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_ERROR)
        result.error += " " + g2g::test::message_with_source(message.get());
    result.tee_frames = g2g::test::tee_stat(tee.get(), "frames");
    result.tee_shares = g2g::test::tee_stat(tee.get(), "shares");
    result.tee_copies = g2g::test::tee_stat(tee.get(), "copies");
    gst_element_set_state(pipeline.get(), GST_STATE_NULL);
    for (int b = 0; b < 3; ++b)
        result.counted[b] = counted[b];
    return result;
}

} // namespace

// Thousands of pool frames through g2gtee and g2gview, a renegotiation to a new pool halfway, the
// pipeline stopped and the pools gone: the process holds exactly the fds it held before; while it
// streams, the pools' sizes bound them, however many frames went by.
TEST(DmaBufLifetime, EveryFdIsClosedOnceAfterItsLastShareAcrossRenegotiationAndPoolShutdown)
{
    // One short run first: what GStreamer opens once per process (the system clock's timer) is
    // not the frames'.
    ASSERT_EQ(run_lifetime(20).error, "");
    const int before = open_frame_fd_count();
    const LifetimeRun run = run_lifetime(kLifetimeFrames);
    ASSERT_EQ(run.error, "");
    for (int b = 0; b < 3; ++b)
        EXPECT_EQ(run.counted[b], kLifetimeFrames) << "branch " << b;
    EXPECT_EQ(run.tee_frames, static_cast<guint64>(kLifetimeFrames));
    EXPECT_EQ(run.tee_shares, static_cast<guint64>(3 * kLifetimeFrames));
    EXPECT_EQ(run.tee_copies, 0u);
    EXPECT_EQ(open_frame_fd_count(), before) << "an fd of the run is still open (or one was closed twice)";
    // Two pools' frames at most (the old one's still coming back at the renegotiation), and the
    // frames the queues hold: nothing per frame.
    ASSERT_FALSE(run.fds_sampled.empty());
    EXPECT_LE(run.most_fds, before + static_cast<int>(2 * kPoolMax) + 8)
        << "fds grew with the frames: " << testing::PrintToString(run.fds_sampled);
    const auto [least, most] = std::minmax_element(run.fds_sampled.begin(), run.fds_sampled.end());
    EXPECT_LE(*most - *least, static_cast<int>(2 * kPoolMax) + 4) << testing::PrintToString(run.fds_sampled);
}

namespace {

// An application's frame: RGBA 32x16 in a memfd of its own, wrap()ped; the application's fd is
// closed at once (the frame keeps its dup).
BufferRef application_frame()
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 32, 16);
    const int fd = g2g::test::make_memfd(GST_VIDEO_INFO_SIZE(&info));
    g2g::Result<BufferRef> frame =
        g2g::dmabuf::wrap({{g2g::dmabuf::drm_fourcc_of(GST_VIDEO_FORMAT_RGBA), g2g::dmabuf::kModifierLinear},
                           32,
                           16,
                           {{fd, 0, GST_VIDEO_INFO_PLANE_STRIDE(&info, 0)}}});
    close(fd);
    EXPECT_TRUE(frame.ok()) << frame.error().message();
    return frame ? std::move(*frame) : BufferRef();
}

// Tells when a pipeline is finalized. run_pipeline's own reference is not always the last: the
// bin's continuation to PLAYING after its async preroll runs on GStreamer's gst_element_call_async
// thread, which holds the pipeline until it returns, so the pipeline (and the buffers its elements
// still hold: GStreamer 1.22.0's appsink keeps its last sample's buffer until it is disposed) can
// go a moment after run_pipeline returned, on that thread.
class PipelineFinalized {
public:
    explicit PipelineFinalized(GstBin *pipeline)
    {
        // The weak reference owns its own share of the state: it may fire after this watch is gone.
        g_object_weak_ref(G_OBJECT(pipeline), on_finalized, new std::shared_ptr<State>(state_));
    }

    // True once the pipeline is finalized (waits up to 10 s for it).
    bool wait() const
    {
        std::unique_lock held(state_->lock);
        return state_->done.wait_for(held, std::chrono::seconds(10), [&] { return state_->finalized; });
    }

private:
    struct State {
        std::mutex lock;
        std::condition_variable done;
        bool finalized = false;
    };

    static void on_finalized(gpointer data, GObject *)
    {
        const std::unique_ptr<std::shared_ptr<State>> state(static_cast<std::shared_ptr<State> *>(data));
        const std::lock_guard held((*state)->lock);
        (*state)->finalized = true;
        (*state)->done.notify_all();
    }

    std::shared_ptr<State> state_ = std::make_shared<State>();
};

std::pair<dev_t, ino_t> object_of(int fd)
{
    struct stat st {};
    EXPECT_EQ(fstat(fd, &st), 0);
    return {st.st_dev, st.st_ino};
}

} // namespace

// A wrapped frame fanned out by g2gtee (to a queue, a g2gview and the test's appsink) keeps its fd
// while the last branch's buffer lives, and closes it when that goes. With NO_SHARE memory (a
// capture pool's) the tee's make_shareable dups the fd: both close after the last share.
TEST(DmaBufLifetime, AWrappedFdSharedByTheTeeClosesAfterTheLastBranchDropsIt)
{
    for (const bool no_share : {false, true}) {
        SCOPED_TRACE(no_share ? "NO_SHARE memory" : "shareable memory");
        const int before = open_frame_fd_count();
        BufferRef frame = application_frame();
        ASSERT_TRUE(frame);
        if (no_share)
            GST_MINI_OBJECT_FLAG_SET(gst_buffer_peek_memory(frame.get(), 0), GST_MEMORY_FLAG_NO_SHARE);
        const int frame_fd = fd_of(frame.get());
        const auto object = object_of(frame_fd);
        TeeStats stats;
        std::vector<BufferRef> pushed;
        pushed.push_back(std::move(frame)); // the application's only reference, handed over
        std::unique_ptr<PipelineFinalized> finalized;
        PipelineRun run = run_frames(
            "video/x-raw,format=RGBA,width=32,height=16,framerate=30/1", std::move(pushed),
            "g2gtee name=t t. ! queue ! fakesink t. ! queue ! appsink name=held "
            "t. ! g2gview video-direction=90r ! fakesink async=false",
            stats, [&](GstBin *pipeline) { finalized = std::make_unique<PipelineFinalized>(pipeline); });
        ASSERT_EQ(run.error, "");
        stats.tee.reset();
        ASSERT_EQ(run.sinks["held"].size(), 1u);
        BufferRef held = run.sinks["held"].front();
        run = PipelineRun();
        // The pipeline is gone (waited for: see PipelineFinalized); one branch's buffer is all that
        // holds the frame.
        ASSERT_TRUE(finalized && finalized->wait()) << "the pipeline outlived the test's wait";
        ASSERT_TRUE(fd_is_open(frame_fd)) << "closed before the last share went";
        EXPECT_EQ(object_of(frame_fd), object);
        const int held_fd = fd_of(held.get());
        EXPECT_EQ(held_fd != frame_fd, no_share) << "make_shareable's dup for NO_SHARE memory only";
        EXPECT_EQ(object_of(held_fd), object);
        EXPECT_EQ(open_frame_fd_count(), before + (no_share ? 2 : 1));
        held.reset();
        EXPECT_FALSE(fd_is_open(frame_fd)) << "still open after the last share went";
        EXPECT_FALSE(fd_is_open(held_fd));
        EXPECT_EQ(open_frame_fd_count(), before);
    }
}
