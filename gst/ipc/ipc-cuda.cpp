// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-cuda.h"

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>

#include <g2g/tensor-view-meta.h>

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
    // The memory's own layout (its pitch), which its GstVideoMeta, where it has one, says too: for a
    // view, the frame it reads.
    message.metas.push_back(encode_video_meta(video_meta_of(GST_CUDA_MEMORY_CAST(memory)->info)));
    message.metas.push_back(encode_cuda_handles({*handle}));
    if (const FrameView *view = tensor_view_of(frame))
        message.metas.push_back(encode_view(*view));
    return Result<OutgoingFrame>(std::move(out));
}

struct CudaDense::Pool {
    Ref<GstBufferPool> pool;
    gpointer context = nullptr; // the pool's (compared, not held)
    GstVideoInfo info{};
};

CudaDense::CudaDense() : pool_(std::make_unique<Pool>())
{
}
CudaDense::~CudaDense()
{
    stop();
}

void CudaDense::stop()
{
    if (pool_->pool)
        gst_buffer_pool_set_active(pool_->pool.get(), FALSE);
    pool_->pool.reset();
    pool_->context = nullptr;
}

Result<BufferRef> CudaDense::materialize(GstBuffer *frame, const FrameView &view)
{
    GstMemory *memory = gst_buffer_n_memory(frame) ? gst_buffer_peek_memory(frame, 0) : nullptr;
    if (!memory || !gst_is_cuda_memory(memory))
        return Error(ErrorCode::UnsupportedDomain, "a frame of CUDA caps whose memory is not CUDA memory");
    GstCudaContext *context = GST_CUDA_MEMORY_CAST(memory)->context;
    const GstVideoInfo &info = view.info();
    if (!pool_->pool || pool_->context != context || !gst_video_info_is_equal(&pool_->info, &info)) {
        stop();
        CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
        gst_caps_set_features(caps.get(), 0,
                              gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, nullptr));
        Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(gst_cuda_buffer_pool_new(context));
        GstStructure *config = gst_buffer_pool_get_config(pool.get());
        gst_buffer_pool_config_set_params(config, caps.get(), static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)),
                                          0, 0);
        gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        bool configured = gst_buffer_pool_set_config(pool.get(), config);
        if (!configured) {
            // The pool may round the size up (the pitch): take its answer.
            config = gst_buffer_pool_get_config(pool.get());
            configured = gst_buffer_pool_set_config(pool.get(), config);
        }
        if (!configured || !gst_buffer_pool_set_active(pool.get(), TRUE))
            return Error(ErrorCode::InvalidArgument, std::string("no CUDA pool of ") +
                                                         GST_VIDEO_INFO_NAME(&info) +
                                                         " frames to write a view into");
        pool_->pool = std::move(pool);
        pool_->context = context;
        pool_->info = info;
    }
    GstBuffer *out = nullptr;
    if (gst_buffer_pool_acquire_buffer(pool_->pool.get(), &out, nullptr) != GST_FLOW_OK)
        return Error(ErrorCode::InvalidArgument, "no CUDA frame to write a view into");
    BufferRef dense = BufferRef::adopt(out);
    gst_buffer_copy_into(out, frame, GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, -1);
    if (Result<void> written = view.materialize_to(frame, out, info); !written)
        return written.error();
    return dense;
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

Result<BufferRef> CudaImports::build(gpointer context, const NewBuffer &message, const GstVideoInfo &info,
                                     bool view_caps)
{
    auto refused = [&message](const std::string &what) {
        return Error(ErrorCode::InvalidArgument, "NEW_BUFFER " + std::to_string(message.id) + " " + what);
    };
    const MetaRecord *record = nullptr, *layout_record = nullptr, *view_record = nullptr;
    for (const MetaRecord &meta : message.metas) {
        if (meta.name == kCudaRecordName)
            record = &meta;
        else if (meta.name == kVideoMetaName)
            layout_record = &meta;
        else if (meta.name == kViewRecordName)
            view_record = &meta;
    }
    if (!record || !layout_record)
        return refused("of CUDA memory came without its G2gCudaIpc and GstVideoMeta records");
    // A view travels only in caps that say so (a reader of dense frames would read its source).
    if (view_caps && !view_record)
        return refused("arrived in view caps (meta:G2gTensorView) without its view");
    if (view_record && !view_caps)
        return refused("carries a view in caps without meta:G2gTensorView");
    Result<ViewRecord> wanted =
        view_record ? read_view(*view_record, info) : Result<ViewRecord>(ViewRecord{});
    if (!wanted)
        return refused(wanted.error().message());
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
    // The layout the consumer reads: the caps' frame, or the frame a view reads (of the size its
    // record says), checked against the memory's size before it is opened.
    GstVideoInfo layout = info;
    if (view_record && !gst_video_info_set_format(&layout, GST_VIDEO_INFO_FORMAT(&info), layout_meta->width,
                                                  layout_meta->height))
        return refused("lays out a frame of " + std::to_string(layout_meta->width) + "x" +
                       std::to_string(layout_meta->height) + ", which is no video frame");
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
    if (view_record) {
        Result<FrameView> view = view_over(*wanted, out.get(), layout);
        if (!view)
            return refused(view.error().message());
        attach_tensor_view(out.get(), std::move(*view));
    }
    return out;
}

} // namespace g2g::ipc
