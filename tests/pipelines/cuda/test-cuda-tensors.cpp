// SPDX-License-Identifier: LGPL-2.1-or-later
// Tensor frames (g2g/tensor-frame.h) of CUDA memory: a plane is the frame's device pointer on its
// device, DLPack says kDLCUDA and the device, a view's dense copy is written on the GPU into CUDA
// memory, and a tensor holds the CUDA frame. The bytes are compared on the GPU machine by
// tests/python/test_cuda_tensors.py (against cudadownload, through torch). Needs an NVIDIA GPU
// (cudaupload): elsewhere every test skips, saying so.
#include <g2g/tensor-frame.h>

#include <gst/video/video.h>

#include <gtest/gtest.h>

#include "frames.h"
#include "pipeline.h"

using g2g::BufferRef;
using g2g::TensorFrame;

namespace {

// GST_MAP_READ | GST_MAP_CUDA (gstcudamemory.h): what any CUDA element maps for a device pointer.
constexpr auto kMapDevice = static_cast<GstMapFlags>(GST_MAP_READ | (GST_MAP_FLAG_LAST << 1));

// One frame of `format` uploaded by cudaupload, through `chain`, as the appsink got it.
struct Uploaded {
    BufferRef buffer;
    GstVideoInfo info{};
};

Uploaded upload(const char *format, const std::string &chain, const char *sink_caps)
{
    const g2g::test::PipelineRun run =
        g2g::test::run_pipeline(std::string("videotestsrc num-buffers=1 pattern=ball ! video/x-raw,format=") +
                                format + ",width=64,height=48 ! cudaupload ! video/x-raw(memory:CUDAMemory)" +
                                chain + " ! appsink name=sink sync=false caps=\"" + sink_caps + "\"");
    EXPECT_EQ(run.error, "");
    if (run.buffers.empty())
        return {};
    return {run.buffers.front(), g2g::test::video_info_of_caps(run.sink_caps.at("sink"))};
}

// The device pointer and size of a CUDA buffer's one memory.
std::pair<const guint8 *, gsize> device_memory(GstBuffer *buffer)
{
    GstMemory *memory = gst_buffer_peek_memory(buffer, 0);
    GstMapInfo map;
    if (!gst_memory_map(memory, &map, kMapDevice))
        return {nullptr, 0};
    const std::pair<const guint8 *, gsize> where{map.data, map.size};
    gst_memory_unmap(memory, &map);
    return where;
}

#define SKIP_WITHOUT_CUDA()                                                                                  \
    if (!g2g::test::have_cuda_device())                                                                      \
    GTEST_SKIP() << "no CUDA device (cudaupload) on this machine"

} // namespace

TEST(CudaTensors, APlaneIsTheFramesDevicePointerOnItsDevice)
{
    SKIP_WITHOUT_CUDA();
    Uploaded frame = upload("NV12", "", "video/x-raw(memory:CUDAMemory)");
    ASSERT_TRUE(frame.buffer);
    g2g::Result<std::shared_ptr<TensorFrame>> tensors = TensorFrame::of(frame.buffer.get(), frame.info);
    ASSERT_TRUE(tensors.ok()) << tensors.error().message();
    EXPECT_EQ((*tensors)->kind(), g2g::MemoryDomainKind::Cuda);
    const auto [pointer, size] = device_memory(frame.buffer.get());
    ASSERT_NE(pointer, nullptr);
    for (unsigned p = 0; p < 2; ++p) {
        g2g::Result<g2g::PlaneTensor> plane = (*tensors)->plane(p);
        ASSERT_TRUE(plane.ok());
        EXPECT_EQ(plane->device, g2g::TensorDevice::Cuda);
        EXPECT_EQ(plane->device_id, 0);
        EXPECT_EQ(plane->data, pointer + plane->offset);
        EXPECT_LT(static_cast<gsize>(plane->offset), size);
    }
    EXPECT_EQ((*tensors)->plane(0)->data, pointer);

    g2g::Result<DLManagedTensor *> exported = (*tensors)->to_dlpack(1);
    ASSERT_TRUE(exported.ok()) << exported.error().message();
    EXPECT_EQ((*exported)->dl_tensor.device.device_type, kDLCUDA);
    EXPECT_EQ((*exported)->dl_tensor.device.device_id, 0);
    EXPECT_EQ((*exported)->dl_tensor.data, (*tensors)->plane(1)->data);
    (*exported)->deleter(*exported);
}

// A rotation's planes walk the frame's device memory backwards; its dense copy is new CUDA memory
// on the same device, written by a kernel, with positive strides, and is what DLPack gets.
TEST(CudaTensors, AViewsDenseCopyIsWrittenOnTheGpu)
{
    SKIP_WITHOUT_CUDA();
    Uploaded frame = upload("I420", " ! g2gview video-direction=90r",
                            "video/x-raw(memory:CUDAMemory, meta:G2gTensorView)");
    ASSERT_TRUE(frame.buffer);
    std::shared_ptr<TensorFrame> view = *TensorFrame::of(frame.buffer.get(), frame.info);
    ASSERT_TRUE(view->plane(0)->has_negative_strides());
    const auto [pointer, size] = device_memory(frame.buffer.get());

    g2g::Result<std::shared_ptr<const TensorFrame>> dense = view->dense();
    ASSERT_TRUE(dense.ok()) << dense.error().message();
    EXPECT_EQ((*dense)->kind(), g2g::MemoryDomainKind::Cuda);
    EXPECT_TRUE((*dense)->is_copy());
    for (unsigned p = 0; p < 3; ++p) {
        const g2g::PlaneTensor plane = *(*dense)->plane(p);
        EXPECT_FALSE(plane.has_negative_strides());
        EXPECT_EQ(plane.device, g2g::TensorDevice::Cuda);
        const auto *data = static_cast<const guint8 *>(plane.data);
        EXPECT_TRUE(data < pointer || data >= pointer + size)
            << "plane " << p << " is not the source's memory";
    }
    g2g::Result<G2gDLManagedTensorVersioned *> exported = view->to_dlpack_versioned(2);
    ASSERT_TRUE(exported.ok());
    EXPECT_EQ((*exported)->dl_tensor.data, (*dense)->plane(2)->data);
    EXPECT_EQ((*exported)->flags, G2G_DLPACK_FLAG_READ_ONLY | G2G_DLPACK_FLAG_IS_COPIED);
    (*exported)->deleter(*exported);
}

TEST(CudaTensors, ATensorHoldsTheCudaFrame)
{
    SKIP_WITHOUT_CUDA();
    Uploaded frame = upload("RGBA", "", "video/x-raw(memory:CUDAMemory)");
    ASSERT_TRUE(frame.buffer);
    bool freed = false;
    gst_mini_object_weak_ref(
        GST_MINI_OBJECT(frame.buffer.get()),
        [](gpointer data, GstMiniObject *) { *static_cast<bool *>(data) = true; }, &freed);
    DLManagedTensor *tensor = *(*TensorFrame::of(frame.buffer.get(), frame.info))->to_dlpack(0);
    frame.buffer.reset();
    EXPECT_FALSE(freed);
    tensor->deleter(tensor);
    EXPECT_TRUE(freed);
}
