// SPDX-License-Identifier: LGPL-2.1-or-later
#include "shared-frame.h"

#include <gst/cuda/gstcudaloader.h>

#include <unistd.h>

#include <string>
#include <utility>

#include "cuda-external.h"
#include "cuda-shared-memory.h"
#include "platform/vulkan/vulkan-commands.h"
#include "platform/vulkan/vulkan-engine.h"

namespace g2g::cuda_vulkan {

namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

Error refused(std::string message)
{
    return Error(ErrorCode::UnsupportedDomain, std::move(message));
}

VkDeviceSize align_up(VkDeviceSize value, VkDeviceSize alignment)
{
    return alignment ? (value + alignment - 1) / alignment * alignment : value;
}

// A device-local memory type every plane's image may live in, or -1.
gint memory_type(GstVulkanDevice *device, guint32 allowed)
{
    const VkPhysicalDeviceMemoryProperties &properties = device->physical_device->memory_properties;
    for (guint32 i = 0; i < properties.memoryTypeCount; ++i) {
        if ((allowed >> i & 1) && (properties.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            return static_cast<gint>(i);
    }
    return -1;
}

} // namespace

// What a face's memory holds: the frame, and for a Vulkan plane which one it is and its memory (to
// read its barrier state back when it is freed).
struct SharedFrame::FaceHold {
    std::shared_ptr<SharedFrame> frame;
    guint plane = 0;
    GstVulkanImageMemory *image = nullptr;
};

Result<std::unique_ptr<SharedFrame>> SharedFrame::create(GstVulkanDevice *device, GstCudaContext *cuda,
                                                         const GstVideoInfo &info)
{
    const std::string what = std::string(GST_VIDEO_INFO_NAME(&info)) + " " +
                             std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" +
                             std::to_string(GST_VIDEO_INFO_HEIGHT(&info));
    if (!gst_vulkan_device_is_extension_enabled(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        return refused("the Vulkan device " + vulkan::Engine::describe(device) + " was opened without " +
                       VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME +
                       ", which sharing memory with CUDA needs: let a g2g element (g2gconvert, g2gtee) open "
                       "the pipeline's Vulkan device, or enable the extension on the device the application "
                       "gives the pipeline");
    auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(gst_vulkan_device_get_proc_address(device, "vkGetMemoryFdKHR"));
    Result<const CudaExternal *> calls = cuda_external();
    if (!calls)
        return calls.error();
    if (!get_fd)
        return refused("the Vulkan device " + vulkan::Engine::describe(device) + " has no vkGetMemoryFdKHR");

    std::unique_ptr<SharedFrame> frame(new SharedFrame());
    frame->device_ = static_cast<GstVulkanDevice *>(gst_object_ref(device));
    frame->cuda_ = static_cast<GstCudaContext *>(gst_object_ref(cuda));
    frame->info_ = info;
    frame->cuda_layout_ = info;
    VkDevice vk = device->device;
    VkPhysicalDevice physical = gst_vulkan_device_get_physical_device(device);
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);

    // One linear image per plane, exportable; what each needs of its allocation.
    std::vector<VkMemoryRequirements> needs;
    bool prefers_dedicated = false, requires_dedicated = false;
    guint32 allowed = ~0u;
    for (guint p = 0; p < planes; ++p) {
        GstVideoInfo copy = info;
        const VkFormat format = gst_vulkan_format_from_video_info(&copy, p);
        if (format == VK_FORMAT_UNDEFINED)
            return refused("no Vulkan format holds plane " + std::to_string(p) + " of " + what);
        VkFormatProperties features{};
        vkGetPhysicalDeviceFormatProperties(physical, format, &features);
        const VkFormatFeatureFlags linear = features.linearTilingFeatures;
        const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
                                            VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
        if ((linear & needed) != needed)
            return refused("the Vulkan device " + vulkan::Engine::describe(device) +
                           " cannot copy and sample linear images of VkFormat " + std::to_string(format) +
                           " (plane " + std::to_string(p) + " of " + what + "), which CUDA shares");
        VkImageUsageFlags usage =
            VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
        // A shader writes them when a Vulkan view goes to CUDA.
        if (linear & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
            usage |= VK_IMAGE_USAGE_STORAGE_BIT;
        frame->usage_ = p == 0 ? usage : (frame->usage_ & usage);

        VkPhysicalDeviceExternalImageFormatInfo external_info{};
        external_info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO;
        external_info.handleType = kHandle;
        VkPhysicalDeviceImageFormatInfo2 format_info{};
        format_info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2;
        format_info.pNext = &external_info;
        format_info.format = format;
        format_info.type = VK_IMAGE_TYPE_2D;
        format_info.tiling = VK_IMAGE_TILING_LINEAR;
        format_info.usage = usage;
        VkExternalImageFormatProperties external{};
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES;
        VkImageFormatProperties2 properties{};
        properties.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2;
        properties.pNext = &external;
        if (VkResult r = vkGetPhysicalDeviceImageFormatProperties2(physical, &format_info, &properties);
            r != VK_SUCCESS ||
            !(external.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
            return refused("the Vulkan device " + vulkan::Engine::describe(device) +
                           " cannot export linear images of VkFormat " + std::to_string(format) + " (plane " +
                           std::to_string(p) + " of " + what + ") to CUDA");
        if (external.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT)
            requires_dedicated = true;

        VkExternalMemoryImageCreateInfo exported{};
        exported.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
        exported.handleTypes = kHandle;
        VkImageCreateInfo create{};
        create.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
        create.pNext = &exported;
        create.imageType = VK_IMAGE_TYPE_2D;
        create.format = format;
        create.extent = {static_cast<guint32>(GST_VIDEO_INFO_COMP_WIDTH(&info, p)),
                         static_cast<guint32>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p)), 1};
        create.mipLevels = 1;
        create.arrayLayers = 1;
        create.samples = VK_SAMPLE_COUNT_1_BIT;
        create.tiling = VK_IMAGE_TILING_LINEAR;
        create.usage = usage;
        create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        // Its bytes are defined from the start (CUDA writes them): no transition may discard them.
        create.initialLayout = VK_IMAGE_LAYOUT_PREINITIALIZED;
        VkImage image = VK_NULL_HANDLE;
        if (VkResult r = vkCreateImage(vk, &create, nullptr, &image); r != VK_SUCCESS)
            return vulkan::failure(("creating a linear image for plane " + std::to_string(p) + " of " + what).c_str(),
                                   r);
        frame->images_.push_back(image);
        frame->formats_.push_back(format);

        VkMemoryDedicatedRequirements dedicated{};
        dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS;
        VkMemoryRequirements2 requirements{};
        requirements.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
        requirements.pNext = &dedicated;
        VkImageMemoryRequirementsInfo2 of_image{};
        of_image.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2;
        of_image.image = image;
        vkGetImageMemoryRequirements2(vk, &of_image, &requirements);
        needs.push_back(requirements.memoryRequirements);
        allowed &= requirements.memoryRequirements.memoryTypeBits;
        prefers_dedicated = prefers_dedicated || dedicated.prefersDedicatedAllocation;
        requires_dedicated = requires_dedicated || dedicated.requiresDedicatedAllocation;
    }
    if (requires_dedicated && planes > 1)
        return refused("the Vulkan driver of " + vulkan::Engine::describe(device) +
                       " requires a dedicated allocation for each plane of " + what +
                       " images shared with CUDA, but one CUDA memory holds all of a frame's planes");
    frame->dedicated_ = planes == 1 && (prefers_dedicated || requires_dedicated);

    // The planes one after another, each at its image's alignment.
    std::vector<VkDeviceSize> offsets;
    VkDeviceSize size = 0;
    for (const VkMemoryRequirements &need : needs) {
        size = align_up(size, need.alignment);
        offsets.push_back(size);
        size += need.size;
    }
    const gint type = memory_type(device, allowed);
    if (type < 0)
        return refused("no device-local Vulkan memory type holds every plane of " + what + " on " +
                       vulkan::Engine::describe(device));
    VkMemoryDedicatedAllocateInfo dedicated_to{};
    dedicated_to.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    dedicated_to.image = frame->images_[0];
    VkExportMemoryAllocateInfo export_info{};
    export_info.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
    export_info.pNext = frame->dedicated_ ? &dedicated_to : nullptr;
    export_info.handleTypes = kHandle;
    VkMemoryAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocate.pNext = &export_info;
    allocate.allocationSize = size;
    allocate.memoryTypeIndex = static_cast<guint32>(type);
    if (VkResult r = vkAllocateMemory(vk, &allocate, nullptr, &frame->memory_); r != VK_SUCCESS)
        return vulkan::failure(("allocating exportable memory for " + what).c_str(), r);
    for (guint p = 0; p < planes; ++p) {
        if (VkResult r = vkBindImageMemory(vk, frame->images_[p], frame->memory_, offsets[p]); r != VK_SUCCESS)
            return vulkan::failure("vkBindImageMemory", r);
        VkImageSubresource subresource{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
        VkSubresourceLayout layout{};
        vkGetImageSubresourceLayout(vk, frame->images_[p], &subresource, &layout);
        GST_VIDEO_INFO_PLANE_OFFSET(&frame->cuda_layout_, p) = static_cast<gsize>(offsets[p] + layout.offset);
        GST_VIDEO_INFO_PLANE_STRIDE(&frame->cuda_layout_, p) = static_cast<gint>(layout.rowPitch);
    }
    GST_VIDEO_INFO_SIZE(&frame->cuda_layout_) = static_cast<gsize>(size);

    // CUDA imports the allocation (and owns the fd from then on) and maps all of it.
    VkMemoryGetFdInfoKHR fd_info{};
    fd_info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
    fd_info.memory = frame->memory_;
    fd_info.handleType = kHandle;
    int fd = -1;
    if (VkResult r = get_fd(vk, &fd_info, &fd); r != VK_SUCCESS)
        return vulkan::failure("vkGetMemoryFdKHR", r);
    if (!gst_cuda_context_push(cuda)) {
        close(fd);
        return refused("cannot make the CUDA context of " + describe(cuda) + " current");
    }
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC handle{};
    handle.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    handle.handle.fd = fd;
    handle.size = size;
    handle.flags = frame->dedicated_ ? CUDA_EXTERNAL_MEMORY_DEDICATED : 0;
    Result<void> imported{};
    if (CUresult r = (*calls)->import_memory(&frame->imported_, &handle); r != CUDA_SUCCESS) {
        close(fd);
        frame->imported_ = nullptr;
        imported = cuda_failure("cuImportExternalMemory of a Vulkan allocation", r);
    } else {
        CUDA_EXTERNAL_MEMORY_BUFFER_DESC whole{};
        whole.size = size;
        if (CUresult m = (*calls)->mapped_buffer(&frame->data_, frame->imported_, &whole); m != CUDA_SUCCESS) {
            frame->data_ = 0;
            imported = cuda_failure("cuExternalMemoryGetMappedBuffer", m);
        }
    }
    CUcontext popped = nullptr;
    gst_cuda_context_pop(&popped);
    if (!imported)
        return imported.error();

    GstVulkanBarrierImageInfo start{};
    start.parent.type = GST_VULKAN_BARRIER_TYPE_IMAGE;
    start.parent.pipeline_stages = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    start.image_layout = VK_IMAGE_LAYOUT_PREINITIALIZED;
    start.subresource_range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    frame->barriers_.assign(planes, start);
    return frame;
}

SharedFrame::~SharedFrame()
{
    if (imported_ || data_) {
        Result<const CudaExternal *> calls = cuda_external();
        if (gst_cuda_context_push(cuda_)) {
            if (data_)
                CuMemFree(data_);
            if (imported_ && calls)
                (*calls)->destroy_memory(imported_);
            CUcontext popped = nullptr;
            gst_cuda_context_pop(&popped);
        }
    }
    for (VkImage image : images_)
        vkDestroyImage(device_->device, image, nullptr);
    if (memory_)
        vkFreeMemory(device_->device, memory_, nullptr);
    gst_clear_object(&cuda_);
    gst_clear_object(&device_);
}

void SharedFrame::release_vulkan_plane(gpointer data)
{
    auto *hold = static_cast<FaceHold *>(data);
    {
        // The memory is being freed: its barrier state is still readable.
        const std::lock_guard lock(hold->frame->lock_);
        hold->frame->barriers_[hold->plane] = hold->image->barrier;
    }
    delete hold;
}

void SharedFrame::release_cuda(gpointer data)
{
    delete static_cast<FaceHold *>(data);
}

BufferRef SharedFrame::vulkan_face()
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    for (guint p = 0; p < images_.size(); ++p) {
        auto *hold = new FaceHold{shared_from_this(), p, nullptr};
        GstMemory *memory = gst_vulkan_image_memory_wrapped(
            device_, images_[p], formats_[p], static_cast<gsize>(GST_VIDEO_INFO_COMP_WIDTH(&info_, p)),
            static_cast<gsize>(GST_VIDEO_INFO_COMP_HEIGHT(&info_, p)), VK_IMAGE_TILING_LINEAR, usage_, hold,
            release_vulkan_plane);
        if (!memory) { // wrapped() frees nothing on failure
            delete hold;
            return {};
        }
        hold->image = reinterpret_cast<GstVulkanImageMemory *>(memory);
        {
            const std::lock_guard lock(lock_);
            hold->image->barrier = barriers_[p];
        }
        gst_buffer_append_memory(buffer.get(), memory);
    }
    return buffer;
}

BufferRef SharedFrame::cuda_face()
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    auto *hold = new FaceHold{shared_from_this(), 0, nullptr};
    gst_buffer_append_memory(buffer.get(), wrap_cuda_memory(cuda_, cuda_layout_, data_, hold, release_cuda));
    gst_buffer_add_video_meta_full(buffer.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info_),
                                   GST_VIDEO_INFO_WIDTH(&info_), GST_VIDEO_INFO_HEIGHT(&info_),
                                   GST_VIDEO_INFO_N_PLANES(&info_), cuda_layout_.offset, cuda_layout_.stride);
    return buffer;
}

std::shared_ptr<SharedFrame> SharedFrame::of_vulkan_memory(GstMemory *memory)
{
    if (!memory || !gst_is_vulkan_image_memory(memory))
        return {};
    auto *image = reinterpret_cast<GstVulkanImageMemory *>(memory);
    if (image->notify != release_vulkan_plane)
        return {};
    return static_cast<FaceHold *>(image->user_data)->frame;
}

std::shared_ptr<SharedFrame> SharedFrame::of_cuda_memory(GstMemory *memory)
{
    auto *hold = static_cast<FaceHold *>(wrapped_cuda_user_data(memory, release_cuda));
    return hold ? hold->frame : nullptr;
}

std::shared_ptr<SharedFramePool> SharedFramePool::create(GstVulkanDevice *device, GstCudaContext *cuda)
{
    std::shared_ptr<SharedFramePool> pool(new SharedFramePool());
    pool->device_ = static_cast<GstVulkanDevice *>(gst_object_ref(device));
    pool->cuda_ = static_cast<GstCudaContext *>(gst_object_ref(cuda));
    return pool;
}

SharedFramePool::~SharedFramePool()
{
    free_.clear();
    gst_clear_object(&cuda_);
    gst_clear_object(&device_);
}

namespace {

bool same_frame(const GstVideoInfo &a, const GstVideoInfo &b)
{
    return GST_VIDEO_INFO_FORMAT(&a) == GST_VIDEO_INFO_FORMAT(&b) &&
           GST_VIDEO_INFO_WIDTH(&a) == GST_VIDEO_INFO_WIDTH(&b) &&
           GST_VIDEO_INFO_HEIGHT(&a) == GST_VIDEO_INFO_HEIGHT(&b);
}

} // namespace

Result<std::shared_ptr<SharedFrame>> SharedFramePool::acquire(const GstVideoInfo &info)
{
    std::unique_ptr<SharedFrame> frame;
    std::vector<std::unique_ptr<SharedFrame>> stale;
    {
        const std::lock_guard lock(lock_);
        if (!free_.empty() && !same_frame(free_.back()->info(), info))
            stale.swap(free_);
        if (!free_.empty()) {
            frame = std::move(free_.back());
            free_.pop_back();
        }
    }
    stale.clear(); // outside the lock: freeing imports takes time
    if (!frame) {
        Result<std::unique_ptr<SharedFrame>> made = SharedFrame::create(device_, cuda_, info);
        if (!made)
            return made.error();
        ++allocated_;
        frame = std::move(*made);
    }
    const std::weak_ptr<SharedFramePool> pool = weak_from_this();
    return std::shared_ptr<SharedFrame>(frame.release(), [pool](SharedFrame *done) {
        if (const std::shared_ptr<SharedFramePool> owner = pool.lock())
            owner->give_back(done);
        else
            delete done;
    });
}

void SharedFramePool::give_back(SharedFrame *frame)
{
    std::unique_ptr<SharedFrame> returned(frame);
    {
        const std::lock_guard lock(lock_);
        if (free_.empty() || same_frame(free_.back()->info(), frame->info())) {
            free_.push_back(std::move(returned));
            return;
        }
    }
    // A frame of a layout the stream left: freed outside the lock.
}

} // namespace g2g::cuda_vulkan
