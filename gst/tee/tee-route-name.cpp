// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-route-name.h"

namespace g2g::tee {

std::string route_name(const RouteFacts &facts)
{
    const std::string from = facts.from ? std::string(name(*facts.from)) : std::string();
    switch (facts.route) {
    case BranchRoute::Unlinked:
        return "not linked";
    case BranchRoute::Direct:
        // Before caps, and for memory no g2g kind names, the frame goes as it is, unclassified.
        return facts.from ? "shares " + from : "shares the frame as it is";
    case BranchRoute::Restated:
        return "shares " + from + ", caps restated in the other DMABuf form";
    case BranchRoute::Relabelled:
        return "reads " + from + " in place as " + std::string(name(facts.to)) + " (relabelled, no copy)";
    case BranchRoute::Converted:
        return "converted " + from + " to " + std::string(name(facts.to)) + " by " +
               std::string(facts.converter);
    case BranchRoute::Waiting:
        return "waiting for upstream to renegotiate caps it takes (gets nothing meanwhile)";
    case BranchRoute::Dropped:
        return "refused: " + std::string(facts.why);
    }
    return {};
}

} // namespace g2g::tee
