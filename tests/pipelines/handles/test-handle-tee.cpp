// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee fanning out frames of each platform-handle kind: every branch that takes the kind gets
// the same frame (the same GstMemory, the same handle, no copy), counted as shares of that kind;
// the platform object is released exactly once, after the last branch drops its frame; a branch
// that wants system memory is refused, naming the kind and its converter (or that none exists).
#include <gtest/gtest.h>

#include <string>

#include "handle-runs.h"
#include "tee-stats.h"

namespace {

using g2g::MemoryDomainKind;
using g2g::test::handle_sink;
using g2g::test::handle_source;
using g2g::test::run_handles;

constexpr int kFrames = 6;
const char *const kBranches[] = {"a", "b", "c"};

std::string kind_name(MemoryDomainKind kind)
{
    return std::string(g2g::name(kind));
}

// A g2gtee named t with three queued branches of `kind`'s sinks (`sink_options` each) and `more`
// branches after them, then the source linked to it. (Linked first, a branch of another domain
// links too: the tee's src pads answer the domains no conversion reaches after what the source
// produces, and the plan refuses it the same way: tests/elements/tee/test-tee-report.cpp.)
std::string fan_out(MemoryDomainKind kind, const std::string &sink_options,
                    const std::string &tee_options = "", const std::string &more = "")
{
    std::string description = "g2gtee name=t " + tee_options;
    for (const char *branch : kBranches)
        description += " t. ! queue ! " + handle_sink(kind, branch, sink_options);
    return description + (more.empty() ? "" : " " + more) + " " + handle_source(kind, kFrames) + " ! t.";
}

// What a system-memory branch named `peer` is told of a stream of `kind`.
std::string system_branch_refusal(const std::string &branch, const std::string &peer, MemoryDomainKind kind)
{
    const std::string k = kind_name(kind);
    const std::string category = "branch " + branch + " of t (to " + peer + ")";
    if (kind == MemoryDomainKind::D3D11Texture)
        return category +
               " reads system memory but received a D3D11Texture frame: insert d3d11download before it, "
               "or let caps negotiation settle on system memory";
    return category + " reads system memory but received a " + k + " frame: no GStreamer element converts " +
           k + " frames to it; have the producer output system memory instead";
}

class EveryHandleKind : public testing::TestWithParam<MemoryDomainKind> {};

} // namespace

INSTANTIATE_TEST_SUITE_P(HandleTee, EveryHandleKind, testing::ValuesIn(g2g::test::kHandleKinds),
                         g2g::test::kind_case_name);

TEST_P(EveryHandleKind, ThreeBranchesShareEachFrameAndItsObjectGoesWithTheLastOne)
{
    const MemoryDomainKind kind = GetParam();
    guint64 frames = 0, shares = 0, copies = 0, conversions = 0, kind_shares = 0;
    std::vector<std::vector<int>> releases_after; // after each branch let go, in turn
    g2g::test::HandleRun run = run_handles(fan_out(kind, "hold=true"), [&](GstBin *bin) {
        const g2g::ElementRef tee = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "t"));
        frames = g2g::test::tee_stat(tee.get(), "frames");
        shares = g2g::test::tee_stat(tee.get(), "shares");
        copies = g2g::test::tee_stat(tee.get(), "copies");
        conversions = g2g::test::tee_stat(tee.get(), "conversions");
        kind_shares = g2g::test::tee_shares(tee.get(), kind_name(kind).c_str());
        const g2g::ElementRef src = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "src"));
        const auto ledger = g2g::test::handle_ledger(src.get());
        releases_after.push_back(ledger->releases());
        for (const char *branch : kBranches) {
            const g2g::ElementRef sink = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, branch));
            EXPECT_EQ(g2g::test::held_frames(sink.get()), static_cast<std::size_t>(kFrames)) << branch;
            g2g::test::release_held(sink.get());
            releases_after.push_back(ledger->releases());
        }
    });
    ASSERT_EQ(run.run.error, "");
    EXPECT_TRUE(run.run.warnings.empty());

    // Every branch took every frame: the same memory and handle, the producer's own object.
    for (const char *branch : kBranches)
        ASSERT_EQ(run.seen[branch].size(), static_cast<std::size_t>(kFrames)) << branch;
    for (int i = 0; i < kFrames; ++i) {
        const g2g::test::FrameSeen &a = run.seen["a"][i];
        EXPECT_EQ(a.handle, &run.ledger->object(i)) << "frame " << i;
        for (const char *branch : {"b", "c"}) {
            EXPECT_EQ(run.seen[branch][i].memory, a.memory)
                << "frame " << i << " in " << branch << ": shared";
            EXPECT_EQ(run.seen[branch][i].handle, a.handle) << "frame " << i << " in " << branch;
        }
    }
    EXPECT_EQ(frames, static_cast<guint64>(kFrames));
    EXPECT_EQ(shares, 3u * kFrames);
    EXPECT_EQ(kind_shares, 3u * kFrames) << "counted as shares of " << kind_name(kind);
    EXPECT_EQ(copies, 0u);
    EXPECT_EQ(conversions, 0u);

    // No object goes while any branch holds its frame; each goes once, with the last branch's.
    ASSERT_EQ(releases_after.size(), 4u);
    for (std::size_t step = 0; step < 3; ++step)
        EXPECT_EQ(releases_after[step], std::vector<int>(kFrames, 0))
            << "after " << step << " branches let go";
    EXPECT_EQ(releases_after[3], std::vector<int>(kFrames, 1)) << "after all three let go";
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, ABranchThatWantsSystemMemoryIsRefusedNamingTheKindAndItsConverter)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run =
        run_handles(fan_out(kind, "", "", "t. ! queue name=cpu ! capsfilter caps=video/x-raw ! fakesink"));
    EXPECT_EQ(run.run.error, system_branch_refusal("src_3", "cpu", kind));
    EXPECT_EQ(run.run.error_source, "t");
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, WithDropBranchTheSystemBranchIsWarnedAboutAndTheOthersShare)
{
    const MemoryDomainKind kind = GetParam();
    guint64 kind_shares = 0;
    g2g::test::HandleRun run =
        run_handles(fan_out(kind, "", "fan-out-policy=drop-branch",
                            "t. ! queue name=cpu ! capsfilter caps=video/x-raw ! fakesink"),
                    [&](GstBin *bin) {
                        const g2g::ElementRef tee = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "t"));
                        kind_shares = g2g::test::tee_shares(tee.get(), kind_name(kind).c_str());
                    });
    ASSERT_EQ(run.run.error, "");
    EXPECT_EQ(run.run.warnings,
              (std::vector<std::string>{system_branch_refusal("src_3", "cpu", kind) +
                                        ": fan-out-policy=drop-branch, this branch gets no frames"}));
    for (const char *branch : kBranches)
        EXPECT_EQ(run.seen[branch].size(), static_cast<std::size_t>(kFrames)) << branch;
    EXPECT_EQ(kind_shares, 3u * kFrames);
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, ABranchOfAnotherHandleKindIsRefusedAsNoConversionReachesIt)
{
    const MemoryDomainKind kind = GetParam();
    const MemoryDomainKind other =
        kind == MemoryDomainKind::WgpuTexture ? MemoryDomainKind::WgpuBuffer : MemoryDomainKind::WgpuTexture;
    g2g::test::HandleRun run = run_handles(fan_out(kind, "", "", "t. ! " + handle_sink(other, "elsewhere")));
    const std::string k = kind_name(kind);
    // Then what g2gtee converts in this build (" (g2gtee converts frames into system memory ...)").
    const std::string expected = "branch src_3 of t (to elsewhere) requires " + kind_name(other) +
                                 " but received a " + k + " frame: no GStreamer element converts " + k +
                                 " frames to it; have the producer output " +
                                 std::string(g2g::memory_caps_feature(other)) + " instead (g2gtee converts";
    EXPECT_EQ(run.run.error.rfind(expected, 0), 0u) << run.run.error;
    EXPECT_EQ(run.ledger->released_once_each(), "");
}
