// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda-dmabuf.h"

#include <gst/allocators/allocators.h>
#include <gst/video/video.h>

#include <g2g/dmabuf.h>

#include "compat/cuda-compat.h"
#include "memory-export.h"
#include "platform/dmabuf/dmabuf-memory.h"
#include "platform/platform.h"

namespace g2g::platform::cuda_dmabuf {

bool built()
{
    return true;
}

} // namespace g2g::platform::cuda_dmabuf

namespace g2g::cuda_dmabuf {
namespace {

Error refused(std::string message)
{
    return Error(ErrorCode::InvalidArgument, std::move(message));
}

// The CUDA frame a DMA-BUF memory of export_frame holds alive.
GQuark frame_quark()
{
    static const GQuark quark = g_quark_from_static_string("g2g-cuda-dmabuf-frame");
    return quark;
}

// The formats gst_cuda_allocator_alloc lays out in GStreamer 1.22 (gstcudamemory.c's switch:
// every other format is refused there), in that order.
constexpr GstVideoFormat kCudaFormats[] = {
    GST_VIDEO_FORMAT_I420,       GST_VIDEO_FORMAT_YV12,       GST_VIDEO_FORMAT_I420_10LE,
    GST_VIDEO_FORMAT_Y42B,       GST_VIDEO_FORMAT_I422_10LE,  GST_VIDEO_FORMAT_I422_12LE,
    GST_VIDEO_FORMAT_NV12,       GST_VIDEO_FORMAT_NV21,       GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_P016_LE,    GST_VIDEO_FORMAT_Y444,       GST_VIDEO_FORMAT_Y444_16LE,
    GST_VIDEO_FORMAT_RGBP,       GST_VIDEO_FORMAT_BGRP,       GST_VIDEO_FORMAT_GBR,
    GST_VIDEO_FORMAT_GBRA,       GST_VIDEO_FORMAT_BGRA,       GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_RGBx,       GST_VIDEO_FORMAT_BGRx,       GST_VIDEO_FORMAT_ARGB,
    GST_VIDEO_FORMAT_ABGR,       GST_VIDEO_FORMAT_RGB,        GST_VIDEO_FORMAT_BGR,
    GST_VIDEO_FORMAT_BGR10A2_LE, GST_VIDEO_FORMAT_RGB10A2_LE, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY,
};

} // namespace

std::string formats()
{
    std::string list;
    for (GstVideoFormat format : kCudaFormats) {
        if (dmabuf::drm_fourcc_of(format))
            list += (list.empty() ? "" : ", ") + std::string(gst_video_format_to_string(format));
    }
    return "{ " + list + " }";
}

Result<Export> export_frame(GstBuffer *frame)
{
    if (!frame || gst_buffer_n_memory(frame) != 1)
        return refused("a CUDA frame of " + std::to_string(frame ? gst_buffer_n_memory(frame) : 0) +
                       " memories: one DMA-BUF is exported of one CUDA memory");
    GstMemory *memory = gst_buffer_peek_memory(frame, 0);
    if (!gst_is_cuda_memory(memory))
        return refused(std::string("the frame's memory is ") +
                       (memory->allocator ? memory->allocator->mem_type : "of no allocator") +
                       " memory, not CUDA memory");
    GstCudaMemory *cuda = GST_CUDA_MEMORY_CAST(memory);
    const GstVideoInfo &info = cuda->info;
    const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
    const std::uint32_t fourcc = dmabuf::drm_fourcc_of(format);
    if (!fourcc)
        return refused(std::string("a CUDA frame of ") + gst_video_format_to_string(format) +
                       ", which DRM has no fourcc for, cannot be a DMA-BUF frame");

    // The device pointer, and with it the bytes a CPU wrote into the memory's staging copy, if
    // any, uploaded first: the importer reads the device's bytes.
    GstMapInfo map;
    if (!compat::cuda_map_for_reading(memory, &map))
        return Error(ErrorCode::MapFailed, "cannot map the CUDA frame's memory on its device");
    const auto data = reinterpret_cast<CUdeviceptr>(map.data);
    gst_memory_unmap(memory, &map);
    bool made = false;
    Result<const MemoryExport *> exported = export_memory(cuda, data, made);
    if (!exported)
        return exported.error();
    const MemoryExport &fd = **exported;

    // The fd stays the CUDA memory's (close_fd false): the DMA-BUF memory holds the frame.
    GstMemory *wrapped =
        dmabuf::detail::wrap_fd(fd.fd, fd.range.size, {fourcc, dmabuf::kModifierLinear}, false, false);
    if (!wrapped)
        return Error(ErrorCode::MapFailed,
                     "could not wrap the exported fd " + std::to_string(fd.fd) + " as DMA-BUF memory");
    gst_mini_object_set_qdata(GST_MINI_OBJECT(wrapped), frame_quark(), gst_buffer_ref(frame),
                              reinterpret_cast<GDestroyNotify>(gst_buffer_unref));
    Export result{BufferRef::adopt(gst_buffer_new()), made};
    gst_buffer_append_memory(result.frame.get(), wrapped);
    gsize offsets[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        offsets[p] = fd.range.offset + GST_VIDEO_INFO_PLANE_OFFSET(&info, p);
        strides[p] = GST_VIDEO_INFO_PLANE_STRIDE(&info, p);
    }
    gst_buffer_add_video_meta_full(result.frame.get(), GST_VIDEO_FRAME_FLAG_NONE, format,
                                   GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                   GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
    return result;
}

GstBuffer *cuda_frame_of(GstBuffer *dmabuf_frame)
{
    if (!dmabuf_frame || gst_buffer_n_memory(dmabuf_frame) == 0)
        return nullptr;
    // A memory gst_memory_share made (a region of the frame) holds nothing itself: its parent does.
    for (GstMemory *memory = gst_buffer_peek_memory(dmabuf_frame, 0); memory; memory = memory->parent) {
        if (auto *frame =
                static_cast<GstBuffer *>(gst_mini_object_get_qdata(GST_MINI_OBJECT(memory), frame_quark())))
            return frame;
    }
    return nullptr;
}

} // namespace g2g::cuda_dmabuf
