// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames of each platform-handle kind between a producer and a consumer of that kind (the test
// elements of tests/support/handle-elements.h), directly and through g2gprobe: each kind's caps
// feature negotiates, the consumer recovers the payload and the keep-alive by type, every
// platform object is released exactly once after the last frame holding it goes, and whatever
// asks such a frame for system memory is refused with the exact text.
#include <gtest/gtest.h>

#include <g2g/converters.h>

#include <set>
#include <string>

#include "handle-runs.h"

namespace {

using g2g::MemoryDomainKind;
using g2g::test::handle_sink;
using g2g::test::handle_source;
using g2g::test::run_handles;

constexpr int kFrames = 5;

std::string kind_name(MemoryDomainKind kind)
{
    return std::string(g2g::name(kind));
}

// What a CPU reader named `reader` is told of a frame of `kind`: the domain table's download
// where GStreamer has one (D3D11Texture's), else that none converts it.
std::string system_refusal(const std::string &reader, MemoryDomainKind kind)
{
    const std::string k = kind_name(kind);
    if (kind == MemoryDomainKind::D3D11Texture)
        return reader + " reads system memory but received a D3D11Texture frame: insert d3d11download before "
                        "it, or let caps negotiation settle on system memory";
    return reader + " reads system memory but received a " + k + " frame: no GStreamer element converts " +
           k + " frames to it; have the producer output system memory instead";
}

// Another handle kind than `kind`.
MemoryDomainKind other_than(MemoryDomainKind kind)
{
    return kind == MemoryDomainKind::WgpuTexture ? MemoryDomainKind::WgpuBuffer
                                                 : MemoryDomainKind::WgpuTexture;
}

class EveryHandleKind : public testing::TestWithParam<MemoryDomainKind> {};

} // namespace

INSTANTIATE_TEST_SUITE_P(HandlePipelines, EveryHandleKind, testing::ValuesIn(g2g::test::kHandleKinds),
                         g2g::test::kind_case_name);

TEST_P(EveryHandleKind, TheCapsFeatureNegotiatesAndEveryFrameIsItsOwnLiveObject)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run = run_handles(handle_source(kind, kFrames, "format=RGBA width=32 height=16") +
                                           " ! " + handle_sink(kind, "sink"));
    ASSERT_EQ(run.run.error, "");
    EXPECT_TRUE(run.run.warnings.empty());
    const auto &seen = run.seen["sink"];
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames));
    std::set<const void *> handles;
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].kind, kind);
        EXPECT_EQ(seen[i].object, i) << "frames in order, each its own object";
        EXPECT_EQ(seen[i].handle, &run.ledger->object(i)) << "the handle is the producer's object";
        EXPECT_EQ(seen[i].size, 32u * 16u * 4u);
        EXPECT_FALSE(seen[i].view.has_value());
        handles.insert(seen[i].handle);
    }
    EXPECT_EQ(handles.size(), seen.size());
    ASSERT_TRUE(run.ledger);
    EXPECT_EQ(run.ledger->made(), static_cast<std::size_t>(kFrames));
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, FramesHeldByTheConsumerAreReleasedOnlyWhenItLetsGo)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run = run_handles(
        handle_source(kind, kFrames) + " ! " + handle_sink(kind, "sink", "hold=true"), [&](GstBin *bin) {
            const g2g::ElementRef sink = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "sink"));
            ASSERT_EQ(g2g::test::held_frames(sink.get()), static_cast<std::size_t>(kFrames));
            // Held at EOS: not one object released (a release here would be one too early).
            const g2g::ElementRef src = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "src"));
            for (int releases : g2g::test::handle_ledger(src.get())->releases())
                EXPECT_EQ(releases, 0);
            g2g::test::release_held(sink.get());
        });
    ASSERT_EQ(run.run.error, "");
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, AConsumerOfAnotherKindDoesNotLink)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run =
        run_handles(handle_source(kind, kFrames) + " ! " + handle_sink(other_than(kind), "sink"));
    // Their caps features do not intersect: gst-launch's link fails, no frame is made.
    EXPECT_EQ(run.run.error, "parse: could not link src to sink");
    EXPECT_EQ(run.ledger, nullptr);
}

TEST_P(EveryHandleKind, AFrameOfAnotherKindUnderItsCapsIsRefusedNamingWhatCame)
{
    const MemoryDomainKind kind = GetParam();
    const MemoryDomainKind lie = other_than(kind);
    g2g::test::HandleRun run =
        run_handles(handle_source(kind, kFrames, "frame-kind=" + std::string(g2g::nick(lie))) + " ! " +
                    handle_sink(kind, "sink"));
    const std::string expected = "sink takes " + kind_name(kind) + " frames but received a " +
                                 kind_name(lie) + " frame: " + kind_name(lie);
    EXPECT_EQ(run.run.error.rfind(expected, 0), 0u) << run.run.error;
    EXPECT_EQ(run.run.error_source, "sink");
    EXPECT_TRUE(run.seen["sink"].empty());
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, AConsumerThatReadsSystemMemoryIsRefusedWithTheExactText)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run =
        run_handles(handle_source(kind, kFrames) + " ! " + handle_sink(kind, "cpu", "require-system=true"));
    const std::string expected = system_refusal("cpu", kind);
    EXPECT_EQ(run.run.error, expected);
    EXPECT_EQ(run.run.error_source, "cpu");
    // require_system_slice, require_system_bytes and the C API's g2g_buffer_require_system_bytes.
    EXPECT_EQ(run.refusals["cpu"], (std::vector<std::string>{expected, expected, expected}));
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, G2gProbeClassifiesItAndPassesTheFrameItself)
{
    const MemoryDomainKind kind = GetParam();
    std::string last_domain;
    g2g::test::HandleRun run = run_handles(
        handle_source(kind, kFrames) + " ! g2gprobe name=probe require=" + std::string(g2g::nick(kind)) +
            " ! " + handle_sink(kind, "sink"),
        [&](GstBin *bin) {
            const g2g::ElementRef probe = g2g::ElementRef::adopt(gst_bin_get_by_name(bin, "probe"));
            g_autofree gchar *domain = nullptr;
            g_object_get(probe.get(), "last-domain", &domain, nullptr);
            last_domain = domain ? domain : "";
        });
    ASSERT_EQ(run.run.error, "");
    EXPECT_EQ(last_domain, kind_name(kind));
    const auto &seen = run.seen["sink"];
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFrames));
    for (std::size_t i = 0; i < seen.size(); ++i)
        EXPECT_EQ(seen[i].handle, &run.ledger->object(i));
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, G2gProbeRequiringSystemMemoryRefusesWithTheExactText)
{
    const MemoryDomainKind kind = GetParam();
    g2g::test::HandleRun run =
        run_handles(handle_source(kind, kFrames) + " ! g2gprobe name=probe require=system ! " +
                    handle_sink(kind, "sink"));
    EXPECT_EQ(run.run.error, system_refusal("probe", kind));
    EXPECT_EQ(run.run.error_source, "probe");
    EXPECT_TRUE(run.seen["sink"].empty());
    EXPECT_EQ(run.ledger->released_once_each(), "");
}

TEST_P(EveryHandleKind, G2gProbeRequiringAnotherHandleKindNamesBoth)
{
    const MemoryDomainKind kind = GetParam();
    const MemoryDomainKind wanted = other_than(kind);
    g2g::test::HandleRun run = run_handles(
        handle_source(kind, kFrames) + " ! g2gprobe name=probe require=" + std::string(g2g::nick(wanted)) +
        " ! " + handle_sink(kind, "sink"));
    EXPECT_EQ(run.run.error, g2g::wrong_domain_error("probe", g2g::DomainSet({wanted}), kind).message());
    EXPECT_EQ(run.run.error.rfind("probe requires " + kind_name(wanted) + " but received a " +
                                      kind_name(kind) + " frame: no GStreamer element converts " +
                                      kind_name(kind) + " frames to it",
                                  0),
              0u)
        << run.run.error;
    EXPECT_EQ(run.ledger->released_once_each(), "");
}
