// SPDX-License-Identifier: LGPL-2.1-or-later
// Decoded H.264 frames, rotated 90 degrees, to a Vulkan consumer, whole paths, g2g against what
// GStreamer alone does, on the sample streams in one run (paths alternating round by round):
//   decode alone  filesrc ! h264parse ! nvh264dec ! fakesink (CUDA memory): the baseline
//   g2g           nvh264dec ! g2gview video-direction=90r ! g2gconvert ! CONSUMER: the rotation
//                 written into Vulkan images by one CUDA kernel, on the GPU
//   GStreamer     nvh264dec ! cudadownload ! videoflip video-direction=90r ! vulkanupload !
//                 CONSUMER: down to the host, rotated by the CPU, up again
// CONSUMER samples every texel of the images on the GPU: vulkancolorconvert (NV12 to RGBA, a
// fragment shader over the frame's planes), then either
//   convert       fakesink whose handoff waits for the frame's Vulkan device to be idle: each
//                 frame's conversion is done before the next frame (all the GPU work is in the
//                 figure, and no more than a frame of it is in flight)
//   download      vulkandownload ! fakesink whose handoff reads a byte of every page: each frame
//                 waited for and read on the host (a cost both paths share)
// Frames/s from the sink's 10th frame to the last, best of
// --repeats runs of each path; "added" is a path's ms/frame minus decode alone's in the same run.
// Before the timed runs each stream's frames are checked once: g2g's rotated images, downloaded
// (vulkandownload), equal the GStreamer path's, and so do vulkancolorconvert's RGBA outputs of
// them, at two frames.
//
//   bench-decode-vulkan [--csv DIR] [--repeats N] [--consumer convert|download|both] [--min-frames N]
//                       [--streams A.h264,B.h264] [--test-source]
//
// Needs nvh264dec, g2gconvert (a g2g built with CUDA and Vulkan) and a Vulkan device; says what
// is missing and exits 0 otherwise. --test-source replaces the decoder by videotestsrc (NV12 in
// system memory) and g2g's path by g2gview ! vulkanupload: it tests this program where there is
// no NVIDIA GPU (lavapipe); its figures are not the benchmark. With --csv DIR writes
// decode-vulkan.csv there.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench-util.h"
#include "vulkan-teardown.h"

using g2g::bench::media_path;
using g2g::bench::split;

namespace {

constexpr int kWarmup = 10;

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Options {
    int repeats = 3;
    int min_frames = 240;
    bool test_source = false;
    std::vector<std::string> consumers{"convert", "download"};
    std::vector<std::string> streams{"ball-1920x1080-300f.h264", "smpte-3840x2160-120f.h264"};
};

// The frame count a sample's name says (ball-1920x1080-300f.h264: 300), or 0.
int frames_in_name(const std::string &name)
{
    const std::size_t end = name.find("f.");
    if (end == std::string::npos)
        return 0;
    const std::size_t start = name.rfind('-', end);
    if (start == std::string::npos)
        return 0;
    return std::atoi(name.substr(start + 1, end - start - 1).c_str());
}

// What the sink saw: when its 10th frame and its last came. With `read_pages` it maps each frame
// and reads a byte of every page; with `wait_device` it waits until the Vulkan device of each
// frame (of VulkanImage memory) is idle, that frame's conversion done: a consumer that uses each
// frame before the next, and never more than one frame's work in flight (without it, on lavapipe,
// vulkancolorconvert outran the device until its descriptor pool ran out, and the pipeline hung).
// The handoff runs in the streaming thread, the one that submits all the pipeline's Vulkan work
// (no queue in these pipelines), so the wait is not concurrent with a submission.
struct SinkClock {
    int frames = 0;
    double first = 0, last = 0;
    bool read_pages = false;
    bool wait_device = false;
    std::uint64_t sum = 0;
};

void on_handoff(GstElement *, GstBuffer *buffer, GstPad *, gpointer data)
{
    auto *clock = static_cast<SinkClock *>(data);
    if (clock->wait_device && gst_buffer_n_memory(buffer) > 0) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
        if (gst_is_vulkan_image_memory(memory))
            vkDeviceWaitIdle(reinterpret_cast<GstVulkanImageMemory *>(memory)->device->device);
    }
    if (clock->read_pages) {
        GstMapInfo map;
        if (gst_buffer_map(buffer, &map, GST_MAP_READ)) {
            for (gsize i = 0; i < map.size; i += 4096)
                clock->sum += map.data[i];
            gst_buffer_unmap(buffer, &map);
        }
    }
    const int n = ++clock->frames;
    clock->last = now();
    if (n == kWarmup)
        clock->first = clock->last;
}

struct Outcome {
    double fps = 0;
    std::string error; // empty: it ran
};

std::string error_of(GstMessage *message)
{
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    std::string text = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " + error->message;
    g_error_free(error);
    g_free(debug);
    return text;
}

// Frames/s of `description` run to EOS (its fakesink named "sink"); with `wait_device` the sink waits
// for each frame's device to be idle.
Outcome run_path(const std::string &description, bool read_pages, bool wait_device)
{
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (error) {
        Outcome failed{0, std::string("cannot build it: ") + error->message};
        g_error_free(error);
        if (pipeline)
            gst_object_unref(pipeline);
        return failed;
    }
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    SinkClock clock;
    clock.read_pages = read_pages;
    clock.wait_device = wait_device;
    g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &clock);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(bus, 300 * GST_SECOND,
                                                     GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    Outcome outcome;
    if (message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
        outcome.error = error_of(message);
    if (!message) {
        // A stuck pipeline may not stop either: say so and leave, rather than hang the run.
        std::printf("%s: no EOS within 300 s: stopping the benchmark\n", description.c_str());
        std::fflush(stdout);
        std::_Exit(3);
    }
    g2g::test::wait_for_vulkan_devices(GST_BIN(pipeline));
    gst_message_unref(message);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    const int timed = clock.frames - kWarmup;
    if (outcome.error.empty() && (timed <= 0 || clock.last <= clock.first))
        outcome.error = "only " + std::to_string(clock.frames) + " frames";
    if (outcome.error.empty())
        outcome.fps = timed / (clock.last - clock.first);
    return outcome;
}

// The bytes of frames `indices` of `description`'s appsink "sink", plane by plane, row by row
// (without the rows' padding); empty with `error` set where it failed.
std::map<int, std::vector<std::uint8_t>> capture(const std::string &description,
                                                 const std::vector<int> &indices, std::string &error)
{
    std::map<int, std::vector<std::uint8_t>> frames;
    GError *parse_error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &parse_error);
    if (parse_error) {
        error = std::string("cannot build it: ") + parse_error->message;
        g_error_free(parse_error);
        if (pipeline)
            gst_object_unref(pipeline);
        return frames;
    }
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstBus *bus = gst_element_get_bus(pipeline);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    const int last = *std::max_element(indices.begin(), indices.end());
    for (int index = 0; index <= last; ++index) {
        // Pulled a second at a time, the bus read between: an error (a refusal in caps, a failed
        // upload) ends the check at once with its text, where one long pull only timed out
        // (on the H200 the whole run's time went by before anything was said).
        GstSample *sample = nullptr;
        bool ended = false;
        for (int waited = 0; !sample && !ended && waited < 30; ++waited) {
            g_signal_emit_by_name(sink, "try-pull-sample", GstClockTime(GST_SECOND), &sample);
            gboolean eos = FALSE;
            g_object_get(sink, "eos", &eos, nullptr);
            ended = eos;
            if (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
                error = error_of(message);
                gst_message_unref(message);
                ended = true;
            }
        }
        if (!sample) {
            if (!ended)
                error = "no frame " + std::to_string(index) + " within 30 s";
            break;
        }
        if (std::find(indices.begin(), indices.end(), index) != indices.end()) {
            GstVideoInfo info;
            GstVideoFrame frame;
            std::vector<std::uint8_t> bytes;
            if (gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
                gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) {
                for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
                    gint components[GST_VIDEO_MAX_COMPONENTS];
                    gst_video_format_info_component(info.finfo, p, components);
                    const gsize row = gsize(GST_VIDEO_INFO_COMP_WIDTH(&info, components[0])) *
                                      GST_VIDEO_INFO_COMP_PSTRIDE(&info, components[0]);
                    const auto *data =
                        static_cast<const std::uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
                    for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, components[0]); ++y) {
                        const std::uint8_t *line = data + gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
                        bytes.insert(bytes.end(), line, line + row);
                    }
                }
                gst_video_frame_unmap(&frame);
                frames[index] = std::move(bytes);
            }
        }
        gst_sample_unref(sample);
    }
    GstMessage *late = error.empty() ? gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) : nullptr;
    if (late) {
        error = error_of(late);
        gst_message_unref(late);
    } else if (error.empty() && frames.size() != indices.size()) {
        error = "the stream ended after fewer frames";
    }
    gst_object_unref(bus);
    g2g::test::wait_for_vulkan_devices(GST_BIN(pipeline));
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    return frames;
}

// "equal", or what differs.
std::string compare(const std::string &ours, const std::string &peer, const std::vector<int> &indices)
{
    std::string error;
    const auto a = capture(ours, indices, error);
    if (!error.empty())
        return "g2g's path failed: " + error;
    const auto b = capture(peer, indices, error);
    if (!error.empty())
        return "the GStreamer path failed: " + error;
    for (int index : indices) {
        const std::vector<std::uint8_t> &x = a.at(index), &y = b.at(index);
        if (x.size() != y.size())
            return "frame " + std::to_string(index) + ": " + std::to_string(x.size()) + " bytes against " +
                   std::to_string(y.size());
        std::size_t differ = 0;
        int worst = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (x[i] != y[i]) {
                ++differ;
                worst = std::max(worst, std::abs(int(x[i]) - int(y[i])));
            }
        }
        if (differ)
            return "DIFFER: frame " + std::to_string(index) + ", " + std::to_string(differ) + " of " +
                   std::to_string(x.size()) + " bytes, by up to " + std::to_string(worst);
    }
    return "equal";
}

std::string format(const char *pattern, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

struct Path {
    const char *key;
    const char *label;
    std::string middle; // between the decoder and the consumer; empty: decode alone
};

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    // Line by line: what a run printed is there even if it is stopped.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Options options;
    for (int i = g2g::bench::take_csv_option(argc, argv); i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--repeats" && i + 1 < argc)
            options.repeats = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--min-frames" && i + 1 < argc)
            options.min_frames = std::max(kWarmup + 1, std::atoi(argv[++i]));
        else if (arg == "--consumer" && i + 1 < argc) {
            const std::string which = argv[++i];
            options.consumers = which == "both" ? std::vector<std::string>{"convert", "download"}
                                                : std::vector<std::string>{which};
        } else if (arg == "--streams" && i + 1 < argc)
            options.streams = split(argv[++i]);
        else if (arg == "--csv" && i + 1 < argc)
            g2g::bench::csv_dir() = argv[++i];
        else if (arg == "--test-source")
            options.test_source = true;
        else {
            std::fprintf(
                stderr,
                "usage: bench-decode-vulkan [--csv DIR] [--repeats N] [--consumer convert|download|both] "
                "[--min-frames N] [--streams A,B] [--test-source]\n");
            return 2;
        }
    }
    std::vector<const char *> needed{"vulkanupload", "vulkandownload", "vulkancolorconvert", "videoflip",
                                     "g2gview"};
    if (!options.test_source)
        needed.insert(needed.end(), {"nvh264dec", "h264parse", "cudadownload", "g2gconvert", "multifilesrc"});
    for (const char *name : needed) {
        if (!g2g::bench::have_element(name)) {
            std::printf(
                "bench-decode-vulkan: no %s here: nothing measured (needs an NVIDIA GPU with NVDEC and "
                "its Vulkan driver, and a g2g built with CUDA and Vulkan)\n",
                name);
            return 0;
        }
    }
    {
        // A Vulkan device at all (vulkanupload registers without one).
        std::string error;
        capture("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=64 ! vulkanupload ! "
                "vulkandownload ! appsink name=sink sync=false",
                {0}, error);
        if (!error.empty()) {
            std::printf("bench-decode-vulkan: no Vulkan device works here (%s): nothing measured\n",
                        error.c_str());
            return 0;
        }
    }
    std::printf("%s%s\n", gst_version_string(),
                options.test_source
                    ? "; TEST SOURCE (videotestsrc for the decoder, g2gview ! vulkanupload for g2g's "
                      "path): this tests the program, its figures are not the benchmark"
                    : "");

    FILE *csv = g2g::bench::open_csv("decode-vulkan.csv");
    if (csv)
        std::fprintf(csv, "stream,consumer,path,fps,ms_per_frame,added_ms,whole_over_decode\n");
    const std::string cuda = "video/x-raw(memory:CUDAMemory)";
    const std::vector<Path> paths = {
        {"decode", "decode alone", ""},
        {"g2g", "g2g: g2gview 90r ! g2gconvert",
         options.test_source
             ? "g2gview video-direction=90r ! vulkanupload"
             : cuda + " ! g2gview video-direction=90r ! video/x-raw(memory:CUDAMemory, meta:G2gTensorView) ! "
                      "g2gconvert"},
        {"gstreamer", "GStreamer: cudadownload ! videoflip 90r ! vulkanupload",
         (options.test_source ? std::string() : "cudadownload ! video/x-raw ! ") +
             "videoflip video-direction=90r ! vulkanupload"},
    };
    const std::string to_vulkan = " ! video/x-raw(memory:VulkanImage) ! ";
    const std::string convert = "vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA";
    bool any_differ = false;

    for (const std::string &name : options.streams) {
        std::string source;
        int frames = 0;
        if (options.test_source) {
            const bool big = name.find("3840x2160") != std::string::npos;
            frames = std::max(options.min_frames, kWarmup + 1);
            source = "videotestsrc num-buffers=" + std::to_string(frames) +
                     " pattern=ball ! video/x-raw,format=NV12,width=" +
                     (big ? "3840,height=2160" : "1920,height=1080");
        } else {
            const std::string path = media_path(name);
            if (path.empty()) {
                std::printf("\n%s: not on this machine (set G2G_MEDIA_DIR): skipped\n", name.c_str());
                continue;
            }
            const int in_file = std::max(1, frames_in_name(name));
            const int repeat = std::max(1, (options.min_frames + in_file - 1) / in_file);
            frames = in_file * repeat;
            source = repeat == 1 ? "filesrc location=" + path + " ! h264parse ! nvh264dec"
                                 : "multifilesrc location=" + path +
                                       " start-index=0 stop-index=" + std::to_string(repeat - 1) +
                                       " caps=video/x-h264,stream-format=byte-stream ! h264parse ! nvh264dec";
        }
        std::printf("\n## %s: %d frames a run, timed from frame %d; best of %d runs, paths alternating\n",
                    name.c_str(), frames, kWarmup, options.repeats);

        // The check: the rotated frames as each path's images hold them, and the consumer's output.
        const std::vector<int> indices{0, std::min(37, frames - 1)};
        const std::string appsink = " ! video/x-raw ! appsink name=sink sync=false max-buffers=2";
        const std::string images =
            compare(source + " ! " + paths[1].middle + to_vulkan + "vulkandownload" + appsink,
                    source + " ! " + paths[2].middle + to_vulkan + "vulkandownload" + appsink, indices);
        const std::string rgba = compare(
            source + " ! " + paths[1].middle + to_vulkan + convert + " ! vulkandownload" + appsink,
            source + " ! " + paths[2].middle + to_vulkan + convert + " ! vulkandownload" + appsink, indices);
        std::printf("check, frames %d and %d, g2g's against GStreamer's: rotated NV12 images %s; "
                    "vulkancolorconvert's RGBA %s\n",
                    indices[0], indices[1], images.c_str(), rgba.c_str());
        any_differ |= images.rfind("DIFFER", 0) == 0 || rgba.rfind("DIFFER", 0) == 0;

        for (const std::string &consumer : options.consumers) {
            const bool download = consumer == "download";
            const std::string sink = download
                                         ? " ! vulkandownload ! video/x-raw ! fakesink name=sink sync=false "
                                           "signal-handoffs=true"
                                         : " ! fakesink name=sink sync=false signal-handoffs=true";
            std::map<std::string, double> best;
            std::map<std::string, std::string> failed;
            for (int r = 0; r < options.repeats; ++r) {
                for (const Path &path : paths) {
                    if (failed.count(path.key))
                        continue;
                    const std::string description =
                        path.middle.empty() ? source + (options.test_source ? std::string() : " ! " + cuda) +
                                                  " ! fakesink name=sink sync=false signal-handoffs=true"
                                            : source + " ! " + path.middle + to_vulkan + convert + sink;
                    const Outcome outcome = run_path(description, download && !path.middle.empty(),
                                                     !download && !path.middle.empty());
                    if (!outcome.error.empty()) {
                        failed[path.key] = outcome.error;
                        std::printf("  %s failed: %s\n    (%s)\n", path.label, outcome.error.c_str(),
                                    description.c_str());
                        continue;
                    }
                    best[path.key] = std::max(best[path.key], outcome.fps);
                }
            }
            std::printf("\nconsumer: vulkancolorconvert%s\n",
                        download ? " ! vulkandownload, a byte of every page read"
                                 : " ! fakesink, each frame's device waited for");
            std::printf(
                "| path | fr/s | ms/frame | added ms/frame | GStreamer's added / g2g's | whole path / decode "
                "alone |\n|---|---|---|---|---|---|\n");
            if (!best.count("decode")) {
                std::printf("| decode alone | failed: %s | | | | |\n", failed["decode"].c_str());
                continue;
            }
            const double decode_ms = 1000 / best["decode"];
            const double peer_added = best.count("gstreamer") ? 1000 / best["gstreamer"] - decode_ms : -1;
            for (const Path &path : paths) {
                if (!best.count(path.key)) {
                    std::printf("| %s | failed: %s | | | | |\n", path.label, failed[path.key].c_str());
                    continue;
                }
                const double ms = 1000 / best[path.key];
                const double added = ms - decode_ms;
                std::string versus = "-";
                if (path.key == std::string("g2g") && peer_added > 0)
                    versus = added > 0 ? format("%.1fx", peer_added / added) : "no added cost measurable";
                std::printf("| %s | %.1f | %.3f | %s | %s | %.2fx |\n", path.label, best[path.key], ms,
                            path.middle.empty() ? "-" : format("%.3f", added).c_str(), versus.c_str(),
                            decode_ms / ms);
                if (csv)
                    std::fprintf(csv, "%s,%s,%s,%.2f,%.4f,%.4f,%.4f\n", name.c_str(), consumer.c_str(),
                                 path.key, best[path.key], ms, path.middle.empty() ? 0.0 : added,
                                 decode_ms / ms);
            }
        }
    }
    if (csv)
        std::fclose(csv);
    if (any_differ) {
        std::printf(
            "\nTHE PATHS' FRAMES DIFFER (see the checks above): the figures compare different work\n");
        return 1;
    }
    return 0;
}
