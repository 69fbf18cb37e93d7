// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/domain-set.h>

#include <algorithm>

#include "core/domain-table.h"

namespace g2g {
namespace {

// Every kind, best first: the domain table's preference ranks.
const std::array<MemoryDomainKind, kMemoryDomainKindCount> &preference_order()
{
    static const std::array<MemoryDomainKind, kMemoryDomainKindCount> order = [] {
        std::array<MemoryDomainKind, kMemoryDomainKindCount> kinds = kAllMemoryDomainKinds;
        std::sort(kinds.begin(), kinds.end(), [](MemoryDomainKind a, MemoryDomainKind b) {
            return detail::domain_info(a).preference < detail::domain_info(b).preference;
        });
        return kinds;
    }();
    return order;
}

} // namespace

std::optional<MemoryDomainKind> DomainSet::preferred() const
{
    for (MemoryDomainKind kind : preference_order()) {
        if (contains(kind))
            return kind;
    }
    return std::nullopt;
}

std::vector<MemoryDomainKind> DomainSet::by_preference() const
{
    std::vector<MemoryDomainKind> kinds;
    for (MemoryDomainKind kind : preference_order()) {
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
