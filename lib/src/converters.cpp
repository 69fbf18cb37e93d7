#include <g2g/converters.h>

#include <string>

namespace g2g {
namespace {

using K = MemoryDomainKind;

// The GStreamer element that brings a frame of this kind into dense system memory.
// Empty where no element exists: the producer has to be asked for system memory instead.
std::string_view download_from(K kind)
{
    switch (kind) {
    case K::SystemView:
        return "g2gmaterialize";
    case K::DmaBuf: // only a non-mappable DMABuf needs this; a mappable one is read in place
        return "glupload ! gldownload";
    case K::VulkanTexture:
        return "vulkandownload";
    case K::Cuda:
        return "cudadownload";
    case K::D3D11Texture:
        return "d3d11download";
    default:
        return {};
    }
}

// The element that brings a system-memory frame into this kind.
std::string_view upload_to(K kind)
{
    switch (kind) {
    case K::SystemView:
        return "g2gview";
    case K::VulkanTexture:
        return "vulkanupload";
    case K::Cuda:
        return "cudaupload";
    case K::D3D11Texture:
        return "d3d11upload";
    default:
        return {};
    }
}

} // namespace

std::string converter_between(K from, K to)
{
    if (from == to)
        return {};
    if (to == K::System)
        return std::string(download_from(from));
    if (from == K::System)
        return std::string(upload_to(to));
    // Everything else goes through system memory (one download, one upload).
    std::string_view down = download_from(from);
    std::string_view up = upload_to(to);
    if (down.empty() || up.empty())
        return {};
    return std::string(down) + " ! " + std::string(up);
}

Error wrong_domain_error(std::string_view category, DomainSet accepted, K arrived)
{
    if (accepted.empty())
        return Error(ErrorCode::UnsupportedDomain, std::string(category) +
                                                       " accepts no memory domain but received a " +
                                                       std::string(name(arrived)) + " frame");
    // An element that takes only host domains reads system memory (a DMABuf through its mapping).
    bool reads_host = true;
    for (K kind : accepted)
        reads_host = reads_host && is_host_domain(kind);
    std::string wants;
    std::string settle;
    if (reads_host) {
        wants = "reads system memory";
        settle = "system memory";
    } else {
        std::string names;
        for (K kind : accepted.by_preference()) {
            if (!names.empty())
                names += " or ";
            names += name(kind);
        }
        wants = "requires " + names;
        settle = std::string(memory_caps_feature(*accepted.preferred()));
    }

    // The first accepted domain, best first, that some element reaches from the arrived one;
    // for a host reader that is dense System memory.
    std::string converter;
    for (K target : reads_host ? std::vector<K>{K::System} : accepted.by_preference()) {
        converter = converter_between(arrived, target);
        if (!converter.empty())
            break;
    }

    std::string message =
        std::string(category) + " " + wants + " but received a " + std::string(name(arrived)) + " frame: ";
    if (!converter.empty())
        message += "insert " + converter + " before it, or let caps negotiation settle on " + settle;
    else
        message += "no GStreamer element converts " + std::string(name(arrived)) +
                   " frames to it; have the producer output " + settle + " instead";
    return Error(ErrorCode::UnsupportedDomain, std::move(message));
}

} // namespace g2g
