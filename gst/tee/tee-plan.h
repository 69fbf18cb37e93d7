// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's plan: what negotiation decided, in one immutable value. make_plan (tee-routes.cpp) is a
// pure function from a snapshot of the settings, the stream's caps and each branch peer's answer
// (its caps query, asked once per decision: tee-snapshot.cpp) to a plan or a refusal. The plan is
// made at the caps event and again at the next frame after pads came, went or relinked or a
// policy changed, and swapped in whole; the frames and events in between follow it and nothing
// else.
#pragma once

#include "g2gtee.h"

#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace g2g::tee {

class Converter;

using PadRef = Ref<GstPad>;

// What g2gtee does with a branch no conversion reaches.
enum FanOutPolicy { FAN_OUT_POLICY_FAIL, FAN_OUT_POLICY_DROP_BRANCH };

// How a branch is fed.
enum class BranchRoute {
    Unlinked,   // not linked when the plan was made: nothing (tee's NOT_LINKED for it) until the next
                // plan; before the stream's caps every branch is Direct, linked or not, as tee feeds it
    Direct,     // takes the upstream domain: the shared frame
    Restated,   // takes upstream's DMABuf frames in the other caps form (GStreamer 1.22's format=NV12
                // for 1.24's DMA_DRM drm-format=NV12, or the reverse): the shared frame, its caps
                // restated
    Relabelled, // takes system memory, frames are mappable DMABuf: the shared frame, read in place
    Converted,  // takes a domain a Converter produces: the conversion's shared output
    Waiting,    // takes none of these caps, upstream offers caps it takes, and it is linked since
                // the plan before (its link's RECONFIGURE asked upstream for them) or was fed by it
                // (caps decided before it was linked caught up with it): nothing, and no refusal,
                // while g2gtee asks upstream to renegotiate, kRenegotiationsWaited times
    Dropped,    // nothing reaches its domain and fan-out-policy is drop-branch
};

// Why the plan cannot carry the stream (fan-out-policy=fail, copy-budget): the element error
// g2gtee posts at the next frame, once.
struct Refusal {
    GQuark domain; // GST_CORE_ERROR or GST_STREAM_ERROR
    gint code;
    std::string message;
    std::string debug;
    std::string branch; // the refused branch's pad ("src_1"), for the log; "" for copy-budget
};

// The settings a plan follows, copied under the object lock.
struct PlanSettings {
    bool silent = true;
    bool allow_not_linked = false;
    FanOutPolicy fan_out_policy = FAN_OUT_POLICY_FAIL;
    gint copy_budget = -1;
};

// One branch as the plan function sees it: its pad, whether it is linked, what its peer takes
// (asked once, unfiltered: a peer that takes ANY answers a filtered query with the filter, which
// would look like a request for views) and its route in the plan before.
struct BranchAnswer {
    PadRef pad;
    bool linked = false;
    CapsRef takes;         // null when unlinked
    std::string peer_name; // the peer's element, for refusals ("" when unknown)
    BranchRoute before = BranchRoute::Unlinked;
    // Upstream's renegotiations (caps events, allocation queries without one) since it first waited.
    guint renegotiations_waited = 0;
};

// How many of upstream's renegotiations a branch the stream's caps do not reach waits for caps it
// takes: the one its link's RECONFIGURE asks for, and one that was under way (its caps or its
// allocation query still behind frames in a queue) when the branch was linked.
inline constexpr guint kRenegotiationsWaited = 2;

using DomainPair = std::pair<MemoryDomainKind, MemoryDomainKind>;

struct PlanInputs {
    std::string tee_name;
    PlanSettings settings;
    CapsRef caps; // the stream's caps; null before them
    // The plan before was made for caps: its branches' routes are what the stream fed them.
    bool renegotiating = false;
    std::vector<BranchAnswer> branches;
    // What upstream offers (its caps query, unfiltered), asked only where a branch may wait for it
    // (TeePlan::needs_upstream_offer); null until then.
    CapsRef upstream_offer;
    // Conversions that could not be made, with why: their branches are dropped, saying so.
    std::map<DomainPair, std::string> unavailable;
};

// One conversion and the branches that share its output.
struct PlannedConversion {
    MemoryDomainKind from = MemoryDomainKind::System;
    MemoryDomainKind to = MemoryDomainKind::System;
    std::string description;        // converter_between(from, to)
    Converter *converter = nullptr; // set once made, before the plan is swapped in
    PadRef feeder;                  // the converter's, likewise
    std::vector<PadRef> pads;       // the branches it feeds
};

// A branch's route in a plan, and the route in words (route_name: tee-route-name.h).
struct PlannedRoute {
    PadRef pad;
    BranchRoute route = BranchRoute::Unlinked;
    std::string said; // "converted VulkanTexture to System by g2gmaterialize"
};

struct TeePlan {
    bool negotiated = false; // made for caps (else every branch is Direct, as tee feeds them)
    // Unfinished: made without PlanInputs::upstream_offer where a branch may wait for what upstream
    // offers. Make it again with it.
    bool needs_upstream_offer = false;
    bool silent = true;
    bool allow_not_linked = false;
    std::vector<PadRef> direct;
    std::vector<PadRef> restated;
    std::vector<PadRef> relabelled;
    std::vector<PadRef> dropped;
    std::vector<PadRef> unlinked;
    std::vector<PadRef> waiting;
    std::vector<PlannedConversion> conversions;
    // Dropped by this plan and not by the one before: owed the stream and a gap to preroll on
    // (by the plan's first frame), and drop-branch's warning.
    std::vector<PadRef> newly_dropped;
    std::vector<std::string> warnings;
    // Every branch's route, in request order: what changed since the plan before, and what the log
    // and last-message say.
    std::vector<PlannedRoute> routes;
    // Every linked branch's route in words, for last-message with silent=false ("src_0 shares
    // System, src_1 converted VulkanTexture to System by g2gmaterialize"): made once per plan, so a
    // frame only prefixes its timestamp.
    std::string summary;

    BranchRoute route_of(const GstPad *pad) const;
    // The conversion feeding `converter`'s branches; nullptr when none is in this plan.
    const PlannedConversion *conversion_of(const Converter *converter) const;
};

using PlanOrRefusal = std::variant<TeePlan, Refusal>;

// The plan for `inputs`, or why there is none (tee-routes.cpp). Pure: it asks no pad, makes no
// element and posts nothing.
[[nodiscard]] PlanOrRefusal make_plan(const PlanInputs &inputs);

// The caps a branch of `route` takes frames of the stream's `caps` in: system memory for a
// relabelled branch, the other form for a restated one, the caps themselves for the others.
CapsRef caps_for_route(BranchRoute route, GstCaps *caps);

} // namespace g2g::tee
