// SPDX-License-Identifier: LGPL-2.1-or-later
#include "shared-frame.h"

#include <gst/cuda/gstcudaloader.h>

#include <unistd.h>

#include <string>
#include <utility>

#include "cuda-external.h"
#include "compat/cuda-compat.h"
#include "compat/vulkan-format-compat.h"
#include "platform/vulkan/vulkan-commands.h"
#include "platform/vulkan/vulkan-engine.h"
#include "platform/vulkan/vulkan-external.h"

namespace g2g::cuda_vulkan {

namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

Error refused(std::string message)
{
    return Error(ErrorCode::UnsupportedDomain, std::move(message));
}

std::string frame_name(const GstVideoInfo &info)
{
    return std::string(GST_VIDEO_INFO_NAME(&info)) + " " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" +
           std::to_string(GST_VIDEO_INFO_HEIGHT(&info));
}

gsize align_up(gsize value, gsize alignment)
{
    return (value + alignment - 1) / alignment * alignment;
}

} // namespace

SharedMemoryBase::SharedMemoryBase(GstVulkanDevice *device, GstCudaContext *cuda, const GstVideoInfo &info)
    : device_(static_cast<GstVulkanDevice *>(gst_object_ref(device))),
      cuda_(static_cast<GstCudaContext *>(gst_object_ref(cuda))), info_(info)
{
    allocations_.reserve(GST_VIDEO_MAX_PLANES); // allocate() hands out pointers into it
}

SharedMemoryBase::~SharedMemoryBase()
{
    Result<const CudaExternal *> calls = cuda_external();
    if (calls && gst_cuda_context_push(cuda_)) {
        for (const SharedAllocation &allocation : allocations_) {
            if (allocation.data)
                CuMemFree(allocation.data);
            if (allocation.imported)
                (*calls)->destroy_memory(allocation.imported);
        }
        CUcontext popped = nullptr;
        gst_cuda_context_pop(&popped);
    }
    for (const SharedAllocation &allocation : allocations_)
        vkFreeMemory(device_->device, allocation.memory, nullptr);
    gst_object_unref(cuda_);
    gst_object_unref(device_);
}

Result<SharedAllocation *> SharedMemoryBase::allocate(const VkMemoryRequirements &requirements, VkImage image,
                                                      VkBuffer buffer)
{
    const std::string what = frame_name(info_);
    if (!gst_vulkan_device_is_extension_enabled(device_, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        return refused("the Vulkan device " + vulkan::Engine::describe(device_) + " was opened without " +
                       VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME + ", which sharing memory with CUDA needs");
    Result<const CudaExternal *> calls = cuda_external();
    if (!calls)
        return calls.error();
    const gint type = vulkan::device_local_memory_type(device_, requirements.memoryTypeBits);
    if (type < 0)
        return refused("no device-local Vulkan memory type holds " + what + " on " +
                       vulkan::Engine::describe(device_));

    SharedAllocation &allocation = allocations_.emplace_back();
    VkMemoryDedicatedAllocateInfo dedicated{};
    dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    dedicated.image = image;
    dedicated.buffer = buffer;
    VkExportMemoryAllocateInfo exported{};
    exported.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
    exported.pNext = &dedicated;
    exported.handleTypes = kHandle;
    VkMemoryAllocateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    info.pNext = &exported;
    info.allocationSize = requirements.size;
    info.memoryTypeIndex = static_cast<guint32>(type);
    if (VkResult r = vkAllocateMemory(device_->device, &info, nullptr, &allocation.memory); r != VK_SUCCESS)
        return vulkan::failure(("allocating exportable memory for " + what).c_str(), r);
    allocation.size = requirements.size;
    const VkResult bound = image ? vkBindImageMemory(device_->device, image, allocation.memory, 0)
                                 : vkBindBufferMemory(device_->device, buffer, allocation.memory, 0);
    if (bound != VK_SUCCESS)
        return vulkan::failure("binding exportable memory", bound);

    // CUDA imports the allocation (and owns the fd from then on) and maps all of it.
    Result<int> made = vulkan::exported_fd(device_, allocation.memory);
    if (!made)
        return made.error();
    const int fd = *made;
    if (!gst_cuda_context_push(cuda_)) {
        close(fd);
        return refused("cannot make the CUDA context of " + describe(cuda_) + " current");
    }
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC handle{};
    handle.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    handle.handle.fd = fd;
    handle.size = allocation.size;
    handle.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
    Result<SharedAllocation *> result = &allocation;
    if (CUresult r = (*calls)->import_memory(&allocation.imported, &handle); r != CUDA_SUCCESS) {
        close(fd);
        allocation.imported = nullptr;
        result = cuda_failure("cuImportExternalMemory of a Vulkan allocation", r);
    } else {
        CUDA_EXTERNAL_MEMORY_BUFFER_DESC whole{};
        whole.size = allocation.size;
        if (CUresult m = (*calls)->mapped_buffer(&allocation.data, allocation.imported, &whole);
            m != CUDA_SUCCESS) {
            allocation.data = 0;
            result = cuda_failure("cuExternalMemoryGetMappedBuffer", m);
        }
    }
    CUcontext popped = nullptr;
    gst_cuda_context_pop(&popped);
    return result;
}

// ---- SharedImages ----

// What a face's memory holds: the frame, and for a Vulkan plane which one it is and its memory (to
// read its barrier state back when it is freed).
struct SharedImages::FaceHold {
    std::shared_ptr<SharedImages> frame;
    guint plane = 0;
    GstVulkanImageMemory *image = nullptr;
};

Result<std::unique_ptr<SharedImages>> SharedImages::create(GstVulkanDevice *device, GstCudaContext *cuda,
                                                           const GstVideoInfo &info)
{
    std::unique_ptr<SharedImages> frame(new SharedImages(device, cuda, info));
    const std::string what = frame_name(info);
    VkDevice vk = device->device;
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);
    for (guint p = 0; p < planes; ++p) {
        Plane plane;
        const std::string which = "plane " + std::to_string(p) + " of " + what;
        vulkan::ExternalPlane &d = plane.description;
        d.format = compat::vulkan_plane_format(info, p);
        if (d.format == VK_FORMAT_UNDEFINED)
            return refused("no Vulkan format holds " + which);
        Result<VkImageUsageFlags> usage =
            vulkan::exportable_usage(device, static_cast<VkFormat>(d.format), VK_IMAGE_TILING_LINEAR, which);
        if (!usage)
            return usage.error();
        d.usage = *usage;
        frame->usage_ = p == 0 ? d.usage : (frame->usage_ & d.usage);
        d.width = static_cast<guint32>(GST_VIDEO_INFO_COMP_WIDTH(&info, p));
        d.height = static_cast<guint32>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p));
        d.tiling = VK_IMAGE_TILING_LINEAR;
        Result<VkImage> image = vulkan::external_image(device, d, which);
        if (!image)
            return image.error();
        plane.image = *image;
        frame->planes_.push_back(plane); // destroyed with the frame from here on
        VkMemoryRequirements requirements{};
        vkGetImageMemoryRequirements(vk, plane.image, &requirements);
        Result<SharedAllocation *> allocation = frame->allocate(requirements, plane.image, VK_NULL_HANDLE);
        if (!allocation)
            return allocation.error();
        VkImageSubresource subresource{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
        VkSubresourceLayout layout{};
        vkGetImageSubresourceLayout(vk, plane.image, &subresource, &layout);
        Plane &kept = frame->planes_.back();
        kept.allocation = *allocation;
        kept.description.size = requirements.size;
        kept.offset = layout.offset;
        kept.pitch = static_cast<gint>(layout.rowPitch);
    }
    GstVulkanBarrierImageInfo start{};
    start.parent.type = GST_VULKAN_BARRIER_TYPE_IMAGE;
    start.parent.pipeline_stages = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    start.image_layout = VK_IMAGE_LAYOUT_PREINITIALIZED;
    start.subresource_range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    frame->barriers_.assign(planes, start);
    return frame;
}

SharedImages::~SharedImages()
{
    for (const Plane &plane : planes_) {
        vkDestroyImage(device_->device, plane.image, nullptr);
        if (plane.fd >= 0)
            close(plane.fd);
    }
    // The allocations go in ~SharedMemoryBase, after the images bound to them.
}

void SharedImages::cuda_planes(std::uint64_t planes[], gint strides[]) const
{
    for (std::size_t p = 0; p < planes_.size(); ++p) {
        planes[p] = static_cast<std::uint64_t>(planes_[p].allocation->data + planes_[p].offset);
        strides[p] = planes_[p].pitch;
    }
}

void SharedImages::release_vulkan_plane(gpointer data)
{
    auto *hold = static_cast<FaceHold *>(data);
    {
        // The memory is being freed: its barrier state is still readable.
        const std::lock_guard lock(hold->frame->lock_);
        hold->frame->barriers_[hold->plane] = hold->image->barrier;
    }
    delete hold; // may give the frame back to its pool: outside the frame's lock
}

void SharedImages::release_cuda(gpointer data)
{
    delete static_cast<FaceHold *>(data);
}

std::vector<vulkan::ExternalImage> SharedImages::planes(GstBuffer *face)
{
    std::vector<vulkan::ExternalImage> planes;
    const std::lock_guard lock(lock_);
    for (guint p = 0; p < planes_.size(); ++p) {
        Plane &plane = planes_[p];
        if (plane.fd < 0) {
            Result<int> fd = vulkan::exported_fd(device_, plane.allocation->memory);
            if (fd)
                plane.fd = *fd;
            else
                GST_WARNING_OBJECT(device_, "plane %u of %s cannot cross to another process: %s", p,
                                   frame_name(info_).c_str(), fd.error().message().c_str());
        }
        vulkan::ExternalImage &out = planes.emplace_back();
        out.image = plane.image;
        out.memory = plane.allocation->memory;
        out.fd = plane.fd;
        out.description = plane.description;
        out.description.layout = layout_of(face, p, barriers_[p].image_layout);
    }
    return planes;
}

BufferRef SharedImages::vulkan_face()
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    for (guint p = 0; p < planes_.size(); ++p) {
        auto *hold = new FaceHold{shared_from_this(), p, nullptr};
        const vulkan::ExternalPlane &d = planes_[p].description;
        GstMemory *memory = gst_vulkan_image_memory_wrapped(
            device_, planes_[p].image, static_cast<VkFormat>(d.format), d.width, d.height,
            VK_IMAGE_TILING_LINEAR, usage_, hold, release_vulkan_plane);
        if (!memory) { // wrapped() calls no notify when it fails
            delete hold;
            return {};
        }
        hold->image = reinterpret_cast<GstVulkanImageMemory *>(memory);
        {
            const std::lock_guard lock(lock_);
            hold->image->barrier = barriers_[p];
        }
        mark_face(memory, shared_from_this(), p);
        gst_buffer_append_memory(buffer.get(), memory);
    }
    return buffer;
}

BufferRef SharedImages::cuda_face()
{
    if (planes_.size() != 1)
        return {};
    GstVideoInfo layout = info_;
    GST_VIDEO_INFO_PLANE_OFFSET(&layout, 0) = static_cast<gsize>(planes_[0].offset);
    GST_VIDEO_INFO_PLANE_STRIDE(&layout, 0) = planes_[0].pitch;
    GST_VIDEO_INFO_SIZE(&layout) = static_cast<gsize>(planes_[0].allocation->size);
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    auto *hold = new FaceHold{shared_from_this(), 0, nullptr};
    gst_buffer_append_memory(
        buffer.get(), compat::cuda_wrap(cuda_, layout, planes_[0].allocation->data, hold, release_cuda));
    gst_buffer_add_video_meta_full(buffer.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&layout),
                                   GST_VIDEO_INFO_WIDTH(&layout), GST_VIDEO_INFO_HEIGHT(&layout), 1,
                                   layout.offset, layout.stride);
    return buffer;
}

std::shared_ptr<SharedImages> SharedImages::of_vulkan_memory(GstMemory *memory)
{
    if (!memory || !gst_is_vulkan_image_memory(memory))
        return {};
    auto *image = reinterpret_cast<GstVulkanImageMemory *>(memory);
    if (image->notify != release_vulkan_plane)
        return {};
    return static_cast<FaceHold *>(image->user_data)->frame;
}

std::shared_ptr<SharedImages> SharedImages::of_cuda_memory(GstMemory *memory)
{
    auto *hold = static_cast<FaceHold *>(compat::cuda_wrapped_user_data(memory, release_cuda));
    return hold ? hold->frame : nullptr;
}

// ---- SharedBuffer ----

namespace {

// What holds a SharedBuffer while its CUDA face lives.
struct BufferHold {
    std::shared_ptr<SharedBuffer> frame;
};

} // namespace

Result<std::unique_ptr<SharedBuffer>> SharedBuffer::create(GstVulkanDevice *device, GstCudaContext *cuda,
                                                           const GstVideoInfo &info)
{
    std::unique_ptr<SharedBuffer> frame(new SharedBuffer(device, cuda, info));
    // Rows and plane starts on 256 bytes: CUDA's own pitch granularity, and whole texels (1, 2 or 4
    // bytes) for vkCmdCopyImageToBuffer's row length and offset.
    GstVideoInfo &layout = frame->layout_;
    layout = info;
    gsize offset = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        const gsize row = static_cast<gsize>(GST_VIDEO_INFO_COMP_WIDTH(&info, p)) *
                          static_cast<gsize>(GST_VIDEO_INFO_COMP_PSTRIDE(&info, p));
        GST_VIDEO_INFO_PLANE_STRIDE(&layout, p) = static_cast<gint>(align_up(row, 256));
        GST_VIDEO_INFO_PLANE_OFFSET(&layout, p) = offset;
        offset = align_up(offset + static_cast<gsize>(GST_VIDEO_INFO_PLANE_STRIDE(&layout, p)) *
                                       static_cast<gsize>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p)),
                          256);
    }
    GST_VIDEO_INFO_SIZE(&layout) = offset;

    VkExternalMemoryBufferCreateInfo exported{};
    exported.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
    exported.handleTypes = kHandle;
    VkBufferCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    create.pNext = &exported;
    create.size = offset;
    create.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (VkResult r = vkCreateBuffer(device->device, &create, nullptr, &frame->buffer_); r != VK_SUCCESS)
        return vulkan::failure(("creating a buffer for " + frame_name(info)).c_str(), r);
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(device->device, frame->buffer_, &requirements);
    if (Result<SharedAllocation *> allocation = frame->allocate(requirements, VK_NULL_HANDLE, frame->buffer_);
        !allocation)
        return allocation.error();
    return frame;
}

SharedBuffer::~SharedBuffer()
{
    vkDestroyBuffer(device_->device, buffer_, nullptr);
}

void SharedBuffer::release(gpointer data)
{
    delete static_cast<BufferHold *>(data);
}

BufferRef SharedBuffer::cuda_face()
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    auto *hold = new BufferHold{shared_from_this()};
    gst_buffer_append_memory(buffer.get(),
                             compat::cuda_wrap(cuda_, layout_, allocations_[0].data, hold, release));
    gst_buffer_add_video_meta_full(buffer.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&layout_),
                                   GST_VIDEO_INFO_WIDTH(&layout_), GST_VIDEO_INFO_HEIGHT(&layout_),
                                   GST_VIDEO_INFO_N_PLANES(&layout_), layout_.offset, layout_.stride);
    return buffer;
}

} // namespace g2g::cuda_vulkan
