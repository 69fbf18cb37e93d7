// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: Vulkan cases against peers, many in one pipeline (see vulkan-cases.h).
#include "vulkan-cases.h"

#include <gtest/gtest.h>

#include <map>

#include "frames.h"
#include "pipeline.h"
#include "vulkan-frames.h"

namespace g2g::test {
namespace {

bool ends_with(const std::string &text, const std::string &tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

std::string sink(const std::string &name)
{
    return " ! appsink name=" + name + " sync=false";
}

// What differs between the case's frames (appsink `ours`) and the peers' on the source's frames
// (appsink `source`) of `run`.
std::string check(const VulkanCase &c, const PipelineRun &run, const std::string &ours,
                  const std::string &source)
{
    const auto &got = run.sinks.at(ours);
    const auto &sent = run.sinks.at(source);
    if (sent.size() != static_cast<std::size_t>(kVulkanCaseFrames))
        return "the source sent " + std::to_string(sent.size()) + " frames";
    if (got.size() != sent.size())
        return std::to_string(got.size()) + " frames came out of " + std::to_string(sent.size());
    const GstVideoInfo sent_info = video_info_of_caps(c.caps);
    const GstVideoInfo got_info = video_info_of_caps(run.sink_caps.at(ours));
    std::vector<StoredFrame> stored;
    std::vector<HarnessInput> frames, marks;
    for (const BufferRef &frame : sent) {
        stored.push_back(as_vulkanupload_stores(sent_info, frame.get()));
        frames.push_back({sent_info, stored.back().frame.get()});
        marks.push_back({sent_info, stored.back().known.get()});
    }
    std::vector<HarnessOutput> want, known;
    if (c.peer.empty()) {
        for (const StoredFrame &frame : stored) {
            want.push_back({frame.frame, sent_info, c.caps, "", ""});
            known.push_back({frame.known, sent_info, c.caps, "", ""});
        }
    } else {
        want = run_chain_on_each(c.peer, frames);
        known = run_chain_on_each(c.peer, marks);
    }
    const bool from_vulkandownload = ends_with(c.ours, "vulkandownload");
    for (std::size_t i = 0; i < got.size(); ++i) {
        for (const auto *peer : {&want, &known})
            if (i >= peer->size() || !(*peer)[i].error.empty() || !(*peer)[i].buffer)
                return "the peers (" + c.peer +
                       ") failed: " + (i < peer->size() ? (*peer)[i].error : "no frame");
        const BufferRef frame =
            from_vulkandownload ? test::from_vulkandownload(got_info, got[i].get()) : got[i];
        if (!frame)
            return "frame " + std::to_string(i) + ": not one memory per plane as vulkandownload writes";
        const std::string where = compare_known_bytes(want[i].info, want[i].buffer.get(),
                                                      known[i].buffer.get(), got_info, frame.get());
        if (!where.empty())
            return "frame " + std::to_string(i) + " (" + run.sink_caps.at(ours) + "): " + where;
    }
    return "";
}

} // namespace

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
    const PipelineRun run = run_pipeline(description, {}, timeout);
    std::vector<std::string> problems;
    if (!run.error.empty()) {
        if (cases.size() == 1)
            return {"the pipeline failed: " + run.error_source + ": " + run.error};
        for (const VulkanCase &c : cases)
            problems.push_back(run_vulkan_cases({c}, timeout).front());
        return problems;
    }
    for (std::size_t i = 0; i < cases.size(); ++i)
        problems.push_back(check(cases[i], run, "case" + std::to_string(i), sources.at(cases[i].caps)));
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
