// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for video frames (see frames.h).
#include "frames.h"

#include <gtest/gtest.h>

#include <gst/check/gstharness.h>

#include <cstring>
#include <random>

namespace g2g::test {

BufferRef random_frame(const GstVideoInfo &info, guint32 seed)
{
    BufferRef buffer =
        BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
    GstMapInfo map;
    gst_buffer_map(buffer.get(), &map, GST_MAP_WRITE);
    std::mt19937 random(seed);
    for (gsize i = 0; i < map.size; ++i)
        map.data[i] = static_cast<guint8>(random());
    gst_buffer_unmap(buffer.get(), &map);
    return buffer;
}

namespace {

bool is_packed_422(GstVideoFormat format)
{
    return format == GST_VIDEO_FORMAT_YUY2 || format == GST_VIDEO_FORMAT_UYVY ||
           format == GST_VIDEO_FORMAT_YVYU;
}

// Bytes of row `y` of plane `p` that carry pixels; for packed 4:2:2 of odd width the unused
// second luma slot of the last macropixel is skipped.
bool row_equal(const GstVideoFrame &a, const GstVideoFrame &b, guint p, guint y, std::string &where)
{
    const GstVideoFormatInfo *finfo = a.info.finfo;
    guint c = 0;
    while (GST_VIDEO_FORMAT_INFO_PLANE(finfo, c) != p)
        ++c;
    const guint width = GST_VIDEO_FRAME_COMP_WIDTH(&a, c);
    const auto *ra = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&a, p)) +
                     y * GST_VIDEO_FRAME_PLANE_STRIDE(&a, p);
    const auto *rb = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&b, p)) +
                     y * GST_VIDEO_FRAME_PLANE_STRIDE(&b, p);
    guint bytes = width * GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c);
    guint skip = G_MAXUINT;
    if (is_packed_422(GST_VIDEO_FRAME_FORMAT(&a))) {
        bytes = (width + 1) / 2 * 4;
        if (width & 1)
            skip = (width - 1) * 2 + GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 0) + 2;
    }
    for (guint i = 0; i < bytes; ++i) {
        if (i != skip && ra[i] != rb[i]) {
            where = "plane " + std::to_string(p) + " row " + std::to_string(y) + " byte " +
                    std::to_string(i) + ": " + std::to_string(ra[i]) + " vs " + std::to_string(rb[i]);
            return false;
        }
    }
    return true;
}

} // namespace

std::string compare_frames(const GstVideoInfo &info_a, GstBuffer *a, const GstVideoInfo &info_b, GstBuffer *b)
{
    if (GST_VIDEO_INFO_FORMAT(&info_a) != GST_VIDEO_INFO_FORMAT(&info_b) ||
        GST_VIDEO_INFO_WIDTH(&info_a) != GST_VIDEO_INFO_WIDTH(&info_b) ||
        GST_VIDEO_INFO_HEIGHT(&info_a) != GST_VIDEO_INFO_HEIGHT(&info_b))
        return std::string("geometry differs: ") + GST_VIDEO_INFO_NAME(&info_a) + " " +
               std::to_string(GST_VIDEO_INFO_WIDTH(&info_a)) + "x" +
               std::to_string(GST_VIDEO_INFO_HEIGHT(&info_a)) + " vs " + GST_VIDEO_INFO_NAME(&info_b) + " " +
               std::to_string(GST_VIDEO_INFO_WIDTH(&info_b)) + "x" +
               std::to_string(GST_VIDEO_INFO_HEIGHT(&info_b));
    GstVideoFrame fa, fb;
    if (!gst_video_frame_map(&fa, const_cast<GstVideoInfo *>(&info_a), a, GST_MAP_READ))
        return "cannot map the first frame";
    if (!gst_video_frame_map(&fb, const_cast<GstVideoInfo *>(&info_b), b, GST_MAP_READ)) {
        gst_video_frame_unmap(&fa);
        return "cannot map the second frame";
    }
    std::string where;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&fa) && where.empty(); ++p) {
        guint c = 0;
        while (GST_VIDEO_FORMAT_INFO_PLANE(fa.info.finfo, c) != p)
            ++c;
        for (guint y = 0; y < static_cast<guint>(GST_VIDEO_FRAME_COMP_HEIGHT(&fa, c)); ++y) {
            if (!row_equal(fa, fb, p, y, where))
                break;
        }
    }
    gst_video_frame_unmap(&fb);
    gst_video_frame_unmap(&fa);
    return where;
}

std::vector<HarnessOutput> run_chain_on_each(const std::string &description,
                                             const std::vector<HarnessInput> &inputs, const char *sink_caps,
                                             GstAllocator *allocator)
{
    std::vector<HarnessOutput> outputs;
    GstHarness *harness = gst_harness_new_parse(description.c_str());
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(harness->element, bus);
    // Before the caps: setting them already negotiates, allocation included.
    if (allocator)
        gst_harness_set_propose_allocator(harness, GST_ALLOCATOR(gst_object_ref(allocator)), nullptr);
    for (const HarnessInput &input : inputs) {
        HarnessOutput &out = outputs.emplace_back();
        gst_harness_set_src_caps(harness, gst_video_info_to_caps(&input.info));
        if (sink_caps && outputs.size() == 1)
            gst_harness_set_sink_caps_str(harness, sink_caps);
        const GstFlowReturn flow = gst_harness_push(harness, gst_buffer_ref(input.buffer));
        if (flow == GST_FLOW_OK) {
            out.buffer = BufferRef::adopt(gst_harness_try_pull(harness));
            GstCaps *negotiated = gst_pad_get_current_caps(harness->sinkpad);
            if (negotiated) {
                gst_video_info_from_caps(&out.info, negotiated);
                gchar *text = gst_caps_to_string(negotiated);
                out.caps = text;
                g_free(text);
                gst_caps_unref(negotiated);
            }
        } else {
            out.error = std::string("flow ") + gst_flow_get_name(flow);
        }
        if (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
            GError *error = nullptr;
            gst_message_parse_error(message, &error, nullptr);
            out.error = error->message;
            out.error_source = GST_MESSAGE_SRC_NAME(message);
            g_error_free(error);
            gst_message_unref(message);
        }
        if (!out.error.empty())
            break; // an element that posted an error has stopped its stream
    }
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
    gst_harness_teardown(harness);
    return outputs;
}

HarnessOutput run_chain(const std::string &description, const GstVideoInfo &in_info, GstBuffer *input,
                        const char *sink_caps, GstAllocator *allocator)
{
    return run_chain_on_each(description, {{in_info, input}}, sink_caps, allocator).front();
}

GstVideoInfo video_info_of_caps(const std::string &caps_string)
{
    GstVideoInfo info;
    gst_video_info_init(&info);
    if (GstCaps *caps = gst_caps_from_string(caps_string.c_str())) {
        gst_video_info_from_caps(&info, caps);
        gst_caps_unref(caps);
    }
    return info;
}

GstVideoInfo video_info(GstVideoFormat format, int width, int height)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, width, height);
    return info;
}

GstVideoInfo current_sink_info(GstHarness *harness)
{
    GstVideoInfo info;
    gst_video_info_init(&info);
    if (const CapsRef caps = CapsRef::adopt(gst_pad_get_current_caps(harness->sinkpad)))
        gst_video_info_from_caps(&info, caps.get());
    return info;
}

void expect_same_frames(const PipelineRun &ours, const PipelineRun &peer, const std::string &what,
                        const char *sink)
{
    ASSERT_EQ(ours.error, "") << what;
    ASSERT_EQ(peer.error, "") << what;
    ASSERT_FALSE(peer.buffers.empty()) << what;
    const std::vector<BufferRef> &frames = ours.sinks.at(sink);
    ASSERT_EQ(frames.size(), peer.buffers.size()) << what;
    const GstVideoInfo our_info = video_info_of_caps(ours.sink_caps.at(sink));
    const GstVideoInfo peer_info = video_info_of_caps(peer.sink_caps.at("sink"));
    for (std::size_t i = 0; i < frames.size(); ++i)
        ASSERT_EQ(compare_frames(our_info, frames[i].get(), peer_info, peer.buffers[i].get()), "")
            << what << ", frame " << i;
}

} // namespace g2g::test
