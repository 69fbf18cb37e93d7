// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee against tee, in one run, as ratios (the machine is shared):
//  1. fan-out overhead: per-frame cost with 1, 4 and 16 branches into fakesink (small buffers,
//     so the fan-out itself is what is measured);
//  2. mixed domains: vulkanupload, then 1 Vulkan branch and 3 system-memory branches — g2gtee
//     (one download per frame, shared) against tee with a vulkandownload in each system branch:
//     conversions per frame, bytes downloaded per frame, frames per second.
// Prints tables; with --csv DIR also writes fanout.csv and vulkan.csv there, which
// tests/bench/plot-tee.gp turns into docs/performance-tee.png.
// Usage: bench-tee [--csv DIR] [fan-out buffers] [Vulkan frames]
#include <gst/gst.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench-util.h"

using g2g::bench::open_csv;
using g2g::bench::run_to_eos;

namespace {

// Seconds per buffer for `frames` buffers through fakesrc ! TEE ! N x fakesink; best of 3. The
// sinks neither sync nor preroll (async=false), so no branch needs a queue.
double fan_out_per_frame(const char *tee, int branches, int frames)
{
    std::string description = "fakesrc num-buffers=" + std::to_string(frames) +
                              " sizetype=fixed sizemax=64 filltype=zero ! " + tee + " name=t";
    for (int i = 0; i < branches; ++i)
        description += " t. ! fakesink sync=false async=false";
    double best = 1e30;
    for (int round = 0; round < 3; ++round)
        best = std::min(best, run_to_eos(description) / frames);
    return best;
}

struct MixedRun {
    double fps = 0;
    double conversions_per_frame = 0;
    double bytes_downloaded_per_frame = 0;
};

// vulkanupload, then a Vulkan branch and three system-memory branches; best of 3 for the rate.
MixedRun mixed_domains(bool ours, int frames, int width, int height)
{
    // imagefreeze repeats one frame, so the source costs nothing and the conversions show.
    const std::string source =
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=" + std::to_string(width) +
        ",height=" + std::to_string(height) +
        ",framerate=30/1 ! imagefreeze num-buffers=" + std::to_string(frames) + " ! vulkanupload ! ";
    // Every Vulkan branch ends in vulkandownload: GStreamer 1.22 on lavapipe can crash when
    // VulkanImage frames are dropped without waiting for the device.
    const std::string vulkan_branch = " t. ! queue ! vulkandownload ! fakesink sync=false";
    std::string description = source + (ours ? "g2gtee name=t" : "tee name=t") + vulkan_branch;
    for (int i = 0; i < 3; ++i)
        description += ours ? " t. ! queue ! video/x-raw ! fakesink sync=false"
                            : " t. ! queue ! vulkandownload ! video/x-raw ! fakesink sync=false";
    const double frame_bytes = 4.0 * width * height;
    MixedRun result;
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
        guint64 conversions = 0, bytes = 0, seen = 0;
        const double took = run_to_eos(description, [&](GstBin *pipeline) {
            if (!ours)
                return;
            GstElement *tee = gst_bin_get_by_name(pipeline, "t");
            GstStructure *stats = nullptr;
            g_object_get(tee, "stats", &stats, nullptr);
            gst_structure_get_uint64(stats, "conversions", &conversions);
            gst_structure_get_uint64(stats, "bytes-converted", &bytes);
            gst_structure_get_uint64(stats, "frames", &seen);
            gst_structure_free(stats);
            gst_object_unref(tee);
        });
        best = std::min(best, took);
        if (ours) {
            result.conversions_per_frame = seen ? double(conversions) / seen : 0;
            result.bytes_downloaded_per_frame = seen ? double(bytes) / seen : 0;
        } else {
            // tee converts nothing itself: each system branch's vulkandownload downloads the frame.
            result.conversions_per_frame = 3;
            result.bytes_downloaded_per_frame = 3 * frame_bytes;
        }
    }
    result.fps = frames / best;
    return result;
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    int arg = g2g::bench::take_csv_option(argc, argv);
    const int frames = arg < argc ? std::atoi(argv[arg++]) : 100000;
    const int vulkan_frames = arg < argc ? std::atoi(argv[arg++]) : 200;

    std::printf(
        "1. Fan-out per frame, fakesrc (64-byte buffers) ! TEE ! N x fakesink, best of 3 runs of %d\n",
        frames);
    std::printf("%-9s %12s %12s %10s\n", "branches", "g2gtee us", "tee us", "g2g/tee");
    FILE *csv = open_csv("fanout.csv");
    for (int branches : {1, 4, 16}) {
        const double ours = fan_out_per_frame("g2gtee", branches, frames);
        const double peer = fan_out_per_frame("tee", branches, frames);
        std::printf("%-9d %12.3f %12.3f %9.2fx\n", branches, ours * 1e6, peer * 1e6, ours / peer);
        if (csv)
            std::fprintf(csv, "%d %g %g\n", branches, ours, peer);
    }
    if (csv)
        std::fclose(csv);

    std::printf("\n2. Mixed domains: videotestsrc ! imagefreeze ! vulkanupload ! TEE, 1 Vulkan branch "
                "(vulkandownload) and 3 "
                "system-memory branches, RGBA 1280x720, best of 3 runs of %d frames\n",
                vulkan_frames);
    if (!g2g::bench::have_element("vulkanupload")) {
        std::printf("   skipped: no vulkanupload on this machine\n");
        gst_deinit();
        return 0;
    }
    const MixedRun ours = mixed_domains(true, vulkan_frames, 1280, 720);
    const MixedRun peer = mixed_domains(false, vulkan_frames, 1280, 720);
    std::printf("%-46s %14s %16s %10s\n", "", "conversions/fr", "downloaded MB/fr", "frames/s");
    std::printf("%-46s %14.2f %16.2f %10.1f\n", "g2gtee (one shared download)", ours.conversions_per_frame,
                ours.bytes_downloaded_per_frame / 1e6, ours.fps);
    std::printf("%-46s %14.2f %16.2f %10.1f\n", "tee + vulkandownload per system branch",
                peer.conversions_per_frame, peer.bytes_downloaded_per_frame / 1e6, peer.fps);
    std::printf("g2gtee / tee: %.2fx the conversions, %.2fx the bytes downloaded, %.2fx the frame rate\n",
                ours.conversions_per_frame / peer.conversions_per_frame,
                ours.bytes_downloaded_per_frame / peer.bytes_downloaded_per_frame, ours.fps / peer.fps);
    if (FILE *vulkan = open_csv("vulkan.csv")) {
        std::fprintf(vulkan, "\"g2gtee\" %g %g %g\n", ours.conversions_per_frame,
                     ours.bytes_downloaded_per_frame, ours.fps);
        std::fprintf(vulkan, "\"tee+3xvulkandownload\" %g %g %g\n", peer.conversions_per_frame,
                     peer.bytes_downloaded_per_frame, peer.fps);
        std::fclose(vulkan);
    }
    gst_deinit();
    return 0;
}
