// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's plan function (tee-plan.h): each branch's route for the stream's caps from what its
// peer answered, the conversions those routes need grouped by target domain, fan-out-policy and
// copy-budget. Pure: the pads were asked before (tee-snapshot.cpp), the conversions are made after.
#include "tee-plan.h"

#include "tee-caps.h"
#include "tee-route-name.h"

#include <g2g/converters.h>
#include <g2g/domain-set.h>
#include <g2g/tensor-view-meta.h>

#include <g2g-internal/plugin-interface.h>

#include <algorithm>

namespace g2g::tee {
namespace {

using K = MemoryDomainKind;

// True when frames of `caps` are views (meta:G2gTensorView): their bytes are the source frame's,
// laid out as the view meta says, not as the caps' format and size say.
bool carries_views(const GstCaps *caps)
{
    const GstCapsFeatures *features = gst_caps_get_size(caps) > 0 ? gst_caps_get_features(caps, 0) : nullptr;
    return features && !gst_caps_features_is_any(features) &&
           gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW);
}

// True when a peer that takes `takes` names the view feature for frames like `caps`, so it reads
// the view meta. One that takes ANY caps (a caps-less appsink, fakesink, identity, a queue before
// them) takes anything without reading the meta, and gets dense frames.
bool names_views(const GstCaps *takes, const GstCaps *caps)
{
    if (!takes || gst_caps_is_any(takes))
        return false;
    for (guint i = 0; i < gst_caps_get_size(takes); ++i) {
        const GstCapsFeatures *features = gst_caps_get_features(takes, i);
        if (gst_caps_features_is_any(features) ||
            !gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW))
            continue;
        const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(takes, i));
        if (gst_caps_can_intersect(one.get(), caps))
            return true;
    }
    return false;
}

// True when a peer that takes `takes` names the memory of `target_caps` (another device domain)
// for frames like them: only such a branch is converted to it on the device. One that takes ANY
// caps is not: it gets the frames in their own domain, or none.
bool names_domain(const GstCaps *takes, K target, const GstCaps *target_caps)
{
    if (!takes || gst_caps_is_any(takes))
        return false;
    for (guint i = 0; i < gst_caps_get_size(takes); ++i) {
        if (domain_of(gst_caps_get_features(takes, i)) != target)
            continue;
        const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(takes, i));
        if (gst_caps_can_intersect(one.get(), target_caps))
            return true;
    }
    return false;
}

// Whether a peer that takes `takes` takes `caps`, or one of their structures where they are not
// fixed (a DMABuf target in both forms, 1.22's and DMA_DRM). As a pad's default accept-caps: the
// caps a subset of what the peer's caps query answered (asked down to the element that cares; a
// basetransform with ANY templates, such as identity or g2gprobe, passes the question on).
bool branch_takes(const GstCaps *takes, const GstCaps *caps)
{
    if (!takes)
        return false;
    if (!gst_caps_is_fixed(caps)) {
        for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
            const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(caps, i));
            if (gst_caps_is_fixed(one.get()) && branch_takes(takes, one.get()))
                return true;
        }
        return false;
    }
    return gst_caps_is_subset(caps, takes);
}

// What g2gtee converts frames into, for a refusal: system memory, and the domain table's device
// routes this build has ("Cuda to VulkanTexture, Cuda to DmaBuf, ...").
std::string conversions()
{
    std::string routes;
    for (const detail::DomainInfo &row : detail::domain_table()) {
        for (const detail::DeviceRoute &route : row.device_routes) {
            if (converts_on_device(row.kind, route.to))
                routes += (routes.empty() ? "" : ", ") + std::string(name(row.kind)) + " to " +
                          std::string(name(route.to));
        }
    }
    return routes.empty() ? " (g2gtee converts frames into system memory only)"
                          : " (g2gtee converts frames into system memory, and on the device " + routes + ")";
}

std::string category_of(const PlanInputs &inputs, const BranchAnswer &branch)
{
    return "branch " + std::string(GST_OBJECT_NAME(branch.pad.get())) + " of " + inputs.tee_name + " (to " +
           (branch.peer_name.empty() ? std::string("an unknown peer") : branch.peer_name) + ")";
}

// Why no route reaches `branch` for frames of `caps`.
std::string refusal(const PlanInputs &inputs, const BranchAnswer &branch, GstCaps *caps, K upstream)
{
    const std::string category = category_of(inputs, branch);
    const GstCaps *takes = branch.takes.get();
    // A view of a platform handle has nothing to be written into (no element writes that memory).
    if (carries_views(caps) && !names_views(takes, caps) &&
        detail::domain_info(upstream).handle_views != detail::HandleViews::None)
        return category + " takes no views (" G2G_CAPS_FEATURE_META_TENSOR_VIEW ") of " +
               std::string(name(upstream)) + " frames, and nothing writes " + std::string(name(upstream)) +
               " memory to materialize them: give that branch a consumer that reads the view";
    if (carries_views(caps) && upstream != K::SystemView && !names_views(takes, caps))
        return category + " takes no views (" G2G_CAPS_FEATURE_META_TENSOR_VIEW ") of " +
               std::string(name(upstream)) +
               " frames, and g2gtee materializes views in system memory only: insert g2gmaterialize "
               "in that branch";
    DomainSet accepted;
    for (guint i = 0; takes && i < gst_caps_get_size(takes); ++i) {
        const std::optional<K> kind = domain_of(gst_caps_get_features(takes, i));
        accepted = kind ? accepted.insert(*kind) : DomainSet::all();
    }
    // DMA_DRM frames with no 1.22 form (caps_from_dma_drm drops them) go only to branches that
    // take them as they are.
    const GstStructure *structure = gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : nullptr;
    if (upstream == K::DmaBuf && structure &&
        (accepted.contains(K::System) || accepted.contains(K::DmaBuf)) &&
        g_strcmp0(gst_structure_get_string(structure, "format"), "DMA_DRM") == 0 &&
        gst_caps_is_empty(in_domain(caps, K::System).get())) {
        const gchar *drm_format = gst_structure_get_string(structure, "drm-format");
        return category + " refuses DMA_DRM frames of drm-format=" + (drm_format ? drm_format : "(none)") +
               ", which GStreamer 1.22's caps cannot say (a non-linear modifier, a fourcc GStreamer has no "
               "video format for, or a drm-format that does not parse), so g2gtee can neither restate them "
               "as 1.22's memory:DMABuf caps nor relabel them as system memory: give that branch a peer "
               "that takes these DMA_DRM caps, or have upstream produce a linear layout";
    }
    if (!takes || gst_caps_is_any(takes) || accepted.contains(upstream)) {
        g_autofree gchar *wanted = gst_caps_to_string(caps);
        return category + " takes " + std::string(name(upstream)) +
               " frames but refuses these caps (format, size or rate, not the memory domain): " + wanted;
    }
    std::string message = wrong_domain_error(category, accepted, upstream).message();
    if (!accepted.contains(K::System))
        message += conversions();
    return message;
}

// Whether `branch`, which the stream's caps do not reach, waits for caps it takes instead of being
// refused: linked since the plan before (or waiting in it), or fed by it (one it dropped is
// refused, as is any at the stream's first caps), while upstream offers caps it takes, for
// kRenegotiationsWaited of upstream's renegotiations. Caps upstream decided before the branch was
// linked still come after its link (from upstream before it renegotiated, from a queue between:
// also after caps the branch was fed), and are no reason to refuse it.
bool waits(const PlanInputs &inputs, const BranchAnswer &branch, bool &needs_upstream_offer)
{
    const bool linked_since = branch.before == BranchRoute::Unlinked || branch.before == BranchRoute::Waiting;
    const bool left_behind = inputs.renegotiating && branch.before != BranchRoute::Dropped;
    if (!(linked_since || left_behind) || branch.renegotiations_waited >= kRenegotiationsWaited ||
        !branch.takes || gst_caps_is_any(branch.takes.get()))
        return false;
    if (!inputs.upstream_offer) {
        needs_upstream_offer = true;
        return false;
    }
    return gst_caps_can_intersect(inputs.upstream_offer.get(), branch.takes.get());
}

// One branch's route while the plan is made.
struct Decision {
    const BranchAnswer *branch;
    BranchRoute route = BranchRoute::Unlinked;
    K target = K::System; // where a converted branch's frames go
    std::string refusal;
};

// The domains a device frame of `upstream` reaches on the device itself (CUDA to Vulkan and back,
// through g2gconvert), as caps: each with `caps` in its memory.
std::vector<std::pair<K, CapsRef>> device_targets(GstCaps *caps, K upstream)
{
    std::vector<std::pair<K, CapsRef>> targets;
    for (K to : kAllMemoryDomainKinds) {
        if (to != upstream && converts_on_device(upstream, to))
            targets.emplace_back(to, in_domain(caps, to));
    }
    return targets;
}

// The route of each linked branch: the frame as it is, else a DMABuf frame as it is with its caps
// restated in the other form (1.22's or DMA_DRM), else the frame in system memory where g2gtee
// converts it, else the frame in another device domain where it converts on the device,
// else nothing. Views go as they are only to branches that name the view feature; every other
// branch, whatever its caps (ANY included), gets the one dense frame g2gmaterialize makes of each
// view for all of them (or, in another device domain, the one g2gconvert writes). Caps of an
// unknown memory type go everywhere as they are.
std::vector<Decision> route_branches(const PlanInputs &inputs, GstCaps *caps, std::optional<K> upstream,
                                     bool &needs_upstream_offer)
{
    const bool views = carries_views(caps);
    // A view over device memory (CUDA memory with the view feature) has no conversion to system
    // memory here: cudadownload would copy the bytes under the view, not the view. g2gconvert
    // writes views, so the device routes take them.
    const bool convertible = upstream && *upstream != K::System && converts_to_system(*upstream) &&
                             (!views || *upstream == K::SystemView);
    CapsRef system_caps = convertible ? in_domain(caps, K::System) : CapsRef();
    // DMA_DRM frames 1.22 has no format for (a non-linear modifier) are no system frames.
    if (system_caps && gst_caps_is_empty(system_caps.get()))
        system_caps.reset();
    const CapsRef other_form = upstream == K::DmaBuf && !views ? restated(caps) : CapsRef();
    const std::vector<std::pair<K, CapsRef>> devices =
        upstream ? device_targets(caps, *upstream) : std::vector<std::pair<K, CapsRef>>{};
    std::vector<Decision> decisions;
    for (const BranchAnswer &branch : inputs.branches) {
        Decision &decision = decisions.emplace_back(Decision{&branch, BranchRoute::Unlinked, K::System, {}});
        const GstCaps *takes = branch.takes.get();
        if (!branch.linked) {
            decision.route = BranchRoute::Unlinked;
        } else if (!upstream || (branch_takes(takes, caps) && (!views || names_views(takes, caps)))) {
            decision.route = BranchRoute::Direct;
        } else if (other_form && branch_takes(takes, other_form.get())) {
            decision.route = BranchRoute::Restated;
        } else if (system_caps && branch_takes(takes, system_caps.get())) {
            decision.route = *upstream == K::DmaBuf ? BranchRoute::Relabelled : BranchRoute::Converted;
            decision.target = K::System;
        } else if (const auto device = std::find_if(devices.begin(), devices.end(),
                                                    [&](const std::pair<K, CapsRef> &target) {
                                                        return names_domain(takes, target.first,
                                                                            target.second.get()) &&
                                                               branch_takes(takes, target.second.get());
                                                    });
                   device != devices.end()) {
            decision.route = BranchRoute::Converted;
            decision.target = device->first;
        } else {
            decision.route = BranchRoute::Dropped;
            decision.refusal = refusal(inputs, branch, caps, *upstream);
        }
        if (decision.route == BranchRoute::Dropped && waits(inputs, branch, needs_upstream_offer))
            decision.route = BranchRoute::Waiting;
    }
    return decisions;
}

// Converted branches whose conversion cannot be made are dropped, saying why.
void drop_unavailable(const PlanInputs &inputs, std::vector<Decision> &decisions, K upstream)
{
    for (Decision &decision : decisions) {
        if (decision.route != BranchRoute::Converted)
            continue;
        const auto unavailable = inputs.unavailable.find({upstream, decision.target});
        if (unavailable == inputs.unavailable.end())
            continue;
        decision.route = BranchRoute::Dropped;
        decision.refusal = "branch " + std::string(GST_OBJECT_NAME(decision.branch->pad.get())) + " needs " +
                           (decision.target == K::System ? std::string("system memory")
                                                         : std::string(name(decision.target)) + " frames") +
                           ": " + unavailable->second;
    }
}

// fan-out-policy over the dropped branches: fail refuses at the first; drop-branch warns once,
// when a branch becomes dropped, and refuses when it would drop every linked branch (the frames
// would reach none: tee's not-linked, said with the reason) unless allow-not-linked.
std::optional<Refusal> apply_fan_out_policy(const PlanInputs &inputs, const std::vector<Decision> &decisions,
                                            std::vector<std::string> &warnings)
{
    const auto is_dropped = [](const Decision &d) { return d.route == BranchRoute::Dropped; };
    const auto linked = std::count_if(decisions.begin(), decisions.end(),
                                      [](const Decision &d) { return d.route != BranchRoute::Unlinked; });
    const auto dropped = std::find_if(decisions.begin(), decisions.end(), is_dropped);
    const PlanSettings &settings = inputs.settings;
    if (settings.fan_out_policy == FAN_OUT_POLICY_DROP_BRANCH && !settings.allow_not_linked &&
        dropped != decisions.end() && std::count_if(decisions.begin(), decisions.end(), is_dropped) == linked)
        return Refusal{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                       "fan-out-policy=drop-branch drops every branch of " + inputs.tee_name +
                           ", so frames reach none: " + dropped->refusal,
                       "link a branch that takes these frames, or set allow-not-linked=true to let them "
                       "go nowhere",
                       GST_OBJECT_NAME(dropped->branch->pad.get())};
    for (const Decision &decision : decisions) {
        if (decision.route != BranchRoute::Dropped)
            continue;
        if (settings.fan_out_policy == FAN_OUT_POLICY_FAIL)
            return Refusal{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, decision.refusal,
                           "fan-out-policy=fail; fan-out-policy=drop-branch keeps the other branches running",
                           GST_OBJECT_NAME(decision.branch->pad.get())};
        if (decision.branch->before != BranchRoute::Dropped)
            warnings.push_back(decision.refusal + ": fan-out-policy=drop-branch, this branch gets no frames");
    }
    return std::nullopt;
}

// The conversions the converted branches share, one per target domain, in the order their first
// branch was requested.
std::vector<PlannedConversion> group_conversions(const std::vector<Decision> &decisions, K upstream)
{
    std::vector<PlannedConversion> conversions;
    for (const Decision &decision : decisions) {
        if (decision.route != BranchRoute::Converted)
            continue;
        auto conversion = std::find_if(conversions.begin(), conversions.end(),
                                       [&](const PlannedConversion &c) { return c.to == decision.target; });
        if (conversion == conversions.end()) {
            conversions.push_back(PlannedConversion{
                upstream, decision.target, converter_between(upstream, decision.target), nullptr, {}, {}});
            conversion = conversions.end() - 1;
        }
        conversion->pads.push_back(decision.branch->pad);
    }
    return conversions;
}

// The seed's copy policy: copies plus conversions per frame within copy-budget (-1: unlimited).
std::optional<Refusal> check_copy_budget(gint budget, const std::vector<PlannedConversion> &conversions)
{
    const gint conversions_per_frame = static_cast<gint>(conversions.size());
    if (budget < 0 || conversions_per_frame <= budget)
        return std::nullopt;
    std::string which;
    for (const PlannedConversion &conversion : conversions) {
        std::string pads;
        for (const PadRef &pad : conversion.pads)
            pads += (pads.empty() ? "" : ", ") + std::string(GST_OBJECT_NAME(pad.get()));
        which += (which.empty() ? "" : "; ") + std::string(name(conversion.from)) + " to " +
                 std::string(name(conversion.to)) + " by " + conversion.description + " for " + pads;
    }
    const std::string from(name(conversions.front().from));
    return Refusal{GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                   "copy-budget " + std::to_string(budget) +
                       " exceeded: " + std::to_string(conversions_per_frame) +
                       (conversions_per_frame == 1 ? " conversion" : " conversions") + " per frame, " + which,
                   "raise copy-budget, or give those branches a peer that takes " + from, ""};
}

// last-message's words for a plan: each linked branch's route ("src_0 shares System, src_1
// converted VulkanTexture to System by g2gmaterialize"); an unlinked branch is fed nothing to say.
std::string summary_of(const std::vector<PlannedRoute> &routes)
{
    std::string summary;
    for (const PlannedRoute &planned : routes) {
        if (planned.route == BranchRoute::Unlinked)
            continue;
        summary += (summary.empty() ? "" : ", ") + std::string(GST_OBJECT_NAME(planned.pad.get())) + " " +
                   planned.said;
    }
    return summary.empty() ? "no branch linked" : summary;
}

} // namespace

BranchRoute TeePlan::route_of(const GstPad *pad) const
{
    for (const PlannedRoute &planned : routes) {
        if (planned.pad.get() == pad)
            return planned.route;
    }
    return BranchRoute::Unlinked;
}

const PlannedConversion *TeePlan::conversion_of(const Converter *converter) const
{
    for (const PlannedConversion &conversion : conversions) {
        if (conversion.converter == converter)
            return &conversion;
    }
    return nullptr;
}

PlanOrRefusal make_plan(const PlanInputs &inputs)
{
    TeePlan plan;
    plan.silent = inputs.settings.silent;
    plan.allow_not_linked = inputs.settings.allow_not_linked;
    if (!inputs.caps) {
        // Before the stream's caps no route is decided: every branch is fed as it is, as tee feeds it.
        for (const BranchAnswer &branch : inputs.branches) {
            plan.direct.push_back(branch.pad);
            plan.routes.push_back({branch.pad, BranchRoute::Direct,
                                   route_name({.route = BranchRoute::Direct,
                                               .from = std::nullopt,
                                               .to = K::System,
                                               .converter = {},
                                               .why = {}})});
        }
        plan.summary = summary_of(plan.routes);
        return plan;
    }
    plan.negotiated = true;
    GstCaps *caps = inputs.caps.get();
    const std::optional<K> upstream = domain_of(caps);
    std::vector<Decision> decisions = route_branches(inputs, caps, upstream, plan.needs_upstream_offer);
    if (plan.needs_upstream_offer)
        return plan; // unfinished: made again with upstream's offer
    if (upstream)
        drop_unavailable(inputs, decisions, *upstream);
    if (auto refused = apply_fan_out_policy(inputs, decisions, plan.warnings))
        return *refused;
    if (upstream)
        plan.conversions = group_conversions(decisions, *upstream);
    if (!plan.conversions.empty()) {
        if (auto refused = check_copy_budget(inputs.settings.copy_budget, plan.conversions))
            return *refused;
    }
    for (const Decision &decision : decisions) {
        const PadRef &pad = decision.branch->pad;
        const std::string converter =
            decision.route == BranchRoute::Converted ? converter_between(*upstream, decision.target) : "";
        plan.routes.push_back({pad, decision.route,
                               route_name({.route = decision.route,
                                           .from = upstream,
                                           .to = decision.target,
                                           .converter = converter,
                                           .why = decision.refusal})});
        switch (decision.route) {
        case BranchRoute::Direct:
            plan.direct.push_back(pad);
            break;
        case BranchRoute::Restated:
            plan.restated.push_back(pad);
            break;
        case BranchRoute::Relabelled:
            plan.relabelled.push_back(pad);
            break;
        case BranchRoute::Dropped:
            plan.dropped.push_back(pad);
            if (decision.branch->before != BranchRoute::Dropped)
                plan.newly_dropped.push_back(pad);
            break;
        case BranchRoute::Unlinked:
            plan.unlinked.push_back(pad);
            break;
        case BranchRoute::Waiting:
            plan.waiting.push_back(pad);
            break;
        case BranchRoute::Converted: // in plan.conversions
            break;
        }
    }
    plan.summary = summary_of(plan.routes);
    return plan;
}

CapsRef caps_for_route(BranchRoute route, GstCaps *caps)
{
    CapsRef other;
    if (route == BranchRoute::Relabelled)
        other = in_domain(caps, MemoryDomainKind::System);
    else if (route == BranchRoute::Restated)
        other = restated(caps);
    // A branch has its route for caps that have that form; any others (none) go as they are.
    return other && !gst_caps_is_empty(other.get()) ? other : CapsRef::borrow(caps);
}

} // namespace g2g::tee
