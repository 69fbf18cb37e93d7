// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's races while branches come and go in PLAYING behind g2gview video-direction=90r (issue
// #30), each repeated enough to show it:
// - a conversion made when upstream renegotiates its caps (the stream turning from dense frames to
//   views when the first branch that names views is linked) must get the stream's segment before
//   its first frame: GStreamer's "Got data flow before segment event" (from the tee's feeder, its
//   convert-system-view-to-system and its collector) fails the test, as every other warning;
// - a branch that takes only views, linked while dense frames flow, must get views once upstream
//   has answered the RECONFIGURE its link sent, not be refused ("reads system memory but received
//   a System frame") by a frame that left upstream before it renegotiated; the same for a branch
//   that takes only DMABuf frames behind g2gdmabufupload;
// - every branch gets stream-start, then caps, then segment, before its first frame.
// A watchdog (tests/support/watchdog.h) fails the program with the step that hung.
#include <g2g/gst-ref.h>

#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "g2g-config.h"
#include "log-capture.h"
#include "pipeline.h"
#include "demand-source.h"
#include "watchdog.h"

using g2g::ElementRef;
using g2g::Ref;

namespace {

constexpr int kWidth = 32;
constexpr int kHeight = 24;
constexpr gint64 kWaitUs = 20 * G_USEC_PER_SEC;
constexpr auto kStall = std::chrono::seconds(60);
constexpr guint64 kFramesPerBranch = 3;

// Rounds: enough to show each race at the starting commit (see the commit that added this file),
// fewer in the sanitizer build (G2G_STRESS_SHORT, as test-stress-tee.cpp), where a cycle costs
// about a hundred times more.
int rounds(int full)
{
    return g_getenv("G2G_STRESS_SHORT") ? full / 10 : full;
}

GstBuffer *frame(guint32 n)
{
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, kWidth * kHeight * 4, nullptr);
    gst_buffer_memset(buffer, 0, static_cast<guint8>(n), kWidth * kHeight * 4);
    GST_BUFFER_PTS(buffer) = n * (GST_SECOND / 30);
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    return buffer;
}

// What one branch received, in order: the first stream-start, caps and segment, and frames.
struct Branch {
    int id = 0;
    ElementRef bin;
    Ref<GstPad> entry;   // the bin's ghost sink pad
    Ref<GstPad> tee_pad; // its pad of the tee

    std::mutex lock;
    std::vector<std::string> order; // "stream-start", "caps", "segment", "buffer": each first one
    guint64 frames = 0;
    bool drained = false;
    std::condition_variable changed;

    void saw(const char *what)
    {
        for (const std::string &seen : order) {
            if (seen == what)
                return;
        }
        order.emplace_back(what);
    }
};

GstPadProbeReturn on_entry(GstPad *, GstPadProbeInfo *info, gpointer data)
{
    auto *branch = static_cast<Branch *>(data);
    const std::lock_guard<std::mutex> hold(branch->lock);
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
        branch->saw("buffer");
        ++branch->frames;
    } else if (GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info)) {
        switch (GST_EVENT_TYPE(event)) {
        case GST_EVENT_STREAM_START:
            branch->saw("stream-start");
            break;
        case GST_EVENT_CAPS:
            branch->saw("caps");
            break;
        case GST_EVENT_SEGMENT:
            branch->saw("segment");
            break;
        case GST_EVENT_EOS:
            branch->drained = true;
            break;
        default:
            break;
        }
    }
    branch->changed.notify_all();
    return GST_PAD_PROBE_OK;
}

// appsrc ! g2gview video-direction=90r ! [queue !] g2gtee name=t, frames on demand.
class Pipeline {
public:
    Pipeline(const std::string &between, const std::string &tee_properties)
    {
        const std::string caps = "video/x-raw,format=RGBA,width=" + std::to_string(kWidth) +
                                 ",height=" + std::to_string(kHeight) + ",framerate=30/1";
        pipeline_ = ElementRef::adopt(gst_parse_launch(("appsrc name=src format=time caps=" + caps +
                                                        " ! g2gview video-direction=90r ! " + between +
                                                        "g2gtee name=t " + tee_properties)
                                                           .c_str(),
                                                       nullptr));
        tee_ = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "t"));
        src_ = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "src"));
        const Ref<GstPad> tee_sink = Ref<GstPad>::adopt(gst_element_get_static_pad(tee_.get(), "sink"));
        g2g::test::count_buffers(tee_sink.get(), entered_);
        source_.attach(src_.get(), frame);
    }

    ~Pipeline()
    {
        source_.stop();
        if (pipeline_)
            gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
    }

    bool play()
    {
        return gst_element_set_state(pipeline_.get(), GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
    }

    guint64 entered() const { return entered_; }

    // A branch of `description` (its first element's sink pad ghosted), linked to a new pad of the
    // tee while frames flow.
    std::unique_ptr<Branch> add(int id, const std::string &description)
    {
        auto branch = std::make_unique<Branch>();
        branch->id = id;
        branch->bin = ElementRef::adopt(GST_ELEMENT(
            gst_object_ref_sink(gst_parse_bin_from_description(description.c_str(), TRUE, nullptr))));
        branch->entry = Ref<GstPad>::adopt(gst_element_get_static_pad(branch->bin.get(), "sink"));
        gst_pad_add_probe(
            branch->entry.get(),
            static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
            on_entry, branch.get(), nullptr);
        gst_bin_add(GST_BIN(pipeline_.get()), branch->bin.get());
        gst_element_sync_state_with_parent(branch->bin.get());
        branch->tee_pad = Ref<GstPad>::adopt(gst_element_request_pad_simple(tee_.get(), "src_%u"));
        EXPECT_TRUE(branch->tee_pad) << "branch " << id;
        if (branch->tee_pad) {
            EXPECT_EQ(gst_pad_link(branch->tee_pad.get(), branch->entry.get()), GST_PAD_LINK_OK)
                << "branch " << id;
        }
        return branch;
    }

    // Waits (bounded) until `count` frames reached the branch; frames keep coming meanwhile.
    bool wait_for(Branch &branch, guint64 count)
    {
        const gint64 deadline = g_get_monotonic_time() + kWaitUs;
        std::unique_lock<std::mutex> hold(branch.lock);
        while (branch.frames < count) {
            hold.unlock();
            want_frames(entered_ + 8); // a few ahead: frames in flight while a branch links
            if (!posted_error().empty() || g_get_monotonic_time() > deadline)
                return false;
            hold.lock();
            branch.changed.wait_for(hold, std::chrono::milliseconds(1));
        }
        return true;
    }

    // Unlinks and releases the branch, drains it with an EOS and takes it out (as
    // test-stress-tee.cpp does, state locked before NULL).
    void remove(Branch &branch)
    {
        if (branch.tee_pad) {
            gst_pad_unlink(branch.tee_pad.get(), branch.entry.get());
            gst_element_release_request_pad(tee_.get(), branch.tee_pad.get());
        }
        gst_pad_send_event(branch.entry.get(), gst_event_new_eos());
        {
            std::unique_lock<std::mutex> hold(branch.lock);
            EXPECT_TRUE(branch.changed.wait_for(hold, std::chrono::microseconds(kWaitUs),
                                                [&] { return branch.drained; }))
                << "branch " << branch.id << " did not drain";
        }
        gst_element_set_locked_state(branch.bin.get(), TRUE);
        gst_element_set_state(branch.bin.get(), GST_STATE_NULL);
        gst_bin_remove(GST_BIN(pipeline_.get()), branch.bin.get());
        // Upstream asked to negotiate again, as an application does once the branches changed: the
        // stream turns back to dense frames when no branch names views.
        const Ref<GstPad> tee_sink = Ref<GstPad>::adopt(gst_element_get_static_pad(tee_.get(), "sink"));
        gst_pad_push_event(tee_sink.get(), gst_event_new_reconfigure());
    }

    void want_frames(guint64 frames) { source_.want(frames); }

    // The first error the pipeline posted (kept for the next call), or "".
    std::string posted_error()
    {
        if (error_.empty()) {
            const Ref<GstBus> bus = Ref<GstBus>::adopt(gst_element_get_bus(pipeline_.get()));
            const Ref<GstMessage> message =
                Ref<GstMessage>::adopt(gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR));
            if (message)
                error_ = g2g::test::message_with_source(message.get());
        }
        return error_;
    }

private:
    ElementRef pipeline_;
    ElementRef tee_;
    ElementRef src_;
    std::atomic<guint64> entered_{0};
    std::string error_;
    g2g::test::DemandSource source_;
};

// "" when the branch got stream-start, caps and segment, in that order, before its first frame.
std::string order_of(Branch &branch)
{
    const std::lock_guard<std::mutex> hold(branch.lock);
    const std::vector<std::string> want{"stream-start", "caps", "segment", "buffer"};
    if (branch.order.size() >= 4 && std::equal(want.begin(), want.end(), branch.order.begin()))
        return "";
    std::string got;
    for (const std::string &seen : branch.order)
        got += (got.empty() ? "" : ", ") + seen;
    return "branch " + std::to_string(branch.id) + " got " + got;
}

const char *const kDense = "queue ! fakesink sync=false async=false";
const char *const kMaterializing = "g2gmaterialize ! queue ! fakesink sync=false async=false";
const char *const kViewsOnly =
    "capsfilter caps=video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! queue ! "
    "fakesink sync=false async=false";

// A permanent dense branch, then `cycles` times: a branch of `kinds[cycle % size]` requested,
// linked, fed kFramesPerBranch frames, unlinked and released (at most two live at once). Fails on
// any error the pipeline posts, any GStreamer or GLib warning (the data-flow-before-segment and
// sticky-misordering ones among them) and any branch whose events came out of order.
void cycle_branches(const std::string &between, const std::string &tee_properties,
                    const std::vector<const char *> &kinds, int cycles)
{
    const g2g::test::LogCapture complaints;
    g2g::test::Watchdog watchdog(kStall);
    std::vector<std::unique_ptr<Branch>> done; // outlive the pipeline: their probes may still run
    std::deque<std::unique_ptr<Branch>> live;
    int failed_at = -1;
    {
        Pipeline pipeline(between, tee_properties);
        done.push_back(pipeline.add(-1, kDense));
        Branch &permanent = *done.back();
        pipeline.want_frames(4);
        ASSERT_TRUE(pipeline.play());
        ASSERT_TRUE(pipeline.wait_for(permanent, 2)) << pipeline.posted_error();
        for (int cycle = 0; cycle < cycles; ++cycle) {
            watchdog.step("cycle " + std::to_string(cycle) + ": linking a branch");
            live.push_back(pipeline.add(cycle, kinds[cycle % kinds.size()]));
            watchdog.step("cycle " + std::to_string(cycle) + ": waiting for its frames");
            if (!pipeline.wait_for(*live.back(), kFramesPerBranch) || !complaints.said().empty()) {
                failed_at = cycle;
                break;
            }
            if (live.size() > 1) {
                watchdog.step("cycle " + std::to_string(cycle) + ": releasing a branch");
                pipeline.remove(*live.front());
                done.push_back(std::move(live.front()));
                live.pop_front();
            }
        }
        watchdog.step("removing the last branches");
        for (auto &branch : live) {
            pipeline.remove(*branch);
            done.push_back(std::move(branch));
        }
        EXPECT_EQ(pipeline.posted_error(), "") << "at cycle " << failed_at;
        std::printf("%llu frames, %d of %d cycles\n", static_cast<unsigned long long>(pipeline.entered()),
                    failed_at < 0 ? cycles : failed_at, cycles);
        watchdog.step("stopping");
    }
    EXPECT_EQ(failed_at, -1) << "a branch got no frames, or a warning came";
    for (auto &branch : done)
        EXPECT_EQ(order_of(*branch), "");
    EXPECT_EQ(complaints.said(), std::vector<std::string>{});
}

} // namespace

// Views come and go with the branches that name them: the stream turns from dense frames to views
// and back, and the tee's materialization for the dense branches starts in the middle of a stream.
TEST(StressTeeRaces, AConversionMadeAtACapsChangeGetsTheSegmentBeforeItsFirstFrame)
{
    cycle_branches("", "allow-not-linked=true", {kMaterializing, kDense}, rounds(100));
}

// A branch that takes only views, linked while dense frames flow: upstream turns to views, and the
// frames that left it before are no reason to refuse the branch (fan-out-policy=fail).
TEST(StressTeeRaces, ABranchOnlyViewsReachIsNotRefusedByAFrameFromBeforeUpstreamRenegotiated)
{
    cycle_branches("", "", {kViewsOnly, kDense}, rounds(200));
}

// The same with a queue before the tee: frames in the old caps always follow the link.
TEST(StressTeeRaces, ABranchOnlyViewsReachIsNotRefusedByQueuedFramesInTheOldCaps)
{
    cycle_branches("queue max-size-buffers=4 ! ", "", {kViewsOnly, kDense}, rounds(100));
}

// The same with DMABuf frames: g2gdmabufupload offers system memory first and memory:DMABuf after
// it, so the first branch that takes only DMABuf, linked while system frames flow, must get DMABuf
// frames once upstream has renegotiated, not be refused by the system frames before it (g2gtee
// converts no system frame into a DMABuf); then system-only and DMABuf-only branches come and go
// on the one DMABuf stream (the system ones read it relabelled). It did not fail at 71ef884:
// upstream leaves DMABuf no more once a DMABuf branch came, so only that first branch meets
// frames in the old caps, and the views cases above are where that race showed.
TEST(StressTeeRaces, ABranchOnlyDmaBufReachesIsNotRefusedByQueuedFramesInTheOldCaps)
{
#if !G2G_HAVE_DMABUF
    GTEST_SKIP() << "this build has no DMA-BUF domain (not Linux, or no linux/dma-buf.h)";
#endif
    const char *dmabuf_only =
        "capsfilter caps=video/x-raw(memory:DMABuf) ! queue ! fakesink sync=false async=false";
    // Branches that name system memory keep upstream there between the DMABuf ones.
    const char *system_only = "capsfilter caps=video/x-raw ! queue ! fakesink sync=false async=false";
    cycle_branches("g2gdmabufupload ! queue max-size-buffers=4 ! ", "", {dmabuf_only, system_only},
                   rounds(100));
}
