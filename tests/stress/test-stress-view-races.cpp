// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview's video-direction flipped between 90r and identity from another thread every 30 us while
// frames stream, in the three pipelines where that stopped with not-negotiated before negotiation
// was decided once into a plan (issue #30): behind a tee, whose source thread asks g2gview's caps
// while g2gview's own thread renegotiates; VulkanImage frames viewed; VulkanImage frames written
// dense. Every run must reach EOS with every frame through and nothing posted.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "pipeline.h"
#include "watchdog.h"

namespace {

using g2g::test::PipelineRun;

// Enough runs of enough frames to show the race where it was (2 to 8 runs of 15 failed behind the
// tee, 1 in 7 to 12 with Vulkan frames); fewer in the sanitizer build, whose runs are slower.
int runs()
{
    return std::getenv("G2G_STRESS_SHORT") ? 5 : 15;
}

// Flips "v"'s video-direction between 90r and identity every 30 us until stopped.
class DirectionFlipper {
public:
    // Returns once the flipper has flipped: the pipeline starts under a flipping direction, even
    // where the thread is slow to be scheduled (2 busy cores).
    void start(GstBin *pipeline)
    {
        GstElement *view = gst_bin_get_by_name(pipeline, "v");
        thread_ = std::thread([this, view] {
            bool turned = false;
            while (!stop_.load()) {
                turned = !turned;
                g_object_set(view, "video-direction", turned ? GST_VIDEO_ORIENTATION_90R_VALUE : 0, nullptr);
                ++flips_;
                std::this_thread::sleep_for(std::chrono::microseconds(30));
            }
            gst_object_unref(view);
        });
        while (flips_.load() == 0)
            std::this_thread::yield();
    }
    ~DirectionFlipper()
    {
        stop_ = true;
        if (thread_.joinable())
            thread_.join();
    }
    int flips() const { return flips_.load(); }

    // GstVideoOrientationMethod's 90r, without the video library's header for one value.
    static constexpr int GST_VIDEO_ORIENTATION_90R_VALUE = 1;

private:
    std::atomic<bool> stop_{false};
    std::atomic<int> flips_{0};
    std::thread thread_;
};

struct RaceRun {
    std::string error; // empty when the run reached EOS
    int flips = 0;
    int frames = 0;
};

RaceRun run_flipping(const std::string &description)
{
    DirectionFlipper flipper;
    const PipelineRun run = g2g::test::run_pipeline(description, {}, 60 * GST_SECOND, {},
                                                    [&](GstBin *pipeline) { flipper.start(pipeline); });
    RaceRun result;
    result.error = run.error.empty() ? "" : run.error_source + ": " + run.error;
    result.frames = static_cast<int>(run.buffers.size());
    result.flips = flipper.flips();
    return result;
}

// Runs `description` runs() times with the flipper; every run must end at EOS with `frames` frames
// at the appsink "sink".
void expect_every_run_negotiated(const std::string &description, int frames)
{
    g2g::test::Watchdog watchdog(std::chrono::seconds(120));
    int failed = 0, flips = 0;
    std::string first_failure;
    for (int i = 0; i < runs(); ++i) {
        watchdog.step("run " + std::to_string(i) + " of " + description);
        const RaceRun run = run_flipping(description);
        const bool ok = run.error.empty() && run.frames == frames;
        if (!ok && first_failure.empty())
            first_failure = "run " + std::to_string(i) + ": " +
                            (run.error.empty() ? std::to_string(run.frames) + " frames" : run.error);
        failed += ok ? 0 : 1;
        flips += run.flips;
    }
    // The flipper ran with the frames: more than one flip a run on average (on a loaded 2-core
    // machine one run may end before its flipper thread is scheduled twice: the 1.28 root's run
    // of 2026-12-05 had a run of 1 flip).
    EXPECT_GT(flips, runs()) << "the flipper did not run with the frames: the runs show no race";
    EXPECT_EQ(failed, 0) << failed << " of " << runs() << " runs failed; first: " << first_failure;
}

constexpr int kFrames = 500;

std::string frames_arg()
{
    return "num-buffers=" + std::to_string(kFrames);
}

// The pipeline: the tee's source thread queries g2gview's caps (accept-caps and caps
// queries pass the queue) while g2gview's own thread applies the change and renegotiates.
TEST(StressViewRaces, DirectionFlippedBehindATeeAlwaysNegotiates)
{
    expect_every_run_negotiated(
        "videotestsrc " + frames_arg() +
            " ! video/x-raw,format=NV12,width=64,height=48 ! tee name=s "
            "s. ! queue ! fakesink "
            "s. ! queue ! g2gview name=v ! g2gmaterialize ! appsink name=sink sync=false",
        kFrames);
}

// VulkanImage frames in and out as views (materialized on the device by g2gmaterialize).
TEST(StressViewRaces, DirectionFlippedOnVulkanViewsAlwaysNegotiates)
{
    SKIP_WITHOUT_VULKAN();
    expect_every_run_negotiated("videotestsrc " + frames_arg() +
                                    " ! video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload ! "
                                    "g2gview name=v ! g2gmaterialize ! vulkandownload ! "
                                    "appsink name=sink sync=false",
                                kFrames);
}

// VulkanImage frames written dense by g2gview's shader (no view-aware peer).
TEST(StressViewRaces, DirectionFlippedOnVulkanDenseOutputAlwaysNegotiates)
{
    SKIP_WITHOUT_VULKAN();
    expect_every_run_negotiated("videotestsrc " + frames_arg() +
                                    " ! video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload ! "
                                    "g2gview name=v ! video/x-raw(memory:VulkanImage) ! vulkandownload ! "
                                    "appsink name=sink sync=false",
                                kFrames);
}

} // namespace
