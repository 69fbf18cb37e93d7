// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's routes in a GstHarness: each branch fed in the domain it takes (as it is, relabelled,
// converted, or dropped with a gap), routes following renegotiation and branches that come
// late, and conversions created and stopped while frames flow.
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>
#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "buffers.h"
#include "g2g-config.h"
#include "memfd-dmabuf.h"
#include "pipeline.h"
#include "tee-stats.h"

using g2g::BufferRef;
using g2g::Ref;
using g2g::test::data_of;
using g2g::test::memfd_dmabuf;
using g2g::test::tee_conversions;
using g2g::test::tee_stat;

namespace {

// A bus of its own for the harness's element, to read what it posts (set it back to none before
// the teardown).
Ref<GstBus> bus_of(GstHarness *harness)
{
    Ref<GstBus> bus = Ref<GstBus>::adopt(gst_bus_new());
    gst_element_set_bus(harness->element, bus.get());
    return bus;
}

constexpr const char *kSystem = "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1";
constexpr const char *kDmaBuf = "video/x-raw(memory:DMABuf),format=GRAY8,width=16,height=16,framerate=30/1";
constexpr const char *kView =
    "video/x-raw(memory:SystemMemory,meta:G2gTensorView),format=GRAY8,width=16,height=16,framerate=30/1";
constexpr gsize kSize = 256;

// A GRAY8 16x16 frame in a DMABuf over a memfd, filled with `value`.
BufferRef dmabuf_frame(guint8 value)
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(), memfd_dmabuf(kSize));
    gst_buffer_memset(buffer.get(), 0, value, kSize);
    return buffer;
}

BufferRef system_frame(guint8 value)
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new_allocate(nullptr, kSize, nullptr));
    gst_buffer_memset(buffer.get(), 0, value, kSize);
    return buffer;
}

// The same frame as a view (its identity view attached): what a frame in view caps always carries.
BufferRef view_frame(guint8 value)
{
    BufferRef buffer = system_frame(value);
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, 16, 16);
    g2g::Result<g2g::FrameView> identity = g2g::FrameView::of_frame(buffer.get(), info);
    EXPECT_TRUE(identity) << identity.error().message();
    if (identity)
        g2g::attach_tensor_view(buffer.get(), std::move(*identity));
    return buffer;
}

// A g2gtee whose first branch takes views, after frame `seed` went through it as a view; nullptr
// when that frame did not (a failure is added).
GstHarness *streaming_views(guint8 seed)
{
    GstHarness *views = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    gst_harness_set_sink_caps_str(views, kView);
    gst_harness_set_src_caps_str(views, kView);
    const GstFlowReturn flow = gst_harness_push(views, view_frame(seed).release());
    EXPECT_EQ(flow, GST_FLOW_OK);
    if (flow != GST_FLOW_OK) {
        gst_harness_teardown(views);
        return nullptr;
    }
    gst_buffer_unref(gst_harness_pull(views));
    return views;
}

bool caps_equal(GstPad *pad, const char *expected)
{
    GstCaps *caps = gst_pad_get_current_caps(pad);
    GstCaps *want = gst_caps_from_string(expected);
    const bool equal = caps && gst_caps_is_equal(caps, want);
    if (caps)
        gst_caps_unref(caps);
    gst_caps_unref(want);
    return equal;
}

// A sink pad that takes only dense system-memory GRAY8 and counts what it receives.
GstPad *dense_sink_pad()
{
    GstPad *pad = gst_pad_new("dense", GST_PAD_SINK);
    gst_pad_set_chain_function(
        pad, +[](GstPad *, GstObject *, GstBuffer *buffer) -> GstFlowReturn {
            gst_buffer_unref(buffer);
            return GST_FLOW_OK;
        });
    gst_pad_set_query_function(
        pad, +[](GstPad *pad, GstObject *parent, GstQuery *query) -> gboolean {
            if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS)
                return gst_pad_query_default(pad, parent, query);
            GstCaps *caps = gst_caps_from_string(kSystem);
            gst_query_set_caps_result(query, caps);
            gst_caps_unref(caps);
            return TRUE;
        });
    gst_pad_set_active(pad, TRUE);
    return pad;
}

} // namespace

TEST(G2gTeeRoutes, MappableDmaBufReachesSystemBranchesRelabelledNotCopied)
{
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature";
    GstHarness *system = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    gst_harness_set_sink_caps_str(system, kSystem);
    GstHarness *dmabuf = gst_harness_new_with_element(system->element, nullptr, "src_%u");
    gst_harness_set_sink_caps_str(dmabuf, kDmaBuf);
    gst_harness_set_src_caps_str(system, kDmaBuf);

    BufferRef frame = dmabuf_frame(42);
    GstMemory *memory = gst_buffer_peek_memory(frame.get(), 0);
    ASSERT_EQ(gst_harness_push(system, gst_buffer_ref(frame.get())), GST_FLOW_OK);
    BufferRef to_system = BufferRef::adopt(gst_harness_pull(system));
    BufferRef to_dmabuf = BufferRef::adopt(gst_harness_pull(dmabuf));
    // The same DMABuf memory for both; the system branch negotiated system memory and maps it.
    EXPECT_EQ(gst_buffer_peek_memory(to_system.get(), 0), memory);
    EXPECT_EQ(gst_buffer_peek_memory(to_dmabuf.get(), 0), memory);
    EXPECT_TRUE(caps_equal(system->sinkpad, kSystem));
    EXPECT_TRUE(caps_equal(dmabuf->sinkpad, kDmaBuf));
    guint8 last = 0;
    gst_buffer_extract(to_system.get(), kSize - 1, &last, 1); // fd memory unmaps on unmap: no data_of
    EXPECT_EQ(last, 42);
    EXPECT_EQ(tee_conversions(system->element, "DmaBuf-to-System"), 1u);
    EXPECT_EQ(tee_stat(system->element, "bytes-converted"), 0u);
    gst_harness_teardown(dmabuf);
    gst_harness_teardown(system);
}

TEST(G2gTeeRoutes, RoutesFollowTheStreamWhenUpstreamRenegotiatesItsDomain)
{
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature";
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    gst_harness_set_sink_caps_str(h, kSystem);
    gst_harness_set_src_caps_str(h, kSystem);
    ASSERT_EQ(gst_harness_push(h, system_frame(1).release()), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
    EXPECT_EQ(tee_conversions(h->element, "DmaBuf-to-System"), 0u);

    gst_harness_set_src_caps_str(h, kDmaBuf); // mid-stream: now DMABuf frames
    ASSERT_EQ(gst_harness_push(h, dmabuf_frame(2).release()), GST_FLOW_OK);
    BufferRef relabelled = BufferRef::adopt(gst_harness_pull(h));
    EXPECT_TRUE(gst_is_dmabuf_memory(gst_buffer_peek_memory(relabelled.get(), 0)));
    EXPECT_TRUE(caps_equal(h->sinkpad, kSystem));
    EXPECT_EQ(tee_conversions(h->element, "DmaBuf-to-System"), 1u);

    gst_harness_set_src_caps_str(h, kSystem); // and back
    ASSERT_EQ(gst_harness_push(h, system_frame(3).release()), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
    EXPECT_EQ(tee_conversions(h->element, "DmaBuf-to-System"), 1u);
    gst_harness_teardown(h);
}

TEST(G2gTeeRoutes, ABranchAddedMidStreamThatTakesOnlyDenseFramesGetsAConversion)
{
    GstHarness *views = streaming_views(5);
    ASSERT_NE(views, nullptr);

    GstHarness *dense = gst_harness_new_with_element(views->element, nullptr, "src_%u");
    gst_harness_set_sink_caps_str(dense, kSystem);
    gst_harness_play(dense);
    BufferRef frame = view_frame(7);
    ASSERT_EQ(gst_harness_push(views, gst_buffer_ref(frame.get())), GST_FLOW_OK);
    BufferRef as_view = BufferRef::adopt(gst_harness_pull(views));
    BufferRef materialized = BufferRef::adopt(gst_harness_pull(dense));
    EXPECT_EQ(gst_buffer_peek_memory(as_view.get(), 0), gst_buffer_peek_memory(frame.get(), 0));
    EXPECT_NE(gst_buffer_peek_memory(materialized.get(), 0), gst_buffer_peek_memory(frame.get(), 0));
    EXPECT_EQ(std::memcmp(data_of(materialized.get()), data_of(frame.get()), kSize), 0);
    EXPECT_TRUE(caps_equal(dense->sinkpad, kSystem));
    EXPECT_EQ(tee_conversions(views->element, "SystemView-to-System"), 1u);
    gst_harness_teardown(dense);
    gst_harness_teardown(views);
}

TEST(G2gTeeRoutes, ADroppedBranchGetsTheStreamAndAGapToPrerollOnButNoFrames)
{
    GstHarness *ok = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    g_object_set(ok->element, "fan-out-policy", 1 /* drop-branch */, nullptr);
    gst_harness_set_sink_caps_str(ok, kSystem);
    GstHarness *cuda = gst_harness_new_with_element(ok->element, nullptr, "src_%u");
    gst_harness_set_sink_caps_str(cuda, "video/x-raw(memory:CUDAMemory),format=GRAY8,width=16,height=16");
    gst_harness_set_src_caps_str(ok, kSystem);
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(gst_harness_push(ok, system_frame(1).release()), GST_FLOW_OK);
        gst_buffer_unref(gst_harness_pull(ok));
    }
    EXPECT_EQ(gst_harness_buffers_received(cuda), 0u);
    bool gap = false, caps = false;
    while (GstEvent *event = gst_harness_try_pull_event(cuda)) {
        gap |= GST_EVENT_TYPE(event) == GST_EVENT_GAP;
        caps |= GST_EVENT_TYPE(event) == GST_EVENT_CAPS;
        gst_event_unref(event);
    }
    EXPECT_TRUE(gap);
    EXPECT_FALSE(caps);
    gst_harness_teardown(cuda);
    gst_harness_teardown(ok);
}

// A refusal waits for the first frame: at the caps event upstream is still negotiating (its
// allocation query follows), and an application stopping the pipeline on the error would tear
// upstream down under that query (GStreamer 1.22's vulkanupload then aborts in the loader).
TEST(G2gTeeRoutes, ARefusalIsAnErrorAtTheFirstFrameAndEveryFrameIsRefused)
{
    GstHarness *views = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    g_object_set(views->element, "copy-budget", 0, nullptr);
    const Ref<GstBus> bus = bus_of(views);
    gst_harness_set_sink_caps_str(views, kView);
    GstHarness *dense = gst_harness_new_with_element(views->element, nullptr, "src_%u");
    gst_harness_set_sink_caps_str(dense, kSystem);
    gst_harness_set_src_caps_str(views, kView); // the dense branch would need a conversion
    EXPECT_EQ(gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR), nullptr);

    EXPECT_EQ(gst_harness_push(views, view_frame(1).release()), GST_FLOW_ERROR);
    Ref<GstMessage> error = Ref<GstMessage>::adopt(gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR));
    ASSERT_TRUE(error);
    GError *refusal = nullptr;
    gst_message_parse_error(error.get(), &refusal, nullptr);
    EXPECT_TRUE(g_error_matches(refusal, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED));
    EXPECT_NE(std::string(refusal->message).find("copy-budget 0 exceeded"), std::string::npos)
        << refusal->message;
    g_error_free(refusal);

    EXPECT_EQ(gst_harness_push(views, view_frame(2).release()), GST_FLOW_ERROR);
    EXPECT_EQ(gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR), nullptr); // said once
    EXPECT_EQ(gst_harness_buffers_received(views) + gst_harness_buffers_received(dense), 0u);
    gst_element_set_bus(views->element, nullptr);
    gst_harness_teardown(dense);
    gst_harness_teardown(views);
}

TEST(G2gTeeRoutes, TwoHundredConvertedBranchesComeAndGoWhileFramesFlow)
{
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    gst_harness_set_sink_caps_str(h, kView);
    gst_harness_set_drop_buffers(h, TRUE);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    GstCaps *caps = gst_caps_from_string(kView);
    BufferRef frame = view_frame(9);
    GstHarnessThread *pusher = gst_harness_stress_push_buffer_start(h, caps, &segment, frame.get());
    gst_caps_unref(caps);
    // Each added branch takes only dense frames: linking it starts a conversion (g2gmaterialize
    // inside the tee), releasing it stops the conversion again.
    int cycles = 0;
    for (; cycles < 200 || (tee_conversions(h->element, "SystemView-to-System") < 20 && cycles < 100000);
         ++cycles) {
        GstPad *src = gst_element_request_pad_simple(h->element, "src_%u");
        GstPad *sink = dense_sink_pad();
        ASSERT_EQ(gst_pad_link(src, sink), GST_PAD_LINK_OK);
        g_usleep(cycles % 10 == 0 ? 2000 : 0); // now and then, long enough for frames to reach it
        gst_pad_unlink(src, sink);
        gst_element_release_request_pad(h->element, src);
        gst_object_unref(src);
        gst_pad_set_active(sink, FALSE);
        gst_object_unref(sink);
    }
    gst_harness_stress_thread_stop(pusher);
    EXPECT_GE(cycles, 200);
    EXPECT_GT(tee_stat(h->element, "frames"), 0u);
    EXPECT_GT(tee_conversions(h->element, "SystemView-to-System"), 0u);
    gint count = -1;
    g_object_get(h->element, "num-src-pads", &count, nullptr);
    EXPECT_EQ(count, 1);
    gst_harness_teardown(h);
}

namespace {

// What a capturing sink pad received: its frames and the caps of its last caps event.
struct Captured {
    std::vector<BufferRef> frames;
    std::string caps;
};

// A sink pad that takes only dense system-memory GRAY8 and keeps what reaches it in `into`.
GstPad *capturing_dense_sink_pad(Captured *into)
{
    GstPad *pad = dense_sink_pad();
    GST_PAD_ELEMENT_PRIVATE(pad) = into;
    gst_pad_set_chain_function(
        pad, +[](GstPad *pad, GstObject *, GstBuffer *buffer) -> GstFlowReturn {
            static_cast<Captured *>(GST_PAD_ELEMENT_PRIVATE(pad))->frames.push_back(BufferRef::adopt(buffer));
            return GST_FLOW_OK;
        });
    gst_pad_set_event_function(
        pad, +[](GstPad *pad, GstObject *parent, GstEvent *event) -> gboolean {
            if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
                GstCaps *caps = nullptr;
                gst_event_parse_caps(event, &caps);
                g_autofree gchar *text = gst_caps_to_string(caps);
                static_cast<Captured *>(GST_PAD_ELEMENT_PRIVATE(pad))->caps = text;
            }
            return gst_pad_event_default(pad, parent, event);
        });
    return pad;
}

} // namespace

// A branch linked after the routes were decided, without the RECONFIGURE a plain link sends (or
// before the tee handled it), is decided before its first frame: fed the view as it is, a dense
// branch would read the source's bytes as the view's frame.
TEST(G2gTeeRoutes, ABranchLinkedSinceTheRoutesWereDecidedIsDecidedBeforeItsFirstFrame)
{
    GstHarness *views = streaming_views(1);
    ASSERT_NE(views, nullptr);

    GstPad *src = gst_element_request_pad_simple(views->element, "src_%u");
    ASSERT_EQ(gst_harness_push(views, view_frame(2).release()), GST_FLOW_OK); // decided unlinked
    gst_buffer_unref(gst_harness_pull(views));
    Captured dense;
    GstPad *sink = capturing_dense_sink_pad(&dense);
    ASSERT_EQ(gst_pad_link_full(src, sink,
                                static_cast<GstPadLinkCheck>(GST_PAD_LINK_CHECK_DEFAULT |
                                                             GST_PAD_LINK_CHECK_NO_RECONFIGURE)),
              GST_PAD_LINK_OK);
    BufferRef frame = view_frame(3);
    ASSERT_EQ(gst_harness_push(views, gst_buffer_ref(frame.get())), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(views));
    ASSERT_EQ(dense.frames.size(), 1u);
    g2g::CapsRef want = g2g::CapsRef::adopt(gst_caps_from_string(kSystem));
    g_autofree gchar *want_text = gst_caps_to_string(want.get());
    EXPECT_EQ(dense.caps, want_text) << "the caps of the dense frame, not the view's";
    EXPECT_NE(gst_buffer_peek_memory(dense.frames[0].get(), 0), gst_buffer_peek_memory(frame.get(), 0))
        << "the materialized frame, not the view's source";
    EXPECT_EQ(tee_conversions(views->element, "SystemView-to-System"), 1u);

    gst_pad_unlink(src, sink);
    gst_element_release_request_pad(views->element, src);
    gst_object_unref(src);
    gst_pad_set_active(sink, FALSE);
    gst_object_unref(sink);
    dense.frames.clear();
    gst_harness_teardown(views);
}

// A view over device memory has no conversion in the tee (cudadownload would copy the bytes under
// the view): a branch that takes no views is refused by name, whatever its caps.
TEST(G2gTeeRoutes, AViewOverDeviceMemoryIsRefusedToABranchThatTakesNoViews)
{
    constexpr const char *kCudaView = "video/x-raw(memory:CUDAMemory,meta:G2gTensorView),format=GRAY8,"
                                      "width=16,height=16,framerate=30/1";
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    const Ref<GstBus> bus = bus_of(h);
    gst_harness_set_src_caps_str(h, kCudaView); // the harness's sink takes ANY caps
    EXPECT_EQ(gst_harness_push(h, system_frame(1).release()), GST_FLOW_ERROR);
    Ref<GstMessage> error = Ref<GstMessage>::adopt(gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR));
    ASSERT_TRUE(error);
    GError *refusal = nullptr;
    gst_message_parse_error(error.get(), &refusal, nullptr);
    EXPECT_TRUE(g_error_matches(refusal, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION));
    EXPECT_EQ(std::string(refusal->message),
              std::string("branch src_0 of ") + GST_OBJECT_NAME(h->element) +
                  " (to an unknown peer) takes no views (meta:G2gTensorView) of Cuda frames, and g2gtee "
                  "materializes views in system memory only: insert g2gmaterialize in that branch");
    g_error_free(refusal);
    EXPECT_EQ(gst_harness_buffers_received(h), 0u);
    gst_element_set_bus(h->element, nullptr);
    gst_harness_teardown(h);
}

namespace {

// The message of the first error on `bus`, or "".
std::string error_on(GstBus *bus)
{
    return g2g::test::pop_message_text(bus, GST_MESSAGE_ERROR);
}

constexpr const char *kD3D11 =
    "video/x-raw(memory:D3D11Memory),format=GRAY8,width=16,height=16,framerate=30/1";

} // namespace

// Frames whose memory g2g does not know (a platform's own allocator) under system-memory caps go
// to every branch as they are, by reference, as tee hands them on: not re-wrapped, not copied.
TEST(G2gTeeRoutes, FramesOfAnUnknownMemoryTypeAreSharedAsTheyAre)
{
    GstHarness *a = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    GstHarness *b = gst_harness_new_with_element(a->element, nullptr, "src_%u");
    gst_harness_set_src_caps_str(a, kSystem);
    BufferRef frame = g2g::test::foreign_memory_buffer(kSize);
    ASSERT_EQ(gst_harness_push(a, gst_buffer_ref(frame.get())), GST_FLOW_OK);
    BufferRef to_a = BufferRef::adopt(gst_harness_pull(a));
    BufferRef to_b = BufferRef::adopt(gst_harness_pull(b));
    EXPECT_EQ(to_a.get(), frame.get());
    EXPECT_EQ(to_b.get(), frame.get());
    EXPECT_EQ(tee_stat(a->element, "shares"), 2u);
    EXPECT_EQ(tee_stat(a->element, "copies"), 0u);
    gst_harness_teardown(b);
    gst_harness_teardown(a);
}

// Caps of a memory type no domain names (memory:GLMemory) cannot be judged: every branch gets them
// as they are, as tee gives them; a branch that refuses them refuses the caps (not-negotiated).
TEST(G2gTeeRoutes, CapsOfAnUnknownMemoryFeatureGoToEveryBranchAsTheyAre)
{
    constexpr const char *kGl = "video/x-raw(memory:GLMemory),format=GRAY8,width=16,height=16,framerate=30/1";
    GstHarness *any = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    gst_harness_set_src_caps_str(any, kGl);
    ASSERT_EQ(gst_harness_push(any, system_frame(1).release()), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(any));
    EXPECT_TRUE(caps_equal(any->sinkpad, kGl));

    GstHarness *system = gst_harness_new_with_element(any->element, nullptr, "src_%u");
    gst_harness_set_sink_caps_str(system, kSystem);
    EXPECT_EQ(gst_harness_push(any, system_frame(2).release()), GST_FLOW_NOT_NEGOTIATED);
    EXPECT_EQ(gst_harness_buffers_received(system), 0u);
    gst_harness_teardown(system);
    gst_harness_teardown(any);
}

// A domain no branch takes and g2gtee converts to none of theirs (a D3D11 texture, for system-memory
// branches), fan-out-policy=fail: the element error at the first frame, naming the branch.
TEST(G2gTeeRoutes, ADomainNoBranchTakesFailsNamingTheBranchWithFanOutPolicyFail)
{
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    const Ref<GstBus> bus = bus_of(h);
    gst_harness_set_sink_caps_str(h, kSystem);
    gst_harness_set_src_caps_str(h, kD3D11);
    EXPECT_EQ(gst_harness_push(h, system_frame(1).release()), GST_FLOW_ERROR);
    const std::string tee = GST_OBJECT_NAME(h->element);
    EXPECT_EQ(error_on(bus.get()),
              "branch src_0 of " + tee +
                  " (to an unknown peer) reads system memory but received a D3D11Texture frame: insert "
                  "d3d11download before it, or let caps negotiation settle on system memory");
    EXPECT_EQ(gst_harness_buffers_received(h), 0u);
    gst_element_set_bus(h->element, nullptr);
    gst_harness_teardown(h);
}

// The same with fan-out-policy=drop-branch: with every branch dropped the frames would reach none,
// which is an element error too (allow-not-linked=true lets them go nowhere, as tee's does).
TEST(G2gTeeRoutes, ADomainNoBranchTakesFailsWhenDropBranchDropsEveryBranch)
{
    GstHarness *h = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
    g_object_set(h->element, "fan-out-policy", 1 /* drop-branch */, nullptr);
    const Ref<GstBus> bus = bus_of(h);
    gst_harness_set_sink_caps_str(h, kSystem);
    gst_harness_set_src_caps_str(h, kD3D11);
    EXPECT_EQ(gst_harness_push(h, system_frame(1).release()), GST_FLOW_ERROR);
    const std::string tee = GST_OBJECT_NAME(h->element);
    EXPECT_EQ(error_on(bus.get()),
              "fan-out-policy=drop-branch drops every branch of " + tee +
                  ", so frames reach none: branch src_0 of " + tee +
                  " (to an unknown peer) reads system memory but received a D3D11Texture frame: insert "
                  "d3d11download before it, or let caps negotiation settle on system memory");
    EXPECT_EQ(gst_harness_buffers_received(h), 0u);

    g_object_set(h->element, "allow-not-linked", TRUE, nullptr);
    EXPECT_EQ(gst_harness_push(h, system_frame(2).release()), GST_FLOW_OK);
    EXPECT_EQ(gst_harness_buffers_received(h), 0u);
    gst_element_set_bus(h->element, nullptr);
    gst_harness_teardown(h);
}
