// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/converters.h>

#include <string>

#include "core/domain-table.h"

namespace g2g {

using K = MemoryDomainKind;
using detail::domain_info;

namespace {

// The element that converts from -> to on the device, where this build has one.
std::string_view device_route(K from, K to)
{
    for (const detail::DeviceRoute &route : domain_info(from).device_routes) {
        if (route.to == to && route.built())
            return route.converter;
    }
    return {};
}

} // namespace

bool converts_through_host(K from, K to)
{
    return from != to && from != K::System && to != K::System && device_route(from, to).empty() &&
           !converter_between(from, to).empty();
}

std::string converter_between(K from, K to)
{
    if (from == to)
        return {};
    if (std::string_view device = device_route(from, to); !device.empty())
        return std::string(device);
    if (to == K::System)
        return std::string(domain_info(from).to_system);
    if (from == K::System)
        return std::string(domain_info(to).from_system);
    // Everything else goes through system memory (one download, one upload).
    std::string_view down = domain_info(from).to_system;
    std::string_view up = domain_info(to).from_system;
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
    // An element that takes system memory and only host domains reads system memory (a DMABuf
    // through its mapping). One that takes host domains but not system memory (g2gprobe
    // require=dma-buf, a branch that takes only views) requires those: "reads system memory but
    // received a System frame" said nothing.
    bool reads_host = accepted.contains(K::System);
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
