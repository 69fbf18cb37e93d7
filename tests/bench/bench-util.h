// SPDX-License-Identifier: LGPL-2.1-or-later
// Timing helpers for the benchmark programs: best-of-N wall time, machine-noise tolerant, and
// whole pipelines run to EOS.
#pragma once

#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace g2g::bench {

// Where the tables also go as CSV files (--csv DIR), for the plot scripts; empty: nowhere.
// Whether this machine has an element of `factory` (a peer a figure needs).
inline bool have_element(const char *factory)
{
    GstElementFactory *found = gst_element_factory_find(factory);
    if (found)
        gst_object_unref(found);
    return found != nullptr;
}

inline std::string &csv_dir()
{
    static std::string dir;
    return dir;
}

// The CSV file `name` in csv_dir() (made if missing), or nullptr without --csv. A file that cannot be
// written is said on stderr: a run's figures are not to be lost silently.
inline FILE *open_csv(const char *name)
{
    if (csv_dir().empty())
        return nullptr;
    g_mkdir_with_parents(csv_dir().c_str(), 0755);
    const std::string path = csv_dir() + "/" + name;
    FILE *file = std::fopen(path.c_str(), "w");
    if (!file)
        std::fprintf(stderr, "cannot write %s: the table is printed only\n", path.c_str());
    return file;
}

// Takes a leading "--csv DIR" off the arguments; returns the index of the next argument.
inline int take_csv_option(int argc, char **argv)
{
    if (argc > 2 && std::string(argv[1]) == "--csv") {
        csv_dir() = argv[2];
        return 3;
    }
    return 1;
}

// Seconds per call of `body`: the best of `rounds` rounds of `calls` calls each (the best round
// is the one least disturbed by the rest of a shared machine).
inline double seconds_per_call(const std::function<void()> &body, int calls, int rounds = 5)
{
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            body();
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count() / calls);
    }
    return best;
}

// Seconds per call of each of `bodies`, measured in alternating rounds (best of `rounds`
// each): all see the same spells of load on a shared machine, so their ratios are steadier
// than those of figures taken one after the other. Each round starts with an untimed call: a
// round must not be charged for what the previous one left behind (a memcpy leaves its whole
// output dirty in the cache, to be written back by whoever runs next).
// `calls` holds each body's calls per round.
inline std::vector<double> alternating_seconds_per_call(const std::vector<std::function<void()>> &bodies,
                                                        const std::vector<int> &calls, int rounds = 9)
{
    std::vector<double> best(bodies.size(), 1e30);
    for (int r = 0; r < rounds; ++r) {
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            bodies[i]();
            best[i] = std::min(best[i], seconds_per_call(bodies[i], calls[i], 1));
        }
    }
    return best;
}

// The same, every body `calls` times per round.
inline std::vector<double> alternating_seconds_per_call(const std::vector<std::function<void()>> &bodies,
                                                        int calls, int rounds = 9)
{
    return alternating_seconds_per_call(bodies, std::vector<int>(bodies.size(), calls), rounds);
}

// The same for two: ours and a peer.
inline std::pair<double, double> paired_seconds_per_call(const std::function<void()> &ours,
                                                         const std::function<void()> &peer, int calls,
                                                         int rounds = 9)
{
    const std::vector<double> best = alternating_seconds_per_call({ours, peer}, calls, rounds);
    return {best[0], best[1]};
}

// The items of a comma-separated list (empty ones left out): a benchmark's --formats, --sizes...
inline std::vector<std::string> split(const std::string &list)
{
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start)
            items.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

// Where the sample stream `file` is: in $G2G_MEDIA_DIR (the GPU machine's .media), ./.media or
// ../shared/media; "" when in none.
inline std::string media_path(const std::string &file)
{
    for (const char *dir : {g_getenv("G2G_MEDIA_DIR"), ".media", "../shared/media"}) {
        if (!dir)
            continue;
        const std::string path = std::string(dir) + "/" + file;
        if (g_file_test(path.c_str(), G_FILE_TEST_EXISTS))
            return path;
    }
    return {};
}

// Runs the gst-launch `description` to EOS and returns the seconds it took; `inspect` sees the
// pipeline at EOS (to read an element's stats). A parse error, an error message or no EOS within
// `limit` ends the benchmark, saying which: a figure of a failed run would be meaningless, and a
// stalled peer (GStreamer 1.26's tee into three vulkandownloads on lavapipe) must not hang it.
inline double run_to_eos(const std::string &description, const std::function<void(GstBin *)> &inspect = {},
                         GstClockTime limit = 120 * GST_SECOND)
{
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (error) {
        std::fprintf(stderr, "cannot run %s: %s\n", description.c_str(), error->message);
        std::exit(1);
    }
    const auto start = std::chrono::steady_clock::now();
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, limit, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (!message) {
        // A stalled pipeline may not stop either: say so and leave.
        std::printf("%s: no EOS within %.0f s: the benchmark stops here\n", description.c_str(),
                    double(limit) / GST_SECOND);
        std::fflush(stdout);
        std::_Exit(3);
    }
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        GError *failure = nullptr;
        gst_message_parse_error(message, &failure, nullptr);
        std::fprintf(stderr, "%s failed: %s\n", description.c_str(), failure->message);
        std::exit(1);
    }
    if (inspect)
        inspect(GST_BIN(pipeline));
    gst_message_unref(message);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return took.count();
}

} // namespace g2g::bench
