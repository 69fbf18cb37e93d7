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

// Skips the test where this GStreamer's vulkanupload cannot make VulkanImage frames of `format`
// (vulkanupload_cannot_make says why).
#define SKIP_WHERE_VULKANUPLOAD_CANNOT_MAKE(format)                                                          \
    do {                                                                                                     \
        if (const std::string why = g2g::test::vulkanupload_cannot_make(format); !why.empty())               \
            GTEST_SKIP() << why;                                                                             \
    } while (false)

namespace g2g::test {

// "" where vulkanupload makes VulkanImage frames of `format` here; else why not: a lack this
// GStreamer's source has (compat::vulkanupload_lacks_format: 1.24 and 1.26 make no I420, YV12, Y444
// or GRAY8 images) that a one-frame `vulkanupload ! vulkandownload` run confirms. A format the
// compat layer does not name is never excused: its tests run, and fail if vulkanupload fails.
std::string vulkanupload_cannot_make(const std::string &format);

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
