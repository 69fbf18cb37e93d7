#include <g2g/memory-domain-kind.h>

namespace g2g {
namespace {

struct KindInfo {
    std::string_view name;
    std::string_view nick;
    std::string_view caps_feature;
    std::string_view memory_caps_feature;
    bool host;
};

// Indexed by MemoryDomainKind; the caps features are DESIGN.md's domain table.
constexpr KindInfo kKinds[kMemoryDomainKindCount] = {
    {"System", "system", "memory:SystemMemory", "memory:SystemMemory", true},
    {"SystemView", "system-view", "memory:SystemMemory, meta:G2gTensorView", "memory:SystemMemory", true},
    {"DmaBuf", "dma-buf", "memory:DMABuf", "memory:DMABuf", true},
    {"VulkanTexture", "vulkan-texture", "memory:VulkanImage", "memory:VulkanImage", false},
    {"WebGPUBuffer", "web-gpu-buffer", "memory:WebGPUBuffer", "memory:WebGPUBuffer", false},
    {"Cuda", "cuda", "memory:CUDAMemory", "memory:CUDAMemory", false},
    {"D3D11Texture", "d3d11-texture", "memory:D3D11Memory", "memory:D3D11Memory", false},
    {"CvPixelBuffer", "cv-pixel-buffer", "memory:CVPixelBuffer", "memory:CVPixelBuffer", false},
    {"WebGPUExternalTexture", "web-gpu-external-texture", "memory:WebGPUExternalTexture",
     "memory:WebGPUExternalTexture", false},
    {"WgpuTexture", "wgpu-texture", "memory:WgpuTexture", "memory:WgpuTexture", false},
    {"WgpuBuffer", "wgpu-buffer", "memory:WgpuBuffer", "memory:WgpuBuffer", false},
};

const KindInfo &info(MemoryDomainKind kind)
{
    return kKinds[static_cast<std::size_t>(kind)];
}

} // namespace

std::string_view name(MemoryDomainKind kind)
{
    return info(kind).name;
}

std::string_view nick(MemoryDomainKind kind)
{
    return info(kind).nick;
}

std::string_view caps_feature(MemoryDomainKind kind)
{
    return info(kind).caps_feature;
}

std::string_view memory_caps_feature(MemoryDomainKind kind)
{
    return info(kind).memory_caps_feature;
}

bool is_host_domain(MemoryDomainKind kind)
{
    return info(kind).host;
}

std::optional<MemoryDomainKind> kind_from_name(std::string_view name_or_nick)
{
    for (MemoryDomainKind kind : kAllMemoryDomainKinds) {
        if (info(kind).name == name_or_nick || info(kind).nick == name_or_nick)
            return kind;
    }
    return std::nullopt;
}

} // namespace g2g
