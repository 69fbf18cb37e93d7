// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview's properties changed from another thread 1000 times, every few hundred microseconds,
// while frames stream (the NV12 32x24): every frame that comes out is one of the valid
// results (the frame videocrop ! videoflip make for one combination of the values set) and has
// the size its caps say; no not-negotiated, no deadlock (a watchdog), no leak (the sanitizer
// build's leaks tracer). Three consumers: g2gmaterialize, g2gview's own dense output (a caps-less
// appsink) and a view-aware appsink. Afterwards each of a few settings lands on the very next
// frame.
#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "frames.h"
#include "watchdog.h"

using g2g::BufferRef;

namespace {

constexpr int kWidth = 32, kHeight = 24;
constexpr int kChanges = 1000;
constexpr const char *kCaps = "video/x-raw,format=NV12,width=32,height=24,framerate=30/1";
// Every value the changes pick from; each combination is a valid result.
constexpr const char *kDirections[] = {"identity", "90r", "180", "vert", "ul-lr"};
constexpr int kLefts[] = {0, 7};
constexpr int kTops[] = {0, 3};
// How long the pipeline may go without handing out a frame it was given before the test calls
// it stuck.
constexpr auto kStall = std::chrono::seconds(10);

// NV12 where each pixel says where it is: chroma holds the 2x2 block's column and row (U = 16 *
// column, V = 16 * row), luma the low byte of x + 32 * y, which tells the block's four pixels
// apart. A misplaced or stale pixel cannot pass for another.
BufferRef coordinate_frame(const GstVideoInfo &info)
{
    BufferRef frame = BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
    GstVideoFrame mapped;
    gst_video_frame_map(&mapped, const_cast<GstVideoInfo *>(&info), frame.get(), GST_MAP_WRITE);
    auto *luma = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&mapped, 0));
    auto *chroma = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&mapped, 1));
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x)
            luma[y * GST_VIDEO_FRAME_PLANE_STRIDE(&mapped, 0) + x] = static_cast<guint8>(x + 32 * y);
    }
    for (int y = 0; y < kHeight / 2; ++y) {
        for (int x = 0; x < kWidth / 2; ++x) {
            guint8 *uv = chroma + y * GST_VIDEO_FRAME_PLANE_STRIDE(&mapped, 1) + 2 * x;
            uv[0] = static_cast<guint8>(16 * x);
            uv[1] = static_cast<guint8>(16 * y);
        }
    }
    gst_video_frame_unmap(&mapped);
    return frame;
}

struct Setting {
    const char *direction;
    int left, top;
};

std::string name_of(const Setting &s)
{
    return std::string(s.direction) + " left=" + std::to_string(s.left) + " top=" + std::to_string(s.top);
}

// One valid result: a setting and the frame GStreamer's own elements make of the source with it.
struct Expected {
    Setting setting;
    GstVideoInfo info;
    BufferRef frame;
};

std::vector<Expected> expected_results(const GstVideoInfo &in, GstBuffer *source)
{
    std::vector<Expected> results;
    for (const char *direction : kDirections) {
        for (int left : kLefts) {
            for (int top : kTops) {
                const Setting setting{direction, left, top};
                const std::string chain = "videocrop left=" + std::to_string(left) +
                                          " top=" + std::to_string(top) +
                                          " ! videoflip video-direction=" + direction;
                g2g::test::HarnessOutput peer = g2g::test::run_chain(chain, in, source);
                EXPECT_EQ(peer.error, "") << chain;
                results.push_back({setting, peer.info, std::move(peer.buffer)});
            }
        }
    }
    return results;
}

// Checks every frame the appsink receives, on its streaming thread, and counts them.
class FrameChecker {
public:
    FrameChecker(const std::vector<Expected> &expected, bool view_out)
        : expected_(expected), view_out_(view_out)
    {
    }

    static GstFlowReturn on_sample(GstAppSink *sink, gpointer data)
    {
        GstSample *sample = gst_app_sink_pull_sample(sink);
        if (!sample)
            return GST_FLOW_EOS;
        static_cast<FrameChecker *>(data)->check(sample);
        gst_sample_unref(sample);
        return GST_FLOW_OK;
    }

    // Waits until `count` frames came out; false when the pipeline posted an error or stalled
    // for kStall.
    bool wait_for(guint64 count)
    {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, kStall, [&] { return received_ >= count || !trouble_.empty(); }) &&
               trouble_.empty();
    }

    // The bus's sync handler: errors and warnings as they are posted (the first is kept), which
    // also end any wait.
    static GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data)
    {
        if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_ERROR &&
            GST_MESSAGE_TYPE(message) != GST_MESSAGE_WARNING)
            return GST_BUS_PASS;
        GError *error = nullptr;
        gchar *debug = nullptr;
        if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
            gst_message_parse_error(message, &error, &debug);
        else
            gst_message_parse_warning(message, &error, &debug);
        auto *self = static_cast<FrameChecker *>(data);
        {
            const std::lock_guard lock(self->mutex_);
            if (self->trouble_.empty())
                self->trouble_ = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " +
                                 error->message + " (" + (debug ? debug : "") + ")";
        }
        self->cv_.notify_all();
        g_error_free(error);
        g_free(debug);
        return GST_BUS_PASS;
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
    // Which valid result the last frame was (-1: none).
    int last_match() const
    {
        const std::lock_guard lock(mutex_);
        return last_match_;
    }
    std::vector<std::string> failures() const
    {
        const std::lock_guard lock(mutex_);
        return failures_;
    }
    // How many distinct valid results came out.
    std::size_t distinct_results() const
    {
        const std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (guint64 c : matches_)
            n += c > 0;
        return n;
    }

private:
    void check(GstSample *sample)
    {
        GstVideoInfo info;
        const bool has_info = gst_video_info_from_caps(&info, gst_sample_get_caps(sample));
        GstBuffer *buffer = gst_sample_get_buffer(sample);
        std::string failure;
        int match = -1;
        if (!has_info)
            failure = "a frame without video caps";
        else
            failure = check_frame(info, buffer, match);
        {
            const std::lock_guard lock(mutex_);
            ++received_;
            last_match_ = match;
            if (match >= 0)
                ++matches_[match];
            if (!failure.empty() && failures_.size() < 10)
                failures_.push_back("frame " + std::to_string(received_) + ": " + failure);
        }
        cv_.notify_all();
    }

    // "" when the frame is consistent with its caps and one of the valid results (`match`).
    std::string check_frame(const GstVideoInfo &caps_info, GstBuffer *buffer, int &match)
    {
        const std::string caps_size = std::to_string(GST_VIDEO_INFO_WIDTH(&caps_info)) + "x" +
                                      std::to_string(GST_VIDEO_INFO_HEIGHT(&caps_info));
        BufferRef dense;
        GstVideoInfo dense_info = caps_info;
        if (view_out_) {
            const g2g::FrameView *view = g2g::tensor_view_of(buffer);
            if (!view)
                return "no view on a frame under view caps " + caps_size;
            if (view->format() != GST_VIDEO_INFO_FORMAT(&caps_info) ||
                view->width() != static_cast<guint>(GST_VIDEO_INFO_WIDTH(&caps_info)) ||
                view->height() != static_cast<guint>(GST_VIDEO_INFO_HEIGHT(&caps_info)))
                return "a " + std::to_string(view->width()) + "x" + std::to_string(view->height()) +
                       " view under caps of " + caps_size;
            g2g::Result<BufferRef> materialized = view->materialize(buffer);
            if (!materialized)
                return "the view does not materialize: " + materialized.error().message();
            dense = std::move(*materialized);
            dense_info = view->info();
        } else {
            if (g2g::tensor_view_of(buffer))
                return "a view on a frame under dense caps";
            if (const GstVideoMeta *meta = gst_buffer_get_video_meta(buffer)) {
                if (meta->width != static_cast<guint>(GST_VIDEO_INFO_WIDTH(&caps_info)) ||
                    meta->height != static_cast<guint>(GST_VIDEO_INFO_HEIGHT(&caps_info)))
                    return "a " + std::to_string(meta->width) + "x" + std::to_string(meta->height) +
                           " video meta under caps of " + caps_size;
            } else if (gst_buffer_get_size(buffer) != GST_VIDEO_INFO_SIZE(&caps_info)) {
                return std::to_string(gst_buffer_get_size(buffer)) + " bytes under caps of " + caps_size +
                       " (" + std::to_string(GST_VIDEO_INFO_SIZE(&caps_info)) + " bytes)";
            }
            dense = BufferRef::borrow(buffer);
        }
        std::string differences;
        for (std::size_t i = 0; i < expected_.size(); ++i) {
            const Expected &e = expected_[i];
            if (GST_VIDEO_INFO_WIDTH(&e.info) != GST_VIDEO_INFO_WIDTH(&dense_info) ||
                GST_VIDEO_INFO_HEIGHT(&e.info) != GST_VIDEO_INFO_HEIGHT(&dense_info))
                continue;
            const std::string diff =
                g2g::test::compare_frames(e.info, e.frame.get(), dense_info, dense.get());
            if (diff.empty()) {
                match = static_cast<int>(i);
                return {};
            }
            differences += "; not " + name_of(e.setting) + " (" + diff + ")";
        }
        return "a " + caps_size + " frame that is no valid result" + differences;
    }

    const std::vector<Expected> &expected_;
    const bool view_out_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    guint64 received_ = 0;
    int last_match_ = -1;
    std::vector<guint64> matches_ = std::vector<guint64>(std::size(kDirections) * 4);
    std::vector<std::string> failures_;
    std::string trouble_; // the first error or warning posted
};

void apply(GstElement *view, const Setting &s)
{
    gst_util_set_object_arg(G_OBJECT(view), "video-direction", s.direction);
    g_object_set(view, "left", s.left, "top", s.top, nullptr);
}

// Streams the source through `consumer` (after "appsrc ! g2gview") while another thread makes
// kChanges property changes, then checks that a few settings each land on the next frame.
void stress(const std::string &consumer, bool view_out)
{
    g2g::test::Watchdog watchdog(std::chrono::seconds(120));
    watchdog.step("g2gview property stress into " + consumer);
    const GstVideoInfo in = g2g::test::video_info_of_caps(kCaps);
    const BufferRef source = coordinate_frame(in);
    const std::vector<Expected> expected = expected_results(in, source.get());
    ASSERT_EQ(expected.size(), std::size(kDirections) * 4);

    const std::string description =
        std::string("appsrc name=src format=time caps=\"") + kCaps + "\" ! g2gview name=view ! " + consumer;
    GError *parse_error = nullptr;
    const g2g::ElementRef pipeline =
        g2g::ElementRef::adopt(gst_parse_launch(description.c_str(), &parse_error));
    ASSERT_EQ(parse_error, nullptr) << parse_error->message;
    const g2g::ElementRef src = g2g::ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "src"));
    const g2g::ElementRef view = g2g::ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "view"));
    const g2g::ElementRef sink = g2g::ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "sink"));
    ASSERT_TRUE(src && view && sink);
    FrameChecker checker(expected, view_out);
    GstAppSinkCallbacks callbacks{};
    callbacks.new_sample = FrameChecker::on_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(sink.get()), &callbacks, &checker, nullptr);
    g_object_set(sink.get(), "sync", FALSE, nullptr);
    const g2g::Ref<GstBus> bus = g2g::Ref<GstBus>::adopt(gst_element_get_bus(pipeline.get()));
    gst_bus_set_sync_handler(bus.get(), FrameChecker::on_message, &checker, nullptr);
    ASSERT_NE(gst_element_set_state(pipeline.get(), GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);

    guint64 pushed = 0;
    bool stalled = false;
    // Two frames in flight at most, so that changes and frames interleave.
    auto push = [&] {
        BufferRef frame = BufferRef::adopt(gst_buffer_copy(source.get())); // the bytes shared
        GST_BUFFER_PTS(frame.get()) = pushed * GST_SECOND / 30;
        GST_BUFFER_DURATION(frame.get()) = GST_SECOND / 30;
        if (gst_app_src_push_buffer(GST_APP_SRC(src.get()), frame.release()) != GST_FLOW_OK)
            return false;
        ++pushed;
        if (!checker.wait_for(pushed > 2 ? pushed - 2 : 0))
            stalled = true;
        return !stalled;
    };

    std::atomic<bool> changing{true};
    std::thread changer([&] {
        std::mt19937 random(20240611);
        for (int i = 0; i < kChanges; ++i) {
            switch (random() % 3) {
            case 0:
                gst_util_set_object_arg(G_OBJECT(view.get()), "video-direction",
                                        kDirections[random() % std::size(kDirections)]);
                break;
            case 1:
                g_object_set(view.get(), "left", kLefts[random() % 2], nullptr);
                break;
            default:
                g_object_set(view.get(), "top", kTops[random() % 2], nullptr);
                break;
            }
            std::this_thread::sleep_for(std::chrono::microseconds(100 + random() % 400));
        }
        changing = false;
    });
    while (changing && push()) {
    }
    changer.join();
    const std::string trouble = checker.trouble();
    EXPECT_EQ(trouble, "");
    EXPECT_FALSE(stalled && trouble.empty()) << "no frame came out for " << kStall.count() << " s: " << pushed
                                             << " pushed, " << checker.received() << " out";

    // Each setting lands on the frame pushed after it was set.
    if (!stalled && trouble.empty()) {
        for (const Setting &s : {Setting{"identity", 0, 0}, Setting{"180", 0, 0}, Setting{"vert", 0, 0},
                                 Setting{"90r", 7, 3}, Setting{"ul-lr", 7, 3}, Setting{"identity", 7, 0}}) {
            apply(view.get(), s);
            ASSERT_TRUE(push());
            ASSERT_TRUE(checker.wait_for(pushed)) << name_of(s);
            const int match = checker.last_match();
            ASSERT_GE(match, 0) << name_of(s);
            EXPECT_EQ(name_of(expected[static_cast<std::size_t>(match)].setting), name_of(s));
        }
    }

    gst_app_src_end_of_stream(GST_APP_SRC(src.get()));
    const g2g::Ref<GstMessage> end = g2g::Ref<GstMessage>::adopt(gst_bus_timed_pop_filtered(
        bus.get(), 10 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
    EXPECT_TRUE(end) << "no EOS within 10 s";
    if (end) {
        EXPECT_EQ(GST_MESSAGE_TYPE(end.get()), GST_MESSAGE_EOS) << checker.trouble();
    }
    gst_element_set_state(pipeline.get(), GST_STATE_NULL);
    gst_bus_set_sync_handler(bus.get(), nullptr, nullptr, nullptr);

    for (const std::string &failure : checker.failures())
        ADD_FAILURE() << failure;
    EXPECT_EQ(checker.received(), pushed);
    // The changes did change what came out (not one setting throughout). Not more: under the
    // sanitizers with full unwinding a frame takes milliseconds, and the thousand changes of a
    // few tenths of a second meet a few dozen frames (14 of the 20 results seen there).
    EXPECT_GE(checker.distinct_results(), 2u);
    std::printf("%s: %llu frames, %zu of %zu valid results seen\n", consumer.c_str(),
                static_cast<unsigned long long>(pushed), checker.distinct_results(), expected.size());
}

} // namespace

TEST(G2gViewStress, PropertiesChangedWhileStreamingIntoG2gMaterialize)
{
    stress("g2gmaterialize ! appsink name=sink caps=video/x-raw", false);
}

TEST(G2gViewStress, PropertiesChangedWhileStreamingIntoG2gViewsDenseOutput)
{
    stress("appsink name=sink", false);
}

TEST(G2gViewStress, PropertiesChangedWhileStreamingIntoAViewAwareConsumer)
{
    stress("appsink name=sink caps=\"video/x-raw(memory:SystemMemory, meta:G2gTensorView)\"", true);
}
