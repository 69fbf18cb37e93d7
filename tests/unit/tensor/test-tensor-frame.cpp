// SPDX-License-Identifier: LGPL-2.1-or-later
// TensorFrame (g2g/tensor-frame.h): planes as strided tensors over the frame's own memory, views
// included, their DLPack export (no copy where the consumer can read the plane, one dense copy
// where it cannot), lifetimes (a tensor holds its frame), and the refusals.
#include <g2g/cuda-view.h>
#include <g2g/dmabuf.h>
#include <g2g/tensor-frame.h>
#include <g2g/tensor-view-meta.h>

#include <gtest/gtest.h>

#include <gst/video/video.h>

#include <cstring>
#include <string>
#include <tuple>

#include "buffers.h"
#include "frames.h"
#include "handle-frames.h"
#include "memfd-dmabuf.h"

using g2g::BufferRef;
using g2g::FrameView;
using g2g::PlaneTensor;
using g2g::TensorExport;
using g2g::TensorFrame;

namespace {

std::shared_ptr<TensorFrame> frame_of(GstBuffer *buffer, const GstVideoInfo &info)
{
    g2g::Result<std::shared_ptr<TensorFrame>> frame = TensorFrame::of(buffer, info);
    EXPECT_TRUE(frame.ok()) << frame.error().message();
    return frame ? *frame : nullptr;
}

// The bytes of element (row, column) of a tensor, component by component.
std::string element_at(const PlaneTensor &tensor, std::uint32_t row, std::uint32_t column)
{
    const auto *at =
        static_cast<const char *>(tensor.data) + row * tensor.row_stride + column * tensor.column_stride;
    return std::string(at, tensor.components * tensor.component_size);
}

// "" when every element of plane p of `frame`, read through its tensor, is that of plane p of
// `dense` (a dense frame laid out as `dense_info`); else the first difference.
std::string compare_with_dense(const TensorFrame &frame, unsigned p, GstBuffer *dense,
                               const GstVideoInfo &dense_info)
{
    g2g::Result<PlaneTensor> tensor = frame.plane(p);
    if (!tensor)
        return tensor.error().message();
    GstVideoFrame mapped;
    if (!gst_video_frame_map(&mapped, const_cast<GstVideoInfo *>(&dense_info), dense, GST_MAP_READ))
        return "cannot map the dense frame";
    std::string difference;
    const auto *base = static_cast<const char *>(GST_VIDEO_FRAME_PLANE_DATA(&mapped, p));
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(&mapped, p);
    const std::size_t element = tensor->components * tensor->component_size;
    for (std::uint32_t r = 0; r < tensor->rows && difference.empty(); ++r) {
        for (std::uint32_t c = 0; c < tensor->columns && difference.empty(); ++c) {
            if (element_at(*tensor, r, c) != std::string(base + r * stride + c * element, element))
                difference = "plane " + std::to_string(p) + " differs at row " + std::to_string(r) +
                             ", column " + std::to_string(c);
        }
    }
    gst_video_frame_unmap(&mapped);
    return difference;
}

// [first, last] byte addresses a tensor touches.
std::pair<const char *, const char *> extent_of(const PlaneTensor &tensor)
{
    const auto *origin = static_cast<const char *>(tensor.data);
    const std::int64_t rows = (tensor.rows - 1) * tensor.row_stride;
    const std::int64_t columns = (tensor.columns - 1) * tensor.column_stride;
    const std::int64_t element = tensor.components * tensor.component_size - 1;
    return {origin + std::min<std::int64_t>(rows, 0) + std::min<std::int64_t>(columns, 0),
            origin + std::max<std::int64_t>(rows, 0) + std::max<std::int64_t>(columns, 0) + element};
}

// True when every byte `tensor` touches lies inside the memory `buffer` holds (mapped to see where).
bool inside_memory_of(const PlaneTensor &tensor, GstBuffer *buffer)
{
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READ))
        return false;
    const auto [first, last] = extent_of(tensor);
    const auto *begin = reinterpret_cast<const char *>(map.data);
    const bool inside = first >= begin && last < begin + map.size;
    gst_buffer_unmap(buffer, &map);
    return inside;
}

// A view of `source` made by orienting and cropping (as g2gview makes one): a buffer over the
// source's memory carrying the view.
BufferRef view_buffer(GstBuffer *source, const GstVideoInfo &info, GstVideoOrientationMethod method,
                      GstVideoInfo &view_info)
{
    g2g::Result<FrameView> view = FrameView::of_frame(source, info);
    EXPECT_TRUE(view.ok());
    view->orient(method);
    EXPECT_TRUE(view->crop(2, 4, view->width() - 6, view->height() - 8).ok());
    view_info = view->info();
    BufferRef buffer = BufferRef::adopt(gst_buffer_copy(source));
    g2g::attach_tensor_view(buffer.get(), *view);
    return buffer;
}

// Sets `*freed` when the buffer is finalized.
void watch_finalize(GstBuffer *buffer, bool *freed)
{
    gst_mini_object_weak_ref(
        GST_MINI_OBJECT(buffer), [](gpointer data, GstMiniObject *) { *static_cast<bool *>(data) = true; },
        freed);
}

// A view (`method` and a crop) of a random 64x48 frame of `format`, as a tensor frame.
struct ViewFrame {
    ViewFrame(GstVideoFormat format, GstVideoOrientationMethod method, guint32 seed)
        : info(g2g::test::video_info(format, 64, 48)), source(g2g::test::random_frame(info, seed)),
          view(view_buffer(source.get(), info, method, view_info)), frame(frame_of(view.get(), view_info))
    {
    }
    GstVideoInfo info;
    BufferRef source;
    GstVideoInfo view_info{};
    BufferRef view;
    std::shared_ptr<TensorFrame> frame;
};

class PlanesOfDenseFrames : public testing::TestWithParam<GstVideoFormat> {};

} // namespace

// Every plane of a dense frame is a tensor over its own bytes: the address GStreamer's video frame
// mapping gives, its rows and stride, its pixels' components.
TEST_P(PlanesOfDenseFrames, AreTheFramesOwnMemoryElementForElement)
{
    const GstVideoInfo info = g2g::test::video_info(GetParam(), 37, 23);
    BufferRef buffer = g2g::test::random_frame(info, 11);
    std::shared_ptr<TensorFrame> frame = frame_of(buffer.get(), info);
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->kind(), g2g::MemoryDomainKind::System);
    ASSERT_EQ(frame->n_planes(), GST_VIDEO_INFO_N_PLANES(&info));
    GstVideoFrame mapped;
    ASSERT_TRUE(gst_video_frame_map(&mapped, const_cast<GstVideoInfo *>(&info), buffer.get(), GST_MAP_READ));
    for (unsigned p = 0; p < frame->n_planes(); ++p) {
        g2g::Result<PlaneTensor> plane = frame->plane(p);
        ASSERT_TRUE(plane.ok()) << plane.error().message();
        EXPECT_EQ(plane->data, GST_VIDEO_FRAME_PLANE_DATA(&mapped, p));
        EXPECT_EQ(plane->offset, static_cast<std::int64_t>(GST_VIDEO_INFO_PLANE_OFFSET(&info, p)));
        EXPECT_EQ(plane->row_stride, GST_VIDEO_INFO_PLANE_STRIDE(&info, p));
        EXPECT_EQ(plane->column_stride, plane->components * plane->component_size);
        EXPECT_EQ(plane->device, g2g::TensorDevice::Cpu);
        EXPECT_TRUE(plane->little_endian);
        EXPECT_EQ(compare_with_dense(*frame, p, buffer.get(), info), "");
    }
    gst_video_frame_unmap(&mapped);
}

INSTANTIATE_TEST_SUITE_P(Formats, PlanesOfDenseFrames,
                         testing::Values(GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_GRAY8,
                                         GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12,
                                         GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444,
                                         GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_YUY2),
                         [](const testing::TestParamInfo<GstVideoFormat> &info) {
                             return std::string(gst_video_format_to_string(info.param));
                         });

// A mappable DMA-BUF (g2g's export of a system frame into its allocator, a memfd here) is read in
// place: planes inside its mapping, DLPack over it, the fd's bytes the frame's.
TEST(TensorFrame, AMappableDmaBufIsReadInPlace)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    BufferRef system = g2g::test::random_frame(info, 47);
    g2g::Result<BufferRef> exported = g2g::dmabuf::export_frame(system.get(), info);
    ASSERT_TRUE(exported.ok()) << exported.error().message();
    std::shared_ptr<TensorFrame> frame = frame_of(exported->get(), info);
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->kind(), g2g::MemoryDomainKind::DmaBuf);
    for (unsigned p = 0; p < 2; ++p) {
        EXPECT_TRUE(inside_memory_of(*frame->plane(p), exported->get()));
        EXPECT_EQ(compare_with_dense(*frame, p, system.get(), info), "");
    }
    g2g::Result<DLManagedTensor *> tensor = frame->to_dlpack(1);
    ASSERT_TRUE(tensor.ok());
    EXPECT_EQ((*tensor)->dl_tensor.data, frame->plane(1)->data);
    EXPECT_EQ((*tensor)->dl_tensor.device.device_type, kDLCPU);
    (*tensor)->deleter(*tensor);
}

// The shapes of each format's planes: what an application indexes.
TEST(TensorFrame, ShapesAreRowsColumnsAndComponentsOfEachPlane)
{
    struct Case {
        GstVideoFormat format;
        unsigned plane;
        PlaneTensor expected;
    };
    const Case cases[] = {
        {GST_VIDEO_FORMAT_RGBA, 0, {.rows = 48, .columns = 64, .components = 4, .component_size = 1}},
        {GST_VIDEO_FORMAT_GRAY8, 0, {.rows = 48, .columns = 64, .components = 1, .component_size = 1}},
        {GST_VIDEO_FORMAT_GRAY16_LE, 0, {.rows = 48, .columns = 64, .components = 1, .component_size = 2}},
        {GST_VIDEO_FORMAT_NV12, 1, {.rows = 24, .columns = 32, .components = 2, .component_size = 1}},
        {GST_VIDEO_FORMAT_I420, 2, {.rows = 24, .columns = 32, .components = 1, .component_size = 1}},
        {GST_VIDEO_FORMAT_P010_10LE, 1, {.rows = 24, .columns = 32, .components = 2, .component_size = 2}},
        {GST_VIDEO_FORMAT_YUY2, 0, {.rows = 48, .columns = 32, .components = 4, .component_size = 1}},
    };
    for (const Case &c : cases) {
        const GstVideoInfo info = g2g::test::video_info(c.format, 64, 48);
        BufferRef buffer = g2g::test::random_frame(info, 3);
        std::shared_ptr<TensorFrame> frame = frame_of(buffer.get(), info);
        ASSERT_TRUE(frame);
        g2g::Result<PlaneTensor> plane = frame->plane(c.plane);
        ASSERT_TRUE(plane.ok());
        const char *name = gst_video_format_to_string(c.format);
        EXPECT_EQ(
            std::tuple(plane->rows, plane->columns, plane->components, plane->component_size),
            std::tuple(c.expected.rows, c.expected.columns, c.expected.components, c.expected.component_size))
            << name << " plane " << c.plane;
        EXPECT_EQ(plane->ndim(), c.expected.components > 1 ? 3u : 2u) << name;
    }
}

// A view's planes walk the view's pixels over the source's memory (negative strides and all): the
// bytes materialize writes, read in place.
TEST(TensorFrame, PlanesOfAViewAreTheViewReadInPlace)
{
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420}) {
        for (GstVideoOrientationMethod method :
             {GST_VIDEO_ORIENTATION_90R, GST_VIDEO_ORIENTATION_90L, GST_VIDEO_ORIENTATION_180,
              GST_VIDEO_ORIENTATION_UL_LR, GST_VIDEO_ORIENTATION_UR_LL, GST_VIDEO_ORIENTATION_HORIZ}) {
            ViewFrame made(format, method, 5);
            const std::shared_ptr<TensorFrame> &frame = made.frame;
            ASSERT_TRUE(frame);
            EXPECT_EQ(frame->kind(), g2g::MemoryDomainKind::SystemView);
            g2g::Result<BufferRef> dense = g2g::tensor_view_of(made.view.get())->materialize(made.view.get());
            ASSERT_TRUE(dense.ok());
            for (unsigned p = 0; p < frame->n_planes(); ++p) {
                EXPECT_EQ(compare_with_dense(*frame, p, dense->get(), made.view_info), "")
                    << gst_video_format_to_string(format) << " method " << method;
                EXPECT_TRUE(inside_memory_of(*frame->plane(p), made.source.get()));
            }
        }
    }
}

// A plane whose strides are all positive (a transpose) goes out as DLPack over the frame itself:
// strides in elements, unsigned integers of the component's bits, on the CPU.
TEST(TensorFrame, DLPackOfAPlaneWithPositiveStridesIsTheFrameItself)
{
    ViewFrame made(GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_ORIENTATION_UL_LR, 9);
    std::shared_ptr<TensorFrame> frame = made.frame;
    ASSERT_TRUE(frame);
    const PlaneTensor chroma = *frame->plane(1);
    ASSERT_FALSE(chroma.has_negative_strides());

    g2g::Result<DLManagedTensor *> exported = frame->to_dlpack(1);
    ASSERT_TRUE(exported.ok()) << exported.error().message();
    const DLTensor &tensor = (*exported)->dl_tensor;
    EXPECT_EQ(tensor.data, chroma.data);
    EXPECT_EQ(tensor.byte_offset, 0u);
    EXPECT_EQ(tensor.device.device_type, kDLCPU);
    EXPECT_EQ(tensor.ndim, 3);
    EXPECT_EQ(tensor.dtype.code, kDLUInt);
    EXPECT_EQ(tensor.dtype.bits, 16);
    EXPECT_EQ(tensor.dtype.lanes, 1);
    EXPECT_EQ(std::vector<std::int64_t>(tensor.shape, tensor.shape + 3),
              (std::vector<std::int64_t>{chroma.rows, chroma.columns, 2}));
    EXPECT_EQ(std::vector<std::int64_t>(tensor.strides, tensor.strides + 3),
              (std::vector<std::int64_t>{chroma.row_stride / 2, chroma.column_stride / 2, 1}));
    (*exported)->deleter(*exported);

    g2g::Result<G2gDLManagedTensorVersioned *> versioned = frame->to_dlpack_versioned(0);
    ASSERT_TRUE(versioned.ok());
    EXPECT_EQ((*versioned)->version.major, 1u);
    EXPECT_EQ((*versioned)->version.minor, 0u);
    EXPECT_EQ((*versioned)->flags, G2G_DLPACK_FLAG_READ_ONLY);
    EXPECT_EQ((*versioned)->dl_tensor.data, frame->plane(0)->data);
    EXPECT_EQ((*versioned)->dl_tensor.ndim, 2);
    (*versioned)->deleter(*versioned);
}

// A plane with a negative stride (90r) goes out as the frame's dense copy, made once and shared by
// every such export, unless the consumer reads negative strides; Copy::Never refuses, Copy::Always
// gives each tensor a copy of its own.
TEST(TensorFrame, DLPackOfAPlaneWithNegativeStridesIsADenseCopyUnlessAskedOtherwise)
{
    ViewFrame made(GST_VIDEO_FORMAT_NV12, GST_VIDEO_ORIENTATION_90R, 13);
    std::shared_ptr<TensorFrame> frame = made.frame;
    const GstVideoInfo &view_info = made.view_info;
    ASSERT_TRUE(frame);
    ASSERT_TRUE(frame->plane(0)->has_negative_strides());
    g2g::Result<std::shared_ptr<const TensorFrame>> dense = frame->dense();
    ASSERT_TRUE(dense.ok());

    g2g::Result<G2gDLManagedTensorVersioned *> copied = frame->to_dlpack_versioned(0);
    ASSERT_TRUE(copied.ok()) << copied.error().message();
    EXPECT_EQ((*copied)->dl_tensor.data, (*dense)->plane(0)->data);
    EXPECT_GT((*copied)->dl_tensor.strides[0], 0);
    EXPECT_GT((*copied)->dl_tensor.strides[1], 0);
    EXPECT_EQ((*copied)->flags, G2G_DLPACK_FLAG_READ_ONLY | G2G_DLPACK_FLAG_IS_COPIED);
    EXPECT_EQ(compare_with_dense(**dense, 0, (*dense)->buffer(), view_info), "");
    g2g::Result<DLManagedTensor *> again = frame->to_dlpack(0);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->dl_tensor.data, (*copied)->dl_tensor.data) << "one dense copy per frame";
    (*again)->deleter(*again);
    (*copied)->deleter(*copied);

    g2g::Result<DLManagedTensor *> kept = frame->to_dlpack(0, {.keep_negative_strides = true});
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ((*kept)->dl_tensor.data, frame->plane(0)->data);
    EXPECT_EQ((*kept)->dl_tensor.strides[1], frame->plane(0)->column_stride);
    EXPECT_LT((*kept)->dl_tensor.strides[1], 0);
    (*kept)->deleter(*kept);

    g2g::Result<DLManagedTensor *> refused = frame->to_dlpack(0, {.copy = TensorExport::Copy::Never});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(
        refused.error().message(),
        "plane 0 of this NV12 view has negative strides (a flipped or rotated view), which the consumer "
        "was not said to read: only a copy can go out, and the consumer asked for none");

    g2g::Result<G2gDLManagedTensorVersioned *> own =
        frame->to_dlpack_versioned(1, {.copy = TensorExport::Copy::Always});
    g2g::Result<G2gDLManagedTensorVersioned *> other =
        frame->to_dlpack_versioned(1, {.copy = TensorExport::Copy::Always});
    ASSERT_TRUE(own.ok() && other.ok());
    EXPECT_EQ((*own)->flags, G2G_DLPACK_FLAG_IS_COPIED) << "a copy of its own is writable";
    EXPECT_NE((*own)->dl_tensor.data, (*other)->dl_tensor.data);
    EXPECT_NE((*own)->dl_tensor.data, (*dense)->plane(1)->data);
    (*own)->deleter(*own);
    (*other)->deleter(*other);
}

// The dense copy is made once; a copy is its own dense frame.
TEST(TensorFrame, DenseIsMadeOnceAndACopyIsItsOwnDenseFrame)
{
    ViewFrame made(GST_VIDEO_FORMAT_I420, GST_VIDEO_ORIENTATION_90L, 17);
    std::shared_ptr<TensorFrame> frame = made.frame;
    ASSERT_TRUE(frame);
    EXPECT_FALSE(frame->is_copy());
    std::shared_ptr<const TensorFrame> dense = *frame->dense();
    EXPECT_EQ(*frame->dense(), dense);
    EXPECT_TRUE(dense->is_copy());
    EXPECT_EQ(*dense->dense(), dense);
    EXPECT_EQ(dense->kind(), g2g::MemoryDomainKind::System);
    for (unsigned p = 0; p < 3; ++p)
        EXPECT_FALSE(dense->plane(p)->has_negative_strides());
}

// A tensor holds its frame, buffer and mapping, until its deleter runs, however long the frame's
// other holders are gone; a tensor of the dense copy holds the copy, not the source.
TEST(TensorFrame, ATensorHoldsItsFrameUntilItsDeleterRuns)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 32, 16);
    bool freed = false;
    DLManagedTensor *tensor = nullptr;
    {
        BufferRef buffer = g2g::test::random_frame(info, 19);
        watch_finalize(buffer.get(), &freed);
        std::shared_ptr<TensorFrame> frame = frame_of(buffer.get(), info);
        ASSERT_TRUE(frame);
        tensor = *frame->to_dlpack(0);
    }
    EXPECT_FALSE(freed) << "the tensor holds the buffer";
    EXPECT_EQ(static_cast<const guint8 *>(tensor->dl_tensor.data)[0],
              static_cast<const guint8 *>(tensor->dl_tensor.data)[0]); // still mapped: readable
    tensor->deleter(tensor);
    EXPECT_TRUE(freed) << "the last tensor let the buffer go";

    freed = false;
    G2gDLManagedTensorVersioned *copy = nullptr;
    {
        BufferRef source = g2g::test::random_frame(info, 23);
        watch_finalize(source.get(), &freed);
        GstVideoInfo view_info;
        BufferRef view = view_buffer(source.get(), info, GST_VIDEO_ORIENTATION_180, view_info);
        std::shared_ptr<TensorFrame> frame = frame_of(view.get(), view_info);
        ASSERT_TRUE(frame);
        copy = *frame->to_dlpack_versioned(0);
    }
    EXPECT_TRUE(freed) << "a tensor of the dense copy does not hold the source";
    copy->deleter(copy);
}

// DLPack has no byte order: big-endian components are refused, with the fix; the plane itself says
// its order.
TEST(TensorFrame, BigEndianComponentsAreRefusedForDLPack)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_GRAY16_BE, 16, 8);
    BufferRef buffer = g2g::test::random_frame(info, 29);
    std::shared_ptr<TensorFrame> frame = frame_of(buffer.get(), info);
    ASSERT_TRUE(frame);
    EXPECT_FALSE(frame->plane(0)->little_endian);
    g2g::Result<DLManagedTensor *> exported = frame->to_dlpack(0);
    ASSERT_FALSE(exported.ok());
    EXPECT_EQ(exported.error().message(),
              "DLPack has no byte order and its consumers read this machine's: the "
              "big-endian components of GRAY16_BE would be misread (videoconvert to the "
              "little-endian format first)");
}

// Packed 4:2:2 moved sideways has no stride form: no plane in place; DLPack gets the dense copy,
// unless the consumer asked for no copy.
TEST(TensorFrame, AViewOnlyACopyReadsGoesOutAsItsCopy)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_YUY2, 32, 16);
    BufferRef source = g2g::test::random_frame(info, 31);
    g2g::Result<FrameView> view = FrameView::of_frame(source.get(), info);
    ASSERT_TRUE(view.ok());
    view->orient(GST_VIDEO_ORIENTATION_HORIZ);
    ASSERT_FALSE(view->strided());
    BufferRef carrying = BufferRef::adopt(gst_buffer_copy(source.get()));
    g2g::attach_tensor_view(carrying.get(), *view);
    std::shared_ptr<TensorFrame> frame = frame_of(carrying.get(), view->info());
    ASSERT_TRUE(frame);
    EXPECT_FALSE(frame->strided());
    EXPECT_EQ(frame->plane(0).error().message(), "this view of YUY2 has no stride form (packed 4:2:2 moved "
                                                 "sideways): its planes exist only in its dense copy");
    g2g::Result<DLManagedTensor *> exported = frame->to_dlpack(0);
    ASSERT_TRUE(exported.ok());
    EXPECT_EQ((*exported)->dl_tensor.data, (*frame->dense())->plane(0)->data);
    (*exported)->deleter(*exported);
    g2g::Result<DLManagedTensor *> refused = frame->to_dlpack(0, {.copy = TensorExport::Copy::Never});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message(),
              "plane 0 of this YUY2 view has no stride form (packed 4:2:2 moved "
              "sideways): only a copy can go out, and the consumer asked for none");
}

TEST(TensorFrame, APlaneTheFrameDoesNotHaveIsRefused)
{
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_NV12, 16, 8);
    BufferRef buffer = g2g::test::random_frame(info, 37);
    std::shared_ptr<TensorFrame> frame = frame_of(buffer.get(), info);
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->plane(2).error().message(), "plane 2 of a NV12 frame: it has 2 planes");
    EXPECT_EQ(frame->to_dlpack(2).error().message(), "plane 2 of a NV12 frame: it has 2 planes");
}

// Memory no tensor can address is refused with the domain and what to insert; caps that do not
// describe the buffer are refused too.
TEST(TensorFrame, MemoryNoTensorAddressesIsRefusedByName)
{
    g2g::test::StandIn object;
    BufferRef texture = g2g::test::handle_frame(g2g::MemoryDomainKind::WgpuTexture, object, 64 * 48 * 4);
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    g2g::Result<std::shared_ptr<TensorFrame>> refused = TensorFrame::of(texture.get(), info, "myapp");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code(), g2g::ErrorCode::UnsupportedDomain);
    EXPECT_NE(refused.error().message().find("myapp "), std::string::npos) << refused.error().message();
    EXPECT_NE(refused.error().message().find("WgpuTexture frame"), std::string::npos)
        << refused.error().message();

    // A tiled DMA-BUF: bytes in tiles, never read through a mapping.
    const int fd = g2g::test::make_memfd(64 * 48 * 4);
    g2g::dmabuf::FrameLayout layout{
        {g2g::dmabuf::drm_fourcc_of(GST_VIDEO_FORMAT_RGBA), 0x0100000000000001ULL}, 64, 48, {{fd, 0, 256}}};
    g2g::Result<BufferRef> tiled = g2g::dmabuf::wrap(layout);
    close(fd);
    ASSERT_TRUE(tiled.ok()) << tiled.error().message();
    refused = TensorFrame::of(tiled->get(), info, "myapp");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find("is not linear"), std::string::npos)
        << refused.error().message();

    BufferRef small = g2g::test::random_frame(g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 16, 16), 41);
    refused = TensorFrame::of(small.get(), info, "myapp");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message().rfind("myapp: ", 0), 0u) << refused.error().message();
}

// Where CUDA does not run (CI: no driver; a build without the cuda feature), a CUDA frame is one more
// device frame a CPU reader cannot take: refused with the download to insert.
TEST(TensorFrame, CudaFramesWhereCudaDoesNotRunAreRefusedWithTheDownload)
{
    if (g2g::cuda::available())
        GTEST_SKIP() << "CUDA runs here: tests/pipelines/cuda/test-cuda-tensors.cpp takes its frames";
    // Memory of GStreamer's CUDA memory type, as the domain table recognises it by name.
    g2g::MemoryRef memory = g2g::test::foreign_memory(64 * 48 * 4, "gst.cuda.memory");
    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(frame.get(), memory.release());
    g2g::Result<std::shared_ptr<TensorFrame>> refused =
        TensorFrame::of(frame.get(), g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 64, 48), "myapp");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message(),
              "myapp reads system memory but received a Cuda frame: insert cudadownload "
              "before it, or let caps negotiation settle on system memory");
}

// materialize_into writes what materialize writes, into caller rows; a destination too small for
// a plane is refused before anything is written.
TEST(TensorFrame, MaterializeIntoWritesTheDenseFrameAndRefusesSmallDestinations)
{
    ViewFrame made(GST_VIDEO_FORMAT_NV12, GST_VIDEO_ORIENTATION_90R, 43);
    std::shared_ptr<TensorFrame> frame = made.frame;
    const GstVideoInfo &view_info = made.view_info;
    ASSERT_TRUE(frame);

    GstVideoInfo padded = view_info;
    padded.stride[0] = padded.stride[1] = 128;
    padded.offset[1] = 128 * GST_VIDEO_INFO_HEIGHT(&view_info);
    padded.size = padded.offset[1] + 128 * GST_VIDEO_INFO_HEIGHT(&view_info) / 2;
    BufferRef out = BufferRef::adopt(gst_buffer_new_allocate(nullptr, padded.size, nullptr));
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(out.get(), &map, GST_MAP_WRITE));
    void *planes[] = {map.data, map.data + padded.offset[1]};
    const gsize sizes[] = {padded.offset[1], padded.size - padded.offset[1]};
    g2g::Result<void> written = frame->materialize_into(planes, padded.stride, sizes, 2);
    gst_buffer_unmap(out.get(), &map);
    ASSERT_TRUE(written.ok()) << written.error().message();
    std::shared_ptr<const TensorFrame> dense = *frame->dense();
    EXPECT_EQ(g2g::test::compare_frames(padded, out.get(), view_info, dense->buffer()), "");

    const gsize short_sizes[] = {sizes[0], 128 * 10};
    g2g::Result<void> refused = frame->materialize_into(planes, padded.stride, short_sizes, 1);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message(),
              "TensorFrame::materialize_into: plane 1 of this NV12 frame is 28 rows of 42 bytes; at "
              "dst_stride[1] = 128 they take 3498 bytes but dst_size[1] is 1280");
    const gint narrow[] = {32, 128};
    refused = frame->materialize_into(planes, narrow, sizes, 1);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message(),
              "TensorFrame::materialize_into: plane 0 of this NV12 frame is 56 rows of 42 bytes; "
              "dst_stride[0] is 32, shorter than a row: the rows would overlap");
}
