// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink / g2gipcsrc against GStreamer's own process boundaries, in one run: 4K NV12 frames
// (videotestsrc, live at 30 fr/s, writing into the memory each sink offers upstream)
// to 1, 4 and 16 consumer processes. For each transport and consumer count:
//  - the producer's CPU per frame: this process's user+system time over the stream, less its source
//    thread's (the source runs in a thread of its own, a queue before the sink, and its thread's
//    CPU clock is read as each frame leaves it), less the same for the source into fakesink
//    (measured in the same run): what the sink and its consumers cost it. Subtracting the source's
//    own time, rather than a separate run of it, keeps the figure free of the source's variation
//    (about 1.5 ms a 4K frame, against the sink's 0.1);
//  - the latency from the frame's arrival at the sink to each consumer's receipt (its source pad),
//    both on CLOCK_MONOTONIC, median and 99th percentile over every frame of every consumer;
//  - each consumer's CPU per frame (its process's user+system time over its stream over the frames
//    it received, the median of the consumers), each consumer reading every frame as an application
//    would (mapping it and reading a byte of every page; system memory only);
//  - frames each consumer received, and g2gipcsink's copies and conversions (zero: the frames cross
//    as the producer's memfds);
//  - "watched": of the rings g2gipcsrc's consumers saw, the share they saw while watching in their
//    spin-us window rather than woken by the producer (its stats; "-" for other consumers).
// Every figure leaves out the stream's first frames (--warm, 15; 45 for CUDA; 180 for Vulkan, where
// 16 processes opening NVIDIA's Vulkan device at once took seconds and dropped frames meanwhile;
// --frames is 150 or 90 past the warm-up): what starting costs (a CUDA context or a Vulkan device
// made in each process, plugins loaded, the first pages faulted in) is not a frame's.
// A consumer's frame is matched to the producer's by its timestamp where the transport keeps the
// producer's (g2gipc), so a frame dropped on the way leaves the others' latencies right; by its
// order elsewhere (shmsrc stamps frames anew, unixfdsrc and cudaipcsrc with clock times).
// The peers: shmsink / shmsrc (every version; shmsrc carries no caps, so its consumers state them),
// unixfdsink / unixfdsrc where GStreamer has them (1.24 on).
// With --domain cuda the frames are CUDA memory (cudaupload after the source, measured in the
// baseline too), crossing by g2gipcsink's CUDA IPC handles against cudaipcsink / cudaipcsrc (1.24
// on, where the nvcodec plugin has them).
// With --domain vulkan the frames are Vulkan images (vulkanupload after the source, in the
// baseline too), crossing as g2gipcsink's exportable images: vulkanupload writes into them from
// GStreamer 1.24 on, 1.22's copies each frame into them on the device. No GStreamer element carries
// Vulkan images to another process: g2gipcsink is measured alone (against a build of another
// commit through GST_PLUGIN_PATH). Its consumers take the images (they do not download them).
// With --through DESC, the elements DESC (one gst-launch-1.0 chain, "vulkancolorconvert !
// video/x-raw(memory:VulkanImage),format=RGBA") follow the upload, in every row: an element there that
// writes its frames into the producer's pool (a renderer, g2gmaterialize) is measured with it.
// With --decode FILE, the frames are vulkanh264dec's of the H.264 FILE (its first --frames access
// units, paced at the stream's rate by clocksync), instead of videotestsrc's: the decoder writes into
// the pool g2gipcsink offers from GStreamer 1.24 on. --size is then the stream's.
// With --spin-us N, a row "g2gspin" follows g2gipc's: the same, its consumers with spin-us=N (they
// watch for each frame around its due time instead of sleeping until woken).
// Usage: bench-ipc [--frames N] [--warm N] [--rounds R] [--consumers 1,4,16] [--size WxH]
//                  [--domain system|cuda|vulkan] [--transports g2gipc,g2gspin,shm,unixfd,cudaipc]
//                  [--spin-us N] [--through DESC] [--decode FILE]
//        bench-ipc consume DESCRIPTION OUT FRAMES WARM READ   (a consumer: this program runs itself)
#include <gst/gst.h>

#include <sys/resource.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
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

// Where a stream's frames passed one pad, and the CPU this process had spent when the first frame
// after the warm-up passed it.
struct Passage {
    explicit Passage(int frames, int warm) : warm(warm)
    {
        times.reserve(frames);
        timestamps.reserve(frames);
    }
    int warm;
    std::vector<gint64> times;
    std::vector<GstClockTime> timestamps;
    double cpu_after_warm = -1;
    // The source thread's CPU clock as the frame after the warm-up, and the last frame, left it.
    int source_frames = 0;
    double source_cpu_after_warm = -1, source_cpu_last = -1;

    // The CPU per frame after the warm-up up to now, less the source thread's, in µs; -1 where no
    // frame came after it.
    double cpu_per_frame_us(double cpu_now) const
    {
        const int counted = static_cast<int>(times.size()) - warm;
        if (cpu_after_warm < 0 || counted <= 0 || (source_frames > 0 && source_cpu_after_warm < 0))
            return -1;
        const double source =
            source_frames > 0 ? source_cpu_last - source_cpu_after_warm : 0; // a consumer has none
        return ((cpu_now - cpu_after_warm) - source) * 1e6 / counted;
    }
};

GstPadProbeReturn record_passage(GstPad *, GstPadProbeInfo *info, gpointer data)
{
    auto *passage = static_cast<Passage *>(data);
    if (static_cast<int>(passage->times.size()) == passage->warm)
        passage->cpu_after_warm = cpu_seconds();
    passage->times.push_back(now_us());
    passage->timestamps.push_back(GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info)));
    return GST_PAD_PROBE_OK;
}

double thread_cpu_seconds()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

// On the source's pad, in its thread: that thread's CPU clock as frames leave it.
GstPadProbeReturn record_source(GstPad *, GstPadProbeInfo *, gpointer data)
{
    auto *passage = static_cast<Passage *>(data);
    const double now = thread_cpu_seconds();
    if (passage->source_frames++ == passage->warm)
        passage->source_cpu_after_warm = now;
    passage->source_cpu_last = now;
    return GST_PAD_PROBE_OK;
}

void watch_passage(GstElement *pipeline, const char *element, const char *pad_name, Passage *passage)
{
    GstElement *found = gst_bin_get_by_name(GST_BIN(pipeline), element);
    GstPad *pad = gst_element_get_static_pad(found, pad_name);
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, record_passage, passage, nullptr);
    gst_object_unref(pad);
    gst_object_unref(found);
    // The producer's source thread, where there is one (source_description's "source" queue).
    if (GstElement *queue = gst_bin_get_by_name(GST_BIN(pipeline), "source")) {
        GstPad *in = gst_element_get_static_pad(queue, "sink");
        gst_pad_add_probe(in, GST_PAD_PROBE_TYPE_BUFFER, record_source, passage, nullptr);
        gst_object_unref(in);
        gst_object_unref(queue);
    }
}

// How long a stream of `frames` at 30 fr/s may take before its run is given up: shmsink's
// intermittent stall (a consumer that connected waits forever for its first frame) then costs a
// run its frames (the table's received column says so), not the whole benchmark.
int stream_timeout_s(int frames)
{
    return frames / 30 + 15;
}

// Runs `pipeline` (already PAUSED or not) to EOS or error, at most `timeout_s`; false on error or
// timeout, its error message into `error_text` where given, else printed.
bool play_to_end(GstElement *pipeline, int timeout_s, std::string *error_text = nullptr)
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
        const std::string text = error ? error->message : "?";
        if (error_text)
            *error_text = text;
        else
            std::fprintf(stderr, "error: %s\n", text.c_str());
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
// `out`, its CPU per frame received after its first `warm` (µs; -1 where none came) and its
// source's rings watched and woken (g2gipcsrc's stats; -1 -1 for other sources), then the
// receipt time and timestamp of each frame at the source's pad, a pair per line. With `read`, each
// frame is read at the sink.
int consume(const std::string &description, const std::string &out, int frames, int warm, bool read)
{
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (!pipeline) {
        std::fprintf(stderr, "consumer: %s\n", error ? error->message : "?");
        return 2;
    }
    Passage received(frames, warm);
    watch_passage(pipeline, "src", "src", &received);
    if (read) {
        GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
        GstPad *sink_pad = gst_element_get_static_pad(sink, "sink");
        gst_pad_add_probe(sink_pad, GST_PAD_PROBE_TYPE_BUFFER, read_frame, nullptr, nullptr);
        gst_object_unref(sink_pad);
        gst_object_unref(sink);
    }
    // shmsrc ends in an error when its producer goes, after the last frame: only a consumer that
    // missed frames says why.
    std::string why = "no end within the stream's time";
    if (!play_to_end(pipeline, stream_timeout_s(frames), &why) &&
        static_cast<int>(received.times.size()) < frames)
        std::fprintf(stderr, "a consumer of `%s` received %zu of %d frames: %s\n", description.c_str(),
                     received.times.size(), frames, why.c_str());
    const double cpu_us = received.cpu_per_frame_us(cpu_seconds());
    gint64 watched = -1, woken = -1;
    GstElement *source = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    if (source && g_object_class_find_property(G_OBJECT_GET_CLASS(source), "stats")) {
        GstStructure *stats = nullptr;
        g_object_get(source, "stats", &stats, nullptr);
        guint64 seen = 0, woke = 0;
        if (stats && gst_structure_get_uint64(stats, "rings-watched", &seen) &&
            gst_structure_get_uint64(stats, "rings-woken", &woke)) {
            watched = static_cast<gint64>(seen);
            woken = static_cast<gint64>(woke);
        }
        if (stats)
            gst_structure_free(stats);
    }
    if (source)
        gst_object_unref(source);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    std::ofstream file(out);
    file << static_cast<gint64>(cpu_us) << " " << watched << " " << woken << "\n";
    for (std::size_t i = 0; i < received.times.size(); ++i)
        file << received.times[i] << " " << received.timestamps[i] << "\n";
    return 0;
}

// The floor under every transport's latency on this machine: one process waking another through a
// socket, 30 times a second as the frames come (each wake-up from idle, as a consumer's is). The
// child writes back how long each message took from its sending to its receipt; median and 99th
// percentile in µs, or {-1, -1} where the child could not be made.
std::pair<double, double> wake_floor_us(int messages)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return {-1, -1};
    const pid_t child = fork();
    if (child < 0) {
        close(pair[0]);
        close(pair[1]);
        return {-1, -1};
    }
    if (child == 0) {
        close(pair[0]);
        for (gint64 sent = 0; read(pair[1], &sent, sizeof sent) == sizeof sent;) {
            const gint64 took = now_us() - sent;
            if (write(pair[1], &took, sizeof took) != sizeof took)
                break;
        }
        _exit(0);
    }
    close(pair[1]);
    std::vector<double> took;
    for (int i = 0; i < messages; ++i) {
        g_usleep(33000);
        const gint64 sent = now_us();
        gint64 back = 0;
        if (write(pair[0], &sent, sizeof sent) != sizeof sent ||
            read(pair[0], &back, sizeof back) != sizeof back)
            break;
        took.push_back(static_cast<double>(back));
    }
    close(pair[0]);
    waitpid(child, nullptr, 0);
    if (took.empty())
        return {-1, -1};
    std::sort(took.begin(), took.end());
    return {took[took.size() / 2], took[std::min(took.size() - 1, took.size() * 99 / 100)]};
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
    double cpu_us = NAN;               // per frame, less the baseline
    double consumer_cpu_us = NAN;      // per frame, the median consumer's
    double p50_us = NAN, p99_us = NAN; // latency
    int least_frames = 0;              // after the warm-up, the consumer that received the fewest
    std::string copies = "";           // g2gipcsink's copies and conversions
    double watched = NAN;              // g2gipcsrc: the share of rings its consumers saw watching
};

// The producer: videotestsrc, live at 30 fr/s, writing black frames into the memory each sink
// offers upstream (g2gipcsink's memfds, shmsink's shared area, unixfdsink's memfds), in a thread of
// its own before a queue (named "source": its thread's CPU is subtracted, see the top).
std::string caps_of(int width, int height)
{
    return "video/x-raw,format=NV12,width=" + std::to_string(width) + ",height=" + std::to_string(height) +
           ",framerate=30/1";
}

// "system", "cuda" or "vulkan" (--domain): where the source's frames are.
std::string domain = "system";
// --through: elements after the upload, before the producer's queue ("" where none).
std::string through;
// --decode: the H.264 file vulkanh264dec decodes ("" for videotestsrc).
std::string decoded_file;

std::string source_description(int frames, int width, int height)
{
    std::string upload;
    if (domain == "cuda")
        upload = " ! cudaupload ! video/x-raw(memory:CUDAMemory)";
    else if (domain == "vulkan" && decoded_file.empty())
        upload = " ! vulkanupload ! video/x-raw(memory:VulkanImage)";
    if (!through.empty())
        upload += " ! " + through;
    if (!decoded_file.empty())
        // identity ends the stream in place of unit eos-after: `frames` units pass.
        return "filesrc location=" + decoded_file +
               " ! h264parse ! identity eos-after=" + std::to_string(frames + 1) +
               " ! vulkanh264dec ! video/x-raw(memory:VulkanImage) ! clocksync" + upload +
               " ! queue name=source max-size-buffers=2";
    return "videotestsrc is-live=true pattern=black num-buffers=" + std::to_string(frames) + " ! " +
           caps_of(width, height) + upload + " ! queue name=source max-size-buffers=2";
}

// Plays `pipeline` to its end; the CPU µs a frame this process spent after the warm-up (the frames
// `passage` saw), -1 on error or where no frame came after the warm-up.
double cpu_per_frame_to_end(GstElement *pipeline, int frames, const Passage &passage)
{
    const bool ended = play_to_end(pipeline, stream_timeout_s(frames));
    const double cpu_us = passage.cpu_per_frame_us(cpu_seconds());
    return ended ? cpu_us : -1;
}

double baseline_cpu_us(int frames, int warm, int width, int height)
{
    GstElement *pipeline = gst_parse_launch(
        (source_description(frames, width, height) + " ! fakesink name=sink sync=false").c_str(), nullptr);
    Passage passed(frames, warm);
    watch_passage(pipeline, "sink", "sink", &passed);
    const double cpu_us = cpu_per_frame_to_end(pipeline, frames, passed);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return cpu_us;
}

// The latencies of one consumer's frames after the warm-up, each matched to the producer's by its
// timestamp, or by its order where the transport does not carry the producer's timestamps.
std::vector<double> latencies_of(const std::vector<std::pair<gint64, GstClockTime>> &received,
                                 const Passage &pushed)
{
    std::unordered_map<GstClockTime, std::size_t> index_of;
    for (std::size_t i = 0; i < pushed.timestamps.size(); ++i)
        index_of.emplace(pushed.timestamps[i], i);
    std::vector<double> latencies;
    for (std::size_t i = 0; i < received.size(); ++i) {
        const auto found = index_of.find(received[i].second);
        const std::size_t sent = found != index_of.end() ? found->second : i;
        if (sent >= static_cast<std::size_t>(pushed.warm) && sent < pushed.times.size())
            latencies.push_back(static_cast<double>(received[i].first - pushed.times[sent]));
    }
    return latencies;
}

Figures run(const Transport &transport, int consumers, int frames, int warm, int width, int height,
            const char *self, double baseline)
{
    Figures figures;
    char pattern[] = "/tmp/g2g-bench-ipc-XXXXXX";
    const std::string dir = g_mkdtemp(pattern) ? pattern : "/tmp";
    const std::string socket = dir + "/socket";
    const std::string sink =
        replaced(replaced(transport.sink, "{socket}", socket), "{consumers}", std::to_string(consumers));
    GstElement *pipeline = gst_parse_launch(
        (source_description(frames, width, height) + " ! " + sink + " name=sink").c_str(), nullptr);
    Passage pushed(frames, warm);
    watch_passage(pipeline, "sink", "sink", &pushed);
    GstElement *sink_element = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    // The sink listens from PAUSED; a live source sends nothing before PLAYING.
    gst_element_set_state(pipeline, GST_STATE_PAUSED);
    std::vector<GPid> children;
    for (int c = 0; c < consumers; ++c) {
        const std::string description =
            replaced(transport.source, "{socket}", socket) + " ! fakesink name=sink sync=false";
        const std::string out = dir + "/consumer-" + std::to_string(c);
        const std::string count = std::to_string(frames), warm_count = std::to_string(warm);
        const char *read = domain == "system" ? "1" : "0";
        const gchar *argv[] = {self,        "consume",     description.c_str(),
                               out.c_str(), count.c_str(), warm_count.c_str(),
                               read,        nullptr};
        GPid pid = 0;
        // By PATH where this program was started by its name (a bundle's bin/ on PATH).
        g_spawn_async(nullptr, const_cast<gchar **>(argv), nullptr,
                      static_cast<GSpawnFlags>(G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH), nullptr,
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
    const double cpu_us = cpu_per_frame_to_end(pipeline, frames, pushed);
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
    figures.cpu_us = cpu_us < 0 || baseline < 0 ? NAN : cpu_us - baseline;
    std::vector<double> latencies, consumer_cpu;
    gint64 rings_watched = 0, rings_seen = 0;
    figures.least_frames = frames - warm;
    for (int c = 0; c < consumers; ++c) {
        int status = 0;
        waitpid(children[c], &status, 0);
        g_spawn_close_pid(children[c]);
        std::ifstream file(dir + "/consumer-" + std::to_string(c));
        gint64 cpu = -1, watched = -1, woken = -1;
        if (file >> cpu >> watched >> woken && cpu >= 0)
            consumer_cpu.push_back(static_cast<double>(cpu));
        if (watched >= 0 && woken >= 0) {
            rings_watched += watched;
            rings_seen += watched + woken;
        }
        std::vector<std::pair<gint64, GstClockTime>> received;
        for (std::pair<gint64, GstClockTime> frame; file >> frame.first >> frame.second;)
            received.push_back(frame);
        const std::vector<double> mine = latencies_of(received, pushed);
        figures.least_frames = std::min(figures.least_frames, static_cast<int>(mine.size()));
        latencies.insert(latencies.end(), mine.begin(), mine.end());
    }
    if (rings_seen > 0)
        figures.watched = static_cast<double>(rings_watched) / static_cast<double>(rings_seen);
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
    if (argc >= 7 && std::string(argv[1]) == "consume")
        return consume(argv[2], argv[3], std::atoi(argv[4]), std::atoi(argv[5]), std::string(argv[6]) == "1");
    int frames = -1, warm = -1, width = 3840, height = 2160, rounds = 3;
    std::vector<int> counts = {1, 4, 16};
    std::string only; // --transports: the names to run, comma-separated (all where empty)
    int spin_us = 0;  // --spin-us: the g2gspin row's consumers' window (no such row where 0)
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--frames")
            frames = std::atoi(argv[i + 1]);
        else if (option == "--warm")
            warm = std::max(0, std::atoi(argv[i + 1]));
        else if (option == "--rounds")
            rounds = std::max(1, std::atoi(argv[i + 1]));
        else if (option == "--domain")
            domain = argv[i + 1];
        else if (option == "--through")
            through = argv[i + 1];
        else if (option == "--decode") {
            decoded_file = argv[i + 1];
            domain = "vulkan";
        } else if (option == "--spin-us")
            spin_us = std::max(0, std::atoi(argv[i + 1]));
        else if (option == "--transports")
            only = "," + std::string(argv[i + 1]) + ",";
        else if (option == "--size")
            std::sscanf(argv[i + 1], "%dx%d", &width, &height);
        else if (option == "--consumers") {
            counts.clear();
            std::stringstream list(argv[i + 1]);
            for (std::string n; std::getline(list, n, ',');)
                counts.push_back(std::atoi(n.c_str()));
        }
    }
    if (warm < 0)
        warm = domain == "system" ? 15 : domain == "cuda" ? 45 : 180;
    if (frames < 0)
        frames = std::max(150, warm + 90);
    if (frames <= warm) {
        std::fprintf(stderr, "bench-ipc: --frames %d leaves nothing after the warm-up of %d\n", frames, warm);
        return 2;
    }
    if (!g2g::bench::have_element("g2gipcsink")) {
        std::fprintf(stderr, "bench-ipc: no g2gipcsink (GST_PLUGIN_PATH names g2g's build/gst?)\n");
        return 2;
    }
    const std::string caps = caps_of(width, height);
    const std::string frame_bytes = std::to_string(static_cast<std::uint64_t>(width) * height * 3 / 2);
    std::vector<Transport> transports;
    // The device domains need their upload element; g2g's consumers there say which memory they
    // take (a downstream of ANY caps takes system memory).
    const char *upload = !decoded_file.empty() ? "vulkanh264dec"
                         : domain == "cuda"    ? "cudaupload"
                         : domain == "vulkan"  ? "vulkanupload"
                                               : nullptr;
    if (upload && !g2g::bench::have_element(upload)) {
        std::printf("bench-ipc --domain %s: no %s here\n", domain.c_str(), upload);
        return 0;
    }
    // The memory the frames are in at the sink: the last the source's chain names (--through may
    // move them: "g2gconvert ! video/x-raw(memory:VulkanImage)" after cudaupload).
    const std::string chain = source_description(frames, width, height);
    const std::size_t cuda_at = chain.rfind("memory:CUDAMemory"),
                      vulkan_at = chain.rfind("memory:VulkanImage");
    const bool cuda_frames =
        cuda_at != std::string::npos && (vulkan_at == std::string::npos || cuda_at > vulkan_at);
    const bool vulkan_frames = vulkan_at != std::string::npos && !cuda_frames;
    const std::string taken = cuda_frames     ? " ! video/x-raw(memory:CUDAMemory)"
                              : vulkan_frames ? " ! video/x-raw(memory:VulkanImage)"
                                              : "";
    transports.push_back({"g2gipc", "g2gipcsink socket-path={socket} sync=false min-consumers={consumers}",
                          "g2gipcsrc name=src socket-path={socket}" + taken});
    if (cuda_frames && g2g::bench::have_element("cudaipcsink"))
        transports.push_back(
            {"cudaipc", "cudaipcsink address={socket} sync=false", "cudaipcsrc name=src address={socket}"});
    // No GStreamer element carries Vulkan images to another process.
    if (domain == "system")
        transports.push_back({"shm",
                              "shmsink socket-path={socket} sync=false wait-for-connection=true shm-size=" +
                                  std::to_string(std::stoull(frame_bytes) * 12),
                              "shmsrc name=src is-live=true socket-path={socket} ! " + caps});
    if (domain == "system" && g2g::bench::have_element("unixfdsink")) {
        GstElement *probe = gst_element_factory_make("unixfdsink", nullptr);
        const bool waits = g_object_class_find_property(G_OBJECT_GET_CLASS(probe), "wait-for-connection");
        gst_object_unref(gst_object_ref_sink(probe));
        transports.push_back({"unixfd",
                              std::string("unixfdsink socket-path={socket} sync=false") +
                                  (waits ? " wait-for-connection=true" : ""),
                              "unixfdsrc name=src socket-path={socket}"});
    }
    // The same sink, its consumers watching for each frame around its due time.
    if (spin_us > 0) {
        Transport spinning = transports.front();
        spinning.name = "g2gspin";
        spinning.source = replaced(spinning.source, "g2gipcsrc name=src",
                                   "g2gipcsrc name=src spin-us=" + std::to_string(spin_us));
        transports.insert(transports.begin() + 1, spinning);
    }
    if (!only.empty())
        transports.erase(std::remove_if(transports.begin(), transports.end(),
                                        [&](const Transport &t) {
                                            return only.find("," + t.name + ",") == std::string::npos;
                                        }),
                         transports.end());
    if (transports.empty()) {
        std::fprintf(stderr, "bench-ipc: no transport of --transports here\n");
        return 2;
    }
    gchar *version = gst_version_string();
    std::printf("bench-ipc: %dx%d NV12 in %s memory%s%s, %d frames at 30 fr/s, the first %d left out, %s\n",
                width, height, domain.c_str(), through.empty() ? "" : ", through ", through.c_str(), frames,
                warm, version);
    g_free(version);
    const auto [floor_p50, floor_p99] = wake_floor_us(90);
    std::printf("the floor: a process woken through a socket by another, 30 times a second: p50 %.0f us, "
                "p99 %.0f us\n",
                floor_p50, floor_p99);
    // Alternating rounds: each round measures the source alone, then every transport, so that all
    // see the same spells of load on a shared machine; each figure is the median of its rounds.
    std::printf(
        "%d alternating rounds; medians. producer CPU: less its source thread's, and less the same of "
        "the source into fakesink in the same round\n\n",
        rounds);
    std::printf("%-8s %9s %16s %16s %14s %14s %12s %14s %8s\n", "sink", "consumers", "producer CPU us",
                "consumer CPU us", "latency p50 us", "latency p99 us", "least frames", "copies / conv",
                "watched");
    std::vector<std::vector<Figures>> all(transports.size());
    // Of the rounds that gave the figure (a round whose stream failed gives none).
    const auto median = [](std::vector<double> v) {
        v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
        std::sort(v.begin(), v.end());
        return v.empty() ? NAN : v[v.size() / 2];
    };
    for (int consumers : counts) {
        std::vector<std::vector<Figures>> by_round(transports.size());
        for (int round = 0; round < rounds; ++round) {
            const double baseline = baseline_cpu_us(frames, warm, width, height);
            for (std::size_t t = 0; t < transports.size(); ++t)
                by_round[t].push_back(
                    run(transports[t], consumers, frames, warm, width, height, argv[0], baseline));
        }
        for (std::size_t t = 0; t < transports.size(); ++t) {
            Figures f = by_round[t][0];
            std::vector<double> cpu, consumer_cpu, p50, p99, watched;
            for (const Figures &r : by_round[t]) {
                watched.push_back(r.watched);
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
            f.watched = median(watched);
            all[t].push_back(f);
            // "watched": the rings g2gipcsrc's consumers saw while watching (spin-us), of all they saw.
            const std::string watched_text =
                std::isnan(f.watched) ? "-"
                                      : std::to_string(static_cast<int>(std::lround(f.watched * 100))) + "%";
            std::printf("%-8s %9d %16.0f %16.0f %14.0f %14.0f %9d/%-3d %14s %8s\n",
                        transports[t].name.c_str(), consumers, f.cpu_us, f.consumer_cpu_us, f.p50_us,
                        f.p99_us, f.least_frames, frames - warm, f.copies.c_str(), watched_text.c_str());
            std::fflush(stdout);
        }
    }
    if (transports[0].name != "g2gipc")
        return 0;
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
