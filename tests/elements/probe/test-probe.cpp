// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe through GstHarness: last-domain, require, silent/last-message, pass-through.
#include <g2g/g2g.h>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <string>

#include "handle-frames.h"

#include "buffers.h"
#include "pipeline.h"

namespace {

std::string string_property(GstElement *element, const char *name)
{
    gchar *value = nullptr;
    g_object_get(element, name, &value, nullptr);
    std::string text = value ? value : "";
    g_free(value);
    return text;
}

GstBuffer *cuda_like_frame()
{
    // A device frame the host cannot read: a D3D11 texture stands in for any GPU memory.
    static g2g::test::StandIn texture;
    return g2g::test::handle_frame(g2g::MemoryDomainKind::D3D11Texture, texture, 64).release();
}

// The first error message on the harness element's bus, or "".
std::string bus_error(GstHarness *harness, GstMessageType type = GST_MESSAGE_ERROR)
{
    const g2g::Ref<GstBus> bus = g2g::Ref<GstBus>::adopt(gst_element_get_bus(harness->element));
    return g2g::test::pop_message_text(bus.get(), type);
}

// A harness around one g2gprobe with `properties` ("name=p require=cuda") set as gst-launch would.
GstHarness *probe_harness(const char *properties)
{
    GstHarness *harness = gst_harness_new("g2gprobe");
    gchar **assignments = g_strsplit(properties, " ", -1);
    for (gchar **assignment = assignments; *assignment; ++assignment) {
        gchar **pair = g_strsplit(*assignment, "=", 2);
        if (pair[0] && pair[1])
            gst_util_set_object_arg(G_OBJECT(harness->element), pair[0], pair[1]);
        g_strfreev(pair);
    }
    g_strfreev(assignments);
    // The harness element has no bus of its own; give it one to read errors from.
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(harness->element, bus);
    gst_object_unref(bus);
    gst_harness_set_src_caps_str(harness, "video/x-raw,format=GRAY8,width=8,height=8,framerate=30/1");
    return harness;
}

// Tears the harness down; the bus is flushed first, since the messages on it hold the element.
void finish(GstHarness *harness)
{
    GstBus *bus = gst_element_get_bus(harness->element);
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
    gst_harness_teardown(harness);
}

} // namespace

TEST(G2gProbe, PassesFramesThroughUntouchedAndReportsTheirDomain)
{
    GstHarness *harness = probe_harness("name=probe");
    EXPECT_EQ(string_property(harness->element, "last-domain"), "");
    GstBuffer *in = gst_buffer_new_allocate(nullptr, 64, nullptr);
    GstBuffer *out = gst_harness_push_and_pull(harness, gst_buffer_ref(in));
    EXPECT_EQ(out, in); // the very same buffer: no copy, no new buffer
    EXPECT_EQ(string_property(harness->element, "last-domain"), "System");
    gst_buffer_unref(out);
    gst_buffer_unref(in);

    gst_harness_set_src_caps_str(
        harness, "video/x-raw(memory:D3D11Memory),format=GRAY8,width=8,height=8,framerate=30/1");
    out = gst_harness_push_and_pull(harness, cuda_like_frame());
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(string_property(harness->element, "last-domain"), "D3D11Texture");
    gst_buffer_unref(out);
    finish(harness);
}

TEST(G2gProbe, RequireRefusesOtherDomainsWithTheConverterToInsert)
{
    GstHarness *harness = probe_harness("name=probe0 require=system+system-view");
    guint flags = 0;
    g_object_get(harness->element, "require", &flags, nullptr);
    EXPECT_EQ(flags, (1u << G2G_MEMORY_DOMAIN_SYSTEM) | (1u << G2G_MEMORY_DOMAIN_SYSTEM_VIEW));

    EXPECT_EQ(gst_harness_push(harness, gst_buffer_new_allocate(nullptr, 64, nullptr)), GST_FLOW_OK);
    EXPECT_EQ(gst_harness_push(harness, cuda_like_frame()), GST_FLOW_ERROR);
    EXPECT_EQ(bus_error(harness), "probe0 reads system memory but received a D3D11Texture frame: insert "
                                  "d3d11download before it, or let caps negotiation settle on system memory");
    finish(harness);
}

TEST(G2gProbe, RequireADeviceDomainNamesTheUpload)
{
    GstHarness *harness = probe_harness("name=gpuonly require=cuda");
    EXPECT_EQ(gst_harness_push(harness, gst_buffer_new_allocate(nullptr, 64, nullptr)), GST_FLOW_ERROR);
    EXPECT_EQ(bus_error(harness),
              "gpuonly requires Cuda but received a System frame: insert cudaupload before it, "
              "or let caps negotiation settle on memory:CUDAMemory");
    finish(harness);
}

TEST(G2gProbe, SilentOffWritesALastMessagePerFrame)
{
    GstHarness *harness = probe_harness("silent=false");
    guint notified = 0;
    g_signal_connect(
        harness->element, "notify::last-message",
        G_CALLBACK(+[](GObject *, GParamSpec *, gpointer count) { ++*static_cast<guint *>(count); }),
        &notified);
    for (int i = 0; i < 3; ++i) {
        GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 64, nullptr);
        GST_BUFFER_PTS(buffer) = i * GST_SECOND;
        gst_buffer_unref(gst_harness_push_and_pull(harness, buffer));
    }
    EXPECT_EQ(notified, 3u);
    EXPECT_EQ(string_property(harness->element, "last-message"), "pts 0:00:02.000000000: System");
    finish(harness);
}

TEST(G2gProbe, SilentByDefault)
{
    GstHarness *harness = probe_harness("");
    gst_buffer_unref(gst_harness_push_and_pull(harness, gst_buffer_new_allocate(nullptr, 64, nullptr)));
    EXPECT_EQ(string_property(harness->element, "last-message"), "");
    finish(harness);
}

TEST(G2gProbe, AcceptsEveryCapsFeature)
{
    GstElementFactory *factory = gst_element_factory_find("g2gprobe");
    ASSERT_NE(factory, nullptr);
    for (int i = 0; i < G2G_MEMORY_DOMAIN_KIND_COUNT; ++i) {
        std::string caps_text = std::string("video/x-raw(") +
                                g2g_memory_domain_kind_caps_feature(static_cast<G2gMemoryDomainKind>(i)) +
                                ")";
        GstCaps *caps = gst_caps_from_string(caps_text.c_str());
        EXPECT_TRUE(gst_element_factory_can_sink_any_caps(factory, caps)) << caps_text;
        EXPECT_TRUE(gst_element_factory_can_src_any_caps(factory, caps)) << caps_text;
        gst_caps_unref(caps);
    }
    gst_object_unref(factory);
}

namespace {

// The first warning message on the harness element's bus, or "".
std::string bus_warning(GstHarness *harness)
{
    return bus_error(harness, GST_MESSAGE_WARNING);
}

constexpr const char *kForeignDescription =
    "unknown memory type 'G2gTestForeignMemory' from allocator ForeignAllocator: g2g does not know which "
    "domain it lives in";

} // namespace

TEST(G2gProbe, AnUnknownMemoryTypePassesWithOneWarningAndIsReportedUnknown)
{
    GstHarness *harness = probe_harness("name=probe");
    for (int i = 0; i < 3; ++i) {
        g2g::BufferRef frame = g2g::test::foreign_memory_buffer(64);
        GstBuffer *out = gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get()));
        EXPECT_EQ(out, frame.get()) << "passed through untouched";
        if (out)
            gst_buffer_unref(out);
    }
    EXPECT_EQ(string_property(harness->element, "last-domain"), "unknown");
    EXPECT_EQ(bus_warning(harness), kForeignDescription);
    EXPECT_EQ(bus_warning(harness), "") << "one warning per stream";
    finish(harness);
}

TEST(G2gProbe, RequireRefusesAnUnknownMemoryTypeByName)
{
    GstHarness *harness = probe_harness("name=strict require=system");
    EXPECT_EQ(gst_harness_push(harness, g2g::test::foreign_memory_buffer(64).release()), GST_FLOW_ERROR);
    EXPECT_EQ(bus_error(harness),
              std::string("strict requires System but received a frame in ") + kForeignDescription);
    EXPECT_EQ(gst_harness_buffers_received(harness), 0u);
    finish(harness);
}
