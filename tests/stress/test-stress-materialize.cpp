// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gmaterialize's n-threads changed from another thread every 30 us while 1080p NV12 views stream
// through it (a frame large enough to be split across threads), directly and behind a tee (the
// issue's pipeline shape): every frame comes out, each the frame videoflip makes, with no error or
// warning (a not-negotiated among them) and no stall (a watchdog). A change is proposed and
// applied at the next frame's reconfigure, so the changes race the negotiation they cause.
#include <g2g/gst-ref.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "frames.h"
#include "watchdog.h"

using g2g::BufferRef;

namespace {

constexpr const char *kCaps = "video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1";
constexpr guint kThreads[] = {1, 4, 2, 0, 3};
constexpr auto kChangeEvery = std::chrono::microseconds(30);
constexpr auto kStall = std::chrono::seconds(10);

// The sanitizer build's frames take far longer (meson sets G2G_STRESS_SHORT there).
int frames_to_push()
{
    return std::getenv("G2G_STRESS_SHORT") ? 40 : 200;
}

// Compares each frame the appsink gets with the one expected, on its streaming thread; keeps the
// first error or warning the bus gets.
class Checker {
public:
    explicit Checker(const g2g::test::HarnessOutput &want) : want_(want) {}

    static GstFlowReturn on_sample(GstAppSink *sink, gpointer data)
    {
        const g2g::Ref<GstSample> sample = g2g::Ref<GstSample>::adopt(gst_app_sink_pull_sample(sink));
        if (!sample)
            return GST_FLOW_EOS;
        auto *self = static_cast<Checker *>(data);
        GstVideoInfo info;
        std::string failure = "a frame without video caps";
        if (gst_video_info_from_caps(&info, gst_sample_get_caps(sample.get())))
            failure = g2g::test::compare_frames(self->want_.info, self->want_.buffer.get(), info,
                                                gst_sample_get_buffer(sample.get()));
        {
            const std::lock_guard lock(self->mutex_);
            ++self->received_;
            if (!failure.empty() && self->failures_.size() < 5)
                self->failures_.push_back("frame " + std::to_string(self->received_) + ": " + failure);
        }
        self->cv_.notify_all();
        return GST_FLOW_OK;
    }

    static GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data)
    {
        if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_ERROR &&
            GST_MESSAGE_TYPE(message) != GST_MESSAGE_WARNING)
            return GST_BUS_PASS;
        g_autoptr(GError) error = nullptr;
        g_autofree gchar *debug = nullptr;
        if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
            gst_message_parse_error(message, &error, &debug);
        else
            gst_message_parse_warning(message, &error, &debug);
        auto *self = static_cast<Checker *>(data);
        {
            const std::lock_guard lock(self->mutex_);
            if (self->trouble_.empty())
                self->trouble_ = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " +
                                 error->message + " (" + (debug ? debug : "") + ")";
        }
        self->cv_.notify_all();
        return GST_BUS_PASS;
    }

    // Waits until `count` frames came out; false on an error or warning, or after kStall.
    bool wait_for(guint64 count)
    {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, kStall, [&] { return received_ >= count || !trouble_.empty(); }) &&
               trouble_.empty();
    }
    std::string trouble() const
    {
        const std::lock_guard lock(mutex_);
        return trouble_;
    }
    guint64 received() const
    {
        const std::lock_guard lock(mutex_);
        return received_;
    }
    std::vector<std::string> failures() const
    {
        const std::lock_guard lock(mutex_);
        return failures_;
    }

private:
    const g2g::test::HarnessOutput &want_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    guint64 received_ = 0;
    std::vector<std::string> failures_;
    std::string trouble_;
};

// Streams frames through `chain` (after an appsrc; it names g2gmaterialize "m" and ends in an
// appsink "sink") while another thread changes m's n-threads every kChangeEvery.
void stress(const std::string &chain)
{
    g2g::test::Watchdog watchdog(std::chrono::seconds(120));
    watchdog.step("g2gmaterialize n-threads stress: " + chain);
    const GstVideoInfo in = g2g::test::video_info_of_caps(kCaps);
    const BufferRef source = g2g::test::random_frame(in, 30);
    const g2g::test::HarnessOutput want =
        g2g::test::run_chain("videoflip video-direction=90r", in, source.get());
    ASSERT_EQ(want.error, "");

    const std::string description =
        std::string("appsrc name=src format=time caps=\"") + kCaps + "\" ! " + chain;
    GError *parse_error = nullptr;
    const g2g::ElementRef pipeline =
        g2g::ElementRef::adopt(gst_parse_launch(description.c_str(), &parse_error));
    ASSERT_EQ(parse_error, nullptr) << parse_error->message;
    const g2g::ElementRef src = g2g::ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "src"));
    const g2g::ElementRef materialize =
        g2g::ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "m"));
    const g2g::ElementRef sink = g2g::ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "sink"));
    ASSERT_TRUE(src && materialize && sink);
    Checker checker(want);
    GstAppSinkCallbacks callbacks{};
    callbacks.new_sample = Checker::on_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(sink.get()), &callbacks, &checker, nullptr);
    g_object_set(sink.get(), "sync", FALSE, nullptr);
    const g2g::Ref<GstBus> bus = g2g::Ref<GstBus>::adopt(gst_element_get_bus(pipeline.get()));
    gst_bus_set_sync_handler(bus.get(), Checker::on_message, &checker, nullptr);
    ASSERT_NE(gst_element_set_state(pipeline.get(), GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);

    std::atomic<bool> pushing{true};
    guint64 changes = 0;
    std::thread changer([&] {
        for (std::size_t i = 0; pushing; ++i, ++changes) {
            g_object_set(materialize.get(), "n-threads", kThreads[i % std::size(kThreads)], nullptr);
            std::this_thread::sleep_for(kChangeEvery);
        }
    });
    guint64 pushed = 0;
    bool stalled = false;
    for (int i = 0; i < frames_to_push() && !stalled; ++i) {
        BufferRef frame = BufferRef::adopt(gst_buffer_copy(source.get())); // the bytes shared
        GST_BUFFER_PTS(frame.get()) = pushed * GST_SECOND / 30;
        GST_BUFFER_DURATION(frame.get()) = GST_SECOND / 30;
        if (gst_app_src_push_buffer(GST_APP_SRC(src.get()), frame.release()) != GST_FLOW_OK)
            break;
        ++pushed;
        // Two frames in flight at most, so that changes and frames interleave.
        stalled = !checker.wait_for(pushed > 2 ? pushed - 2 : 0);
    }
    pushing = false;
    changer.join();
    if (!stalled)
        stalled = !checker.wait_for(pushed);
    EXPECT_EQ(checker.trouble(), "");
    EXPECT_EQ(checker.received(), pushed) << "no frame came out for " << kStall.count() << " s";
    for (const std::string &failure : checker.failures())
        ADD_FAILURE() << failure;

    gst_app_src_end_of_stream(GST_APP_SRC(src.get()));
    const g2g::Ref<GstMessage> end = g2g::Ref<GstMessage>::adopt(gst_bus_timed_pop_filtered(
        bus.get(), 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
    EXPECT_TRUE(end) << "no EOS within 10 s";
    if (end) {
        EXPECT_EQ(GST_MESSAGE_TYPE(end.get()), GST_MESSAGE_EOS) << checker.trouble();
    }
    gst_element_set_state(pipeline.get(), GST_STATE_NULL);
    gst_bus_set_sync_handler(bus.get(), nullptr, nullptr, nullptr);
    std::printf("%s: %llu frames, %llu n-threads changes\n", chain.c_str(),
                static_cast<unsigned long long>(pushed), static_cast<unsigned long long>(changes));
}

} // namespace

TEST(G2gMaterializeStress, NThreadsChangedEvery30usWhileStreaming)
{
    stress("g2gview video-direction=90r ! g2gmaterialize name=m ! appsink name=sink caps=video/x-raw");
}

TEST(G2gMaterializeStress, NThreadsChangedEvery30usWhileStreamingBehindATee)
{
    stress(
        "tee name=t t. ! queue ! fakesink t. ! queue ! g2gview video-direction=90r ! g2gmaterialize name=m "
        "! appsink name=sink caps=video/x-raw");
}
