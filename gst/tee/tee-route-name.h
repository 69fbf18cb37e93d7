// SPDX-License-Identifier: LGPL-2.1-or-later
// What g2gtee says it does with a branch, in one wording: the INFO line each route gets in the
// g2gtee debug category when a plan is made (`src_1: converted VulkanTexture to System by
// g2gmaterialize`), last-message with silent=false (`pts 0:00:00.033333333: src_0 shares System,
// src_1 converted VulkanTexture to System by g2gmaterialize`) and docs/elements.md.
#pragma once

#include "tee-plan.h"

#include <g2g/memory-domain-kind.h>

#include <optional>
#include <string>
#include <string_view>

namespace g2g::tee {

// What a route's words are made of.
struct RouteFacts {
    BranchRoute route = BranchRoute::Direct;
    // The stream's domain; nullopt before the stream's caps and for memory g2g does not know.
    std::optional<MemoryDomainKind> from;
    MemoryDomainKind to = MemoryDomainKind::System; // where a converted branch's frames go
    std::string_view converter;                     // a converted branch's element chain
    std::string_view why;                           // why a dropped branch is refused
};

// The route in words, without the branch's name: "shares System", "converted VulkanTexture to
// System by g2gmaterialize", "reads DmaBuf in place as System (relabelled, no copy)", "shares
// DmaBuf, caps restated in the other DMABuf form", "waiting for upstream to renegotiate caps it
// takes", "not linked", "refused: <why>".
std::string route_name(const RouteFacts &facts);

} // namespace g2g::tee
