// SPDX-License-Identifier: LGPL-2.1-or-later
#include "core/domain-table.h"

#include "core/make-shareable.h"
#include "platform/platform.h"

namespace g2g::detail {
namespace {

using K = MemoryDomainKind;

// GStreamer's own memory type names (GST_ALLOCATOR_SYSMEM, GST_ALLOCATOR_FD, GST_ALLOCATOR_DMABUF,
// GST_VULKAN_IMAGE_MEMORY_ALLOCATOR_NAME, GST_CUDA_MEMORY_TYPE_NAME), and g2g's handle memories'.
// G2gVulkanDownload is g2gmaterialize's download (platform/vulkan/vulkan-fenced-memory.h): host
// memory, read in place once its fence has signalled (mapping waits for it).
constexpr std::string_view kSystemTypes[] = {"SystemMemory", "fd", "G2gVulkanDownload"};
constexpr std::string_view kDmaBufTypes[] = {"dmabuf"};
constexpr std::string_view kVulkanImageTypes[] = {"VulkanImage"};
constexpr std::string_view kCudaTypes[] = {"gst.cuda.memory"};
// CUDA and Vulkan frames cross on the GPU through memory both share (platform/cuda-vulkan/); CUDA
// frames are DMA-BUFs of their own device memory, exported with no copy (platform/cuda-dmabuf/).
constexpr DeviceRoute kCudaRoutes[] = {{K::VulkanTexture, "g2gconvert", platform::cuda_vulkan::built},
                                       {K::DmaBuf, "g2gconvert", platform::cuda_dmabuf::built}};
constexpr DeviceRoute kVulkanRoutes[] = {{K::Cuda, "g2gconvert", platform::cuda_vulkan::built}};
constexpr std::string_view kD3D11Types[] = {"G2gD3D11Texture"};
constexpr std::string_view kCvPixelBufferTypes[] = {"G2gCvPixelBuffer"};
constexpr std::string_view kWebGPUBufferTypes[] = {"G2gWebGPUBuffer"};
constexpr std::string_view kWebGPUExternalTextureTypes[] = {"G2gWebGPUExternalTexture"};
constexpr std::string_view kWgpuTextureTypes[] = {"G2gWgpuTexture"};
constexpr std::string_view kWgpuBufferTypes[] = {"G2gWgpuBuffer"};

// Indexed by MemoryDomainKind. DESIGN.md's domain table, as code.
constexpr DomainInfo kDomains[kMemoryDomainKindCount] = {
    {
        .kind = K::System,
        .name = "System",
        .nick = "system",
        .caps_feature = "memory:SystemMemory",
        .memory_caps_feature = "memory:SystemMemory",
        .memory_types = kSystemTypes,
        // vulkandownload hands frames to system-memory caps in host-visible Vulkan buffers.
        .recognises = platform::vulkan::is_host_visible_buffer,
        .host_read = HostRead::InPlace,
        .make_shareable = share_host_mapping,
        .preference = 10,
    },
    {
        .kind = K::SystemView,
        .name = "SystemView",
        .nick = "system-view",
        .caps_feature = "memory:SystemMemory, meta:G2gTensorView",
        .memory_caps_feature = "memory:SystemMemory",
        .memory_types = {},
        .views = K::System,
        .host_read = HostRead::Materialized,
        .make_shareable = share_host_mapping,
        .to_system = "g2gmaterialize",
        .from_system = "g2gview",
        .preference = 9,
    },
    {
        .kind = K::DmaBuf,
        .name = "DmaBuf",
        .nick = "dma-buf",
        .caps_feature = "memory:DMABuf",
        .memory_caps_feature = "memory:DMABuf",
        .memory_types = kDmaBufTypes,
        .host_read = HostRead::WhenMappable,
        .make_shareable = platform::dmabuf::share_fd,
        // Only a DMABuf that cannot be mapped needs it; a mappable one is read in place.
        .to_system = "glupload ! gldownload",
        // Into g2g's DMA-BUFs: written there by the producer (the pool it offers), or copied once.
        .from_system = "g2gdmabufupload",
        .preference = 8,
    },
    {
        .kind = K::VulkanTexture,
        .name = "VulkanTexture",
        .nick = "vulkan-texture",
        .caps_feature = "memory:VulkanImage",
        .memory_caps_feature = "memory:VulkanImage",
        .memory_types = kVulkanImageTypes,
        .recognises = platform::vulkan::recognises_image,
        .host_read = HostRead::Download,
        // g2gmaterialize downloads with a fence per frame, waiting only when the bytes are mapped
        // (vulkandownload 1.22 waits for the GPU in the streaming thread on every frame).
        .to_system = "g2gmaterialize",
        .from_system = "vulkanupload",
        .device_routes = kVulkanRoutes,
        .preference = 3,
    },
    {
        .kind = K::WebGPUBuffer,
        .name = "WebGPUBuffer",
        .nick = "web-gpu-buffer",
        .caps_feature = "memory:WebGPUBuffer",
        .memory_caps_feature = "memory:WebGPUBuffer",
        .memory_types = kWebGPUBufferTypes,
        .host_read = HostRead::Never,
        .handle_memory = true,
        .handle_views = HandleViews::Crops,
        .preference = 7,
    },
    {
        .kind = K::Cuda,
        .name = "Cuda",
        .nick = "cuda",
        .caps_feature = "memory:CUDAMemory",
        .memory_caps_feature = "memory:CUDAMemory",
        .memory_types = kCudaTypes,
        .recognises = platform::cuda::recognises,
        .host_read = HostRead::Download,
        .maps_under_system_caps = true,
        .to_system = "cudadownload",
        .from_system = "cudaupload",
        .device_routes = kCudaRoutes,
        .preference = 0,
    },
    {
        .kind = K::D3D11Texture,
        .name = "D3D11Texture",
        .nick = "d3d11-texture",
        .caps_feature = "memory:D3D11Memory",
        .memory_caps_feature = "memory:D3D11Memory",
        .memory_types = kD3D11Types,
        .host_read = HostRead::Download,
        .handle_memory = true,
        .handle_views = HandleViews::CropsAndOrientations,
        .to_system = "d3d11download",
        .from_system = "d3d11upload",
        .preference = 1,
    },
    {
        .kind = K::CvPixelBuffer,
        .name = "CvPixelBuffer",
        .nick = "cv-pixel-buffer",
        .caps_feature = "memory:CVPixelBuffer",
        .memory_caps_feature = "memory:CVPixelBuffer",
        .memory_types = kCvPixelBufferTypes,
        .host_read = HostRead::Never,
        .handle_memory = true,
        .handle_views = HandleViews::CropsAndOrientations,
        .preference = 2,
    },
    {
        .kind = K::WebGPUExternalTexture,
        .name = "WebGPUExternalTexture",
        .nick = "web-gpu-external-texture",
        .caps_feature = "memory:WebGPUExternalTexture",
        .memory_caps_feature = "memory:WebGPUExternalTexture",
        .memory_types = kWebGPUExternalTextureTypes,
        .host_read = HostRead::Never,
        .handle_memory = true,
        .handle_views = HandleViews::CropsAndOrientations,
        .preference = 6,
    },
    {
        .kind = K::WgpuTexture,
        .name = "WgpuTexture",
        .nick = "wgpu-texture",
        .caps_feature = "memory:WgpuTexture",
        .memory_caps_feature = "memory:WgpuTexture",
        .memory_types = kWgpuTextureTypes,
        .host_read = HostRead::Never,
        .handle_memory = true,
        .handle_views = HandleViews::CropsAndOrientations,
        .preference = 4,
    },
    {
        .kind = K::WgpuBuffer,
        .name = "WgpuBuffer",
        .nick = "wgpu-buffer",
        .caps_feature = "memory:WgpuBuffer",
        .memory_caps_feature = "memory:WgpuBuffer",
        .memory_types = kWgpuBufferTypes,
        .host_read = HostRead::Never,
        .handle_memory = true,
        .handle_views = HandleViews::Crops,
        .preference = 5,
    },
};

// Each row sits at its kind's index, and the preferences rank every kind once.
constexpr bool rows_are_consistent()
{
    unsigned ranks = 0;
    for (std::size_t i = 0; i < kMemoryDomainKindCount; ++i) {
        if (static_cast<std::size_t>(kDomains[i].kind) != i ||
            kDomains[i].preference >= kMemoryDomainKindCount)
            return false;
        ranks |= 1u << kDomains[i].preference;
    }
    return ranks == (1u << kMemoryDomainKindCount) - 1;
}
static_assert(rows_are_consistent(), "one row per kind, in kind order, each with its own preference");

} // namespace

const DomainInfo &domain_info(MemoryDomainKind kind)
{
    return kDomains[static_cast<std::size_t>(kind)];
}

std::span<const DomainInfo, kMemoryDomainKindCount> domain_table()
{
    return std::span<const DomainInfo, kMemoryDomainKindCount>(kDomains);
}

} // namespace g2g::detail
