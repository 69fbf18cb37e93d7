// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee under stress: branches requested and released 1000 times while PLAYING with frames
// flowing, behind g2gview video-direction=90r (branches that materialize the view themselves, and
// branches the tee materializes it for) and without a view. Every frame carries its number in
// every pixel and its source position in the last byte, so a branch can tell which frame reached
// it and whether it is intact (a view read as a dense frame is not). Every frame that entered the
// tee while a branch was linked must reach that branch exactly once and leave it intact. A branch
// is torn down the way a dynamic pipeline must (unlinked, released, drained by an EOS, its state
// locked before NULL and removal); a watchdog (tests/support/watchdog.h) fails the program with the
// step that hung, instead of hanging.
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "log-capture.h"
#include "pipeline.h"
#include "tee-stats.h"
#include "demand-source.h"
#include "watchdog.h"

using g2g::ElementRef;
using g2g::Ref;

namespace {

constexpr int kWidth = 32;
constexpr int kHeight = 24;
constexpr int kCycles = 1000; // branches requested and released
// Behind a view, in the sanitizer build (G2G_STRESS_SHORT, set by tests/meson.build), with CI's
// full stack unwinding on every allocation, one cycle costs about 0.45 s of CPU instead of 3 ms:
// the route decisions and upstream's renegotiation intersect g2gmaterialize's caps (every format,
// with and without the view feature) branch by branch, and GStreamer's caps arithmetic allocates
// for each structure. There it runs 20 cycles (1000 would take minutes; 40 took 39 s of a 56 s run
// on 2 loaded cores); the plain build runs all of them.
int view_cycles()
{
    return g_getenv("G2G_STRESS_SHORT") ? 20 : kCycles;
}
constexpr std::size_t kLiveBranches = 3; // requested branches linked at once (besides the permanent one)
constexpr guint64 kFramesPerBranch = 3;  // frames entering the tee while each branch is linked, at least
constexpr guint64 kFramesPerCycle = 8;   // frames the source is asked for each cycle (it waits for more)
constexpr gint64 kWaitUs = 20 * G_USEC_PER_SEC;   // one bounded wait: frames to flow, a branch to drain
constexpr auto kStall = std::chrono::seconds(60); // one step that long: a deadlock

// The last byte of each pixel: where in the source frame the pixel comes from.
guint8 position_code(int x, int y)
{
    return static_cast<guint8>(x * 5 + y * 11);
}

// Frame `n` of the source: the frame number (24 bits) in R, G and B of every pixel.
GstBuffer *numbered_frame(guint32 n)
{
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, kWidth * kHeight * 4, nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            guint8 *px = map.data + (y * kWidth + x) * 4;
            px[0] = static_cast<guint8>(n);
            px[1] = static_cast<guint8>(n >> 8);
            px[2] = static_cast<guint8>(n >> 16);
            px[3] = position_code(x, y);
        }
    }
    gst_buffer_unmap(buffer, &map);
    GST_BUFFER_PTS(buffer) = n * (GST_SECOND / 30);
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    return buffer;
}

// The frame number of a buffer as it enters a branch: every pixel carries it, so the first bytes
// of the memory tell it whether the buffer is a view (the source's bytes) or a dense frame.
guint32 number_of(GstBuffer *buffer)
{
    guint8 first[3] = {};
    gst_buffer_extract(buffer, 0, first, 3);
    return first[0] | (first[1] << 8) | (first[2] << 16);
}

// "" when the dense frame `buffer` (laid out as `caps` say) is frame `n` of the source as the
// branch must see it (rotated 90 degrees clockwise, or as it is); else what is wrong.
std::string check_dense(GstBuffer *buffer, GstCaps *caps, bool rotated, guint32 &n)
{
    if (g2g::tensor_view_of(buffer))
        return "a view reached the sink";
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return "no video caps at the sink";
    const int width = rotated ? kHeight : kWidth;
    const int height = rotated ? kWidth : kHeight;
    if (GST_VIDEO_INFO_WIDTH(&info) != width || GST_VIDEO_INFO_HEIGHT(&info) != height)
        return "a " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" +
               std::to_string(GST_VIDEO_INFO_HEIGHT(&info)) + " frame at the sink";
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ))
        return "the frame does not map";
    std::string wrong;
    const auto *data = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    n = data[0] | (data[1] << 8) | (data[2] << 16);
    for (int y = 0; y < height && wrong.empty(); ++y) {
        for (int x = 0; x < width && wrong.empty(); ++x) {
            const guint8 *px = data + y * stride + x * 4;
            // 90r: output (x, y) is source (y, H - 1 - x).
            const int sx = rotated ? y : x;
            const int sy = rotated ? kHeight - 1 - x : y;
            const guint32 got = px[0] | (px[1] << 8) | (px[2] << 16);
            if (got != n || px[3] != position_code(sx, sy))
                wrong = "frame " + std::to_string(n) + " pixel (" + std::to_string(x) + ", " +
                        std::to_string(y) + ") is frame " + std::to_string(got) + " position code " +
                        std::to_string(px[3]) + ", want " + std::to_string(position_code(sx, sy));
        }
    }
    gst_video_frame_unmap(&frame);
    return wrong;
}

// One branch: what entered it from the tee and what left it intact, by frame number.
struct Branch {
    int id = 0;
    bool views = false;   // the branch names the view: views enter it (it materializes them itself)
    bool rotated = false; // its frames are the source rotated 90r
    ElementRef bin;
    Ref<GstPad> entry;        // the bin's ghost sink pad
    Ref<GstPad> tee_pad;      // its pad of the tee
    guint64 linking_from = 0; // frames that had entered the tee when the link began
    guint64 linked_from = 0;  // ... when it returned
    guint64 unlink_from = 0;  // ... when the unlink began
    guint64 unlinked_at = 0;  // ... when it returned

    std::mutex lock;
    std::vector<guint32> arrived; // frame numbers entering the branch, in order
    std::vector<guint32> passed;  // frame numbers that left it intact (at the fakesink)
    std::string trouble;          // the first thing wrong with a frame
    bool drained = false;         // the EOS sent after the unlink reached the sink
    std::condition_variable drained_cv;

    void complain(const std::string &what)
    {
        if (trouble.empty())
            trouble = what;
    }
};

GstPadProbeReturn on_entry(GstPad *, GstPadProbeInfo *info, gpointer data)
{
    auto *branch = static_cast<Branch *>(data);
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    const guint32 n = number_of(buffer);
    const bool is_view = g2g::tensor_view_of(buffer) != nullptr;
    const std::lock_guard<std::mutex> hold(branch->lock);
    branch->arrived.push_back(n);
    if (is_view != branch->views)
        branch->complain("frame " + std::to_string(n) + (is_view ? " entered as a view" : " entered dense") +
                         ", want " + (branch->views ? "a view" : "a dense frame"));
    return GST_PAD_PROBE_OK;
}

void on_handoff(GstElement *, GstBuffer *buffer, GstPad *pad, gpointer data)
{
    auto *branch = static_cast<Branch *>(data);
    const g2g::CapsRef caps = g2g::CapsRef::adopt(gst_pad_get_current_caps(pad));
    guint32 n = 0;
    const std::string wrong = check_dense(buffer, caps.get(), branch->rotated, n);
    const std::lock_guard<std::mutex> hold(branch->lock);
    if (wrong.empty())
        branch->passed.push_back(n);
    else
        branch->complain(wrong);
}

GstPadProbeReturn on_sink_event(GstPad *, GstPadProbeInfo *info, gpointer data)
{
    if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) != GST_EVENT_EOS)
        return GST_PAD_PROBE_OK;
    auto *branch = static_cast<Branch *>(data);
    {
        const std::lock_guard<std::mutex> hold(branch->lock);
        branch->drained = true;
    }
    branch->drained_cv.notify_all();
    return GST_PAD_PROBE_OK;
}

// The pipeline: numbered frames from an appsrc (a few per cycle, on demand), optionally through
// g2gview video-direction=90r, into g2gtee "t" with a permanent branch; branches come and go.
class Stress {
public:
    explicit Stress(bool view) : view_(view)
    {
        const std::string caps = "video/x-raw,format=RGBA,width=" + std::to_string(kWidth) +
                                 ",height=" + std::to_string(kHeight) + ",framerate=30/1";
        pipeline_ = ElementRef::adopt(gst_parse_launch(("appsrc name=src format=time caps=" + caps +
                                                        (view ? " ! g2gview video-direction=90r" : "") +
                                                        " ! g2gtee name=t allow-not-linked=true")
                                                           .c_str(),
                                                       nullptr));
        tee_ = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "t"));
        src_ = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "src"));
        const Ref<GstPad> tee_sink = Ref<GstPad>::adopt(gst_element_get_static_pad(tee_.get(), "sink"));
        g2g::test::count_buffers(tee_sink.get(), entered_);
        source_.attach(src_.get(), numbered_frame);
    }

    ~Stress()
    {
        source_.stop();
        if (pipeline_)
            gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
    }

    GstElement *tee() const { return tee_.get(); }
    guint64 entered() const { return entered_; }

    bool play()
    {
        return gst_element_set_state(pipeline_.get(), GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
    }

    // A new branch, linked to a new pad of the tee while frames flow. `views`: one that names
    // the view (g2gmaterialize first); else a dense one (the tee materializes for it).
    std::unique_ptr<Branch> add(int id, bool views, bool quiet_link = false)
    {
        auto branch = std::make_unique<Branch>();
        branch->id = id;
        branch->views = view_ && views;
        branch->rotated = view_;
        const char *description =
            branch->views
                ? "g2gmaterialize ! queue ! fakesink name=sink sync=false async=false signal-handoffs=true"
                : "queue ! fakesink name=sink sync=false async=false signal-handoffs=true";
        branch->bin = ElementRef::adopt(
            GST_ELEMENT(gst_object_ref_sink(gst_parse_bin_from_description(description, TRUE, nullptr))));
        branch->entry = Ref<GstPad>::adopt(gst_element_get_static_pad(branch->bin.get(), "sink"));
        gst_pad_add_probe(branch->entry.get(), GST_PAD_PROBE_TYPE_BUFFER, on_entry, branch.get(), nullptr);
        const ElementRef sink = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(branch->bin.get()), "sink"));
        g_signal_connect(sink.get(), "handoff", G_CALLBACK(on_handoff), branch.get());
        const Ref<GstPad> sink_pad = Ref<GstPad>::adopt(gst_element_get_static_pad(sink.get(), "sink"));
        gst_pad_add_probe(sink_pad.get(), GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_sink_event, branch.get(),
                          nullptr);

        gst_bin_add(GST_BIN(pipeline_.get()), branch->bin.get());
        gst_element_sync_state_with_parent(branch->bin.get());
        branch->tee_pad = Ref<GstPad>::adopt(gst_element_request_pad_simple(tee_.get(), "src_%u"));
        EXPECT_TRUE(branch->tee_pad) << "branch " << id;
        branch->linking_from = entered_;
        if (branch->tee_pad) {
            // Every other link sends no RECONFIGURE (as a link made before the tee could handle one):
            // the tee then finds the branch linked at the next frame and decides its route first.
            const auto check = static_cast<GstPadLinkCheck>(
                GST_PAD_LINK_CHECK_DEFAULT | (quiet_link ? GST_PAD_LINK_CHECK_NO_RECONFIGURE : 0));
            EXPECT_EQ(gst_pad_link_full(branch->tee_pad.get(), branch->entry.get(), check), GST_PAD_LINK_OK)
                << "branch " << id;
        }
        branch->linked_from = entered_;
        return branch;
    }

    // Unlinks and releases the branch, drains it with an EOS and takes it out of the pipeline:
    // its state locked first, or the pipeline re-committing PLAYING (when a new branch's sink
    // prerolls) sets it back to PAUSED between its NULL and its removal, and it is disposed out of
    // NULL with its queue's thread still waiting (a hang at gst_deinit). Then checks what it got.
    void remove(Branch &branch)
    {
        branch.unlink_from = entered_;
        if (branch.tee_pad) {
            gst_pad_unlink(branch.tee_pad.get(), branch.entry.get());
            gst_element_release_request_pad(tee_.get(), branch.tee_pad.get());
        }
        branch.unlinked_at = entered_;
        gst_pad_send_event(branch.entry.get(), gst_event_new_eos());
        {
            std::unique_lock<std::mutex> hold(branch.lock);
            EXPECT_TRUE(branch.drained_cv.wait_for(hold, std::chrono::microseconds(kWaitUs),
                                                   [&] { return branch.drained; }))
                << "branch " << branch.id << " did not drain";
        }
        gst_element_set_locked_state(branch.bin.get(), TRUE);
        gst_element_set_state(branch.bin.get(), GST_STATE_NULL);
        gst_bin_remove(GST_BIN(pipeline_.get()), branch.bin.get());
        expect_delivered(branch);
    }

    // The source pushes frames until `frames` were pushed, then waits to be asked for more: frames
    // keep flowing while branches are linked and released, a few per cycle, without the source
    // taking a core of its own.
    void want_frames(guint64 frames) { source_.want(frames); }

    // Waits (bounded) until `frames` frames have entered the tee.
    bool wait_for_frames(guint64 frames)
    {
        want_frames(frames);
        const gint64 deadline = g_get_monotonic_time() + kWaitUs;
        while (entered_ < frames) {
            if (g_get_monotonic_time() > deadline)
                return false;
            g_usleep(50);
        }
        return true;
    }

    // The first error the pipeline posted, or "".
    std::string posted_error() const
    {
        const Ref<GstBus> bus = Ref<GstBus>::adopt(gst_element_get_bus(pipeline_.get()));
        const Ref<GstMessage> message =
            Ref<GstMessage>::adopt(gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR));
        return message ? g2g::test::message_with_source(message.get()) : "";
    }

    // Stops the source and waits (bounded) for the EOS at the permanent branch; "" or the error.
    std::string finish()
    {
        source_.stop();
        gst_app_src_end_of_stream(GST_APP_SRC(src_.get()));
        const Ref<GstBus> bus = Ref<GstBus>::adopt(gst_element_get_bus(pipeline_.get()));
        const Ref<GstMessage> message = Ref<GstMessage>::adopt(
            gst_bus_timed_pop_filtered(bus.get(), static_cast<GstClockTime>(kWaitUs) * GST_USECOND,
                                       static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
        if (!message)
            return "no EOS";
        if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_EOS)
            return "";
        return g2g::test::message_with_source(message.get());
    }

    // Every frame that entered the tee while the branch was linked reached it exactly once and
    // left it intact. Frames in flight while it was linked or unlinked may or may not have.
    static void expect_delivered(Branch &branch)
    {
        const std::lock_guard<std::mutex> hold(branch.lock);
        const std::string who =
            "branch " + std::to_string(branch.id) + (branch.views ? " (views)" : " (dense)");
        EXPECT_EQ(branch.trouble, "") << who;
        ASSERT_FALSE(branch.arrived.empty()) << who << ": no frame reached it";
        for (std::size_t i = 1; i < branch.arrived.size(); ++i)
            ASSERT_EQ(branch.arrived[i], branch.arrived[i - 1] + 1)
                << who << ": frame " << branch.arrived[i - 1] << " followed by " << branch.arrived[i];
        const guint64 first = branch.arrived.front();
        const guint64 last = branch.arrived.back();
        // The first frame to enter after the link returned, and the last to have left the tee
        // before the unlink began, are its at the latest and the earliest.
        EXPECT_LE(first, branch.linked_from) << who;
        EXPECT_GE(last + 2, branch.unlink_from) << who;
        // Nothing that left the tee before the link began, or entered it after the unlink returned.
        EXPECT_GE(first + 1, branch.linking_from) << who;
        EXPECT_LT(last, branch.unlinked_at) << who;
        EXPECT_EQ(branch.passed, branch.arrived) << who << ": frames lost or damaged inside the branch";
    }

private:
    bool view_;
    ElementRef pipeline_;
    ElementRef tee_;
    ElementRef src_;
    std::atomic<guint64> entered_{0};
    g2g::test::DemandSource source_;
};

// The stress: a permanent branch, and kCycles branches requested, linked, fed at least
// kFramesPerBranch frames, then released, kLiveBranches of them linked at any time. Behind a view,
// three of every four name the view (g2gmaterialize ! queue ! fakesink) and the fourth is dense
// (queue ! fakesink: the tee's own materialize, which starts and stops with such branches).
void stress(bool view)
{
    // GStreamer's and GLib's complaints from any thread ("Trying to dispose element ..., but it is in
    // READY instead of the NULL state" among them).
    const g2g::test::LogCapture complaints;
    g2g::test::Watchdog watchdog(kStall);
    // The branches outlive the pipeline: their probes and handoffs may run until it stops.
    std::unique_ptr<Branch> permanent;
    std::deque<std::unique_ptr<Branch>> live;
    Stress pipeline(view);
    permanent = pipeline.add(-1, true);
    pipeline.want_frames(kFramesPerCycle);
    ASSERT_TRUE(pipeline.play());
    const int cycles = view ? view_cycles() : kCycles;
    for (int cycle = 0; cycle < cycles && !testing::Test::HasFatalFailure(); ++cycle) {
        watchdog.step("cycle " + std::to_string(cycle) + ": requesting and linking a branch");
        pipeline.want_frames(pipeline.entered() + kFramesPerCycle);
        live.push_back(pipeline.add(cycle, cycle % 4 != 3, cycle % 2 == 0));
        watchdog.step("cycle " + std::to_string(cycle) + ": waiting for frames to reach it");
        ASSERT_TRUE(pipeline.wait_for_frames(live.back()->linked_from + kFramesPerBranch))
            << "frames stopped flowing at cycle " << cycle << " after " << pipeline.entered() << " frames "
            << pipeline.posted_error();
        if (live.size() > kLiveBranches) {
            watchdog.step("cycle " + std::to_string(cycle) + ": unlinking, releasing and draining a branch");
            pipeline.remove(*live.front());
            live.pop_front();
        }
    }
    watchdog.step("removing the last branches");
    for (auto &branch : live)
        pipeline.remove(*branch);
    watchdog.step("draining the stream");
    EXPECT_EQ(pipeline.finish(), "");
    // The permanent branch got every frame, each once, intact.
    {
        const std::lock_guard<std::mutex> hold(permanent->lock);
        EXPECT_EQ(permanent->trouble, "");
        EXPECT_EQ(permanent->arrived.size(), pipeline.entered());
        EXPECT_EQ(permanent->passed, permanent->arrived);
    }
    EXPECT_EQ(g2g::test::tee_stat(pipeline.tee(), "frames"), pipeline.entered());
    EXPECT_GE(pipeline.entered(), cycles * kFramesPerBranch);
    std::printf("%s: %llu frames through %d branches\n", view ? "behind a view" : "without a view",
                static_cast<unsigned long long>(pipeline.entered()), cycles);
    gint pads = -1;
    g_object_get(pipeline.tee(), "num-src-pads", &pads, nullptr);
    EXPECT_EQ(pads, 1) << "only the permanent branch's pad is left";
    watchdog.step("stopping");
    EXPECT_EQ(complaints.said(), std::vector<std::string>{});
}

} // namespace

TEST(StressTee, ThousandBranchesComeAndGoBehindAViewWithMaterializingBranches)
{
    stress(true);
}

TEST(StressTee, ThousandBranchesComeAndGoWithoutAView)
{
    stress(false);
}
