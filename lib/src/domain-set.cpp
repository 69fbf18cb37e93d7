#include <g2g/domain-set.h>

namespace g2g {
namespace {

// GPU-first: a frame that can stay on a device should, and the host domains come last.
constexpr MemoryDomainKind kPreference[kMemoryDomainKindCount] = {
    MemoryDomainKind::Cuda,
    MemoryDomainKind::D3D11Texture,
    MemoryDomainKind::CvPixelBuffer,
    MemoryDomainKind::VulkanTexture,
    MemoryDomainKind::WgpuTexture,
    MemoryDomainKind::WgpuBuffer,
    MemoryDomainKind::WebGPUExternalTexture,
    MemoryDomainKind::WebGPUBuffer,
    MemoryDomainKind::DmaBuf,
    MemoryDomainKind::SystemView,
    MemoryDomainKind::System,
};

} // namespace

std::optional<MemoryDomainKind> DomainSet::preferred() const
{
    for (MemoryDomainKind kind : kPreference) {
        if (contains(kind))
            return kind;
    }
    return std::nullopt;
}

std::vector<MemoryDomainKind> DomainSet::by_preference() const
{
    std::vector<MemoryDomainKind> kinds;
    for (MemoryDomainKind kind : kPreference) {
        if (contains(kind))
            kinds.push_back(kind);
    }
    return kinds;
}

std::string DomainSet::to_string() const
{
    if (empty())
        return "(none)";
    std::string text;
    for (MemoryDomainKind kind : *this) {
        if (!text.empty())
            text += '+';
        text += name(kind);
    }
    return text;
}

} // namespace g2g
