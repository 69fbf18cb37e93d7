// g2gtee against tee, in one run, as ratios: per-frame cost of the fan-out with 1, 4 and 16
// branches into fakesink (small buffers, so the fan-out itself is what is measured).
#include <gst/gst.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Seconds per buffer for `frames` buffers through fakesrc ! TEE ! N x fakesink; best of 3. The
// sinks neither sync nor preroll (async=false), so no branch needs a queue.
double per_frame(const char *tee, int branches, int frames)
{
    std::string description = "fakesrc num-buffers=" + std::to_string(frames) +
                              " sizetype=fixed sizemax=64 filltype=zero ! " + tee + " name=t";
    for (int i = 0; i < branches; ++i)
        description += " t. ! fakesink sync=false async=false";
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
        GstElement *pipeline = gst_parse_launch(description.c_str(), nullptr);
        const auto start = std::chrono::steady_clock::now();
        gst_element_set_state(pipeline, GST_STATE_PLAYING);
        GstBus *bus = gst_element_get_bus(pipeline);
        GstMessage *message = gst_bus_timed_pop_filtered(
            bus, GST_CLOCK_TIME_NONE, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        gst_message_unref(message);
        gst_object_unref(bus);
        gst_element_set_state(pipeline, GST_STATE_NULL);
        gst_object_unref(pipeline);
        best = std::min(best, took.count() / frames);
    }
    return best;
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    const int frames = argc > 1 ? std::atoi(argv[1]) : 100000;
    std::printf("Fan-out per frame, fakesrc (64-byte buffers) ! TEE ! N x fakesink, best of 3 runs of %d\n",
                frames);
    std::printf("%-9s %12s %12s %10s\n", "branches", "g2gtee us", "tee us", "g2g/tee");
    for (int branches : {1, 4, 16}) {
        const double ours = per_frame("g2gtee", branches, frames);
        const double peer = per_frame("tee", branches, frames);
        std::printf("%-9d %12.3f %12.3f %9.2fx\n", branches, ours * 1e6, peer * 1e6, ours / peer);
    }
    gst_deinit();
    return 0;
}
