// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: run real GStreamer pipelines and look at what came out.
#pragma once

#include <gst/gst.h>

#include <g2g/gst-ref.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace g2g::test {

// True when the element factory exists on this machine (a plugin that may be missing).
bool have_element(const char *factory);

// True when vulkanupload can make a VulkanImage frame here (a Vulkan driver such as lavapipe).
bool have_vulkan_device();

// "GStreamer 1.26.2": the version the tests run against, for messages.
std::string gstreamer_version();

// Why the Vulkan domain is not in this build, where this GStreamer has none either ("" otherwise):
// Debian builds its 1.28 plugins-bad without Vulkan (no gstreamer-vulkan-1.0, no vulkanupload).
std::string vulkan_not_in_gstreamer();
// Why the Vulkan domain is missing from this build although this GStreamer has it ("" otherwise):
// a domain lost where GStreamer has it is a failure, not a skip.
std::string vulkan_domain_lost();

// Fails where this build lost the Vulkan domain its GStreamer has; skips, saying what is missing,
// where this GStreamer has no Vulkan.
#define SKIP_WITHOUT_VULKAN_DOMAIN()                                                                         \
    do {                                                                                                     \
        if (const std::string lost = g2g::test::vulkan_domain_lost(); !lost.empty())                         \
            FAIL() << lost;                                                                                  \
        if (const std::string missing = g2g::test::vulkan_not_in_gstreamer(); !missing.empty())              \
            GTEST_SKIP() << missing;                                                                         \
    } while (false)

// The same, and skips where no Vulkan device runs GStreamer's vulkanupload and vulkandownload.
#define SKIP_WITHOUT_VULKAN()                                                                                \
    do {                                                                                                     \
        SKIP_WITHOUT_VULKAN_DOMAIN();                                                                        \
        if (!g2g::test::have_vulkan_device())                                                                \
            GTEST_SKIP() << "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)";            \
    } while (false)

// True when a CUDA device and the nvcodec plugin's cudaupload are usable.
bool have_cuda_device();

// A sample stream from the project's media (G2G_MEDIA_DIR, else .media/ or ../shared/media
// beside the source tree), or "" when it is not on this machine.
std::string media_path(const char *file);

struct PipelineRun {
    std::vector<BufferRef> buffers;                             // what appsink "sink" received, in order
    std::map<std::string, std::vector<BufferRef>> sinks;        // what every appsink received, by name
    std::map<std::string, std::string> sink_caps;               // the caps of each appsink's last sample
    std::map<std::string, std::vector<std::string>> frame_caps; // the caps of each sample, by appsink
    std::string error;                 // the first error message, empty when the run reached EOS
    std::string error_source;          // name of the element that posted it
    std::vector<std::string> warnings; // every warning message posted, in order
};

using BufferTap = std::function<void(GstBuffer *)>;
using PipelineInspector = std::function<void(GstBin *)>;

// Parses and runs `description` to EOS or the first error (at most timeout). Buffers reaching
// an appsink are kept, every one. `tap`, when given, sees each buffer that enters the element
// named "tap" while the pipeline runs (for frames that must not outlive it). `inspect`, when
// given, sees the pipeline at EOS or error, before it stops (to read an element's stats); `prepare`,
// when given, sees it before it starts (to add probes or set contexts).
// The pipeline gst_parse_launch makes of `description`; empty, `error` set to "parse: <why>", when it
// makes none.
ElementRef parse_pipeline(const std::string &description, std::string &error);

PipelineRun run_pipeline(const std::string &description, const BufferTap &tap = {},
                         GstClockTime timeout = 20 * GST_SECOND, const PipelineInspector &inspect = {},
                         const PipelineInspector &prepare = {});

// A `prepare` for run_pipeline: hands `frames` to the appsrc named `source` (caps `caps`) before the
// pipeline starts, then its EOS.
PipelineInspector feed_appsrc(const std::string &caps, std::vector<BufferRef> frames,
                              const char *source = "src");

// The bytes of every frame of `frames`, one after the other (what a filesink of them writes).
std::string bytes_of(const std::vector<BufferRef> &frames);

// The text of an error or warning message; "" for any other message.
std::string message_text(GstMessage *message);

// "<source>: <text>" of an error or warning message: which element said it, and what.
std::string message_with_source(GstMessage *message);

// The text of the first message of `type` (GST_MESSAGE_ERROR or GST_MESSAGE_WARNING) waiting on
// `bus`, popped, or "" when none waits.
std::string pop_message_text(GstBus *bus, GstMessageType type);

// The texts of every such message waiting on `bus`, popped, in order.
std::vector<std::string> pop_message_texts(GstBus *bus, GstMessageType type);

} // namespace g2g::test
