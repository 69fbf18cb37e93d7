// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink / g2gipcsrc against GStreamer's own process boundaries, in one run: 4K NV12 frames
// (videotestsrc, live at 30 fr/s, writing into the memory each sink offers upstream)
// to 1, 4 and 16 consumer processes. For each transport and consumer count:
//  - the producer's CPU per frame: this process's user+system time over the stream, less the same
//    source into fakesink (measured in the same run), so what the sink and its consumers cost it;
//  - the latency from the frame's arrival at the sink to each consumer's receipt (its source pad),
//    both on CLOCK_MONOTONIC, median and 99th percentile over every frame of every consumer;
//  - each consumer's CPU per frame (its process's user+system time over its stream over the frames
//    it received, the median of the consumers), each consumer reading every frame as an application
//    would (mapping it and reading a byte of every page; system memory only);
//  - frames each consumer received, and g2gipcsink's copies and conversions (zero: the frames cross
//    as the producer's memfds).
// The peers: shmsink / shmsrc (every version; shmsrc carries no caps, so its consumers state them),
// unixfdsink / unixfdsrc where GStreamer has them (1.24 on).
// With --domain cuda the frames are CUDA memory (cudaupload after the source, measured in the
// baseline too), crossing by g2gipcsink's CUDA IPC handles against cudaipcsink / cudaipcsrc (1.24
// on, where the nvcodec plugin has them).
// Usage: bench-ipc [--frames N] [--rounds R] [--consumers 1,4,16] [--size WxH] [--domain system|cuda]
//        bench-ipc consume DESCRIPTION OUT FRAMES READ   (a consumer process: this program runs itself)
#include <gst/gst.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench-util.h"

namespace {

gint64 now_us()
{
    return g_get_monotonic_time();
}

double cpu_seconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

GstPadProbeReturn record_time(GstPad *, GstPadProbeInfo *, gpointer data)
{
    static_cast<std::vector<gint64> *>(data)->push_back(now_us());
    return GST_PAD_PROBE_OK;
}

// How long a stream of `frames` at 30 fr/s may take before its run is given up: shmsink's
// intermittent stall (a consumer that connected waits forever for its first frame) then costs a
// run its frames (the table's received column says so), not the whole benchmark.
int stream_timeout_s(int frames)
{
    return frames / 30 + 15;
}

// Runs `pipeline` (already PAUSED or not) to EOS or error, at most `timeout_s`; false on error.
bool play_to_end(GstElement *pipeline, int timeout_s)
{
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message =
        gst_bus_timed_pop_filtered(bus, static_cast<GstClockTime>(timeout_s) * GST_SECOND,
                                   static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    bool ok = message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
    if (message && !ok) {
        GError *error = nullptr;
        gst_message_parse_error(message, &error, nullptr);
        std::fprintf(stderr, "error: %s\n", error ? error->message : "?");
        g_clear_error(&error);
    }
    if (message)
        gst_message_unref(message);
    gst_object_unref(bus);
    return ok;
}

// Maps a frame reaching the consumer's sink and reads a byte of every page, as an application that
// reads the frame would (what the mapping costs: a fault per page mapped anew).
GstPadProbeReturn read_frame(GstPad *, GstPadProbeInfo *info, gpointer)
{
    GstBuffer *frame = GST_PAD_PROBE_INFO_BUFFER(info);
    GstMapInfo map;
    if (frame && gst_buffer_map(frame, &map, GST_MAP_READ)) {
        volatile guint8 sum = 0;
        for (gsize at = 0; at < map.size; at += 4096)
            sum = sum + map.data[at];
        gst_buffer_unmap(frame, &map);
    }
    return GST_PAD_PROBE_OK;
}

// The consumer process: `description` (its source named "src", its sink "sink") to its end; into
// `out`, its CPU per frame received (µs), then the receipt time of each frame at the source's pad,
// one per line. With `read`, each frame is read at the sink.
int consume(const std::string &description, const std::string &out, int frames, bool read)
{
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (!pipeline) {
        std::fprintf(stderr, "consumer: %s\n", error ? error->message : "?");
        return 2;
    }
    std::vector<gint64> times;
    times.reserve(frames);
    GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstPad *pad = gst_element_get_static_pad(src, "src");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, record_time, &times, nullptr);
    gst_object_unref(pad);
    gst_object_unref(src);
    if (read) {
        GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
        GstPad *sink_pad = gst_element_get_static_pad(sink, "sink");
        gst_pad_add_probe(sink_pad, GST_PAD_PROBE_TYPE_BUFFER, read_frame, nullptr, nullptr);
        gst_object_unref(sink_pad);
        gst_object_unref(sink);
    }
    const double before = cpu_seconds();
    play_to_end(pipeline, stream_timeout_s(frames));
    const double took = cpu_seconds() - before;
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    std::ofstream file(out);
    file << static_cast<gint64>(times.empty() ? 0 : took * 1e6 / times.size()) << "\n";
    for (gint64 t : times)
        file << t << "\n";
    return 0;
}

struct Transport {
    std::string name;
    std::string sink;   // the producer's sink, "{socket}" for its path, "{consumers}" for the consumer count
    std::string source; // a consumer's source (named "src") and what follows it
};

std::string replaced(std::string text, const std::string &what, const std::string &with)
{
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
        text.replace(at, what.size(), with);
    return text;
}

struct Figures {
    double cpu_us = 0;             // per frame, less the baseline
    double consumer_cpu_us = 0;    // per frame, the median consumer's
    double p50_us = 0, p99_us = 0; // latency
    int least_frames = 0;          // the consumer that received the fewest
    std::string copies = "";       // g2gipcsink's copies and conversions
};

// The producer: videotestsrc, live at 30 fr/s, writing black frames into the memory each sink
// offers upstream (g2gipcsink's memfds, shmsink's shared area, unixfdsink's memfds); what it costs
// alone is measured in the same round and subtracted.
std::string caps_of(int width, int height)
{
    return "video/x-raw,format=NV12,width=" + std::to_string(width) + ",height=" + std::to_string(height) +
           ",framerate=30/1";
}

// "system" or "cuda" (--domain): where the source's frames are.
std::string domain = "system";

std::string source_description(int frames, int width, int height)
{
    return "videotestsrc is-live=true pattern=black num-buffers=" + std::to_string(frames) + " ! " +
           caps_of(width, height) +
           (domain == "cuda" ? " ! cudaupload ! video/x-raw(memory:CUDAMemory)" : "");
}

// Plays `pipeline` to its end; the CPU seconds this process spent meanwhile, negative on error.
double cpu_to_end(GstElement *pipeline, int frames)
{
    const double before = cpu_seconds();
    const bool ended = play_to_end(pipeline, stream_timeout_s(frames));
    const double took = cpu_seconds() - before;
    return ended ? took : -1;
}

double baseline_cpu_us(int frames, int width, int height)
{
    GstElement *pipeline = gst_parse_launch(
        (source_description(frames, width, height) + " ! fakesink sync=false").c_str(), nullptr);
    const double took = cpu_to_end(pipeline, frames);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return took * 1e6 / frames;
}

Figures run(const Transport &transport, int consumers, int frames, int width, int height, const char *self,
            double baseline)
{
    Figures figures;
    char pattern[] = "/tmp/g2g-bench-ipc-XXXXXX";
    const std::string dir = g_mkdtemp(pattern) ? pattern : "/tmp";
    const std::string socket = dir + "/socket";
    const std::string sink =
        replaced(replaced(transport.sink, "{socket}", socket), "{consumers}", std::to_string(consumers));
    GstElement *pipeline = gst_parse_launch(
        (source_description(frames, width, height) + " ! " + sink + " name=sink").c_str(), nullptr);
    std::vector<gint64> pushed;
    pushed.reserve(frames);
    GstElement *sink_element = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstPad *pad = gst_element_get_static_pad(sink_element, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, record_time, &pushed, nullptr);
    gst_object_unref(pad);
    // The sink listens from PAUSED; a live source sends nothing before PLAYING.
    gst_element_set_state(pipeline, GST_STATE_PAUSED);
    std::vector<GPid> children;
    for (int c = 0; c < consumers; ++c) {
        const std::string description =
            replaced(transport.source, "{socket}", socket) + " ! fakesink name=sink sync=false";
        const std::string out = dir + "/consumer-" + std::to_string(c);
        const std::string count = std::to_string(frames);
        const char *read = domain == "system" ? "1" : "0";
        const gchar *argv[] = {self, "consume", description.c_str(), out.c_str(), count.c_str(),
                               read, nullptr};
        GPid pid = 0;
        g_spawn_async(nullptr, const_cast<gchar **>(argv), nullptr, G_SPAWN_DO_NOT_REAP_CHILD, nullptr,
                      nullptr, &pid, nullptr);
        children.push_back(pid);
    }
    // Every consumer connected before the first frame: g2gipcsink counts them; the others get time.
    if (g_object_class_find_property(G_OBJECT_GET_CLASS(sink_element), "consumers")) {
        for (int i = 0; i < 400; ++i) {
            guint connected = 0;
            g_object_get(sink_element, "consumers", &connected, nullptr);
            if (connected >= static_cast<guint>(consumers))
                break;
            g_usleep(25000);
        }
    } else {
        g_usleep(static_cast<gulong>(1500000 + 100000 * consumers));
    }
    const double took = cpu_to_end(pipeline, frames);
    if (g_object_class_find_property(G_OBJECT_GET_CLASS(sink_element), "stats")) {
        GstStructure *stats = nullptr;
        g_object_get(sink_element, "stats", &stats, nullptr);
        guint64 copies = 0, conversions = 0;
        gst_structure_get_uint64(stats, "copies", &copies);
        gst_structure_get_uint64(stats, "conversions", &conversions);
        figures.copies = std::to_string(copies) + " / " + std::to_string(conversions);
        gst_structure_free(stats);
    }
    gst_object_unref(sink_element);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    figures.cpu_us = took * 1e6 / frames - baseline;
    std::vector<double> latencies, consumer_cpu;
    figures.least_frames = frames;
    for (int c = 0; c < consumers; ++c) {
        int status = 0;
        waitpid(children[c], &status, 0);
        g_spawn_close_pid(children[c]);
        std::ifstream file(dir + "/consumer-" + std::to_string(c));
        gint64 cpu = 0;
        if (file >> cpu)
            consumer_cpu.push_back(static_cast<double>(cpu));
        std::vector<gint64> received;
        for (gint64 t; file >> t;)
            received.push_back(t);
        figures.least_frames = std::min(figures.least_frames, static_cast<int>(received.size()));
        // The i-th frame received is the i-th sent (shmsrc keeps no offsets; none was dropped when
        // every consumer got them all).
        for (std::size_t i = 0; i < received.size() && i < pushed.size(); ++i)
            latencies.push_back(static_cast<double>(received[i] - pushed[i]));
    }
    std::sort(consumer_cpu.begin(), consumer_cpu.end());
    if (!consumer_cpu.empty())
        figures.consumer_cpu_us = consumer_cpu[consumer_cpu.size() / 2];
    std::sort(latencies.begin(), latencies.end());
    if (!latencies.empty()) {
        figures.p50_us = latencies[latencies.size() / 2];
        figures.p99_us = latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)];
    }
    std::system(("rm -rf '" + dir + "'").c_str());
    return figures;
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    if (argc >= 6 && std::string(argv[1]) == "consume")
        return consume(argv[2], argv[3], std::atoi(argv[4]), std::string(argv[5]) == "1");
    int frames = 150, width = 3840, height = 2160, rounds = 3;
    std::vector<int> counts = {1, 4, 16};
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--frames")
            frames = std::atoi(argv[i + 1]);
        else if (option == "--rounds")
            rounds = std::max(1, std::atoi(argv[i + 1]));
        else if (option == "--domain")
            domain = argv[i + 1];
        else if (option == "--size")
            std::sscanf(argv[i + 1], "%dx%d", &width, &height);
        else if (option == "--consumers") {
            counts.clear();
            std::stringstream list(argv[i + 1]);
            for (std::string n; std::getline(list, n, ',');)
                counts.push_back(std::atoi(n.c_str()));
        }
    }
    const std::string caps = caps_of(width, height);
    const std::string frame_bytes = std::to_string(static_cast<std::uint64_t>(width) * height * 3 / 2);
    std::vector<Transport> transports;
    if (domain == "cuda") {
        if (!g2g::bench::have_element("cudaupload")) {
            std::printf("bench-ipc --domain cuda: no cudaupload here (the nvcodec plugin and a GPU)\n");
            return 0;
        }
        // Its consumers say they take CUDA memory (a downstream of ANY caps takes system memory).
        transports.push_back({"g2gipc",
                              "g2gipcsink socket-path={socket} sync=false min-consumers={consumers}",
                              "g2gipcsrc name=src socket-path={socket} ! video/x-raw(memory:CUDAMemory)"});
        if (g2g::bench::have_element("cudaipcsink"))
            transports.push_back({"cudaipc", "cudaipcsink address={socket} sync=false",
                                  "cudaipcsrc name=src address={socket}"});
    } else {
        transports.push_back({"g2gipc",
                              "g2gipcsink socket-path={socket} sync=false min-consumers={consumers}",
                              "g2gipcsrc name=src socket-path={socket}"});
        transports.push_back({"shm",
                              "shmsink socket-path={socket} sync=false wait-for-connection=true shm-size=" +
                                  std::to_string(std::stoull(frame_bytes) * 12),
                              "shmsrc name=src is-live=true socket-path={socket} ! " + caps});
    }
    if (domain != "cuda" && g2g::bench::have_element("unixfdsink")) {
        GstElement *probe = gst_element_factory_make("unixfdsink", nullptr);
        const bool waits = g_object_class_find_property(G_OBJECT_GET_CLASS(probe), "wait-for-connection");
        gst_object_unref(gst_object_ref_sink(probe));
        transports.push_back({"unixfd",
                              std::string("unixfdsink socket-path={socket} sync=false") +
                                  (waits ? " wait-for-connection=true" : ""),
                              "unixfdsrc name=src socket-path={socket}"});
    }
    gchar *version = gst_version_string();
    std::printf("bench-ipc: %dx%d NV12 in %s memory, %d frames at 30 fr/s, %s\n", width, height,
                domain.c_str(), frames, version);
    g_free(version);
    // Alternating rounds: each round measures the source alone, then every transport, so that all
    // see the same spells of load on a shared machine; each figure is the median of its rounds.
    std::printf(
        "%d alternating rounds; medians. producer CPU: less the source alone (videotestsrc ! fakesink) "
        "in the same round\n\n",
        rounds);
    std::printf("%-8s %9s %16s %16s %14s %14s %12s %14s\n", "sink", "consumers", "producer CPU us",
                "consumer CPU us", "latency p50 us", "latency p99 us", "least frames", "copies / conv");
    std::vector<std::vector<Figures>> all(transports.size());
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    for (int consumers : counts) {
        std::vector<std::vector<Figures>> by_round(transports.size());
        for (int round = 0; round < rounds; ++round) {
            const double baseline = baseline_cpu_us(frames, width, height);
            for (std::size_t t = 0; t < transports.size(); ++t)
                by_round[t].push_back(
                    run(transports[t], consumers, frames, width, height, argv[0], baseline));
        }
        for (std::size_t t = 0; t < transports.size(); ++t) {
            Figures f = by_round[t][0];
            std::vector<double> cpu, consumer_cpu, p50, p99;
            for (const Figures &r : by_round[t]) {
                cpu.push_back(r.cpu_us);
                consumer_cpu.push_back(r.consumer_cpu_us);
                p50.push_back(r.p50_us);
                p99.push_back(r.p99_us);
                f.least_frames = std::min(f.least_frames, r.least_frames);
            }
            f.cpu_us = median(cpu);
            f.consumer_cpu_us = median(consumer_cpu);
            f.p50_us = median(p50);
            f.p99_us = median(p99);
            all[t].push_back(f);
            std::printf("%-8s %9d %16.0f %16.0f %14.0f %14.0f %9d/%-3d %14s\n", transports[t].name.c_str(),
                        consumers, f.cpu_us, f.consumer_cpu_us, f.p50_us, f.p99_us, f.least_frames, frames,
                        f.copies.c_str());
            std::fflush(stdout);
        }
    }
    std::printf("\npeer / g2gipc (above 1: g2g costs less)\n%-8s %9s %16s %16s %14s\n", "peer", "consumers",
                "producer CPU", "consumer CPU", "latency p50");
    for (std::size_t t = 1; t < transports.size(); ++t)
        for (std::size_t c = 0; c < counts.size(); ++c)
            std::printf("%-8s %9d %15.2fx %15.2fx %13.2fx\n", transports[t].name.c_str(), counts[c],
                        all[t][c].cpu_us / std::max(all[0][c].cpu_us, 1.0),
                        all[t][c].consumer_cpu_us / std::max(all[0][c].consumer_cpu_us, 1.0),
                        all[t][c].p50_us / std::max(all[0][c].p50_us, 1.0));
    return 0;
}
