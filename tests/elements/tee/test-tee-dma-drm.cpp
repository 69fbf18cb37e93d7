// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee in a GstHarness with DMA_DRM caps (GStreamer 1.24's form) upstream and 1.22's on a branch,
// or the reverse: each branch's caps, the ALLOCATION query each is asked in its own caps (a 1.22
// peer cannot read DMA_DRM caps), and the one frame they share. The pipelines around the tee are
// in tests/pipelines/dmabuf/test-dma-drm-pipelines.cpp.
#include <g2g/gst-ref.h>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "allocation-watch.h"
#include "g2g-config.h"
#include "memfd-dmabuf.h"

#include <string>

using g2g::BufferRef;
using g2g::CapsRef;
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

#define REQUIRE_DMABUF()                                                                                     \
    do {                                                                                                     \
        if (!G2G_HAVE_DMABUF)                                                                                \
            GTEST_SKIP() << "built without the dmabuf feature";                                              \
    } while (0)

} // namespace

TEST(G2gTeeDmaDrm, EachBranchIsAskedForItsAllocationInTheCapsItNegotiated)
{
    REQUIRE_DMABUF();
    for (const auto &[upstream, restated] : {std::pair{kDmaDrm, kDmaBuf}, std::pair{kDmaBuf, kDmaDrm}}) {
        GstHarness *other_form = gst_harness_new_with_padnames("g2gtee", "sink", "src_%u");
        gst_harness_set_sink_caps_str(other_form, restated.c_str());
        GstHarness *system = gst_harness_new_with_element(other_form->element, nullptr, "src_%u");
        gst_harness_set_sink_caps_str(system, kSystem.c_str());
        GstHarness *same = gst_harness_new_with_element(other_form->element, nullptr, "src_%u");
        gst_harness_set_sink_caps_str(same, upstream.c_str());
        AllocationWatch to_other_form, to_system, to_same;
        to_other_form.watch(other_form->sinkpad);
        to_system.watch(system->sinkpad);
        to_same.watch(same->sinkpad);

        gst_harness_set_src_caps_str(other_form, upstream.c_str());
        EXPECT_TRUE(current_caps_are(other_form->sinkpad, restated)) << upstream;
        EXPECT_TRUE(current_caps_are(system->sinkpad, kSystem)) << upstream;
        EXPECT_TRUE(current_caps_are(same->sinkpad, upstream)) << upstream;
        ASSERT_TRUE(ask_allocation(other_form, upstream)) << upstream;
        EXPECT_TRUE(caps_are(to_other_form.asked.get(), restated)) << upstream;
        EXPECT_TRUE(caps_are(to_system.asked.get(), kSystem)) << upstream;
        EXPECT_TRUE(caps_are(to_same.asked.get(), upstream)) << upstream;

        // One frame, to all three: the same memory.
        const BufferRef frame = dmabuf_frame();
        ASSERT_EQ(gst_harness_push(other_form, gst_buffer_ref(frame.get())), GST_FLOW_OK);
        for (GstHarness *branch : {other_form, system, same}) {
            const BufferRef got = BufferRef::adopt(gst_harness_pull(branch));
            ASSERT_TRUE(got);
            EXPECT_EQ(gst_buffer_peek_memory(got.get(), 0), gst_buffer_peek_memory(frame.get(), 0));
        }
        gst_harness_teardown(same);
        gst_harness_teardown(system);
        gst_harness_teardown(other_form);
    }
}
