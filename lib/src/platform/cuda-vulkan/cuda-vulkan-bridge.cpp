// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda-vulkan-bridge.h"

#include <g2g/cuda-view.h>

#include "cuda-external.h"
#include "platform/platform.h"
#include "platform/vulkan/vulkan-engine.h"
#include "shared-frame.h"

namespace g2g::platform::cuda_vulkan {

bool built()
{
    return true;
}

} // namespace g2g::platform::cuda_vulkan

namespace g2g::cuda_vulkan {

namespace {

GstCudaContext *context_of(gpointer context)
{
    return GST_CUDA_CONTEXT(context);
}

bool same_frame(const GstVideoInfo &a, const FrameView &view)
{
    return GST_VIDEO_INFO_FORMAT(&a) == view.format() &&
           GST_VIDEO_INFO_WIDTH(&a) == static_cast<gint>(view.width()) &&
           GST_VIDEO_INFO_HEIGHT(&a) == static_cast<gint>(view.height());
}

// The shared images every memory of `frame` is a face of, if one frame's.
std::shared_ptr<SharedImages> shared_images_of(GstBuffer *frame)
{
    std::shared_ptr<SharedImages> shared;
    for (guint i = 0; i < gst_buffer_n_memory(frame); ++i) {
        std::shared_ptr<SharedImages> of = SharedImages::of_vulkan_memory(gst_buffer_peek_memory(frame, i));
        if (!of || (shared && of != shared))
            return {};
        shared = std::move(of);
    }
    return shared && gst_buffer_n_memory(frame) == GST_VIDEO_INFO_N_PLANES(&shared->info()) ? shared
                                                                                            : nullptr;
}

// A face made of bytes another face still shows: GStreamer cannot see that the two memories alias
// (each is one buffer's own), so neither may be written in place.
BufferRef read_only(BufferRef face, GstBuffer *other)
{
    for (GstBuffer *buffer : {face.get(), other}) {
        for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i)
            GST_MINI_OBJECT_FLAG_SET(gst_buffer_peek_memory(buffer, i), GST_MEMORY_FLAG_READONLY);
    }
    return face;
}

} // namespace

std::optional<std::array<guint8, 16>> gpu_of_cuda_context(gpointer cuda_context)
{
    if (!cuda_context)
        return std::nullopt;
    Result<Uuid> uuid = cuda_vulkan::uuid_of(context_of(cuda_context));
    if (!uuid)
        return std::nullopt;
    return *uuid;
}

std::optional<Error> Bridge::different_gpus(const std::string &cuda, const std::array<guint8, 16> &cuda_uuid,
                                            const std::string &vulkan,
                                            const std::array<guint8, 16> &vulkan_uuid)
{
    if (cuda_uuid == vulkan_uuid)
        return std::nullopt;
    return Error(
        ErrorCode::UnsupportedDomain,
        "the " + cuda + " (GPU " + uuid_text(cuda_uuid) + ") and the " + vulkan + " (GPU " +
            uuid_text(vulkan_uuid) +
            ") are different GPUs: CUDA and Vulkan share memory only on one GPU; give the pipeline the "
            "Vulkan device of that GPU (GstContext gst.vulkan.device) or the CUDA context of the Vulkan "
            "device's GPU (gst.cuda.context)");
}

Result<std::shared_ptr<Bridge>> Bridge::create(gpointer cuda_context, std::shared_ptr<vulkan::Engine> engine)
{
    GstCudaContext *cuda = context_of(cuda_context);
    GstVulkanDevice *device = engine->device();
    Result<Uuid> cuda_uuid = cuda_vulkan::uuid_of(cuda);
    if (!cuda_uuid)
        return cuda_uuid.error();
    const Uuid vulkan_uuid = vulkan::device_uuid(gst_vulkan_device_get_physical_device(device));
    const std::string cuda_name = describe(cuda);
    const std::string vulkan_name = "Vulkan device " + vulkan::Engine::describe(device);
    if (std::optional<Error> different = different_gpus(cuda_name, *cuda_uuid, vulkan_name, vulkan_uuid))
        return *different;
    if (!gst_vulkan_device_is_extension_enabled(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        return Error(
            ErrorCode::UnsupportedDomain,
            "the " + vulkan_name + " was opened without " + VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME +
                ", which sharing memory with CUDA needs: let a g2g element (g2gconvert, g2gtee) open "
                "the pipeline's Vulkan device, or enable the extension on the device the application "
                "gives the pipeline");
    std::shared_ptr<Bridge> bridge(new Bridge());
    bridge->cuda_ = gst_object_ref(cuda);
    bridge->engine_ = std::move(engine);
    bridge->images_ = shared_pool<SharedImages>(device, cuda);
    bridge->buffers_ = shared_pool<SharedBuffer>(device, cuda);
    bridge->description_ = cuda_name + " and " + vulkan_name + ", GPU " + uuid_text(vulkan_uuid);
    return bridge;
}

Bridge::~Bridge()
{
    if (staging_)
        gst_buffer_pool_set_active(staging_.get(), FALSE);
    images_.reset();
    buffers_.reset();
    if (cuda_)
        gst_object_unref(cuda_);
}

guint64 Bridge::frames_allocated() const
{
    return images_->allocated() + buffers_->allocated();
}

Result<BufferRef> Bridge::vulkan_face_for_readers(SharedImages &frame)
{
    // No queue-family acquire is recorded: CUDA's writes are complete (synchronized) before the
    // face is handed on, on the one GPU whose caches Vulkan's readers invalidate with their own
    // barriers. An acquire is a Vulkan submission per frame, and it made the GPU switch between
    // the CUDA and the Vulkan context for every frame: 0.33 ms per 4K frame on the H200, 13 times
    // the conversion itself (docs/design-notes.md).
    BufferRef face = frame.vulkan_face();
    if (!face)
        return Error(ErrorCode::MapFailed, "cannot wrap a shared frame's images as Vulkan memory");
    return face;
}

Result<Conversion> Bridge::to_vulkan(GstBuffer *source, const FrameView &view, bool dense)
{
    if (dense && gst_buffer_n_memory(source) == 1) {
        if (std::shared_ptr<SharedImages> shared =
                SharedImages::of_cuda_memory(gst_buffer_peek_memory(source, 0));
            shared && same_frame(shared->info(), view)) {
            // CUDA's writer synchronized before handing the frame on (1.22's CUDA memory has no stream).
            Result<BufferRef> face = vulkan_face_for_readers(*shared);
            if (!face)
                return face.error();
            return Conversion{read_only(std::move(*face), source), 0};
        }
    }
    Result<std::shared_ptr<SharedImages>> frame = images_->acquire(view.info());
    if (!frame)
        return frame.error();
    std::uint64_t planes[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    (*frame)->cuda_planes(planes, strides);
    // One kernel on the frame's device, waited for: the Vulkan reader has no way to wait for CUDA.
    if (Result<void> written = cuda::materialize_into_planes(view, source, cuda_, planes, strides, true);
        !written)
        return written.error();
    Result<BufferRef> face = vulkan_face_for_readers(**frame);
    if (!face)
        return face.error();
    return Conversion{std::move(*face), 1};
}

Result<BufferRef> Bridge::copied_for_cuda(GstBuffer *dense, const GstVideoInfo &info)
{
    Result<std::shared_ptr<SharedBuffer>> frame = buffers_->acquire(info);
    if (!frame)
        return frame.error();
    if (Result<void> copied = engine_->copy_to_external_buffer(dense, (*frame)->buffer(), (*frame)->layout());
        !copied)
        return copied.error();
    // CUDA has no way to wait for Vulkan's fence here: the queue is drained first.
    if (Result<void> done = engine_->finish(); !done)
        return done.error();
    return (*frame)->cuda_face();
}

Result<Conversion> Bridge::to_cuda(GstBuffer *source, const FrameView &view, bool dense)
{
    if (dense) {
        if (std::shared_ptr<SharedImages> shared = shared_images_of(source);
            shared && same_frame(shared->info(), view)) {
            // A one-plane frame's bytes are one CUDA memory already: released to CUDA once the
            // queue that wrote them is done.
            if (BufferRef face = shared->cuda_face()) {
                if (Result<void> released = engine_->release_to_external(source); !released)
                    return released.error();
                if (Result<void> done = engine_->finish(); !done)
                    return done.error();
                return Conversion{read_only(std::move(face), source), 0};
            }
        }
        Result<BufferRef> copied = copied_for_cuda(source, view.info());
        if (!copied)
            return copied.error();
        return Conversion{std::move(*copied), 1};
    }
    // A view: the shader writes it densely into an image of the engine's storage pool, then that is copied.
    if (!staging_ || !same_frame(staging_info_, view)) {
        if (staging_)
            gst_buffer_pool_set_active(staging_.get(), FALSE);
        staging_info_ = view.info();
        staging_ = Ref<GstBufferPool>::adopt(engine_->new_storage_pool());
        const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&staging_info_));
        GstStructure *config = gst_buffer_pool_get_config(staging_.get());
        gst_buffer_pool_config_set_params(config, caps.get(),
                                          static_cast<guint>(GST_VIDEO_INFO_SIZE(&staging_info_)), 0, 0);
        if (!gst_buffer_pool_set_config(staging_.get(), config) ||
            !gst_buffer_pool_set_active(staging_.get(), TRUE)) {
            staging_.reset();
            return Error(ErrorCode::UnsupportedDomain, "the Vulkan device cannot write " +
                                                           std::string(GST_VIDEO_INFO_NAME(&staging_info_)) +
                                                           " images from a shader");
        }
    }
    BufferRef staged;
    if (gst_buffer_pool_acquire_buffer(staging_.get(), staged.out(), nullptr) != GST_FLOW_OK)
        return Error(ErrorCode::MapFailed, "no image of g2g's Vulkan storage pool to write the view into");
    if (Result<void> written = engine_->materialize(view, source, staged.get()); !written)
        return written.error();
    Result<BufferRef> copied = copied_for_cuda(staged.get(), view.info());
    if (!copied)
        return copied.error();
    return Conversion{std::move(*copied), 2};
}

} // namespace g2g::cuda_vulkan
