// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe in a GstHarness between DMA_DRM caps (GStreamer 1.24's form) and 1.22's: the frame
// passes as it is, and downstream is asked for its allocation in the caps it negotiated.
#include <g2g/gst-ref.h>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "allocation-watch.h"
#include "g2g-config.h"
#include "memfd-dmabuf.h"

#include <string>

using g2g::BufferRef;
using g2g::test::AllocationWatch;
using g2g::test::ask_allocation;
using g2g::test::caps_are;
using g2g::test::current_caps_are;

namespace {

constexpr gsize kSize = 16 * 16 * 3 / 2;
const std::string kFields = ",width=16,height=16,framerate=30/1";
const std::string kDmaDrm = "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12" + kFields;
const std::string kDmaBuf = "video/x-raw(memory:DMABuf),format=NV12" + kFields;
const std::string kSystem = "video/x-raw,format=NV12" + kFields;

BufferRef dmabuf_frame()
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(), g2g::test::memfd_dmabuf(kSize));
    gst_buffer_memset(buffer.get(), 0, 0x5a, kSize);
    return buffer;
}

} // namespace

TEST(G2gProbeDmaDrm, DownstreamIsAskedForItsAllocationInTheCapsItNegotiated)
{
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature";
    for (const auto &[upstream, downstream] : {std::pair{kDmaDrm, kDmaBuf}, std::pair{kDmaBuf, kDmaDrm}}) {
        GstHarness *h = gst_harness_new("g2gprobe");
        gst_harness_set_sink_caps_str(h, downstream.c_str());
        AllocationWatch asked;
        asked.watch(h->sinkpad);
        gst_harness_set_src_caps_str(h, upstream.c_str());
        ASSERT_TRUE(ask_allocation(h, upstream)) << upstream;
        EXPECT_TRUE(caps_are(asked.asked.get(), downstream)) << upstream;

        const BufferRef frame = dmabuf_frame();
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(frame.get())), GST_FLOW_OK);
        const BufferRef got = BufferRef::adopt(gst_harness_pull(h));
        ASSERT_TRUE(got);
        EXPECT_EQ(got.get(), frame.get()) << "passthrough: the very buffer";
        EXPECT_TRUE(current_caps_are(h->sinkpad, downstream));
        gst_harness_teardown(h);
    }
}

TEST(G2gProbeDmaDrm, SameCapsAreAskedAsTheyAre)
{
    // Every other domain: the query goes downstream unchanged, as before.
    GstHarness *h = gst_harness_new("g2gprobe");
    gst_harness_set_sink_caps_str(h, kSystem.c_str());
    AllocationWatch asked;
    asked.watch(h->sinkpad);
    gst_harness_set_src_caps_str(h, kSystem.c_str());
    ASSERT_TRUE(ask_allocation(h, kSystem));
    EXPECT_TRUE(caps_are(asked.asked.get(), kSystem));
    gst_harness_teardown(h);
}
