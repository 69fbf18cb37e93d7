// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: pipelines of the test handle elements (handle-elements.h) run to EOS or an error,
// with what every g2gtesthandlesink took and the producer's ledger kept past the run, so a test
// checks the frames and, once the pipeline is gone, that every platform object was released
// exactly once. Parameterized tests name their cases by the kinds (kind_case_name).
#pragma once

#include <gtest/gtest.h>

#include <g2g/memory-domain-kind.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "handle-elements.h"
#include "pipeline.h"

namespace g2g::test {

struct HandleRun {
    PipelineRun run;                                          // the error, the warnings
    std::shared_ptr<HandleLedger> ledger;                     // of the element named "src"
    std::map<std::string, std::vector<FrameSeen>> seen;       // by sink name, every g2gtesthandlesink
    std::map<std::string, std::vector<std::string>> refusals; // their system-read refusals
};

// Runs `description` (its producer named "src"), the test elements registered; `at_end` sees the
// pipeline at EOS or error, after the sinks' records are read and before it stops (to check the
// frames the sinks hold); `at_start` sees it before it starts (to add probes).
HandleRun run_handles(const std::string &description, const PipelineInspector &at_end = {},
                      const PipelineInspector &at_start = {});

// "g2gtesthandlesrc name=src kind=<nick> num-buffers=<frames> <more>".
std::string handle_source(MemoryDomainKind kind, int frames, const std::string &more = "");
// "g2gtesthandlesink kind=<nick> name=<name> <more>".
std::string handle_sink(MemoryDomainKind kind, const std::string &name, const std::string &more = "");

// The kind's seed name, for parameterized test names.
std::string kind_case_name(const testing::TestParamInfo<MemoryDomainKind> &info);

} // namespace g2g::test
