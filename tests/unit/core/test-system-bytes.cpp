// SPDX-License-Identifier: LGPL-2.1-or-later
// require_system_slice / require_system_bytes / as_system_slice.
#include <g2g/dmabuf.h>
#include <g2g/memory-domain.h>
#include <g2g/tensor-view-meta.h>

#include <gtest/gtest.h>

#include "handle-frames.h"

using g2g::BufferRef;
using g2g::MemoryDomain;
using K = g2g::MemoryDomainKind;

namespace {

// A frame of platform-handle `kind` over `object`.
MemoryDomain handle_frame(K kind, g2g::test::StandIn &object)
{
    auto domain = MemoryDomain::adopt(g2g::test::handle_frame(kind, object, 4096).release());
    EXPECT_TRUE(domain.ok());
    return std::move(domain.value());
}

} // namespace

TEST(SystemBytes, SystemFrameIsBorrowedZeroCopy)
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 100, nullptr));
    gst_buffer_memset(buffer.get(), 0, 0xab, 100);
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(buffer.get(), &map, GST_MAP_READ));
    const guint8 *expected = map.data;
    gst_buffer_unmap(buffer.get(), &map);

    auto frame = MemoryDomain::from_buffer(buffer.get());
    ASSERT_TRUE(frame.ok());
    auto slice = frame->require_system_slice("reader");
    ASSERT_TRUE(slice.ok()) << slice.error().message();
    EXPECT_TRUE(slice->borrowed());
    EXPECT_EQ(slice->data(), expected);
    EXPECT_EQ(slice->size(), 100u);
    EXPECT_EQ(slice->span()[99], 0xab);

    auto bytes = frame->require_system_bytes("reader");
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(bytes->data(), expected);
    auto optional = frame->as_system_slice();
    ASSERT_TRUE(optional.has_value());
    EXPECT_EQ(optional->data(), expected);
}

TEST(SystemBytes, EmptyFrameIsAnEmptySlice)
{
    auto frame = MemoryDomain::adopt(gst_buffer_new());
    ASSERT_TRUE(frame.ok());
    auto slice = frame->require_system_slice("reader");
    ASSERT_TRUE(slice.ok());
    EXPECT_EQ(slice->size(), 0u);
}

TEST(SystemBytes, DeviceFrameIsALoudRefusalNamingTheDownload)
{
    g2g::test::StandIn texture;
    MemoryDomain frame = handle_frame(K::D3D11Texture, texture);
    auto slice = frame.require_system_slice("myfilter0");
    ASSERT_FALSE(slice.ok());
    EXPECT_EQ(slice.error().code(), g2g::ErrorCode::UnsupportedDomain);
    EXPECT_EQ(
        slice.error().message(),
        "myfilter0 reads system memory but received a D3D11Texture frame: insert d3d11download before it, "
        "or let caps negotiation settle on system memory");
    auto bytes = frame.require_system_bytes("myfilter0");
    ASSERT_FALSE(bytes.ok());
    EXPECT_EQ(bytes.error().message(), slice.error().message());
    EXPECT_FALSE(frame.as_system_slice().has_value());
    EXPECT_FALSE(frame.as_mut_system_slice("myfilter0").ok());
}

// A view of a mappable DMA-BUF (g2gview's output on g2g's DMA-BUF frames) classifies as DmaBuf,
// but its bytes as they are are the unrotated frame: the CPU gets the view materialized, never
// the raw slice.
TEST(SystemBytes, AViewOfADmaBufIsMaterializedNeverSlicedRaw)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, 3, 2);
    BufferRef system =
        BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(system.get(), &map, GST_MAP_WRITE));
    for (gsize i = 0; i < map.size; ++i)
        map.data[i] = static_cast<guint8>(i);
    gst_buffer_unmap(system.get(), &map);
    g2g::Result<BufferRef> exported = g2g::dmabuf::export_frame(system.get(), info);
    ASSERT_TRUE(exported) << exported.error().message();
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(exported->get(), info);
    ASSERT_TRUE(view);
    view->orient(GST_VIDEO_ORIENTATION_90R);
    g2g::Result<BufferRef> expected = view->materialize(exported->get());
    ASSERT_TRUE(expected);
    attach_tensor_view(exported->get(), *view);

    auto frame = MemoryDomain::from_buffer(exported->get());
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->kind(), K::DmaBuf);
    EXPECT_FALSE(frame->as_system_slice().has_value());
    auto slice = frame->require_system_slice("reader");
    ASSERT_FALSE(slice);
    EXPECT_NE(slice.error().message().find("SystemView frame: insert g2gmaterialize"), std::string::npos)
        << slice.error().message();
    auto bytes = frame->require_system_bytes("reader");
    ASSERT_TRUE(bytes) << bytes.error().message();
    EXPECT_FALSE(bytes->borrowed());
    // The visible bytes: rows of 2 in strides of 4, whose padding neither copy writes.
    const GstVideoInfo &dense = view->info();
    ASSERT_EQ(bytes->span().size(), GST_VIDEO_INFO_SIZE(&dense));
    ASSERT_TRUE(gst_buffer_map(expected->get(), &map, GST_MAP_READ));
    for (gint row = 0; row < GST_VIDEO_INFO_HEIGHT(&dense); ++row) {
        const gsize start =
            static_cast<gsize>(row) * static_cast<gsize>(GST_VIDEO_INFO_PLANE_STRIDE(&dense, 0));
        const auto width = static_cast<gsize>(GST_VIDEO_INFO_WIDTH(&dense));
        EXPECT_EQ(std::vector<guint8>(bytes->span().begin() + start, bytes->span().begin() + start + width),
                  std::vector<guint8>(map.data + start, map.data + start + width))
            << "row " << row;
    }
    gst_buffer_unmap(expected->get(), &map);
}

TEST(SystemBytes, RefusalIsLoggedUnderTheElement)
{
    g2g::test::StandIn texture;
    MemoryDomain frame = handle_frame(K::WgpuTexture, texture);
    static std::string logged_object;
    static std::string logged_text;
    GstLogFunction capture = +[](GstDebugCategory *category, GstDebugLevel level, const gchar *,
                                 const gchar *, gint, GObject *object, GstDebugMessage *message, gpointer) {
        if (level == GST_LEVEL_ERROR && std::string(gst_debug_category_get_name(category)) == "g2g") {
            logged_object = object ? GST_OBJECT_NAME(object) : "";
            logged_text = gst_debug_message_get(message);
        }
    };
    const gboolean was_active = gst_debug_is_active();
    gst_debug_set_active(TRUE);
    gst_debug_set_threshold_for_name("g2g", GST_LEVEL_ERROR);
    gst_debug_add_log_function(capture, nullptr, nullptr);
    GstElement *element = gst_element_factory_make("identity", "myelement");
    EXPECT_FALSE(frame.require_system_slice("myelement", GST_OBJECT(element)).ok());
    gst_debug_remove_log_function(capture);
    gst_debug_unset_threshold_for_name("g2g");
    gst_debug_set_active(was_active);
    gst_object_unref(element);
    EXPECT_EQ(logged_object, "myelement");
    EXPECT_EQ(logged_text.rfind("myelement reads system memory but received a WgpuTexture frame", 0), 0u)
        << logged_text;
}
