// SPDX-License-Identifier: LGPL-2.1-or-later
// What g2gtee tells a gst-launch-1.0 user, in real pipelines: its stats as an element message at
// EOS (gst-launch-1.0 -m), last-message per frame with silent=false (gst-launch-1.0 -v), each route
// by name in the g2gtee debug log; and a branch in a domain no conversion reaches refused by name
// whatever the order the description links it in.
#include <g2g/gst-ref.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline.h"
#include "vulkan-teardown.h"

using g2g::ElementRef;
using g2g::Ref;

namespace {

constexpr int kFrames = 7;
constexpr const char *kSource =
    "videotestsrc num-buffers=7 ! video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

struct StructureFree {
    void operator()(GstStructure *structure) const { gst_structure_free(structure); }
};
using StructurePtr = std::unique_ptr<GstStructure, StructureFree>;

// What the bus of one run carried.
struct BusRun {
    std::string error;                 // the first error's text; "" when the run reached EOS
    std::vector<std::string> warnings; // in order
    StructurePtr stats;                // the tee's g2gtee-stats element message
    int stats_messages = 0;
    bool stats_before_eos = false;
    bool eos = false;
    std::vector<std::string> last_messages; // the tee's last-message, as deep-notify (-v) saw it
};

// Runs `description` to EOS or the first error, as gst-launch-1.0 -m -v would watch it: every
// element message, and the tee's (named t) last-message through the pipeline's deep-notify.
BusRun run_watching(const std::string &description, const std::function<void(GstBin *)> &prepare = {})
{
    BusRun run;
    ElementRef pipeline = g2g::test::parse_pipeline(description, run.error);
    if (!pipeline)
        return run;
    gst_element_add_property_deep_notify_watch(pipeline.get(), "last-message", TRUE);
    if (prepare)
        prepare(GST_BIN(pipeline.get()));
    gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
    Ref<GstBus> bus = Ref<GstBus>::adopt(gst_element_get_bus(pipeline.get()));
    const gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
    for (;;) {
        const gint64 left = std::max<gint64>(0, deadline - g_get_monotonic_time());
        const Ref<GstMessage> message = Ref<GstMessage>::adopt(gst_bus_timed_pop_filtered(
            bus.get(), static_cast<GstClockTime>(left) * GST_USECOND,
            static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING |
                                        GST_MESSAGE_ELEMENT | GST_MESSAGE_PROPERTY_NOTIFY)));
        if (!message) {
            run.error = "timeout";
            break;
        }
        GstMessage *m = message.get();
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
            run.eos = true;
            break;
        }
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
            run.error = g2g::test::message_text(m);
            break;
        }
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
            run.warnings.push_back(g2g::test::message_text(m));
        } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && gst_message_has_name(m, "g2gtee-stats")) {
            ++run.stats_messages;
            run.stats.reset(gst_structure_copy(gst_message_get_structure(m)));
            run.stats_before_eos = true;
        } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_PROPERTY_NOTIFY &&
                   g_strcmp0(GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), "t") == 0) {
            const gchar *property = nullptr;
            const GValue *value = nullptr;
            gst_message_parse_property_notify(m, nullptr, &property, &value);
            if (value && G_VALUE_HOLDS_STRING(value) && g_value_get_string(value))
                run.last_messages.emplace_back(g_value_get_string(value));
        }
    }
    g2g::test::wait_for_vulkan_devices(GST_BIN(pipeline.get()));
    gst_element_set_state(pipeline.get(), GST_STATE_NULL);
    return run;
}

guint64 field(const BusRun &run, const char *name)
{
    guint64 value = 0;
    if (!run.stats || !gst_structure_get_uint64(run.stats.get(), name, &value))
        return 0;
    return value;
}

std::string string_field(const BusRun &run, const char *name)
{
    const gchar *value = run.stats ? gst_structure_get_string(run.stats.get(), name) : nullptr;
    return value ? value : "";
}

// The g2gtee debug category's lines at INFO while it lives.
class TeeLog {
public:
    TeeLog()
    {
        gst_debug_set_threshold_for_name("g2gtee", GST_LEVEL_INFO);
        gst_debug_add_log_function(keep, this, nullptr);
    }
    ~TeeLog()
    {
        gst_debug_remove_log_function_by_data(this);
        gst_debug_set_threshold_for_name("g2gtee", GST_LEVEL_NONE);
    }
    TeeLog(const TeeLog &) = delete;
    TeeLog &operator=(const TeeLog &) = delete;

    std::vector<std::string> lines() const
    {
        const std::lock_guard lock(lock_);
        return lines_;
    }
    bool said(const std::string &line) const
    {
        const std::vector<std::string> all = lines();
        return std::find(all.begin(), all.end(), line) != all.end();
    }

private:
    static void keep(GstDebugCategory *category, GstDebugLevel level, const gchar *, const gchar *, gint,
                     GObject *, GstDebugMessage *message, gpointer data)
    {
        if (level != GST_LEVEL_INFO || g_strcmp0(gst_debug_category_get_name(category), "g2gtee") != 0)
            return;
        auto *self = static_cast<TeeLog *>(data);
        const std::lock_guard lock(self->lock_);
        self->lines_.emplace_back(gst_debug_message_get(message));
    }

    mutable std::mutex lock_;
    std::vector<std::string> lines_;
};

// g2gview's views into the tee: a branch that names views shares them, the others share the one
// frame g2gmaterialize makes of each.
const std::string kViewsPipeline =
    std::string(kSource) + " ! g2gview video-direction=90r ! g2gtee name=t "
                           "t. ! queue ! video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! fakesink "
                           "t. ! queue ! video/x-raw ! fakesink "
                           "t. ! queue ! video/x-raw ! fakesink";

std::string joined(const std::vector<std::string> &lines)
{
    std::string all;
    for (const std::string &line : lines)
        all += line + "\n";
    return all;
}

} // namespace

TEST(G2gTeeReport, StatsArePostedAtEosAsOneElementMessage)
{
    const BusRun run = run_watching(kViewsPipeline);
    ASSERT_EQ(run.error, "");
    ASSERT_TRUE(run.eos);
    ASSERT_EQ(run.stats_messages, 1);
    ASSERT_TRUE(run.stats_before_eos);
    EXPECT_EQ(field(run, "frames"), static_cast<guint64>(kFrames));
    EXPECT_EQ(field(run, "shares"), 3u * kFrames);
    EXPECT_EQ(field(run, "shares.SystemView"), static_cast<guint64>(kFrames)) << "the view branch";
    EXPECT_EQ(field(run, "shares.System"), 2u * kFrames) << "the two dense branches share one frame each";
    EXPECT_EQ(field(run, "conversions"), static_cast<guint64>(kFrames)) << "one per frame, for both";
    EXPECT_EQ(field(run, "conversions.SystemView-to-System"), static_cast<guint64>(kFrames));
    EXPECT_EQ(string_field(run, "converter.SystemView-to-System"), "g2gmaterialize");
    EXPECT_EQ(field(run, "copies"), 0u);
    EXPECT_EQ(field(run, "host-round-trips"), 0u);
    // As gst-launch-1.0 -m prints it: one line, no nested structure to unescape.
    g_autofree gchar *printed = gst_structure_to_string(run.stats.get());
    EXPECT_EQ(std::string(printed).find("(structure)"), std::string::npos) << printed;
    EXPECT_NE(std::string(printed).find("conversions.SystemView-to-System=(guint64)7"), std::string::npos)
        << printed;
}

TEST(G2gTeeReport, StatsOfAVulkanStreamCountOneDownloadPerFrame)
{
    SKIP_WITHOUT_VULKAN();
    const BusRun run =
        run_watching(std::string(kSource) + " ! vulkanupload ! g2gtee name=t "
                                            "t. ! queue ! video/x-raw(memory:VulkanImage) ! fakesink "
                                            "t. ! queue ! video/x-raw ! fakesink "
                                            "t. ! queue ! video/x-raw ! fakesink");
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.stats_messages, 1);
    EXPECT_EQ(field(run, "frames"), static_cast<guint64>(kFrames));
    EXPECT_EQ(field(run, "shares.VulkanTexture"), static_cast<guint64>(kFrames));
    EXPECT_EQ(field(run, "shares.System"), 2u * kFrames);
    EXPECT_EQ(field(run, "conversions"), static_cast<guint64>(kFrames));
    EXPECT_EQ(field(run, "conversions.VulkanTexture-to-System"), static_cast<guint64>(kFrames));
    EXPECT_EQ(string_field(run, "converter.VulkanTexture-to-System"), "g2gmaterialize");
    EXPECT_EQ(field(run, "copies"), 0u);
}

TEST(G2gTeeReport, SilentOffSaysPerFrameWhatEachBranchGotAndNotifiesIt)
{
    const BusRun run = run_watching(
        std::string(kSource) + " ! g2gview video-direction=90r ! g2gtee name=t silent=false "
                               "t. ! queue ! video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! fakesink "
                               "t. ! queue ! video/x-raw ! fakesink");
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.last_messages.size(), static_cast<std::size_t>(kFrames)) << joined(run.last_messages);
    EXPECT_EQ(run.last_messages[0], "pts 0:00:00.000000000: src_0 shares SystemView, src_1 converted "
                                    "SystemView to System by g2gmaterialize");
    EXPECT_EQ(run.last_messages[1], "pts 0:00:00.033333333: src_0 shares SystemView, src_1 converted "
                                    "SystemView to System by g2gmaterialize");
}

TEST(G2gTeeReport, SilentByDefaultSaysNothingPerFrame)
{
    const BusRun run = run_watching(kViewsPipeline);
    ASSERT_EQ(run.error, "");
    EXPECT_TRUE(run.last_messages.empty()) << joined(run.last_messages);
}

TEST(G2gTeeReport, TheLogNamesEachRouteWhenAPlanIsMade)
{
    const TeeLog log;
    const BusRun run = run_watching(
        std::string(kSource) + " ! g2gview video-direction=90r ! g2gtee name=t fan-out-policy=drop-branch "
                               "t. ! queue ! video/x-raw(memory:SystemMemory,meta:G2gTensorView) ! fakesink "
                               "t. ! queue ! video/x-raw ! fakesink "
                               "t. ! queue ! video/x-raw(memory:CUDAMemory) ! fakesink");
    ASSERT_EQ(run.error, "");
    const std::string lines = joined(log.lines());
    EXPECT_TRUE(log.said("src_0: shares SystemView")) << lines;
    EXPECT_TRUE(log.said("src_1: converted SystemView to System by g2gmaterialize")) << lines;
    ASSERT_EQ(run.warnings.size(), 1u);
    const std::string why = run.warnings[0].substr(0, run.warnings[0].find(": fan-out-policy=drop-branch"));
    EXPECT_TRUE(log.said("src_2: refused: " + why)) << lines;
    EXPECT_EQ(lines.find(": route "), std::string::npos) << "no route by number: " << lines;
}

TEST(G2gTeeReport, UnlinkedAndFailingBranchesAreNamedInTheLog)
{
    const TeeLog log;
    // src_5 requested and left unlinked; src_1 (CUDA memory behind system memory) refused.
    const BusRun run =
        run_watching(std::string(kSource) + " ! g2gtee name=t t. ! queue ! fakesink "
                                            "t. ! queue ! video/x-raw(memory:CUDAMemory) ! fakesink",
                     [](GstBin *pipeline) {
                         const ElementRef tee = ElementRef::adopt(gst_bin_get_by_name(pipeline, "t"));
                         const Ref<GstPad> unlinked =
                             Ref<GstPad>::adopt(gst_element_request_pad_simple(tee.get(), "src_5"));
                         ASSERT_TRUE(unlinked);
                     });
    ASSERT_NE(run.error, "");
    const std::string lines = joined(log.lines());
    // fan-out-policy=fail: the refused branch is the plan's line, and the plan is not made.
    EXPECT_TRUE(log.said("src_1: refused: " + run.error)) << lines;

    const TeeLog unlinked_log;
    const BusRun fed =
        run_watching(std::string(kSource) + " ! g2gtee name=t t. ! queue ! fakesink", [](GstBin *pipeline) {
            const ElementRef tee = ElementRef::adopt(gst_bin_get_by_name(pipeline, "t"));
            const Ref<GstPad> unlinked =
                Ref<GstPad>::adopt(gst_element_request_pad_simple(tee.get(), "src_5"));
            ASSERT_TRUE(unlinked);
        });
    ASSERT_EQ(fed.error, "");
    const std::string fed_lines = joined(unlinked_log.lines());
    EXPECT_TRUE(unlinked_log.said("src_0: shares System")) << fed_lines;
    EXPECT_TRUE(unlinked_log.said("src_5: not linked")) << fed_lines;
}

// A branch in a domain no conversion reaches (CUDA memory behind a system-memory source; a
// handle kind, which nothing converts to), written after the source as gst-launch users write it
// and before it: the same refusal by name, not gst-launch's `could not link queue1 to fakesink1`.
class LinkOrder : public testing::TestWithParam<const char *> {};

INSTANTIATE_TEST_SUITE_P(G2gTeeReport, LinkOrder, testing::Values("CUDAMemory", "D3D11Memory"));

std::string source_first(const std::string &memory, const std::string &policy)
{
    return std::string(kSource) + " ! g2gtee name=t fan-out-policy=" + policy +
           " t. ! queue name=sysq ! appsink name=sink t. ! queue name=cudaq ! video/x-raw(memory:" + memory +
           ") ! fakesink";
}

std::string branches_first(const std::string &memory, const std::string &policy)
{
    return "g2gtee name=t fan-out-policy=" + policy +
           " t. ! queue name=sysq ! appsink name=sink t. ! queue name=cudaq ! video/x-raw(memory:" + memory +
           ") ! fakesink " + kSource + " ! t.";
}

TEST_P(LinkOrder, FailRefusesTheBranchByNameWhateverTheLinkOrder)
{
    const g2g::test::PipelineRun first = g2g::test::run_pipeline(source_first(GetParam(), "fail"));
    const g2g::test::PipelineRun last = g2g::test::run_pipeline(branches_first(GetParam(), "fail"));
    EXPECT_EQ(first.error, last.error);
    EXPECT_EQ(first.error_source, "t");
    EXPECT_EQ(first.error.rfind("branch src_1 of t (to cudaq) requires ", 0), 0u) << first.error;
    EXPECT_NE(first.error.find(" but received a System frame: "), std::string::npos) << first.error;
}

TEST_P(LinkOrder, DropBranchFeedsTheOthersWhateverTheLinkOrder)
{
    const g2g::test::PipelineRun first = g2g::test::run_pipeline(source_first(GetParam(), "drop-branch"));
    const g2g::test::PipelineRun last = g2g::test::run_pipeline(branches_first(GetParam(), "drop-branch"));
    ASSERT_EQ(first.error, "");
    ASSERT_EQ(last.error, "");
    EXPECT_EQ(first.buffers.size(), static_cast<std::size_t>(kFrames));
    EXPECT_EQ(last.buffers.size(), static_cast<std::size_t>(kFrames));
    ASSERT_EQ(first.warnings.size(), 1u);
    EXPECT_EQ(first.warnings, last.warnings);
    EXPECT_NE(first.warnings[0].find("fan-out-policy=drop-branch, this branch gets no frames"),
              std::string::npos)
        << first.warnings[0];
}

// The same through the real gst-launch-1.0, as a user runs it: -m prints the message, -v the
// last-message notifications (the test's environment names the plugin's build folder).
TEST(G2gTeeReport, GstLaunchPrintsTheStatsWithMAndTheRoutesWithV)
{
#if defined(__SANITIZE_ADDRESS__) || defined(G2G_SANITIZED_BUILD)
    // A program of its own loads the sanitized plugin only with the sanitizer runtimes preloaded,
    // which gst-launch-1.0 has not: the plain build runs this case; the message and the
    // last-message the cases above read in-process are the same code.
    GTEST_SKIP() << "the sanitized build's plugin does not load into gst-launch-1.0";
#endif
    g_autofree gchar *launch = g_find_program_in_path("gst-launch-1.0");
    if (!launch)
        GTEST_SKIP() << "gst-launch-1.0 is not installed (Debian: gstreamer1.0-tools)";
    const char *argv[] = {launch,
                          "-m",
                          "-v",
                          "videotestsrc",
                          "num-buffers=3",
                          "!",
                          "video/x-raw,width=64,height=48",
                          "!",
                          "g2gview",
                          "video-direction=90r",
                          "!",
                          "g2gtee",
                          "name=t",
                          "silent=false",
                          "t.",
                          "!",
                          "queue",
                          "!",
                          "video/x-raw(memory:SystemMemory,meta:G2gTensorView)",
                          "!",
                          "fakesink",
                          "t.",
                          "!",
                          "queue",
                          "!",
                          "video/x-raw",
                          "!",
                          "fakesink",
                          nullptr};
    gchar *out = nullptr;
    gint status = -1;
    GError *error = nullptr;
    ASSERT_TRUE(g_spawn_sync(nullptr, const_cast<gchar **>(argv), nullptr, G_SPAWN_STDERR_TO_DEV_NULL,
                             nullptr, nullptr, &out, nullptr, &status, &error))
        << error->message;
    const std::string printed = out;
    g_free(out);
    EXPECT_TRUE(g_spawn_check_wait_status(status, nullptr)) << printed;
    EXPECT_NE(
        printed.find("from element \"t\" (element): g2gtee-stats, frames=(guint64)3, shares=(guint64)6, "
                     "copies=(guint64)0, bytes-copied=(guint64)0, conversions=(guint64)3, "),
        std::string::npos)
        << printed;
    EXPECT_NE(printed.find("shares.System=(guint64)3, shares.SystemView=(guint64)3, "
                           "conversions.SystemView-to-System=(guint64)3, "
                           "converter.SystemView-to-System=(string)g2gmaterialize;"),
              std::string::npos)
        << printed;
    EXPECT_NE(printed.find("/G2gTee:t: last-message = pts 0:00:00.033333333: src_0 shares SystemView, src_1 "
                           "converted SystemView to System by g2gmaterialize\n"),
              std::string::npos)
        << printed;
}
