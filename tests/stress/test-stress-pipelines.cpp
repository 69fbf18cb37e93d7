// SPDX-License-Identifier: LGPL-2.1-or-later
// Stress, bounded: pipelines holding every g2g element (g2gprobe, g2gview rotating and cropping,
// g2gmaterialize, g2gtee with branches of which one takes another domain, so the tee converts)
// cycled through their states 500 times, eight of them at once, and flushing seeks and EOS
// sent while frames are materialized and converted. Every frame that reaches a sink is checked
// against GStreamer's own elements (videoflip, videocrop) as it arrives; a watchdog turns a
// deadlock into a failure that names the step; the leaks tracer and LeakSanitizer (the
// sanitizer build) catch what a cycle leaks.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include "flow-block.h"
#include "frames.h"
#include "pipeline.h"
#include "sink-recorder.h"
#include "tee-stats.h"
#include "vulkan-device.h"
#include "vulkan-teardown.h"
#include "watchdog.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <latch>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using g2g::BufferRef;
using g2g::ElementRef;
using g2g::test::compare_frames;
using g2g::test::FrameCheck;
using g2g::test::have_vulkan_device;
using g2g::test::run_pipeline;
using g2g::test::SinkRecorder;
using g2g::test::SinkStatus;
using g2g::test::Watchdog;

namespace {

// The source scrolls one column a frame over 64 columns: frame n shows what frame n mod 64
// shows, so 64 reference frames check a stream of any length, and frames after a seek show
// where the stream is (for the patterns used here, each of the 64 differs).
constexpr int kWidth = 64;
constexpr int kPeriod = kWidth;
constexpr int kFps = 30;
constexpr const char *kCaps = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

// How many rounds a repeated test runs: `full`, or `short_run` in the sanitizer build
// (G2G_STRESS_SHORT, set by tests/meson.build), where CI's fast_unwind_on_malloc=0 makes a start
// and stop of these pipelines about a second on 2 cores (5 to 15 ms in the plain build). A leak,
// a use after free or a data race of one round shows there in one round as in 500; the plain
// build runs them all, for what only repetition finds (crashes, deadlocks).
int rounds(int full, int short_run)
{
    return g_getenv("G2G_STRESS_SHORT") ? short_run : full;
}

// A frame's wait, and the watchdog's limit for one step (which must outlast the waits, so a
// slow step fails its assertion first). Generous: CI runs the sanitizer build on 2 loaded cores.
constexpr auto kWait = 30s;
constexpr auto kStepLimit = std::chrono::seconds(90);

GstClockTime time_of_frame(guint64 n)
{
    return gst_util_uint64_scale(n, GST_SECOND, kFps);
}

// One branch of g2gtee: its elements, the appsink that ends it, and the chain of GStreamer's own
// elements that makes the same frames of the source (the oracle).
struct Branch {
    std::string sink;
    std::string chain;     // between the tee and the appsink
    std::string sink_caps; // the appsink's caps ("" for none)
    std::string oracle;    // appended to the source; "" for the source's own frames
};

// A pipeline holding every element, in one of two forms that both make g2gtee convert:
// - vulkan: frames uploaded to VulkanImage; one branch downloads them itself, g2gtee downloads
//   once (g2gmaterialize) for the rotated branch, which takes system memory, and the cropped
//   branch takes the VulkanImage frames as they are (g2gview's view, g2gmaterialize's download);
// - system: a g2gview view (SystemView) into the tee; two branches take the view, a dense
//   branch gets the tee's one g2gmaterialize.
// In both a rotation reaches a dense peer (g2gview materializes) and a crop reaches
// g2gmaterialize as a view.
struct Layout {
    bool vulkan = false;
    std::string pattern = "smpte75";
    // Sinks that wait for their frames' time: only where the pipeline pauses while streaming. A
    // pipeline of queued branches whose sinks do not sync cannot go from PLAYING to PAUSED, with
    // GStreamer's tee as with g2gtee: the first sink to pause prerolls, its queue fills as fast as
    // the source runs, and the tee blocks on it before the other sinks, paused after it, get the
    // frame they must preroll on (50 runs of videotestsrc ! tee ! 3 x queue ! fakesink sync=false:
    // PAUSED not reached in the 10th).
    bool sync = false;

    std::string upstream() const
    {
        return vulkan ? "vulkanupload name=upload ! g2gprobe name=probe require=vulkan-texture"
                      : "g2gview name=flip video-direction=vert ! g2gprobe name=probe require=system-view";
    }
    // What is done to the source before the tee, in GStreamer's elements.
    std::string upstream_oracle() const { return vulkan ? "" : "videoflip video-direction=vert"; }
    // The domain the probe sees.
    const char *probe_domain() const { return vulkan ? "VulkanTexture" : "SystemView"; }
    // The conversion g2gtee runs, as its stats name it.
    const char *conversion() const { return vulkan ? "VulkanTexture-to-System" : "SystemView-to-System"; }

    std::vector<Branch> branches() const
    {
        std::vector<Branch> list;
        // The Vulkan branch downloads before its queue: all Vulkan work of the pipeline (the
        // upload, g2gtee's conversion, this download) is then the source's streaming thread's,
        // which go_to() holds before the pipeline goes down while it streams.
        if (vulkan)
            list.push_back({"vulkan", "vulkandownload ! queue", "", ""});
        else
            list.push_back({"dense", "queue", "video/x-raw", ""});
        list.push_back({"rotated", "queue ! g2gview name=rotate video-direction=90r", "video/x-raw",
                        "videoflip video-direction=90r"});
        // System-memory caps at its sink: g2gmaterialize also writes VulkanImage frames, which a
        // caps-less appsink would take (VulkanImage views reach this branch as they are).
        list.push_back({"cropped",
                        "queue ! g2gview name=crop left=8 right=4 top=6 bottom=2 video-direction=horiz "
                        "! g2gmaterialize",
                        "video/x-raw",
                        "videocrop left=8 right=4 top=6 bottom=2 ! videoflip video-direction=horiz"});
        return list;
    }

    // num_buffers < 0: an endless source.
    std::string source(int num_buffers) const
    {
        std::string s = "videotestsrc name=src horizontal-speed=1 pattern=" + pattern;
        if (num_buffers >= 0)
            s += " num-buffers=" + std::to_string(num_buffers);
        return s + " ! " + kCaps;
    }

    std::string description(int num_buffers) const
    {
        std::string d = source(num_buffers) + " ! " + upstream() + " ! g2gtee name=t";
        for (const Branch &b : branches()) {
            d += " t. ! " + b.chain + " ! appsink name=" + b.sink + (sync ? " sync=true" : " sync=false") +
                 " enable-last-sample=false";
            if (!b.sink_caps.empty())
                d += " caps=" + b.sink_caps;
        }
        return d;
    }
};

// The kPeriod frames a branch's oracle makes of the source, and their layout.
struct Reference {
    std::vector<BufferRef> frames;
    GstVideoInfo info{};
};

std::shared_ptr<const Reference> reference_of(const Layout &layout, const Branch &branch)
{
    std::string chain = layout.source(kPeriod);
    for (const std::string &step : {layout.upstream_oracle(), branch.oracle}) {
        if (!step.empty())
            chain += " ! " + step;
    }
    const g2g::test::PipelineRun run = run_pipeline(chain + " ! appsink name=sink sync=false");
    auto reference = std::make_shared<Reference>();
    EXPECT_EQ(run.error, "") << chain;
    EXPECT_EQ(run.buffers.size(), static_cast<std::size_t>(kPeriod)) << chain;
    reference->frames = run.buffers;
    reference->info = g2g::test::video_info_of_caps(run.sink_caps.at("sink"));
    return reference;
}

// Each frame is the oracle's frame of its timestamp.
FrameCheck same_as(std::shared_ptr<const Reference> reference)
{
    return [reference](GstBuffer *buffer, const GstVideoInfo &info) -> std::string {
        if (!GST_BUFFER_PTS_IS_VALID(buffer))
            return "a frame without a timestamp";
        const guint64 n = gst_util_uint64_scale_round(GST_BUFFER_PTS(buffer), kFps, GST_SECOND);
        if (reference->frames.size() != static_cast<std::size_t>(kPeriod))
            return "no reference frames";
        const std::string diff =
            compare_frames(info, buffer, reference->info, reference->frames[n % kPeriod].get());
        return diff.empty() ? "" : "frame " + std::to_string(n) + " differs from the oracle's: " + diff;
    };
}

using References = std::vector<std::shared_ptr<const Reference>>; // one per branch, in order

// The references made so far, by layout (the main thread's only).
std::map<std::pair<bool, std::string>, References> &made_references()
{
    static std::map<std::pair<bool, std::string>, References> made;
    return made;
}

// They go when the tests are over, before gst_deinit(): the leaks tracer would count buffers
// still held then as leaked.
class ReferencesGoFirst : public testing::Environment {
public:
    void TearDown() override { made_references().clear(); }
};
[[maybe_unused]] testing::Environment *const references_go_first =
    testing::AddGlobalTestEnvironment(new ReferencesGoFirst);

// Made once per layout for the whole program (each a few pipeline runs).
const References &references_of(const Layout &layout)
{
    References &references = made_references()[{layout.vulkan, layout.pattern}];
    if (references.empty()) {
        for (const Branch &branch : layout.branches())
            references.push_back(reference_of(layout, branch));
    }
    return references;
}

// A pipeline of a Layout, kept across state changes, seeks and EOS, its sinks checked frame by
// frame.
class StressPipeline {
public:
    StressPipeline(const Layout &layout, const References &references, int num_buffers = -1) : layout_(layout)
    {
        GError *error = nullptr;
        pipeline_ = ElementRef::adopt(gst_parse_launch(layout.description(num_buffers).c_str(), &error));
        if (error) {
            parse_error_ = error->message;
            g_error_free(error);
            return;
        }
        bus_ = g2g::Ref<GstBus>::adopt(gst_element_get_bus(pipeline_.get()));
        // Every run on one device where vulkanupload keeps its first run's images (1.22:
        // vulkan-device.h); later versions' runs go as GStreamer gives them.
        if (layout.vulkan && g2g::test::SharedVulkanDevice::needed_for_restarts()) {
            vulkan_device_ = std::make_unique<g2g::test::SharedVulkanDevice>();
            vulkan_device_->give_to(pipeline_.get());
        }
        const std::vector<Branch> branches = layout.branches();
        for (std::size_t i = 0; i < branches.size(); ++i) {
            const ElementRef sink =
                ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), branches[i].sink.c_str()));
            sinks_.push_back(std::make_unique<SinkRecorder>(sink.get(), same_as(references.at(i))));
        }
    }

    ~StressPipeline() { stop(); }

    StressPipeline(const StressPipeline &) = delete;
    StressPipeline &operator=(const StressPipeline &) = delete;

    const std::string &parse_error() const { return parse_error_; }
    GstElement *get() const { return pipeline_.get(); }
    const std::vector<std::unique_ptr<SinkRecorder>> &sinks() const { return sinks_; }

    // Sets `state` and waits for it; "" when it was reached, else why not.
    std::string go_to(GstState state)
    {
        std::unique_ptr<g2g::test::FlowBlock> held;
        if (state <= GST_STATE_READY)
            held = quiesce_vulkan();
        const GstStateChangeReturn ret = gst_element_set_state(pipeline_.get(), state);
        if (ret == GST_STATE_CHANGE_FAILURE)
            return std::string("the change to ") + gst_element_state_get_name(state) + " failed" +
                   bus_error();
        GstState now = GST_STATE_VOID_PENDING;
        const GstStateChangeReturn done =
            gst_element_get_state(pipeline_.get(), &now, nullptr,
                                  std::chrono::duration_cast<std::chrono::nanoseconds>(kWait).count());
        if (done != GST_STATE_CHANGE_SUCCESS || now != state)
            return std::string("not in ") + gst_element_state_get_name(state) + " (" +
                   gst_element_state_change_return_get_name(done) + ", in " +
                   gst_element_state_get_name(now) + ")" + bus_error();
        return "";
    }

    // Waits for a state change in progress (a flushing seek's preroll) to end in PLAYING; "" when
    // it did.
    std::string settle()
    {
        GstState now = GST_STATE_VOID_PENDING;
        const GstStateChangeReturn done =
            gst_element_get_state(pipeline_.get(), &now, nullptr,
                                  std::chrono::duration_cast<std::chrono::nanoseconds>(kWait).count());
        if (done != GST_STATE_CHANGE_SUCCESS || now != GST_STATE_PLAYING)
            return std::string("not back in PLAYING (") + gst_element_state_change_return_get_name(done) +
                   ", in " + gst_element_state_get_name(now) + ")" + bus_error();
        return "";
    }

    // Down to NULL (no wait: it is synchronous).
    void stop()
    {
        if (!pipeline_)
            return;
        const std::unique_ptr<g2g::test::FlowBlock> held = quiesce_vulkan();
        gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
    }

    // Every sink's counts back to nothing, for a new stream.
    void reset_sinks()
    {
        for (const auto &sink : sinks_)
            sink->reset();
    }

    // Waits until `done` holds of every sink's status; "" when it did, else each sink's state.
    std::string wait_all(const std::function<bool(const SinkStatus &)> &done, const char *what)
    {
        const auto deadline = std::chrono::steady_clock::now() + kWait;
        for (const auto &sink : sinks_) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(std::max(
                deadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero()));
            if (!sink->wait_until(done, left))
                return std::string("waiting for ") + what + ": " + describe() + bus_error();
        }
        return "";
    }

    // The first problem any sink found ("" when none).
    std::string problem() const
    {
        for (const auto &sink : sinks_) {
            if (const std::string p = sink->status().problem; !p.empty())
                return p;
        }
        return "";
    }

    // The first error or warning posted since the last call, as "; <source>: <message>", or "".
    // The whole bus is emptied: a cycle posts dozens of messages.
    std::string bus_error()
    {
        std::string first;
        while (const g2g::Ref<GstMessage> message = g2g::Ref<GstMessage>::adopt(gst_bus_pop(bus_.get()))) {
            const GstMessageType type = GST_MESSAGE_TYPE(message.get());
            if (first.empty() && (type == GST_MESSAGE_ERROR || type == GST_MESSAGE_WARNING))
                first = "; " + g2g::test::message_with_source(message.get());
        }
        return first;
    }

    // Waits for the EOS message (or an error) on the bus; "" for EOS.
    std::string wait_eos()
    {
        const g2g::Ref<GstMessage> message = g2g::Ref<GstMessage>::adopt(gst_bus_timed_pop_filtered(
            bus_.get(), std::chrono::duration_cast<std::chrono::nanoseconds>(kWait).count(),
            static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
        if (!message)
            return "no EOS on the bus: " + describe();
        if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_EOS)
            return "";
        return g2g::test::message_with_source(message.get());
    }

    // Each sink's counts, for failure messages.
    std::string describe() const
    {
        std::string text;
        for (const auto &sink : sinks_) {
            const SinkStatus s = sink->status();
            g_autofree gchar *line =
                g_strdup_printf("%s%s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
                                " in the segment from %" GST_TIME_FORMAT ", last %" GST_TIME_FORMAT "%s%s%s",
                                text.empty() ? "" : "; ", sink->name().c_str(), s.frames, s.segment_frames,
                                GST_TIME_ARGS(s.segment.start), GST_TIME_ARGS(s.last_pts),
                                s.eos ? ", EOS" : "", s.problem.empty() ? "" : ", ", s.problem.c_str());
            text += line;
        }
        return text;
    }

    std::string probe_domain() const
    {
        const ElementRef probe = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "probe"));
        g_autofree gchar *domain = nullptr;
        g_object_get(probe.get(), "last-domain", &domain, nullptr);
        return domain ? domain : "";
    }

    guint64 conversions() const
    {
        const ElementRef tee = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "t"));
        return g2g::test::tee_conversions(tee.get(), layout_.conversion());
    }

private:
    // GStreamer 1.22's Vulkan elements, stopped (to READY or NULL) while frames are on the
    // device, free what lavapipe still executes, and lavapipe crashes in its threads: with
    // GStreamer's elements alone, videotestsrc ! vulkanupload ! vulkandownload ! fakesink taken
    // from PLAYING to NULL 500 times crashed in 3 of 4 runs (at cycles 8, 26 and 69) and
    // videotestsrc ! vulkanupload ! tee ! 2 x (queue ! vulkandownload ! fakesink) in 5 of 5; run to
    // EOS first, or held as here, 0 in 12 runs of 500. wait_for_vulkan_devices alone is not
    // enough while frames still come. So before a streaming pipeline goes down the frames are
    // held in front of vulkanupload (the source's thread then has finished every Vulkan step of
    // the frame before: they are all in that thread) and the devices waited for; the block goes
    // once the pipeline is down. A paused stream (its thread parked in a full queue, past the
    // Vulkan steps) brings no frame: a short wait, then on. Nothing to hold at EOS.
    std::unique_ptr<g2g::test::FlowBlock> quiesce_vulkan()
    {
        std::unique_ptr<g2g::test::FlowBlock> held;
        GstState current = GST_STATE_NULL;
        gst_element_get_state(pipeline_.get(), &current, nullptr, 0);
        const bool at_eos =
            std::all_of(sinks_.begin(), sinks_.end(), [](const auto &sink) { return sink->status().eos; });
        if (layout_.vulkan && current >= GST_STATE_PAUSED && !at_eos) {
            const ElementRef upload =
                ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "upload"));
            const g2g::Ref<GstPad> pad =
                g2g::Ref<GstPad>::adopt(gst_element_get_static_pad(upload.get(), "sink"));
            held = std::make_unique<g2g::test::FlowBlock>(pad.get());
            held->wait_held(current == GST_STATE_PLAYING ? std::chrono::milliseconds(kWait) : 200ms);
        }
        g2g::test::wait_for_vulkan_devices(GST_BIN(pipeline_.get()));
        return held;
    }

    Layout layout_;
    std::string parse_error_;
    std::unique_ptr<g2g::test::SharedVulkanDevice> vulkan_device_; // outlives pipeline_
    ElementRef pipeline_;
    g2g::Ref<GstBus> bus_;
    std::vector<std::unique_ptr<SinkRecorder>> sinks_;
};

bool at_least(const SinkStatus &s, guint64 frames)
{
    return s.frames >= frames;
}

// Both forms of the pipeline: the system one always, the Vulkan one where a Vulkan device is.
class EveryElement : public testing::TestWithParam<bool> {
protected:
    void SetUp() override
    {
        layout_.vulkan = GetParam();
        if (layout_.vulkan)
            SKIP_WITHOUT_VULKAN();
        references_ = references_of(layout_);
    }

    Layout layout_;
    References references_;
};

std::string form_name(const testing::TestParamInfo<bool> &info)
{
    return info.param ? "Vulkan" : "System";
}

// One NULL -> PLAYING -> NULL cycle: PLAYING reached, a frame through every branch (right
// pixels), the probe saw the layout's domain and the tee converted, then NULL.
void cycle_once(StressPipeline &pipeline, const Layout &layout, Watchdog &dog, int i)
{
    dog.step("cycle " + std::to_string(i) + ": NULL to PLAYING");
    pipeline.reset_sinks();
    const guint64 converted = pipeline.conversions();
    ASSERT_EQ(pipeline.go_to(GST_STATE_PLAYING), "") << "cycle " << i;
    dog.step("cycle " + std::to_string(i) + ": a frame through every branch");
    ASSERT_EQ(
        pipeline.wait_all([](const SinkStatus &s) { return at_least(s, 1); }, "a frame on every branch"), "")
        << "cycle " << i;
    ASSERT_EQ(pipeline.probe_domain(), layout.probe_domain()) << "cycle " << i;
    ASSERT_GT(pipeline.conversions(), converted) << "cycle " << i << ": g2gtee converted nothing";
    dog.step("cycle " + std::to_string(i) + ": PLAYING to NULL");
    ASSERT_EQ(pipeline.go_to(GST_STATE_NULL), "") << "cycle " << i;
    ASSERT_EQ(pipeline.problem(), "") << "cycle " << i;
    ASSERT_EQ(pipeline.bus_error(), "") << "cycle " << i;
}

} // namespace

TEST_P(EveryElement, FiveHundredCyclesFromNullToPlayingAndBack)
{
    Watchdog dog(kStepLimit);
    StressPipeline pipeline(layout_, references_);
    ASSERT_EQ(pipeline.parse_error(), "");
    const auto start = std::chrono::steady_clock::now();
    const int kCycles = rounds(500, 10);
    for (int i = 0; i < kCycles; ++i) {
        cycle_once(pipeline, layout_, dog, i);
        if (HasFatalFailure())
            return;
    }
    const auto took =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    RecordProperty("milliseconds_per_cycle", static_cast<int>(took.count() / kCycles));
    std::printf("%d cycles in %lld ms\n", kCycles, static_cast<long long>(took.count()));
}

TEST_P(EveryElement, StateChangesWhileStreamingInOddOrders)
{
    Watchdog dog(kStepLimit);
    layout_.sync = true; // it pauses while streaming
    StressPipeline pipeline(layout_, references_);
    ASSERT_EQ(pipeline.parse_error(), "");
    // From each state to each other, and back up through PAUSED and READY: a stream that went
    // below PAUSED starts again from its first frame, one that paused goes on where it stopped.
    const GstState order[] = {GST_STATE_PAUSED, GST_STATE_PLAYING, GST_STATE_PAUSED,  GST_STATE_PLAYING,
                              GST_STATE_READY,  GST_STATE_PLAYING, GST_STATE_READY,   GST_STATE_PAUSED,
                              GST_STATE_NULL,   GST_STATE_PAUSED,  GST_STATE_PLAYING, GST_STATE_NULL,
                              GST_STATE_READY,  GST_STATE_PLAYING, GST_STATE_PAUSED,  GST_STATE_READY,
                              GST_STATE_NULL,   GST_STATE_PLAYING, GST_STATE_PAUSED,  GST_STATE_NULL};
    GstState current = GST_STATE_NULL;
    int step = 0;
    for (const GstState next : order) {
        const std::string label = std::to_string(step++) + ": " + gst_element_state_get_name(current) +
                                  " to " + gst_element_state_get_name(next);
        dog.step(label);
        // The frames so far: after PLAYING the count must grow; the check of each frame (pixels,
        // timestamps, none lost or repeated within a segment) runs as it arrives.
        if (next <= GST_STATE_READY || current <= GST_STATE_READY) {
            ASSERT_EQ(pipeline.problem(), "") << label;
        }
        if (current <= GST_STATE_READY)
            pipeline.reset_sinks();
        std::vector<guint64> before;
        for (const auto &sink : pipeline.sinks())
            before.push_back(sink->status().frames);
        ASSERT_EQ(pipeline.go_to(next), "") << label;
        if (next == GST_STATE_PLAYING) {
            for (std::size_t i = 0; i < pipeline.sinks().size(); ++i) {
                const guint64 want = before[i] + 3;
                ASSERT_TRUE(pipeline.sinks()[i]->wait_until(
                    [&](const SinkStatus &s) { return at_least(s, want); }, kWait))
                    << label << ": " << pipeline.describe();
            }
        }
        ASSERT_EQ(pipeline.problem(), "") << label;
        ASSERT_EQ(pipeline.bus_error(), "") << label;
        current = next;
    }
}

namespace {

// Eight pipelines, each its own frames (a pattern of its own), every other one on Vulkan where
// a Vulkan device is.
constexpr int kPipelines = 8;
constexpr int kFramesEach = 40;
// Patterns whose 64 scrolled frames all differ (checkers-8 repeats every 16).
constexpr const char *kPatterns[kPipelines] = {
    "smpte75",  "colors", "pinwheel", "bar",
    "smpte100", "spokes", "circular", "spokes foreground-color=0xff20c040"};

// One of the eight: built and run to EOS in its own thread once all are built; "" when every
// branch got every frame, right, and EOS.
std::string run_to_eos(const Layout &layout, const References &references, std::latch &built)
{
    StressPipeline pipeline(layout, references, kFramesEach);
    built.arrive_and_wait();
    if (!pipeline.parse_error().empty())
        return "parse: " + pipeline.parse_error();
    if (std::string failed = pipeline.go_to(GST_STATE_PLAYING); !failed.empty())
        return failed;
    if (std::string failed = pipeline.wait_eos(); !failed.empty())
        return failed;
    if (std::string failed =
            pipeline.wait_all([](const SinkStatus &s) { return s.eos; }, "EOS on every branch");
        !failed.empty())
        return failed;
    for (const auto &sink : pipeline.sinks()) {
        if (sink->status().frames != static_cast<guint64>(kFramesEach))
            return "not every frame: " + pipeline.describe();
    }
    if (pipeline.conversions() != static_cast<guint64>(kFramesEach))
        return "g2gtee converted " + std::to_string(pipeline.conversions()) + " frames of " +
               std::to_string(kFramesEach);
    pipeline.stop();
    if (std::string p = pipeline.problem(); !p.empty())
        return p;
    return pipeline.bus_error();
}

} // namespace

TEST(StressPipelines, EightPipelinesAtOnceEachWithItsOwnFrames)
{
    const bool vulkan = have_vulkan_device();
    std::vector<Layout> layouts(kPipelines);
    std::vector<References> references;
    for (int i = 0; i < kPipelines; ++i) {
        layouts[i].vulkan = vulkan && i % 2 == 0;
        layouts[i].pattern = kPatterns[i];
        references.push_back(references_of(layouts[i]));
    }
    // Each pipeline's own frames differ from every other's (else a mixed-up frame would pass).
    for (int i = 1; i < kPipelines; ++i)
        ASSERT_NE(compare_frames(references[0][0]->info, references[0][0]->frames[0].get(),
                                 references[i][0]->info, references[i][0]->frames[0].get()),
                  "")
            << kPatterns[i];

    Watchdog dog(kStepLimit);
    dog.step(std::to_string(kPipelines) + " pipelines at once");
    std::latch built(kPipelines);
    std::vector<std::string> results(kPipelines);
    std::vector<std::thread> threads;
    for (int i = 0; i < kPipelines; ++i)
        threads.emplace_back([&, i] { results[i] = run_to_eos(layouts[i], references[i], built); });
    for (std::thread &thread : threads)
        thread.join();
    for (int i = 0; i < kPipelines; ++i)
        EXPECT_EQ(results[i], "") << "pipeline " << i << " (" << kPatterns[i]
                                  << (layouts[i].vulkan ? ", Vulkan" : ", system") << ")";
}

namespace {

// Seek targets: frames a multiple of 3 apart from 0, so that the time of each (frame * 1/30 s)
// is a whole number of nanoseconds and the source's first frame after the seek starts exactly
// there. Forwards and backwards, all different (a segment is told from the one before by its
// start).
guint64 seek_frame(int k)
{
    return k % 2 ? 3u * (1000 - 17 * k) : 3u * (40 + 23 * k);
}

bool seek(StressPipeline &pipeline, GstClockTime t)
{
    return gst_element_seek_simple(pipeline.get(), GST_FORMAT_TIME,
                                   static_cast<GstSeekFlags>(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                                   t);
}

} // namespace

TEST_P(EveryElement, FlushingSeeksWhileMaterializingAndConverting)
{
    Watchdog dog(kStepLimit);
    StressPipeline pipeline(layout_, references_);
    ASSERT_EQ(pipeline.parse_error(), "");
    dog.step("to PLAYING");
    ASSERT_EQ(pipeline.go_to(GST_STATE_PLAYING), "");
    ASSERT_EQ(pipeline.wait_all([](const SinkStatus &s) { return at_least(s, 2); }, "the first frames"), "");
    const int kSeeks = rounds(24, 12);
    for (int k = 0; k < kSeeks; ++k) {
        const GstClockTime t = time_of_frame(seek_frame(k));
        const std::string label = "seek " + std::to_string(k) + " to frame " + std::to_string(seek_frame(k));
        dog.step(label);
        const guint64 converted = pipeline.conversions();
        // Every third seek follows another at once: the second flush comes while the first
        // one's frames are being materialized and converted.
        if (k % 3 == 1) {
            ASSERT_TRUE(seek(pipeline, time_of_frame(seek_frame(k) + 300))) << label;
        }
        ASSERT_TRUE(seek(pipeline, t)) << label;
        // The stream goes on from there on every branch: the new segment, its first frame
        // exactly at the seek's position, each frame the oracle's of its timestamp.
        ASSERT_EQ(pipeline.wait_all(
                      [&](const SinkStatus &s) { return s.segment.start == t && s.segment_frames >= 3; },
                      label.c_str()),
                  "");
        for (const auto &sink : pipeline.sinks()) {
            const SinkStatus s = sink->status();
            EXPECT_EQ(s.segment_first_pts, t) << label << ": " << sink->name();
            EXPECT_EQ(s.segment.time, t) << label << ": " << sink->name();
        }
        ASSERT_GT(pipeline.conversions(), converted) << label << ": g2gtee converted nothing after it";
        ASSERT_EQ(pipeline.problem(), "") << label;
        ASSERT_EQ(pipeline.bus_error(), "") << label;
    }
    dog.step("EOS after the seeks");
    ASSERT_EQ(pipeline.settle(), ""); // see EosWhileFramesAreInFlight
    gst_element_send_event(pipeline.get(), gst_event_new_eos());
    ASSERT_EQ(pipeline.wait_eos(), "");
    ASSERT_EQ(pipeline.wait_all([](const SinkStatus &s) { return s.eos; }, "EOS on every branch"), "");
    ASSERT_EQ(pipeline.problem(), "");
}

TEST_P(EveryElement, EosWhileFramesAreInFlight)
{
    Watchdog dog(kStepLimit);
    StressPipeline pipeline(layout_, references_);
    ASSERT_EQ(pipeline.parse_error(), "");
    const ElementRef tee = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "t"));
    const int kTrials = rounds(12, 4);
    for (int trial = 0; trial < kTrials; ++trial) {
        const std::string label = "trial " + std::to_string(trial);
        dog.step(label);
        pipeline.reset_sinks();
        const guint64 tee_frames = g2g::test::tee_stat(tee.get(), "frames");
        ASSERT_EQ(pipeline.go_to(GST_STATE_PLAYING), "") << label;
        const guint64 some = 1 + trial % 5;
        ASSERT_EQ(pipeline.wait_all([&](const SinkStatus &s) { return at_least(s, some); }, label.c_str()),
                  "");
        // Every other trial, EOS right behind a flushing seek: the flush and the EOS both on
        // their way while frames are.
        const bool with_seek = trial % 2 == 1;
        const GstClockTime t = time_of_frame(seek_frame(trial));
        if (with_seek) {
            ASSERT_TRUE(seek(pipeline, t)) << label;
            // EOS only once the pipeline is back in PLAYING: a flushing seek makes it preroll
            // again, and GStreamer's basesrc takes EOS under its stream lock, which its thread
            // holds while blocked in a queue that a prerolled sink does not drain, while
            // gst_element_send_event holds the pipeline's state lock, which the way back to
            // PLAYING needs. With GStreamer's elements alone: videotestsrc ! queue ! fakesink,
            // PAUSED, then EOS: send_event never returns. (Here: the watchdog, once in 150 runs.)
            ASSERT_EQ(pipeline.settle(), "") << label;
        }
        ASSERT_TRUE(gst_element_send_event(pipeline.get(), gst_event_new_eos())) << label;
        ASSERT_EQ(pipeline.wait_eos(), "") << label;
        ASSERT_EQ(pipeline.wait_all([](const SinkStatus &s) { return s.eos; }, "EOS on every branch"), "")
            << label;
        // Without a flush no frame in flight is lost at EOS: every branch got every frame the
        // tee took (through the conversion too). After the seek, the new segment starts at its
        // position where a frame of it came before EOS.
        const guint64 taken = g2g::test::tee_stat(tee.get(), "frames") - tee_frames;
        for (const auto &sink : pipeline.sinks()) {
            const SinkStatus s = sink->status();
            if (!with_seek) {
                EXPECT_EQ(s.frames, taken) << label << ": " << pipeline.describe();
            } else if (s.segment.start == t) {
                EXPECT_EQ(s.segment_first_pts, t) << label << ": " << sink->name();
            }
        }
        ASSERT_EQ(pipeline.problem(), "") << label;
        dog.step(label + ": to NULL");
        ASSERT_EQ(pipeline.go_to(GST_STATE_NULL), "") << label;
        ASSERT_EQ(pipeline.bus_error(), "") << label;
    }
}

INSTANTIATE_TEST_SUITE_P(StressPipelines, EveryElement, testing::Values(false, true), form_name);

namespace {

GstPadProbeReturn count_allocation_query(GstPad *, GstPadProbeInfo *info, gpointer count)
{
    if (GST_QUERY_TYPE(GST_PAD_PROBE_INFO_QUERY(info)) == GST_QUERY_ALLOCATION)
        ++*static_cast<std::atomic<int> *>(count);
    return GST_PAD_PROBE_OK;
}

} // namespace

// Upstream of g2gtee negotiates once per start, however many conversions the tee links for its
// branches. Linking a conversion sent a RECONFIGURE up through the tee, so upstream negotiated
// again at the second frame: twice the caps and allocation queries, and a pipeline stopped just
// then crashed in GStreamer 1.22's vulkanupload, whose second allocation query made a pool on the
// device its stop had just released (gst_vulkan_buffer_pool_new: gst_object_ref: assertion
// 'object != NULL' failed, then SIGSEGV; the first run of the 500 cycles, at its 6th).
TEST_P(EveryElement, UpstreamQueriesAllocationOncePerStart)
{
    Watchdog dog(kStepLimit);
    StressPipeline pipeline(layout_, references_);
    ASSERT_EQ(pipeline.parse_error(), "");
    const ElementRef tee = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "t"));
    const g2g::Ref<GstPad> sink = g2g::Ref<GstPad>::adopt(gst_element_get_static_pad(tee.get(), "sink"));
    std::atomic<int> queries{0};
    // PUSH: each query once, on its way in (a query probe also sees it on its way back).
    gst_pad_add_probe(
        sink.get(),
        static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH),
        count_allocation_query, &queries, nullptr);
    for (int i = 0; i < 3; ++i) {
        dog.step("start " + std::to_string(i));
        queries = 0;
        pipeline.reset_sinks();
        ASSERT_EQ(pipeline.go_to(GST_STATE_PLAYING), "");
        ASSERT_EQ(pipeline.wait_all([](const SinkStatus &s) { return at_least(s, 10); }, "10 frames"), "");
        EXPECT_EQ(queries.load(), 1) << "start " << i;
        ASSERT_EQ(pipeline.go_to(GST_STATE_NULL), "");
        ASSERT_EQ(pipeline.problem(), "");
    }
}
