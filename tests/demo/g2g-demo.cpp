// The main job: real GStreamer producers, each followed by g2gprobe, and what domain their
// frames live in; then the loud error a wrong-domain frame gets.
#include <gst/gst.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Scene {
    const char *what;
    std::string pipeline; // must contain a g2gprobe named "probe"
    const char *needs;    // an element factory this scene needs, or nullptr
};

struct Outcome {
    std::string domain;
    std::string error;
};

Outcome play(const std::string &description, const char *probe_name = "probe")
{
    Outcome outcome;
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (error) {
        outcome.error = error->message;
        g_error_free(error);
        if (pipeline)
            gst_object_unref(pipeline);
        return outcome;
    }
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (!message) {
        outcome.error = "timed out";
    } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        GError *failure = nullptr;
        gst_message_parse_error(message, &failure, nullptr);
        outcome.error = failure->message;
        g_error_free(failure);
    }
    if (message)
        gst_message_unref(message);
    GstElement *probe = gst_bin_get_by_name(GST_BIN(pipeline), probe_name);
    gchar *domain = nullptr;
    g_object_get(probe, "last-domain", &domain, nullptr);
    outcome.domain = domain ? domain : "";
    g_free(domain);
    gst_object_unref(probe);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
    return outcome;
}

bool have(const char *factory)
{
    if (!factory)
        return true;
    GstElementFactory *found = gst_element_factory_find(factory);
    if (found)
        gst_object_unref(found);
    return found != nullptr;
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    const std::string rgba = "video/x-raw,format=RGBA,width=320,height=240";
    // Vulkan scenes end in vulkandownload: GStreamer 1.22 on lavapipe can crash tearing down a
    // pipeline that drops VulkanImage frames without waiting for the device.
    const std::vector<Scene> scenes = {
        {"videotestsrc", "videotestsrc num-buffers=10 ! " + rgba + " ! g2gprobe name=probe ! fakesink",
         nullptr},
        {"videotestsrc ! vulkanupload (lavapipe)",
         "videotestsrc num-buffers=10 ! " + rgba +
             " ! vulkanupload ! video/x-raw(memory:VulkanImage) ! g2gprobe name=probe ! vulkandownload ! "
             "fakesink",
         "vulkanupload"},
        {"... ! vulkandownload",
         "videotestsrc num-buffers=10 ! " + rgba +
             " ! vulkanupload ! vulkandownload ! g2gprobe name=probe ! fakesink",
         "vulkanupload"},
        {"videotestsrc ! cudaupload (NVIDIA GPU)",
         "videotestsrc num-buffers=10 ! video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "
         "video/x-raw(memory:CUDAMemory) "
         "! g2gprobe name=probe ! cudadownload ! fakesink",
         "cudaupload"},
    };

    std::printf("g2g demo: where do frames live?\n\n");
    std::printf("  %-42s %s\n", "producer", "domain (g2gprobe last-domain)");
    std::printf("  %-42s %s\n", "--------", "-----------------------------");
    for (const Scene &scene : scenes) {
        if (!have(scene.needs)) {
            std::printf("  %-42s (skipped: no %s on this machine)\n", scene.what, scene.needs);
            continue;
        }
        Outcome outcome = play(scene.pipeline);
        if (outcome.error.empty())
            std::printf("  %-42s %s\n", scene.what, outcome.domain.c_str());
        else
            std::printf("  %-42s (not available here: %s)\n", scene.what, outcome.error.c_str());
    }

    std::printf("\nA wrong-domain frame is refused loudly, with the fix:\n");
    std::printf("  $ gst-launch-1.0 videotestsrc ! vulkanupload ! g2gprobe name=cpureader "
                "require=system+system-view ! ...\n");
    Outcome refused = play("videotestsrc num-buffers=3 ! " + rgba +
                               " ! vulkanupload ! video/x-raw(memory:VulkanImage) ! g2gprobe name=cpureader "
                               "require=system+system-view "
                               "! vulkandownload ! fakesink",
                           "cpureader");
    std::printf("  ERROR: %s\n",
                refused.error.empty() ? "(none: no Vulkan device here)" : refused.error.c_str());
    gst_deinit();
    return 0;
}
