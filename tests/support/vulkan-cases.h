// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: cases of a chain behind vulkanupload checked against GStreamer's own elements, many
// cases in one pipeline. A case is a source (videotestsrc's snow, the same frames in every chain),
// our chain after vulkanupload, and the peers' chain, run on the frames vulkanupload stores
// (vulkan-frames.h). The cases run as independent chains of one pipeline (one Vulkan device for
// all; each chain has its own vulkanupload, so no image is read by two chains); when that pipeline
// fails, each case runs again on its own, so each failure is told apart. Each vulkanupload waits
// for its copy before handing a frame on (vulkan-upload-wait.h).
#pragma once

#include <gst/gst.h>

#include <g2g/gst-ref.h>

#include "pipeline.h"

#include <functional>
#include <string>
#include <vector>

// Skips the test where no Vulkan device runs GStreamer's vulkanupload and vulkandownload.
#define SKIP_WITHOUT_VULKAN()                                                                                \
    do {                                                                                                     \
        if (!g2g::test::have_vulkan_device())                                                                \
            GTEST_SKIP() << "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)";            \
    } while (false)

namespace g2g::test {

// "video/x-raw,format=<format>,width=<w>,height=<h>,framerate=30/1"
std::string raw_caps(const std::string &format, int width, int height);

struct VulkanCase {
    std::string name; // for messages
    std::string caps; // the source's: "video/x-raw,format=NV12,width=37,height=23"
    // After vulkanupload, ending in system memory: in vulkandownload (its output read as it writes
    // it) or in g2g's own download (read as its caps and GstVideoMeta say).
    std::string ours;
    std::string peer; // a chain of GStreamer's elements on system frames; "" for the frame itself
};

// Frames each case's source sends.
inline constexpr int kVulkanCaseFrames = 3;

// The source of a case: kVulkanCaseFrames frames of snow (varied pixels, the same in every chain).
std::string vulkan_case_source(const std::string &caps);

// "" when every frame of the case equals the peers', else what differs (or what failed).
std::vector<std::string> run_vulkan_cases(const std::vector<VulkanCase> &cases,
                                          GstClockTime timeout = 60 * GST_SECOND);

// "" when each frame i of `got` (laid out as got_caps[i]; read as vulkandownload writes it when
// `from_vulkandownload`) equals what the peers' chain peer(i) ("" for none) makes of the frame
// vulkanupload stores for sent[i] (laid out as sent_caps[i]); else the first frame that differs.
std::string compare_with_peers(const std::vector<BufferRef> &sent, const std::vector<std::string> &sent_caps,
                               const std::vector<BufferRef> &got, const std::vector<std::string> &got_caps,
                               const std::function<std::string(std::size_t)> &peer, bool from_vulkandownload);

// Runs the cases and expects each to match (one failure per case, naming it).
void expect_vulkan_cases(const std::vector<VulkanCase> &cases, GstClockTime timeout = 60 * GST_SECOND);

} // namespace g2g::test
