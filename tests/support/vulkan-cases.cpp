// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: Vulkan cases against peers, many in one pipeline (see vulkan-cases.h).
#include "vulkan-cases.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "g2g-config.h"
#if G2G_HAVE_VULKAN
#include "compat/vulkan-upload-compat.h"
#endif

#include "frames.h"
#include "pipeline.h"
#include "vulkan-frames.h"
#include "vulkan-upload-wait.h"

namespace g2g::test {

std::string raw_caps(const std::string &format, int width, int height)
{
    return "video/x-raw,format=" + format + ",width=" + std::to_string(width) +
           ",height=" + std::to_string(height) + ",framerate=30/1";
}

namespace {

bool ends_with(const std::string &text, const std::string &tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

std::string sink(const std::string &name)
{
    return " ! appsink name=" + name + " sync=false";
}

} // namespace

std::string vulkanupload_cannot_make(const std::string &format)
{
#if G2G_HAVE_VULKAN
    const char *lack = compat::vulkanupload_lacks_format(gst_video_format_from_string(format.c_str()));
    if (!lack)
        return "";
    static std::mutex lock;
    static std::map<std::string, std::string> known;
    const std::lock_guard guard(lock);
    if (const auto found = known.find(format); found != known.end())
        return found->second;
    // Ends in vulkandownload, as have_vulkan_device's run does.
    const PipelineRun run = run_pipeline("videotestsrc num-buffers=1 ! " + raw_caps(format, 16, 16) +
                                         " ! vulkanupload ! vulkandownload ! fakesink");
    return known[format] = run.error.empty() ? ""
                                             : "vulkanupload of " + gstreamer_version() + " cannot make " +
                                                   format + " VulkanImage frames: " + lack +
                                                   " (here: " + run.error_source + ": " + run.error + ")";
#else
    (void)format;
    return "";
#endif
}

std::string compare_with_peers(const std::vector<BufferRef> &sent, const std::vector<std::string> &sent_caps,
                               const std::vector<BufferRef> &got, const std::vector<std::string> &got_caps,
                               const std::function<std::string(std::size_t)> &peer, bool from_vulkandownload)
{
    if (got.size() != sent.size())
        return std::to_string(got.size()) + " frames came out of " + std::to_string(sent.size());
    // Frames that share their caps and peers run through one harness.
    std::size_t first = 0;
    while (first < sent.size()) {
        const std::string chain = peer(first);
        std::size_t end = first + 1;
        while (end < sent.size() && sent_caps[end] == sent_caps[first] && peer(end) == chain)
            ++end;
        const GstVideoInfo sent_info = video_info_of_caps(sent_caps[first]);
        std::vector<StoredFrame> stored;
        std::vector<HarnessInput> frames, marks;
        for (std::size_t i = first; i < end; ++i) {
            stored.push_back(as_vulkanupload_stores(sent_info, sent[i].get()));
            if (!stored.back().frame)
                return "frame " + std::to_string(i) + " sent: cannot map it as " + sent_caps[i];
        }
        for (const StoredFrame &frame : stored) {
            frames.push_back({sent_info, frame.frame.get()});
            marks.push_back({sent_info, frame.known.get()});
        }
        std::vector<HarnessOutput> want, known;
        if (chain.empty()) {
            for (const StoredFrame &frame : stored) {
                want.push_back({frame.frame, sent_info, sent_caps[first], "", ""});
                known.push_back({frame.known, sent_info, sent_caps[first], "", ""});
            }
        } else {
            want = run_chain_on_each(chain, frames);
            known = run_chain_on_each(chain, marks);
        }
        for (std::size_t i = first; i < end; ++i) {
            for (const auto *outputs : {&want, &known}) {
                const std::size_t k = i - first;
                if (k >= outputs->size() || !(*outputs)[k].error.empty() || !(*outputs)[k].buffer)
                    return "the peers (" + chain + ") failed on frame " + std::to_string(i) + ": " +
                           (k < outputs->size() ? (*outputs)[k].error : "no frame");
            }
            const GstVideoInfo got_info = video_info_of_caps(got_caps[i]);
            const BufferRef frame =
                from_vulkandownload ? test::from_vulkandownload(got_info, got[i].get()) : got[i];
            if (!frame)
                return "frame " + std::to_string(i) + ": not one memory per plane as vulkandownload writes";
            const HarnessOutput &w = want[i - first];
            const std::string where = compare_known_bytes(
                w.info, w.buffer.get(), known[i - first].buffer.get(), got_info, frame.get());
            if (!where.empty())
                return "frame " + std::to_string(i) + " (" + got_caps[i] +
                       (chain.empty() ? "" : " vs " + chain) + "): " + where;
        }
        first = end;
    }
    return "";
}

std::string vulkan_case_source(const std::string &caps)
{
    return "videotestsrc num-buffers=" + std::to_string(kVulkanCaseFrames) + " pattern=snow ! " + caps;
}

std::vector<std::string> run_vulkan_cases(const std::vector<VulkanCase> &cases, GstClockTime timeout)
{
    std::map<std::string, std::string> sources; // caps -> its appsink
    std::string description;
    for (const VulkanCase &c : cases) {
        if (sources.count(c.caps))
            continue;
        const std::string name = "source" + std::to_string(sources.size());
        sources[c.caps] = name;
        description += vulkan_case_source(c.caps) + sink(name) + " ";
    }
    for (std::size_t i = 0; i < cases.size(); ++i)
        description += vulkan_case_source(cases[i].caps) + " ! vulkanupload ! " + cases[i].ours +
                       sink("case" + std::to_string(i)) + " ";
    const PipelineRun run = run_pipeline(description, {}, timeout, {}, wait_for_each_upload);
    std::vector<std::string> problems;
    if (!run.error.empty()) {
        if (cases.size() == 1)
            return {"the pipeline failed: " + run.error_source + ": " + run.error};
        for (const VulkanCase &c : cases)
            problems.push_back(run_vulkan_cases({c}, timeout).front());
        return problems;
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::string ours = "case" + std::to_string(i), source = sources.at(cases[i].caps);
        const std::string &peer = cases[i].peer;
        problems.push_back(run.sinks.at(source).size() != static_cast<std::size_t>(kVulkanCaseFrames)
                               ? "the source sent " + std::to_string(run.sinks.at(source).size()) + " frames"
                               : compare_with_peers(
                                     run.sinks.at(source), run.frame_caps.at(source), run.sinks.at(ours),
                                     run.frame_caps.at(ours), [&](std::size_t) { return peer; },
                                     ends_with(cases[i].ours, "vulkandownload")));
    }
    return problems;
}

void expect_vulkan_cases(const std::vector<VulkanCase> &cases, GstClockTime timeout)
{
    const std::vector<std::string> problems = run_vulkan_cases(cases, timeout);
    for (std::size_t i = 0; i < cases.size(); ++i)
        EXPECT_EQ(problems[i], "") << cases[i].name << ": " << cases[i].caps << " ! vulkanupload ! "
                                   << cases[i].ours << "  vs  "
                                   << (cases[i].peer.empty() ? "the frame" : cases[i].peer);
}

} // namespace g2g::test
