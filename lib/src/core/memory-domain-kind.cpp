// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/memory-domain-kind.h>

#include "core/domain-table.h"

namespace g2g {

using detail::domain_info;

std::string_view name(MemoryDomainKind kind)
{
    return domain_info(kind).name;
}

std::string_view nick(MemoryDomainKind kind)
{
    return domain_info(kind).nick;
}

std::string_view caps_feature(MemoryDomainKind kind)
{
    return domain_info(kind).caps_feature;
}

std::string_view memory_caps_feature(MemoryDomainKind kind)
{
    return domain_info(kind).memory_caps_feature;
}

bool is_host_domain(MemoryDomainKind kind)
{
    const detail::HostRead read = domain_info(kind).host_read;
    return read == detail::HostRead::InPlace || read == detail::HostRead::Materialized ||
           read == detail::HostRead::WhenMappable;
}

std::optional<MemoryDomainKind> kind_from_name(std::string_view name_or_nick)
{
    for (const detail::DomainInfo &row : detail::domain_table()) {
        if (row.name == name_or_nick || row.nick == name_or_nick)
            return row.kind;
    }
    return std::nullopt;
}

} // namespace g2g
