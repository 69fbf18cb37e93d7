// SPDX-License-Identifier: LGPL-2.1-or-later
// The main job: real GStreamer producers, each followed by g2gprobe, and what domain their
// frames live in; the loud error a wrong-domain frame gets; rotations and crops as zero-copy
// views, with a PNG of each result (argv[1]: the folder for the pictures).
#include <gst/gst.h>

#include "vulkan-teardown.h"

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

// Counts frames whose memory leaving g2gview ("view") is the memory that entered it.
struct SharedMemoryCount {
    GstMemory *entered = nullptr;
    int frames = 0;
    int shared = 0;
};

GstPadProbeReturn remember_memory(GstPad *, GstPadProbeInfo *info, gpointer data)
{
    static_cast<SharedMemoryCount *>(data)->entered =
        gst_buffer_peek_memory(GST_PAD_PROBE_INFO_BUFFER(info), 0);
    return GST_PAD_PROBE_OK;
}

GstPadProbeReturn compare_memory(GstPad *, GstPadProbeInfo *info, gpointer data)
{
    auto *count = static_cast<SharedMemoryCount *>(data);
    ++count->frames;
    if (gst_buffer_peek_memory(GST_PAD_PROBE_INFO_BUFFER(info), 0) == count->entered)
        ++count->shared;
    return GST_PAD_PROBE_OK;
}

Outcome play(const std::string &description, const char *probe_name = "probe",
             SharedMemoryCount *count = nullptr)
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
    if (count) {
        GstElement *view = gst_bin_get_by_name(GST_BIN(pipeline), "view");
        GstPad *sink = gst_element_get_static_pad(view, "sink");
        GstPad *src = gst_element_get_static_pad(view, "src");
        gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, remember_memory, count, nullptr);
        gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, compare_memory, count, nullptr);
        gst_object_unref(sink);
        gst_object_unref(src);
        gst_object_unref(view);
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
    g2g::test::wait_for_vulkan_devices(GST_BIN(pipeline));
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

// The H.264 sample (G2G_MEDIA_DIR, .media/ or ../shared/media), or "" when absent.
std::string sample_stream()
{
    const char *env = g_getenv("G2G_MEDIA_DIR");
    for (std::string dir :
         {std::string(env ? env : ""), std::string(".media"), std::string("../shared/media")}) {
        const std::string path = dir + "/ball-1920x1080-300f.h264";
        if (!dir.empty() && g_file_test(path.c_str(), G_FILE_TEST_IS_REGULAR))
            return path;
    }
    return {};
}

guint64 field(const GstStructure *s, const char *name)
{
    guint64 value = 0;
    gst_structure_get_uint64(s, name, &value);
    return value;
}

// One source (the best this machine has: CUDA-decoded H.264, Vulkan frames, system memory),
// g2gtee to branches in different domains and views; a PNG per branch and the tee's stats:
// shares copy nothing, and each target domain costs one conversion per frame.
void fan_out(const std::string &pictures)
{
    struct Source {
        const char *what;
        std::string pipeline;
        const char *gpu_branch; // the branch that takes the source's own domain, or nullptr
        const char *gpu_what;
    };
    const std::string sample = sample_stream();
    std::vector<Source> sources;
    if (have("nvh264dec") && !sample.empty())
        sources.push_back(
            {"H.264 sample ! nvh264dec (CUDA frames)",
             "filesrc location=" + sample +
                 " ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory) ! identity eos-after=30",
             "cudadownload", "Cuda branch (cudadownload ! pngenc)"});
    if (have("vulkanupload"))
        sources.push_back(
            {"videotestsrc ! vulkanupload (VulkanImage frames, lavapipe)",
             "videotestsrc num-buffers=30 pattern=smpte ! video/x-raw,format=RGBA,width=320,height=240 "
             "! vulkanupload",
             "vulkandownload", "Vulkan branch (vulkandownload ! pngenc)"});
    sources.push_back(
        {"videotestsrc (system memory)",
         "videotestsrc num-buffers=30 pattern=smpte ! video/x-raw,format=RGBA,width=320,height=240", nullptr,
         nullptr});

    std::printf("\nFan-out: one source, g2gtee, branches that each take their own domain.\n");
    for (const Source &source : sources) {
        // Each system branch says it reads system memory (video/x-raw): g2gtee then downloads a
        // GPU frame once for all of them.
        auto branch = [&](const char *name, const std::string &chain) {
            const bool system = std::string(name) != "gpu";
            return " t. ! queue ! " + std::string(system ? "video/x-raw ! " : "") + "g2gprobe name=" + name +
                   " ! " + chain +
                   " ! videoconvert ! pngenc compression-level=1 ! multifilesink location=" + pictures +
                   "/tee-" + name + ".png"; // every frame, the last one stays
        };
        std::string description = source.pipeline + " ! g2gtee name=t" +
                                  branch("rotate", "g2gview video-direction=90r ! g2gmaterialize") +
                                  branch("crop", "g2gview left=80 right=80 top=60 bottom=60") +
                                  branch("dense", "identity");
        if (source.gpu_branch)
            description += branch("gpu", source.gpu_branch);
        std::printf("  source: %s\n", source.what);

        GError *error = nullptr;
        GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
        if (error) {
            std::printf("    (not available here: %s)\n", error->message);
            g_error_free(error);
            if (pipeline)
                gst_object_unref(pipeline);
            continue;
        }
        gst_element_set_state(pipeline, GST_STATE_PLAYING);
        GstBus *bus = gst_element_get_bus(pipeline);
        GstMessage *message = gst_bus_timed_pop_filtered(
            bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
        std::string failure = message ? "" : "timed out";
        if (message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
            GError *err = nullptr;
            gst_message_parse_error(message, &err, nullptr);
            failure = err->message;
            g_error_free(err);
        }
        if (message)
            gst_message_unref(message);
        const bool ran = failure.empty();
        if (!ran) {
            std::printf("    (not available here: %s)\n", failure.c_str());
        } else {
            const std::pair<const char *, const char *> probes[] = {
                {"rotate", "view branch (g2gview 90r ! g2gmaterialize)"},
                {"crop", "crop branch (g2gview left/right/top/bottom)"},
                {"dense", "dense branch (videoconvert ! pngenc)"},
                {"gpu", source.gpu_what}};
            for (const auto &[name, what] : probes) {
                GstElement *probe = gst_bin_get_by_name(GST_BIN(pipeline), name);
                if (!probe)
                    continue;
                gchar *domain = nullptr;
                g_object_get(probe, "last-domain", &domain, nullptr);
                std::printf("    %-46s received %-14s %s/tee-%s.png\n", what, domain ? domain : "?",
                            pictures.c_str(), name);
                g_free(domain);
                gst_object_unref(probe);
            }
            GstElement *tee = gst_bin_get_by_name(GST_BIN(pipeline), "t");
            GstStructure *stats = nullptr;
            g_object_get(tee, "stats", &stats, nullptr);
            const GstStructure *by_pair =
                gst_value_get_structure(gst_structure_get_value(stats, "conversions-by-pair"));
            std::string pairs;
            for (int i = 0; i < gst_structure_n_fields(by_pair); ++i) {
                const char *pair = gst_structure_nth_field_name(by_pair, i);
                pairs += (pairs.empty() ? "" : ", ") + std::string(pair) + " " +
                         std::to_string(field(by_pair, pair));
            }
            std::printf("    g2gtee stats: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
                        " shares, %" G_GUINT64_FORMAT " copies, %" G_GUINT64_FORMAT
                        " conversions (%s), %" G_GUINT64_FORMAT " bytes converted\n",
                        field(stats, "frames"), field(stats, "shares"), field(stats, "copies"),
                        field(stats, "conversions"), pairs.empty() ? "none needed" : pairs.c_str(),
                        field(stats, "bytes-converted"));
            gst_structure_free(stats);
            gst_object_unref(tee);
        }
        g2g::test::wait_for_vulkan_devices(GST_BIN(pipeline));
        gst_element_set_state(pipeline, GST_STATE_NULL);
        gst_object_unref(bus);
        gst_object_unref(pipeline);
        if (ran)
            break; // the best source this machine has; the pictures are its
    }
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
        {"videotestsrc ! g2gdmabufupload",
         "videotestsrc num-buffers=10 ! " + rgba + " ! g2gdmabufupload ! g2gprobe name=probe ! fakesink",
         "g2gdmabufupload"},
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

    // Views: g2gview hands the frame on as strides over the same memory; g2gmaterialize writes
    // the one dense copy the PNG encoder needs.
    const std::string pictures = argc > 1 ? argv[1] : ".";
    g_mkdir_with_parents(pictures.c_str(), 0755);
    struct ViewScene {
        const char *what;
        const char *properties;
        const char *file;
    };
    const ViewScene views[] = {
        {"rotate 90 degrees clockwise", "video-direction=90r", "view-rotate-90r.png"},
        {"crop 80,60,100,40 (left,top,right,bottom)", "left=80 top=60 right=100 bottom=40", "view-crop.png"},
        {"crop, then the upper-right diagonal flip", "left=40 right=40 video-direction=ur-ll",
         "view-crop-ur-ll.png"},
    };
    // The same views of Vulkan images: the view keeps vulkanupload's images, g2gmaterialize writes
    // the dense frame with a compute shader on the GPU, vulkandownload reads it back for the PNG.
    struct ViewDomain {
        const char *title;
        const char *upload;   // after the source
        const char *download; // after g2gmaterialize
        const char *prefix;   // of the picture's file name
    };
    std::vector<ViewDomain> domains = {{"system memory", "", "", ""}};
    // DMA-BUFs that map (g2g's allocator: dma-heap, udmabuf or memfd) are viewed in place as well.
    if (have("g2gdmabufupload"))
        domains.push_back({"DMA-BUFs (videotestsrc writes into g2gdmabufupload's pool)", " ! g2gdmabufupload",
                           "", "dmabuf-"});
    if (have("vulkanupload"))
        domains.push_back({"Vulkan images (lavapipe or the GPU's driver)", " ! vulkanupload",
                           " ! vulkandownload", "vulkan-"});
    std::printf("\nFlips, rotations and crops are views: strides over the same memory, zero bytes copied.\n");
    for (const ViewDomain &d : domains) {
        std::printf("  %s\n  %-44s %-14s %-20s %s\n", d.title, "g2gview", "domain", "memory shared",
                    "picture");
        for (const ViewScene &v : views) {
            const std::string path = pictures + "/" + d.prefix + v.file;
            SharedMemoryCount count;
            Outcome outcome =
                play("videotestsrc num-buffers=1 pattern=smpte ! " + rgba + d.upload +
                         " ! g2gview name=view " + v.properties + " ! g2gprobe name=probe ! g2gmaterialize" +
                         d.download + " ! videoconvert ! pngenc snapshot=true ! filesink location=" + path,
                     "probe", &count);
            if (!outcome.error.empty()) {
                std::printf("  %-44s failed: %s\n", v.what, outcome.error.c_str());
                continue;
            }
            std::printf("  %-44s %-14s %d of %d frames%6s %s\n", v.what, outcome.domain.c_str(), count.shared,
                        count.frames, "", path.c_str());
        }
    }
    fan_out(pictures);
    gst_deinit();
    return 0;
}
