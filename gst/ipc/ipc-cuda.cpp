// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-cuda.h"

#include <gst/cuda/gstcudamemory.h>

#include <g2g-internal/cuda.h>

#include <string>
#include <vector>

#include "ipc-cuda-record.h"
#include "ipc-view.h"

namespace g2g::ipc {

bool cuda_built()
{
    return true;
}

std::optional<Result<OutgoingFrame>> describe_cuda_frame(GstBuffer *frame, std::uint64_t id)
{
    const guint n = gst_buffer_n_memory(frame);
    if (n == 0 || !gst_is_cuda_memory(gst_buffer_peek_memory(frame, 0)))
        return std::nullopt;
    if (n != 1)
        return Result<OutgoingFrame>(Error(
            ErrorCode::UnsupportedDomain, "a CUDA frame of " + std::to_string(n) + " memories: one crosses"));
    GstMemory *memory = gst_buffer_peek_memory(frame, 0);
    Result<cuda::IpcHandle> handle = cuda::export_memory(memory);
    if (!handle)
        return Result<OutgoingFrame>(handle.error());
    OutgoingFrame out;
    out.message = message_of(frame, id);
    NewBuffer &message = out.message;
    message.kind = MemoryKind::CudaIpc;
    message.memories.push_back({handle->size, 0});
    // The memory's own layout (its pitch), which its GstVideoMeta, where it has one, says too.
    message.metas.push_back(encode_video_meta(video_meta_of(GST_CUDA_MEMORY_CAST(memory)->info)));
    message.metas.push_back(encode_cuda_handles({*handle}));
    return Result<OutgoingFrame>(std::move(out));
}

struct CudaImports::Opened {
    std::unique_ptr<cuda::IpcOpened> opened;
    gpointer context = nullptr; // the opened's (compared, not held)
};

CudaImports::CudaImports() : opened_(std::make_unique<Opened>())
{
}
CudaImports::~CudaImports() = default;

void CudaImports::clear()
{
    opened_->opened.reset();
    opened_->context = nullptr;
}

Result<BufferRef> CudaImports::build(gpointer context, const NewBuffer &message, const GstVideoInfo &info)
{
    auto refused = [&message](const std::string &what) {
        return Error(ErrorCode::InvalidArgument, "NEW_BUFFER " + std::to_string(message.id) + " " + what);
    };
    const MetaRecord *record = nullptr, *layout_record = nullptr;
    for (const MetaRecord &meta : message.metas) {
        if (meta.name == kCudaRecordName)
            record = &meta;
        else if (meta.name == kVideoMetaName)
            layout_record = &meta;
    }
    if (!record || !layout_record)
        return refused("of CUDA memory came without its G2gCudaIpc and GstVideoMeta records");
    Result<std::vector<cuda::IpcHandle>> handles = decode_cuda_handles(*record);
    if (!handles)
        return refused(handles.error().message());
    if (handles->size() != 1 || message.memories.size() != 1)
        return refused("of CUDA memory holds " + std::to_string(handles->size()) + " handles for " +
                       std::to_string(message.memories.size()) + " memories: one crosses");
    Result<WireVideoMeta> layout_meta = decode_video_meta(*layout_record);
    if (!layout_meta)
        return refused(layout_meta.error().message());
    if (layout_meta->format != GST_VIDEO_INFO_FORMAT(&info) ||
        layout_meta->n_planes != GST_VIDEO_INFO_N_PLANES(&info))
        return refused(std::string("lays out ") +
                       gst_video_format_to_string(static_cast<GstVideoFormat>(layout_meta->format)) +
                       " in a stream of " + gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
    // The layout the consumer reads: checked against the memory's size before it is opened.
    GstVideoInfo layout = info;
    for (guint p = 0; p < layout_meta->n_planes; ++p) {
        layout.offset[p] = layout_meta->offset[p];
        layout.stride[p] = layout_meta->stride[p];
    }
    layout.size = (*handles)[0].size;
    if (Result<void> inside = planes_inside(layout, layout.size); !inside)
        return refused(inside.error().message());
    if (!opened_->opened || opened_->context != context) {
        opened_->opened = std::make_unique<cuda::IpcOpened>(static_cast<GstCudaContext *>(context));
        opened_->context = context;
    }
    Result<GstMemory *> memory = opened_->opened->memory((*handles)[0], layout);
    if (!memory)
        return Error(ErrorCode::InvalidArgument,
                     "NEW_BUFFER " + std::to_string(message.id) + ": " + memory.error().message());
    BufferRef out = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(out.get(), *memory);
    add_video_meta(out.get(), *layout_meta);
    set_fields(out.get(), message);
    return out;
}

} // namespace g2g::ipc
