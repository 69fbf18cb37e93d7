#include <g2g/classify.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>

#include <cstring>
#include <string>

#include "g2g-config.h"
#include "opaque-memory-private.h"

#if G2G_HAVE_VULKAN
#include <gst/vulkan/vulkan.h>
#endif
#if G2G_HAVE_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

namespace g2g {
namespace {

// Memory type names GStreamer's own allocators register. Compared as strings so that a build
// without the cuda or vulkan feature still names those frames correctly (and points at the
// right download element) instead of calling them unknown.
constexpr const char *kCudaMemoryType = "gst.cuda.memory"; // GST_CUDA_MEMORY_TYPE_NAME
constexpr const char *kVulkanImageType = "VulkanImage";    // GST_VULKAN_IMAGE_MEMORY_ALLOCATOR_NAME

// vulkandownload hands frames to system-memory caps in host-visible GstVulkanBufferMemory:
// those bytes are mapped in place like any system memory. A device-local Vulkan buffer has no
// kind of its own (VulkanTexture is images) and stays unknown.
bool is_host_visible_vulkan_buffer(GstMemory *memory)
{
#if G2G_HAVE_VULKAN
    if (!gst_is_vulkan_buffer_memory(memory))
        return false;
    const GstVulkanMemory *backing = reinterpret_cast<GstVulkanBufferMemory *>(memory)->vk_mem;
    return backing && (backing->properties & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
#else
    (void)memory;
    return false;
#endif
}

std::string describe(GstMemory *memory)
{
    const char *type = memory->allocator ? memory->allocator->mem_type : nullptr;
    std::string text = "memory type '";
    text += type ? type : "(none)";
    text += "'";
    if (memory->allocator) {
        text += " from allocator ";
        text += G_OBJECT_TYPE_NAME(memory->allocator);
    }
    return text;
}

} // namespace

Result<MemoryDomainKind> classify_memory(GstMemory *memory)
{
    if (!memory)
        return Error(ErrorCode::InvalidArgument, "classify_memory: no memory");
    if (gst_is_dmabuf_memory(memory))
        return MemoryDomainKind::DmaBuf;
    if (gst_memory_is_type(memory, GST_ALLOCATOR_SYSMEM) || gst_memory_is_type(memory, GST_ALLOCATOR_FD) ||
        is_host_visible_vulkan_buffer(memory))
        return MemoryDomainKind::System;
    if (gst_memory_is_type(memory, kVulkanImageType))
        return MemoryDomainKind::VulkanTexture;
    if (gst_memory_is_type(memory, kCudaMemoryType))
        return MemoryDomainKind::Cuda;
#if G2G_HAVE_VULKAN
    // Built with the SDK, memory of allocators derived from GStreamer's own (other type names)
    // is recognised too.
    if (gst_is_vulkan_image_memory(memory))
        return MemoryDomainKind::VulkanTexture;
#endif
#if G2G_HAVE_CUDA
    if (gst_is_cuda_memory(memory))
        return MemoryDomainKind::Cuda;
#endif
    if (auto kind = detail::opaque_memory_kind(memory))
        return *kind;
    return Error(ErrorCode::UnknownMemory,
                 "unknown " + describe(memory) + ": g2g does not know which domain it lives in");
}

Result<MemoryDomainKind> classify_buffer(GstBuffer *buffer)
{
    if (!buffer)
        return Error(ErrorCode::InvalidArgument, "classify_buffer: no buffer");
    const guint n = gst_buffer_n_memory(buffer);
    if (n == 0)
        return MemoryDomainKind::System;

    Result<MemoryDomainKind> first = classify_memory(gst_buffer_peek_memory(buffer, 0));
    if (!first)
        return first;
    for (guint i = 1; i < n; ++i) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, i);
        Result<MemoryDomainKind> other = classify_memory(memory);
        if (!other)
            return other;
        if (*other != *first)
            return Error(ErrorCode::UnknownMemory, "buffer mixes " + std::string(name(*first)) + " and " +
                                                       std::string(name(*other)) + " memory (memory " +
                                                       std::to_string(i) + ", " + describe(memory) +
                                                       "): a frame lives in one domain");
    }
    // Host bytes read through a view are a SystemView; a device frame keeps its domain (the view
    // travels with it as meta).
    if (*first == MemoryDomainKind::System && tensor_view_of(buffer))
        return MemoryDomainKind::SystemView;
    return first;
}

} // namespace g2g
