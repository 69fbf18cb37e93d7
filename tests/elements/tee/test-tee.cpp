// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee as tee's users rely on it (pads, properties, flow rules, pads coming and going while
// data flows), and the seed's fan-out (every branch the same memory, NO_SHARE pool memory made
// shareable once, copy-on-write isolation).
#include <g2g/gst-ref.h>

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "buffers.h"
#include "pipeline.h"
#include "tee-stats.h"

using g2g::BufferRef;
using g2g::Ref;
using g2g::test::data_of;
using g2g::test::tee_stat;

namespace {

constexpr const char *kCaps = "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1";

// A sink pad whose chain returns `flow`, linked to a new src pad of `tee` (caller unrefs it).
GstPad *branch_returning(GstElement *tee, GstFlowReturn flow)
{
    GstPad *sink = gst_pad_new("branchsink", GST_PAD_SINK);
    GST_PAD_ELEMENT_PRIVATE(sink) = GINT_TO_POINTER(flow);
    gst_pad_set_chain_function(
        sink, +[](GstPad *pad, GstObject *, GstBuffer *buffer) -> GstFlowReturn {
            gst_buffer_unref(buffer);
            return static_cast<GstFlowReturn>(GPOINTER_TO_INT(GST_PAD_ELEMENT_PRIVATE(pad)));
        });
    gst_pad_set_active(sink, TRUE);
    GstPad *src = gst_element_request_pad_simple(tee, "src_%u");
    EXPECT_EQ(gst_pad_link(src, sink), GST_PAD_LINK_OK);
    gst_object_unref(src);
    return sink;
}

} // namespace

TEST(G2gTee, RequestPadsAreNamedAndCountedAsTeeDoes)
{
    GstElement *tee = gst_element_factory_make("g2gtee", nullptr);
    gint count = -1;
    GstPad *a = gst_element_request_pad_simple(tee, "src_%u");
    GstPad *b = gst_element_request_pad_simple(tee, "src_%u");
    GstPad *named = gst_element_request_pad_simple(tee, "src_7");
    EXPECT_STREQ(GST_OBJECT_NAME(a), "src_0");
    EXPECT_STREQ(GST_OBJECT_NAME(b), "src_1");
    EXPECT_STREQ(GST_OBJECT_NAME(named), "src_7");
    g_object_get(tee, "num-src-pads", &count, nullptr);
    EXPECT_EQ(count, 3);
    GstPad *next = gst_element_request_pad_simple(tee, "src_%u");
    EXPECT_STREQ(GST_OBJECT_NAME(next), "src_8");
    for (GstPad *pad : {a, b, named, next}) {
        gst_element_release_request_pad(tee, pad);
        gst_object_unref(pad);
    }
    g_object_get(tee, "num-src-pads", &count, nullptr);
    EXPECT_EQ(count, 0);

    gboolean has_chain = FALSE, silent = FALSE, allow = TRUE;
    gint pull_mode = -1;
    g_object_get(tee, "has-chain", &has_chain, "silent", &silent, "allow-not-linked", &allow, "pull-mode",
                 &pull_mode, nullptr);
    EXPECT_TRUE(has_chain);
    EXPECT_TRUE(silent);
    EXPECT_FALSE(allow);
    EXPECT_EQ(pull_mode, 0);
    gst_object_unref(tee);
}

TEST(G2gTee, EveryBranchReceivesTheSameFrameZeroBytesCopied)
{
    GstHarness *h1 = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    GstHarness *h2 = gst_harness_new_with_element(h1->element, nullptr, "src_%u");
    GstHarness *h3 = gst_harness_new_with_element(h1->element, nullptr, "src_%u");
    gst_harness_set_src_caps_str(h1, kCaps);
    BufferRef in = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 256, nullptr));
    ASSERT_EQ(gst_harness_push(h1, gst_buffer_ref(in.get())), GST_FLOW_OK);
    for (GstHarness *h : {h1, h2, h3}) {
        BufferRef out = BufferRef::adopt(gst_harness_pull(h));
        EXPECT_EQ(out.get(), in.get()); // the very same buffer: a reference per branch
    }
    EXPECT_EQ(tee_stat(h1->element, "frames"), 1u);
    EXPECT_EQ(tee_stat(h1->element, "shares"), 3u);
    EXPECT_EQ(tee_stat(h1->element, "copies"), 0u);
    gst_harness_teardown(h3);
    gst_harness_teardown(h2);
    gst_harness_teardown(h1);
}

TEST(G2gTee, NoSharePoolMemoryIsSharedByBranchCopiesAndReturnsToThePool)
{
    Ref<GstBufferPool> pool = g2g::test::no_share_pool(256);
    GstBuffer *pooled = nullptr;
    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), &pooled, nullptr), GST_FLOW_OK);
    const guint8 *bytes = data_of(pooled);

    GstHarness *h1 = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    GstHarness *h2 = gst_harness_new_with_element(h1->element, nullptr, "src_%u");
    gst_harness_set_src_caps_str(h1, kCaps);
    ASSERT_EQ(gst_harness_push(h1, pooled), GST_FLOW_OK);
    BufferRef a = BufferRef::adopt(gst_harness_pull(h1));
    BufferRef b = BufferRef::adopt(gst_harness_pull(h2));
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(data_of(a.get()), bytes);
    // A branch that makes its buffer writable (to set a timestamp) still shares the bytes.
    BufferRef writable = BufferRef::adopt(gst_buffer_make_writable(gst_buffer_ref(a.get())));
    GST_BUFFER_PTS(writable.get()) = 5;
    EXPECT_EQ(data_of(writable.get()), bytes);
    EXPECT_EQ(tee_stat(h1->element, "copies"), 0u);

    BufferRef none;
    EXPECT_EQ(g2g::test::try_acquire(pool.get(), none), GST_FLOW_EOS);
    a.reset();
    b.reset();
    writable.reset();
    gst_harness_teardown(h2);
    gst_harness_teardown(h1);
    BufferRef again;
    ASSERT_EQ(g2g::test::try_acquire(pool.get(), again), GST_FLOW_OK);
    EXPECT_EQ(data_of(again.get()), bytes);
    again.reset();
    gst_buffer_pool_set_active(pool.get(), FALSE);
}

TEST(G2gTee, ABranchThatWritesGetsItsOwnCopy)
{
    GstHarness *h1 = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    GstHarness *h2 = gst_harness_new_with_element(h1->element, nullptr, "src_%u");
    gst_harness_set_src_caps_str(h1, kCaps);
    GstBuffer *in = gst_buffer_new_allocate(nullptr, 256, nullptr);
    gst_buffer_memset(in, 0, 1, 256);
    ASSERT_EQ(gst_harness_push(h1, in), GST_FLOW_OK);
    BufferRef writer = BufferRef::adopt(gst_harness_pull(h1));
    BufferRef reader = BufferRef::adopt(gst_harness_pull(h2));
    writer.reset(gst_buffer_make_writable(writer.release()));
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(writer.get(), &map, GST_MAP_WRITE));
    std::memset(map.data, 9, map.size);
    gst_buffer_unmap(writer.get(), &map);
    EXPECT_EQ(data_of(reader.get())[0], 1);
    EXPECT_EQ(data_of(reader.get())[255], 1);
    EXPECT_NE(data_of(writer.get()), data_of(reader.get()));
    writer.reset();
    reader.reset();
    gst_harness_teardown(h2);
    gst_harness_teardown(h1);
}

TEST(G2gTee, FlowRulesMatchTee)
{
    // No linked branch: NOT_LINKED, or OK with allow-not-linked.
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", nullptr);
    gst_harness_set_src_caps_str(h, kCaps);
    GstPad *dangling = gst_element_request_pad_simple(h->element, "src_%u");
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_NOT_LINKED);
    g_object_set(h->element, "allow-not-linked", TRUE, nullptr);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_OK);
    g_object_set(h->element, "allow-not-linked", FALSE, nullptr);

    // One branch at EOS, one unlinked: EOS. Add a working branch: OK, the EOS one is ignored.
    GstPad *eos = branch_returning(h->element, GST_FLOW_EOS);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_EOS);
    GstHarness *live = gst_harness_new_with_element(h->element, nullptr, "src_%u");
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(live));

    // An error in any branch is the tee's answer.
    GstPad *broken = branch_returning(h->element, GST_FLOW_ERROR);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_ERROR);
    gst_buffer_unref(gst_harness_pull(live));

    gst_element_release_request_pad(h->element, dangling);
    gst_object_unref(dangling);
    gst_object_unref(eos);
    gst_object_unref(broken);
    gst_harness_teardown(live);
    gst_harness_teardown(h);
}

TEST(G2gTee, TwoHundredPadsComeAndGoWhileFramesFlow)
{
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    gst_harness_set_src_caps_str(h, kCaps);
    gst_harness_set_drop_buffers(h, TRUE);
    GstBuffer *frame = gst_buffer_new_allocate(nullptr, 256, nullptr);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    GstCaps *caps = gst_caps_from_string(kCaps);
    GstHarnessThread *pusher = gst_harness_stress_push_buffer_start(h, caps, &segment, frame);
    gst_caps_unref(caps);
    gst_buffer_unref(frame);
    // At least 200 add/remove cycles, and at least 200 frames pushed while they happen.
    int cycles = 0;
    for (; cycles < 200 || (tee_stat(h->element, "frames") < 200 && cycles < 1000000); ++cycles) {
        GstPad *pad = gst_element_request_pad_simple(h->element, "src_%u");
        ASSERT_NE(pad, nullptr);
        gst_element_release_request_pad(h->element, pad);
        gst_object_unref(pad);
    }
    gst_harness_stress_thread_stop(pusher);
    EXPECT_GE(cycles, 200);
    EXPECT_GE(tee_stat(h->element, "frames"), 200u);
    gint count = -1;
    g_object_get(h->element, "num-src-pads", &count, nullptr);
    EXPECT_EQ(count, 1);
    gst_harness_teardown(h);
}

TEST(G2gTee, SilentOffWritesLastMessage)
{
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    g_object_set(h->element, "silent", FALSE, nullptr);
    gst_harness_set_src_caps_str(h, kCaps);
    gst_buffer_unref(gst_harness_push_and_pull(h, gst_buffer_new_allocate(nullptr, 256, nullptr)));
    gchar *message = nullptr;
    g_object_get(h->element, "last-message", &message, nullptr);
    ASSERT_NE(message, nullptr);
    // What the tee did with the frame, per branch (tee's "chain ******* (256 bytes)" said nothing
    // of it): tests/elements/tee/test-tee-report.cpp reads it whole.
    EXPECT_NE(std::strstr(message, ": src_0 shares System"), nullptr) << message;
    g_free(message);
    gst_harness_teardown(h);
}

TEST(G2gTee, AllocationQueriesAreAggregatedOverBranches)
{
    GstHarness *h1 = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    GstHarness *h2 = gst_harness_new_with_element(h1->element, nullptr, "src_%u");
    gst_harness_set_src_caps_str(h1, kCaps);
    gst_harness_add_propose_allocation_meta(h1, GST_VIDEO_META_API_TYPE, nullptr);
    gst_harness_add_propose_allocation_meta(h1, GST_VIDEO_CROP_META_API_TYPE, nullptr);
    gst_harness_add_propose_allocation_meta(h2, GST_VIDEO_META_API_TYPE, nullptr);
    GstCaps *caps = gst_caps_from_string(kCaps);
    GstQuery *query = gst_query_new_allocation(caps, FALSE);
    ASSERT_TRUE(gst_pad_peer_query(h1->srcpad, query));
    // Only what every branch takes.
    EXPECT_TRUE(gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr));
    EXPECT_FALSE(gst_query_find_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr));
    gst_query_unref(query);
    gst_caps_unref(caps);
    gst_harness_teardown(h2);
    gst_harness_teardown(h1);
}

TEST(G2gTee, ABranchAddedMidStreamStartsWithTheStreamsCaps)
{
    GstHarness *h1 = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    gst_harness_set_src_caps_str(h1, kCaps);
    gst_buffer_unref(gst_harness_push_and_pull(h1, gst_buffer_new_allocate(nullptr, 256, nullptr)));
    GstHarness *late = gst_harness_new_with_element(h1->element, nullptr, "src_%u");
    ASSERT_EQ(gst_harness_push(h1, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h1));
    gst_buffer_unref(gst_harness_pull(late));
    GstCaps *caps = gst_pad_get_current_caps(late->sinkpad);
    ASSERT_NE(caps, nullptr);
    GstCaps *expected = gst_caps_from_string(kCaps);
    EXPECT_TRUE(gst_caps_is_equal(caps, expected));
    gst_caps_unref(expected);
    gst_caps_unref(caps);
    gst_harness_teardown(late);
    gst_harness_teardown(h1);
}

TEST(G2gTee, CapsQueriesIntersectWhatEveryBranchTakesAsTeeDoes)
{
    GstHarness *h1 = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    GstHarness *h2 = gst_harness_new_with_element(h1->element, nullptr, "src_%u");
    gst_harness_set_sink_caps_str(h1, "video/x-raw,format={GRAY8,RGBA}");
    gst_harness_set_sink_caps_str(h2, "video/x-raw,format=GRAY8");
    GstCaps *caps = gst_pad_peer_query_caps(h1->srcpad, nullptr);
    // System memory first, as the branches take it; after it the same format in the domains
    // g2gtee would convert into system memory itself (views, DMABuf, Vulkan, CUDA).
    ASSERT_FALSE(gst_caps_is_empty(caps));
    GstCaps *first = gst_caps_copy_nth(caps, 0);
    GstCaps *expected = gst_caps_from_string("video/x-raw,format=GRAY8");
    EXPECT_TRUE(gst_caps_is_equal(first, expected)) << gst_caps_to_string(caps);
    // DMABuf also in GStreamer 1.24's form (format=DMA_DRM, drm-format=R8, GRAY8's fourcc): in
    // 1.22's form every structure is GRAY8.
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *structure = gst_caps_get_structure(caps, i);
        const bool dma_drm = g_strcmp0(gst_structure_get_string(structure, "format"), "DMA_DRM") == 0;
        EXPECT_STREQ(gst_structure_get_string(structure, dma_drm ? "drm-format" : "format"),
                     dma_drm ? "R8  " : "GRAY8");
    }
    gst_caps_unref(expected);
    gst_caps_unref(first);
    gst_caps_unref(caps);
    gst_harness_teardown(h2);
    gst_harness_teardown(h1);
}

// The cases of GStreamer's own tee tests (tests/check/elements/tee.c) that apply, written for
// g2gtee.

namespace {

// A sink pad answering ALLOCATION with `query_function`, linked to a new src pad of `tee`.
GstPad *branch_answering(GstElement *tee, GstPadQueryFunction query_function)
{
    GstPad *sink = gst_pad_new("branchsink", GST_PAD_SINK);
    gst_pad_set_query_function(sink, query_function);
    gst_pad_set_chain_function(
        sink, +[](GstPad *, GstObject *, GstBuffer *buffer) -> GstFlowReturn {
            gst_buffer_unref(buffer);
            return GST_FLOW_OK;
        });
    gst_pad_set_active(sink, TRUE);
    GstPad *src = gst_element_request_pad_simple(tee, "src_%u");
    EXPECT_EQ(gst_pad_link(src, sink), GST_PAD_LINK_OK);
    gst_object_unref(src);
    return sink;
}

// ALLOCATION answers: a pool (size, min, max), params (align, prefix, padding) and metas, the
// third branch's protection meta with parameters the others do not have.
template <guint Size, guint Min, guint Max, gsize Align, gsize Prefix, gsize Padding, bool OddMeta>
gboolean proposes(GstPad *pad, GstObject *parent, GstQuery *query)
{
    if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION)
        return gst_pad_query_default(pad, parent, query);
    GstAllocationParams params = {static_cast<GstMemoryFlags>(0), Align, Prefix, Padding, {}};
    gst_query_add_allocation_pool(query, nullptr, Size, Min, Max);
    gst_query_add_allocation_param(query, nullptr, &params);
    gst_query_add_allocation_meta(query, GST_PARENT_BUFFER_META_API_TYPE, nullptr);
    if (OddMeta) {
        GstStructure *odd = gst_structure_new_empty("test/test");
        gst_query_add_allocation_meta(query, GST_PROTECTION_META_API_TYPE, odd);
        gst_structure_free(odd);
    } else {
        gst_query_add_allocation_meta(query, GST_REFERENCE_TIMESTAMP_META_API_TYPE, nullptr);
        gst_query_add_allocation_meta(query, GST_PROTECTION_META_API_TYPE, nullptr);
    }
    return TRUE;
}

gboolean answers_nothing(GstPad *pad, GstObject *parent, GstQuery *query)
{
    return GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION ? TRUE : gst_pad_query_default(pad, parent, query);
}

gboolean refuses(GstPad *pad, GstObject *parent, GstQuery *query)
{
    return GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION ? FALSE : gst_pad_query_default(pad, parent, query);
}

bool query_allocation(GstElement *tee, GstQuery **out = nullptr)
{
    GstPad *sink = gst_element_get_static_pad(tee, "sink");
    GstCaps *caps = gst_caps_new_empty_simple("test/test");
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    const bool answered = gst_pad_query(sink, query);
    gst_caps_unref(caps);
    gst_object_unref(sink);
    if (out)
        *out = query;
    else
        gst_query_unref(query);
    return answered;
}

void release_all(GstElement *tee, std::initializer_list<GstPad *> sinks)
{
    for (GstPad *sink : sinks) {
        GstPad *src = gst_pad_get_peer(sink);
        gst_pad_unlink(src, sink);
        gst_element_release_request_pad(tee, src);
        gst_object_unref(src);
        gst_pad_set_active(sink, FALSE);
        gst_object_unref(sink);
    }
}

} // namespace

TEST(G2gTeeAsTee, FifteenQueuedBranchesEachGetEveryBuffer)
{
    std::string description = "fakesrc num-buffers=3 ! g2gtee name=t";
    for (int i = 0; i < 15; ++i)
        description += " t. ! queue ! appsink name=branch" + std::to_string(i);
    g2g::test::PipelineRun run = g2g::test::run_pipeline(description);
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.sinks.size(), 15u);
    for (const auto &[name, buffers] : run.sinks)
        EXPECT_EQ(buffers.size(), 3u) << name;
}

TEST(G2gTeeAsTee, OneFlushingBranchFlushesTheTee)
{
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", nullptr);
    gst_harness_set_src_caps_str(h, kCaps);
    GstPad *one = branch_returning(h->element, GST_FLOW_OK);
    GstPad *two = branch_returning(h->element, GST_FLOW_OK);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_OK);
    gst_pad_set_active(two, FALSE);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_FLUSHING);
    gst_pad_set_active(one, FALSE);
    gst_pad_set_active(two, TRUE);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_FLUSHING);
    gst_pad_set_active(one, TRUE);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_OK);
    // One unlinked branch of two: OK.
    GstPad *src = gst_pad_get_peer(one);
    gst_pad_unlink(src, one);
    EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 256, nullptr)), GST_FLOW_OK);
    gst_element_release_request_pad(h->element, src);
    gst_object_unref(src);
    gst_pad_set_active(one, FALSE);
    gst_object_unref(one);
    release_all(h->element, {two});
    gst_harness_teardown(h);
}

TEST(G2gTeeAsTee, AllocationIsAggregatedAsTeeDoes)
{
    GstElement *tee = gst_element_factory_make("g2gtee", nullptr);
    GstPad *a = branch_answering(tee, proposes<128, 2, 10, 15, 1, 1, false>);
    GstPad *b = branch_answering(tee, proposes<129, 1, 15, 7, 2, 1, false>);
    GstPad *c = branch_answering(tee, proposes<130, 1, 20, 7, 1, 2, true>);
    GstQuery *query = nullptr;
    ASSERT_TRUE(query_allocation(tee, &query));
    ASSERT_EQ(gst_query_get_n_allocation_pools(query), 1u);
    guint size = 0, min = 0, max = 0;
    gst_query_parse_nth_allocation_pool(query, 0, nullptr, &size, &min, &max);
    EXPECT_EQ(size, 130u);
    EXPECT_EQ(min, 2u + 1u); // one more for the buffer the fan-out holds
    EXPECT_EQ(max, 0u);
    ASSERT_EQ(gst_query_get_n_allocation_params(query), 1u);
    GstAllocationParams params;
    gst_query_parse_nth_allocation_param(query, 0, nullptr, &params);
    EXPECT_EQ(params.align, 15u);
    EXPECT_EQ(params.prefix, 2u);
    EXPECT_EQ(params.padding, 2u);
    // Only the meta every branch takes with the same parameters.
    ASSERT_EQ(gst_query_get_n_allocation_metas(query), 1u);
    EXPECT_EQ(gst_query_parse_nth_allocation_meta(query, 0, nullptr), GST_PARENT_BUFFER_META_API_TYPE);
    gst_query_unref(query);
    release_all(tee, {a, b, c});
    gst_object_unref(tee);
}

TEST(G2gTeeAsTee, AllocationFailsOnAnUnlinkedBranchUnlessAllowNotLinked)
{
    GstElement *tee = gst_element_factory_make("g2gtee", nullptr);
    GstPad *a = branch_answering(tee, proposes<128, 2, 10, 15, 1, 1, false>);
    GstPad *dangling = gst_element_request_pad_simple(tee, "src_%u");
    EXPECT_FALSE(query_allocation(tee));
    g_object_set(tee, "allow-not-linked", TRUE, nullptr);
    EXPECT_TRUE(query_allocation(tee));
    gst_element_release_request_pad(tee, dangling);
    gst_object_unref(dangling);
    release_all(tee, {a});
    gst_object_unref(tee);
}

TEST(G2gTeeAsTee, AllocationFailsWhenABranchFailsIt)
{
    GstElement *tee = gst_element_factory_make("g2gtee", nullptr);
    g_object_set(tee, "allow-not-linked", TRUE, nullptr);
    GstPad *a = branch_answering(tee, proposes<128, 2, 10, 15, 1, 1, false>);
    GstPad *b = branch_answering(tee, refuses);
    EXPECT_FALSE(query_allocation(tee));
    release_all(tee, {a, b});
    gst_object_unref(tee);
}

TEST(G2gTeeAsTee, AnEmptyAllocationAnswerStaysEmpty)
{
    GstElement *tee = gst_element_factory_make("g2gtee", nullptr);
    GstPad *a = branch_answering(tee, answers_nothing);
    GstQuery *query = nullptr;
    ASSERT_TRUE(query_allocation(tee, &query));
    EXPECT_EQ(gst_query_get_n_allocation_pools(query), 0u);
    EXPECT_EQ(gst_query_get_n_allocation_params(query), 0u);
    gst_query_unref(query);
    release_all(tee, {a});
    gst_object_unref(tee);
}

TEST(G2gTeeAsTee, InternalLinksFollowThePads)
{
    GstElement *tee = gst_element_factory_make("g2gtee", nullptr);
    GstPad *sink = gst_element_get_static_pad(tee, "sink");
    auto links_of = [](GstPad *pad) {
        std::vector<GstPad *> links;
        GstIterator *it = gst_pad_iterate_internal_links(pad);
        GValue item = G_VALUE_INIT;
        GstIteratorResult res;
        while ((res = gst_iterator_next(it, &item)) != GST_ITERATOR_DONE) {
            if (res == GST_ITERATOR_RESYNC) {
                links.clear();
                gst_iterator_resync(it);
                continue;
            }
            links.push_back(GST_PAD(g_value_get_object(&item)));
            g_value_reset(&item);
        }
        g_value_unset(&item);
        gst_iterator_free(it);
        return links;
    };
    EXPECT_TRUE(links_of(sink).empty());
    GstPad *one = gst_element_request_pad_simple(tee, "src_%u");
    GstPad *two = gst_element_request_pad_simple(tee, "src_%u");
    const std::vector<GstPad *> links = links_of(sink);
    ASSERT_EQ(links.size(), 2u);
    EXPECT_NE(std::find(links.begin(), links.end(), one), links.end());
    EXPECT_NE(std::find(links.begin(), links.end(), two), links.end());
    EXPECT_EQ(links_of(one), std::vector<GstPad *>{sink});
    EXPECT_EQ(links_of(two), std::vector<GstPad *>{sink});
    gst_element_release_request_pad(tee, one);
    gst_element_release_request_pad(tee, two);
    gst_object_unref(one);
    gst_object_unref(two);
    gst_object_unref(sink);
    gst_object_unref(tee);
}
