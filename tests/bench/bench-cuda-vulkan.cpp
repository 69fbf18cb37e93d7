// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gconvert (CUDA frames to Vulkan images on the GPU) against GStreamer's host round trip, from
// the same run:
//  1. per 4K NV12 and RGBA frame: one CUDA frame pushed again and again by an appsrc through
//     g2gconvert, and through cudadownload ! vulkanupload (what GStreamer 1.22 has), to a fakesink;
//  2. nvh264dec ! g2gconvert ! fakesink against nvh264dec ! fakesink (decode alone), both streams.
// Frame rates from the sink's handoffs (its 10th frame on, so start-up is not counted), the median
// of alternating runs; the ratio is ours over the peer's.
//
//   bench-cuda-vulkan [--csv DIR] [--seconds S] [--repeats N]
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench-util.h"

using g2g::bench::media_path;

namespace {

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Options {
    double seconds = 2.0;
    int repeats = 3;
};

// Hands `context` (a GstCudaContext) to every element that asks the application for one.
GstBusSyncReply answer_cuda_context(GstBus *, GstMessage *message, gpointer context)
{
    const gchar *type = nullptr;
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_NEED_CONTEXT &&
        gst_message_parse_context_type(message, &type) && g_strcmp0(type, GST_CUDA_CONTEXT_TYPE) == 0) {
        GstContext *answer = gst_context_new_cuda_context(GST_CUDA_CONTEXT(context));
        gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(message)), answer);
        gst_context_unref(answer);
    }
    return GST_BUS_PASS;
}

GstElement *launch(const std::string &description, GstCudaContext *context)
{
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (error) {
        std::fprintf(stderr, "cannot build %s: %s\n", description.c_str(), error->message);
        std::exit(1);
    }
    GstBus *bus = gst_element_get_bus(pipeline);
    gst_bus_set_sync_handler(bus, answer_cuda_context, context, nullptr);
    gst_object_unref(bus);
    return pipeline;
}

// Waits for EOS; an error ends the benchmark (a figure of a failed run means nothing).
void wait_for_eos(GstElement *pipeline, const std::string &what)
{
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(bus, 300 * GST_SECOND,
                                                     GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (!message || GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        GError *error = nullptr;
        if (message)
            gst_message_parse_error(message, &error, nullptr);
        std::fprintf(stderr, "%s failed: %s\n", what.c_str(), error ? error->message : "timed out");
        std::exit(1);
    }
    gst_message_unref(message);
    gst_object_unref(bus);
}

// One CUDA frame of `caps` (system-memory caps) made by cudaupload in `context`.
GstBuffer *cuda_frame(const std::string &caps, GstCudaContext *context)
{
    GstElement *pipeline = launch("videotestsrc num-buffers=1 pattern=ball ! " + caps +
                                      " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! appsink name=sink",
                                  context);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstSample *sample = nullptr;
    g_signal_emit_by_name(sink, "pull-sample", &sample);
    if (!sample) {
        std::fprintf(stderr, "cudaupload made no frame of %s\n", caps.c_str());
        std::exit(1);
    }
    GstBuffer *buffer = gst_buffer_ref(gst_sample_get_buffer(sample));
    gst_sample_unref(sample);
    gst_object_unref(sink);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return buffer;
}

// What the fakesink saw: when its 10th frame and its last came.
struct SinkClock {
    static constexpr int kWarmup = 10;
    std::atomic<int> frames{0};
    double first = 0, last = 0;
};

void on_handoff(GstElement *, GstBuffer *, GstPad *, gpointer data)
{
    auto *clock = static_cast<SinkClock *>(data);
    const int n = ++clock->frames;
    clock->last = now();
    if (n == SinkClock::kWarmup)
        clock->first = clock->last;
}

double rate_of(const SinkClock &clock)
{
    const int timed = clock.frames - SinkClock::kWarmup;
    return timed > 0 && clock.last > clock.first ? timed / (clock.last - clock.first) : 0;
}

// Frames per second of `frame` pushed again and again through `middle` for `seconds`.
double pushed_rate(const std::string &middle, GstBuffer *frame, const std::string &caps,
                   GstCudaContext *context, double seconds)
{
    GstElement *pipeline =
        launch("appsrc name=src format=time max-buffers=2 block=true caps=\"" + caps + "\" ! " + middle +
                   " ! fakesink name=sink sync=false signal-handoffs=true",
               context);
    GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    SinkClock clock;
    g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &clock);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    std::thread pusher([&] {
        const double started = now();
        while (now() - started < 4 * seconds + 30) {
            if (clock.frames >= SinkClock::kWarmup && now() - clock.first >= seconds)
                break;
            if (gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_ref(frame)) != GST_FLOW_OK)
                break;
        }
        gst_app_src_end_of_stream(GST_APP_SRC(src));
    });
    wait_for_eos(pipeline, middle);
    pusher.join();
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(src);
    gst_object_unref(pipeline);
    return rate_of(clock);
}

// Frames per second of `description` run to EOS, its fakesink named "sink".
double stream_rate(const std::string &description, GstCudaContext *context)
{
    GstElement *pipeline = launch(description, context);
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    SinkClock clock;
    g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &clock);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    wait_for_eos(pipeline, description);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    return rate_of(clock);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Medians of alternating runs of ours and the peer's.
template <typename Run>
std::pair<double, double> paired_medians(const Run &ours, const Run &peer, int repeats)
{
    std::vector<double> a, b;
    for (int r = 0; r < repeats; ++r) {
        a.push_back(ours());
        b.push_back(peer());
    }
    return {median(a), median(b)};
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    Options options;
    for (int i = g2g::bench::take_csv_option(argc, argv); i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seconds" && i + 1 < argc)
            options.seconds = std::atof(argv[++i]);
        else if (arg == "--repeats" && i + 1 < argc)
            options.repeats = std::max(1, std::atoi(argv[++i]));
    }
    for (const char *needed : {"g2gconvert", "cudaupload", "cudadownload", "vulkanupload"}) {
        if (!g2g::bench::have_element(needed)) {
            std::printf(
                "no %s here: nothing to measure (needs an NVIDIA GPU with its Vulkan driver and a g2g built "
                "with CUDA and Vulkan)\n",
                needed);
            return 0;
        }
    }
    if (!gst_cuda_load_library()) {
        std::printf("no CUDA driver here: nothing to measure\n");
        return 0;
    }
    GstCudaContext *context = gst_cuda_context_new(0);
    if (!context) {
        std::printf("no CUDA device here: nothing to measure\n");
        return 0;
    }

    std::printf("1. appsrc (one 4K CUDA frame, again and again) ! g2gconvert ! fakesink against appsrc ! "
                "cudadownload ! vulkanupload ! fakesink\n");
    std::printf("%-6s %14s %14s %14s %14s %8s\n", "format", "ours fps", "ours ms/frame", "host fps",
                "host ms/frame", "ratio");
    FILE *csv = g2g::bench::open_csv("cuda-vulkan-convert.csv");
    if (csv)
        std::fprintf(csv, "format,ours_fps,host_fps,ratio\n");
    for (const char *format : {"NV12", "RGBA"}) {
        const std::string raw =
            std::string("video/x-raw,format=") + format + ",width=3840,height=2160,framerate=30/1";
        const std::string caps = std::string("video/x-raw(memory:CUDAMemory),format=") + format +
                                 ",width=3840,height=2160,framerate=30/1";
        GstBuffer *frame = cuda_frame(raw, context);
        const auto [ours, host] = paired_medians(
            std::function<double()>(
                [&] { return pushed_rate("g2gconvert", frame, caps, context, options.seconds); }),
            std::function<double()>([&] {
                return pushed_rate("cudadownload ! vulkanupload", frame, caps, context, options.seconds);
            }),
            options.repeats);
        std::printf("%-6s %14.1f %14.3f %14.1f %14.3f %7.2fx\n", format, ours, 1000 / ours, host, 1000 / host,
                    ours / host);
        if (csv)
            std::fprintf(csv, "%s,%.2f,%.2f,%.3f\n", format, ours, host, ours / host);
        gst_buffer_unref(frame);
    }
    if (csv)
        std::fclose(csv);

    if (g2g::bench::have_element("nvh264dec")) {
        std::printf("\n2. filesrc ! h264parse ! nvh264dec ! g2gconvert ! fakesink against decode alone "
                    "(nvh264dec ! fakesink)\n");
        std::printf("%-28s %14s %14s %8s\n", "stream", "with g2gconvert", "decode alone", "ratio");
        FILE *decode_csv = g2g::bench::open_csv("cuda-vulkan-decode.csv");
        if (decode_csv)
            std::fprintf(decode_csv, "stream,ours_fps,decode_fps,ratio\n");
        for (const char *stream : {"ball-1920x1080-300f.h264", "smpte-3840x2160-120f.h264"}) {
            const std::string path = media_path(stream);
            if (path.empty()) {
                std::printf("%-28s (not on this machine)\n", stream);
                continue;
            }
            const std::string decode = "filesrc location=" + path + " ! h264parse ! nvh264dec";
            const std::string sink = " ! fakesink name=sink sync=false signal-handoffs=true";
            const auto [ours, alone] =
                paired_medians(std::function<double()>(
                                   [&] { return stream_rate(decode + " ! g2gconvert" + sink, context); }),
                               std::function<double()>([&] { return stream_rate(decode + sink, context); }),
                               options.repeats);
            std::printf("%-28s %14.1f %14.1f %7.2fx\n", stream, ours, alone, ours / alone);
            if (decode_csv)
                std::fprintf(decode_csv, "%s,%.2f,%.2f,%.3f\n", stream, ours, alone, ours / alone);
        }
        if (decode_csv)
            std::fclose(decode_csv);
    }
    gst_object_unref(context);
    return 0;
}
