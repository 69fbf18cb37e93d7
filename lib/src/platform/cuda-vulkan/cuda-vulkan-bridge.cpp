// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda-vulkan-bridge.h"

#include <g2g/cuda-view.h>

#include "cuda-external.h"
#include "platform/platform.h"
#include "shared-frame.h"
#include "platform/vulkan/vulkan-engine.h"

namespace g2g::platform::cuda_vulkan {

bool built()
{
    return true;
}

} // namespace g2g::platform::cuda_vulkan

namespace g2g::cuda_vulkan {

namespace {

Uuid uuid_of(GstVulkanDevice *device)
{
    VkPhysicalDeviceIDProperties ids{};
    ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 properties{};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &ids;
    vkGetPhysicalDeviceProperties2(gst_vulkan_device_get_physical_device(device), &properties);
    Uuid uuid{};
    for (std::size_t i = 0; i < uuid.size(); ++i)
        uuid[i] = ids.deviceUUID[i];
    return uuid;
}

GstCudaContext *context_of(gpointer context)
{
    return GST_CUDA_CONTEXT(context);
}

bool same_frame(const GstVideoInfo &a, const FrameView &view)
{
    return GST_VIDEO_INFO_FORMAT(&a) == view.format() && GST_VIDEO_INFO_WIDTH(&a) == static_cast<gint>(view.width()) &&
           GST_VIDEO_INFO_HEIGHT(&a) == static_cast<gint>(view.height());
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

Result<std::shared_ptr<Bridge>> Bridge::create(gpointer cuda_context, std::shared_ptr<vulkan::Engine> engine)
{
    GstCudaContext *cuda = context_of(cuda_context);
    GstVulkanDevice *device = engine->device();
    Result<Uuid> cuda_uuid = cuda_vulkan::uuid_of(cuda);
    if (!cuda_uuid)
        return cuda_uuid.error();
    const Uuid vulkan_uuid = uuid_of(device);
    const std::string cuda_name = describe(cuda);
    const std::string vulkan_name = "Vulkan device " + vulkan::Engine::describe(device);
    if (*cuda_uuid != vulkan_uuid)
        return Error(ErrorCode::UnsupportedDomain,
                     "the " + cuda_name + " (GPU " + uuid_text(*cuda_uuid) + ") and the " + vulkan_name + " (GPU " +
                         uuid_text(vulkan_uuid) +
                         ") are different GPUs: CUDA and Vulkan share memory only on one GPU; give the pipeline "
                         "the Vulkan device of that GPU (GstContext gst.vulkan.device) or the CUDA context of "
                         "the Vulkan device's GPU (gst.cuda.context)");
    if (!gst_vulkan_device_is_extension_enabled(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        return Error(ErrorCode::UnsupportedDomain,
                     "the " + vulkan_name + " was opened without " + VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME +
                         ", which sharing memory with CUDA needs: let a g2g element (g2gconvert, g2gtee) open "
                         "the pipeline's Vulkan device, or enable the extension on the device the application "
                         "gives the pipeline");
    std::shared_ptr<Bridge> bridge(new Bridge());
    bridge->cuda_ = gst_object_ref(cuda);
    bridge->engine_ = std::move(engine);
    bridge->pool_ = SharedFramePool::create(device, cuda);
    bridge->description_ = cuda_name + " and " + vulkan_name + ", GPU " + uuid_text(vulkan_uuid);
    return bridge;
}

Bridge::~Bridge()
{
    pool_.reset();
    if (cuda_)
        gst_object_unref(cuda_);
}

guint64 Bridge::frames_allocated() const
{
    return pool_->allocated();
}

Result<BufferRef> Bridge::vulkan_face_for_readers(SharedFrame &frame)
{
    BufferRef face = frame.vulkan_face();
    if (!face)
        return Error(ErrorCode::MapFailed, "cannot wrap a shared frame's images as Vulkan memory");
    // Ordered before every reader's work on the pipeline's queue (they share it).
    if (Result<void> acquired = engine_->hand_over(face.get(), vulkan::Engine::External::Acquire); !acquired)
        return acquired.error();
    return face;
}

Result<Conversion> Bridge::to_vulkan(GstBuffer *source, const FrameView &view, bool dense)
{
    if (dense && gst_buffer_n_memory(source) == 1) {
        if (std::shared_ptr<SharedFrame> shared = SharedFrame::of_cuda_memory(gst_buffer_peek_memory(source, 0));
            shared && same_frame(shared->info(), view)) {
            // CUDA's writer synchronized before handing the frame on (1.22's CUDA memory has no stream).
            Result<BufferRef> face = vulkan_face_for_readers(*shared);
            if (!face)
                return face.error();
            return Conversion{std::move(*face), false};
        }
    }
    Result<std::shared_ptr<SharedFrame>> frame = pool_->acquire(view.info());
    if (!frame)
        return frame.error();
    const BufferRef target = (*frame)->cuda_face();
    // One kernel on the frame's device, waited for: the Vulkan reader has no way to wait for CUDA.
    if (Result<void> written = cuda::materialize_into(view, source, target.get(), true); !written)
        return written.error();
    Result<BufferRef> face = vulkan_face_for_readers(**frame);
    if (!face)
        return face.error();
    return Conversion{std::move(*face), true};
}

Result<Conversion> Bridge::to_cuda(GstBuffer *source, const FrameView &view, bool dense)
{
    if (dense) {
        // A frame all of whose images are one shared frame's: CUDA reads them once the queue that
        // wrote them is done.
        std::shared_ptr<SharedFrame> shared;
        const guint n = gst_buffer_n_memory(source);
        for (guint i = 0; i < n; ++i) {
            std::shared_ptr<SharedFrame> of = SharedFrame::of_vulkan_memory(gst_buffer_peek_memory(source, i));
            if (!of || (shared && of != shared)) {
                shared.reset();
                break;
            }
            shared = std::move(of);
        }
        if (shared && same_frame(shared->info(), view) && n == GST_VIDEO_INFO_N_PLANES(&shared->info())) {
            if (Result<void> released = engine_->hand_over(source, vulkan::Engine::External::Release); !released)
                return released.error();
            if (Result<void> done = engine_->finish(); !done)
                return done.error();
            return Conversion{shared->cuda_face(), false};
        }
    }
    Result<std::shared_ptr<SharedFrame>> frame = pool_->acquire(view.info());
    if (!frame)
        return frame.error();
    {
        const BufferRef target = (*frame)->vulkan_face();
        if (!target)
            return Error(ErrorCode::MapFailed, "cannot wrap a shared frame's images as Vulkan memory");
        Result<void> written = dense ? engine_->copy_frame(source, target.get())
                                     : engine_->materialize(view, source, target.get());
        if (!written)
            return written.error();
        if (Result<void> released = engine_->hand_over(target.get(), vulkan::Engine::External::Release); !released)
            return released.error();
    }
    // CUDA has no way to wait for Vulkan's fence here: the queue is drained first.
    if (Result<void> done = engine_->finish(); !done)
        return done.error();
    return Conversion{(*frame)->cuda_face(), true};
}

} // namespace g2g::cuda_vulkan
