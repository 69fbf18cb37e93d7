// SPDX-License-Identifier: LGPL-2.1-or-later
// FrameView::materialize_to: the backend of the destination's domain writes the view (the CPU's
// for host memory and memory g2g does not know), and the refusals of what none can write.
#include <g2g/frame-view.h>

#include <gtest/gtest.h>

#include <gst/video/video.h>

#include <string>

#include "handle-frames.h"

#include "frames.h"

using g2g::BufferRef;
using g2g::FrameView;

namespace {

GstVideoInfo info_of(GstVideoFormat format, guint width, guint height)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, width, height);
    return info;
}

// A rotated and cropped view of a random NV12 frame, and the frame it reads.
struct RotatedView {
    GstVideoInfo source_info = info_of(GST_VIDEO_FORMAT_NV12, 64, 48);
    BufferRef source = g2g::test::random_frame(source_info, 7);
    FrameView view = [this] {
        g2g::Result<FrameView> made = FrameView::of_frame(source.get(), source_info);
        EXPECT_TRUE(made.ok());
        made->orient(GST_VIDEO_ORIENTATION_90R);
        EXPECT_TRUE(made->crop(2, 4, 40, 30).ok());
        return *made;
    }();
};

} // namespace

TEST(MaterializeTo, SystemFramesWithPaddedRowsGetTheBytesOfMaterialize)
{
    RotatedView rotated;
    g2g::Result<BufferRef> dense = rotated.view.materialize(rotated.source.get());
    ASSERT_TRUE(dense.ok()) << dense.error().message();

    // The destination's own layout: rows padded to 64 bytes, as the view elements' pools make them.
    GstVideoInfo layout = rotated.view.info();
    GstVideoAlignment align;
    gst_video_alignment_reset(&align);
    for (guint &stride_align : align.stride_align)
        stride_align = 63;
    ASSERT_TRUE(gst_video_info_align(&layout, &align));
    BufferRef destination =
        BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&layout), nullptr));
    g2g::Result<void> written = rotated.view.materialize_to(rotated.source.get(), destination.get(), layout);
    ASSERT_TRUE(written.ok()) << written.error().message();
    EXPECT_EQ(g2g::test::compare_frames(layout, destination.get(), rotated.view.info(), dense->get()), "");
}

TEST(MaterializeTo, AFrameOfADomainNoBackendWritesIsRefusedByName)
{
    RotatedView rotated;
    g2g::test::StandIn texture;
    BufferRef destination = g2g::test::handle_frame(g2g::MemoryDomainKind::D3D11Texture, texture,
                                                    GST_VIDEO_INFO_SIZE(&rotated.view.info()));
    ASSERT_TRUE(destination);
    g2g::Result<void> written =
        rotated.view.materialize_to(rotated.source.get(), destination.get(), rotated.view.info());
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message(), "this build of g2g materializes no views into D3D11Texture frames");
}

TEST(MaterializeTo, ADestinationSmallerThanItsLayoutIsRefused)
{
    RotatedView rotated;
    BufferRef destination = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 100, nullptr));
    g2g::Result<void> written =
        rotated.view.materialize_to(rotated.source.get(), destination.get(), rotated.view.info());
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message(), "cannot map the output frame for writing");
}

TEST(MaterializeTo, ASourceTheViewDoesNotFitIsRefused)
{
    RotatedView rotated;
    BufferRef small = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 64, nullptr));
    BufferRef destination = BufferRef::adopt(
        gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&rotated.view.info()), nullptr));
    g2g::Result<void> written =
        rotated.view.materialize_to(small.get(), destination.get(), rotated.view.info());
    ASSERT_FALSE(written.ok());
    EXPECT_NE(written.error().message().find("of the view would read bytes"), std::string::npos)
        << written.error().message();
}
