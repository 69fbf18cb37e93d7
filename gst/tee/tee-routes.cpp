// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's routes: each branch's route for the stream's caps, decided once per caps (and again
// when pads come, go or relink), not per frame; the conversions those routes need;
// fan-out-policy and copy-budget.
#include "tee-private.h"

#include "tee-caps.h"

#include <g2g/converters.h>
#include <g2g/domain-set.h>
#include <g2g/tensor-view-meta.h>

#include "common/object-lock.h"
#include <g2g-internal/plugin-interface.h>

#include <algorithm>

#define GST_CAT_DEFAULT g2g_tee_debug

namespace g2g::tee {
namespace {

using element::ObjectLock;
using K = MemoryDomainKind;

const ConverterPadFunctions &pad_functions()
{
    static const ConverterPadFunctions functions{feeder_query, feeder_event, collector_chain, collector_event,
                                                 collector_query};
    return functions;
}

// True when frames of `caps` are views (meta:G2gTensorView): their bytes are the source frame's,
// laid out as the view meta says, not as the caps' format and size say.
bool carries_views(const GstCaps *caps)
{
    const GstCapsFeatures *features = gst_caps_get_size(caps) > 0 ? gst_caps_get_features(caps, 0) : nullptr;
    return features && !gst_caps_features_is_any(features) &&
           gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW);
}

// True when the branch on `pad` names the view feature for frames like `caps`, so it reads the
// view meta. Asked without a filter: a peer that takes ANY caps (a caps-less appsink, fakesink,
// identity, a queue before them) answers a filtered query with the filter itself, which would look
// like a request for views; it takes anything without reading the meta, and gets dense frames.
bool names_views(GstPad *pad, GstCaps *caps)
{
    const CapsRef takes = CapsRef::adopt(gst_pad_peer_query_caps(pad, nullptr));
    if (!takes || gst_caps_is_any(takes.get()))
        return false;
    for (guint i = 0; i < gst_caps_get_size(takes.get()); ++i) {
        const GstCapsFeatures *features = gst_caps_get_features(takes.get(), i);
        if (gst_caps_features_is_any(features) ||
            !gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW))
            continue;
        const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(takes.get(), i));
        if (gst_caps_can_intersect(one.get(), caps))
            return true;
    }
    return false;
}

// True when the branch on `pad` names the memory of `target_caps` (another device domain) for
// frames like them: only such a branch is converted to it on the device. One that takes ANY caps
// is not: it gets the frames in their own domain, or none.
bool names_domain(GstPad *pad, K target, const GstCaps *target_caps)
{
    const CapsRef takes = CapsRef::adopt(gst_pad_peer_query_caps(pad, nullptr));
    if (!takes || gst_caps_is_any(takes.get()))
        return false;
    for (guint i = 0; i < gst_caps_get_size(takes.get()); ++i) {
        if (domain_of(gst_caps_get_features(takes.get(), i)) != target)
            continue;
        const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(takes.get(), i));
        if (gst_caps_can_intersect(one.get(), target_caps))
            return true;
    }
    return false;
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

// Why no route reaches the branch on `pad` for frames of `caps`.
std::string refusal(G2gTee *self, GstPad *pad, GstCaps *caps, K upstream)
{
    const PadRef peer = PadRef::adopt(gst_pad_get_peer(pad));
    const ElementRef peer_element =
        ElementRef::adopt(peer ? gst_pad_get_parent_element(peer.get()) : nullptr);
    g_autofree gchar *category =
        g_strdup_printf("branch %s of %s (to %s)", GST_OBJECT_NAME(pad), GST_OBJECT_NAME(self),
                        peer_element ? GST_OBJECT_NAME(peer_element.get()) : "an unknown peer");
    // A view of a platform handle has nothing to be written into (no element writes that memory).
    if (carries_views(caps) && !names_views(pad, caps) &&
        detail::domain_info(upstream).handle_views != detail::HandleViews::None)
        return std::string(category) + " takes no views (" G2G_CAPS_FEATURE_META_TENSOR_VIEW ") of " +
               std::string(name(upstream)) + " frames, and nothing writes " + std::string(name(upstream)) +
               " memory to materialize them: give that branch a consumer that reads the view";
    if (carries_views(caps) && upstream != K::SystemView && !names_views(pad, caps))
        return std::string(category) + " takes no views (" G2G_CAPS_FEATURE_META_TENSOR_VIEW ") of " +
               std::string(name(upstream)) +
               " frames, and g2gtee materializes views in system memory only: insert g2gmaterialize "
               "in that branch";
    const CapsRef takes = CapsRef::adopt(gst_pad_peer_query_caps(pad, nullptr));
    DomainSet accepted;
    for (guint i = 0; i < gst_caps_get_size(takes.get()); ++i) {
        const std::optional<K> kind = domain_of(gst_caps_get_features(takes.get(), i));
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
        return std::string(category) +
               " refuses DMA_DRM frames of drm-format=" + (drm_format ? drm_format : "(none)") +
               ", which GStreamer 1.22's caps cannot say (a non-linear modifier, a fourcc GStreamer has no "
               "video format for, or a drm-format that does not parse), so g2gtee can neither restate them "
               "as 1.22's memory:DMABuf caps nor relabel them as system memory: give that branch a peer "
               "that takes these DMA_DRM caps, or have upstream produce a linear layout";
    }
    if (gst_caps_is_any(takes.get()) || accepted.contains(upstream)) {
        g_autofree gchar *wanted = gst_caps_to_string(caps);
        return std::string(category) + " takes " + std::string(name(upstream)) +
               " frames but refuses these caps (format, size or rate, not the memory domain): " + wanted;
    }
    std::string message = wrong_domain_error(category, accepted, upstream).message();
    if (!accepted.contains(K::System))
        message += conversions();
    return message;
}

// Whether the branch on `pad` takes `caps`, or one of its structures where they are not fixed (a
// DMABuf target in both forms, 1.22's and DMA_DRM: accept-caps takes fixed caps only). Accept-caps
// alone is shallow (a basetransform with ANY templates, such as identity or g2gprobe, accepts
// everything), so the branch's caps, asked down to the element that cares, must also allow them.
bool branch_takes(GstPad *pad, GstCaps *caps)
{
    if (!gst_caps_is_fixed(caps)) {
        for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
            const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(caps, i));
            if (gst_caps_is_fixed(one.get()) && branch_takes(pad, one.get()))
                return true;
        }
        return false;
    }
    if (!gst_pad_peer_query_accept_caps(pad, caps))
        return false;
    const CapsRef takes = CapsRef::adopt(gst_pad_peer_query_caps(pad, caps));
    return !gst_caps_is_empty(takes.get());
}

struct Decision {
    PadRef pad;
    BranchRoute before; // the branch's route when the decision began
    BranchRoute route = BranchRoute::Unresolved;
    Converter *converter = nullptr;
    std::string refusal;
    K target = K::System; // where a converted branch's frames go
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
void route_branches(G2gTee *self, std::vector<Decision> &decisions, GstCaps *caps, std::optional<K> upstream)
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
    for (Decision &decision : decisions) {
        GstPad *pad = decision.pad.get();
        if (!gst_pad_is_linked(pad)) {
            decision.route = BranchRoute::Unresolved;
            continue;
        }
        if (!upstream || (branch_takes(pad, caps) && (!views || names_views(pad, caps)))) {
            decision.route = BranchRoute::Direct;
            continue;
        }
        if (other_form && branch_takes(pad, other_form.get())) {
            decision.route = BranchRoute::Restated;
            continue;
        }
        if (system_caps && branch_takes(pad, system_caps.get())) {
            decision.route = *upstream == K::DmaBuf ? BranchRoute::Relabelled : BranchRoute::Converted;
            decision.target = K::System;
            continue;
        }
        const auto device =
            std::find_if(devices.begin(), devices.end(), [&](const std::pair<K, CapsRef> &target) {
                return names_domain(pad, target.first, target.second.get()) &&
                       branch_takes(pad, target.second.get());
            });
        if (device != devices.end()) {
            decision.route = BranchRoute::Converted;
            decision.target = device->first;
            continue;
        }
        decision.route = BranchRoute::Dropped;
        decision.refusal = refusal(self, pad, caps, *upstream);
    }
}

// The conversions the converted branches share, one per target domain: the one running already,
// or a new one (added to `created`). Where one cannot be made, its branches are dropped, saying why.
std::vector<Converter *> conversions_for(G2gTee *self, std::vector<Decision> &decisions, K upstream,
                                         std::vector<Converter *> &created)
{
    TeeState &state = self->priv->state;
    std::vector<Converter *> used;
    for (Decision &decision : decisions) {
        if (decision.route != BranchRoute::Converted)
            continue;
        const K target = decision.target;
        const auto matches = [&](const Converter *c) { return c->from() == upstream && c->to() == target; };
        if (const auto known = std::find_if(used.begin(), used.end(), matches); known != used.end()) {
            decision.converter = *known;
            continue;
        }
        Converter *converter = nullptr;
        for (const auto &running : state.converters) {
            if (matches(running.get()))
                converter = running.get();
        }
        if (!converter) {
            auto made = Converter::create(GST_BIN(self), upstream, target, pad_functions());
            if (!made) {
                decision.route = BranchRoute::Dropped;
                decision.refusal = std::string("branch ") + GST_OBJECT_NAME(decision.pad.get()) + " needs " +
                                   (target == K::System ? std::string("system memory")
                                                        : std::string(name(target)) + " frames") +
                                   ": " + made.error().message();
                continue;
            }
            converter = made->get();
            created.push_back(converter);
            state.converters.push_back(std::move(*made));
        }
        used.push_back(converter);
        decision.converter = converter;
    }
    return used;
}

// The names of the branches each conversion feeds, for the copy-budget's message.
std::string converted_pads_of(const std::vector<Decision> &decisions, const Converter *converter)
{
    std::string converted_pads;
    for (const Decision &decision : decisions) {
        if (decision.route != BranchRoute::Converted || decision.converter != converter)
            continue;
        converted_pads +=
            (converted_pads.empty() ? "" : ", ") + std::string(GST_OBJECT_NAME(decision.pad.get()));
    }
    return converted_pads;
}

// fan-out-policy over the dropped branches: fail refuses at the first; drop-branch warns once,
// when a branch becomes dropped, and refuses when it would drop every linked branch (the frames
// would reach none: tee's not-linked, said with the reason) unless allow-not-linked.
std::optional<Refusal> apply_fan_out_policy(G2gTee *self, const std::vector<Decision> &decisions,
                                            FanOutPolicy policy, bool allow_not_linked)
{
    const auto is_dropped = [](const Decision &d) { return d.route == BranchRoute::Dropped; };
    const auto linked = std::count_if(decisions.begin(), decisions.end(),
                                      [](const Decision &d) { return d.route != BranchRoute::Unresolved; });
    const auto dropped = std::find_if(decisions.begin(), decisions.end(), is_dropped);
    if (policy == FAN_OUT_POLICY_DROP_BRANCH && !allow_not_linked && dropped != decisions.end() &&
        std::count_if(decisions.begin(), decisions.end(), is_dropped) == linked)
        return Refusal{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                       std::string("fan-out-policy=drop-branch drops every branch of ") +
                           GST_OBJECT_NAME(self) + ", so frames reach none: " + dropped->refusal,
                       "link a branch that takes these frames, or set allow-not-linked=true to let them "
                       "go nowhere"};
    for (const Decision &decision : decisions) {
        if (decision.route != BranchRoute::Dropped)
            continue;
        if (policy == FAN_OUT_POLICY_FAIL)
            return Refusal{
                GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, decision.refusal,
                "fan-out-policy=fail; fan-out-policy=drop-branch keeps the other branches running"};
        if (decision.before != BranchRoute::Dropped)
            GST_ELEMENT_WARNING(
                self, CORE, NEGOTIATION,
                ("%s: fan-out-policy=drop-branch, this branch gets no frames", decision.refusal.c_str()),
                (nullptr));
    }
    return std::nullopt;
}

// The seed's copy policy: copies plus conversions per frame within copy-budget (-1: unlimited).
std::optional<Refusal> check_copy_budget(gint budget, const std::vector<Converter *> &converters,
                                         const std::vector<Decision> &decisions)
{
    const gint conversions_per_frame = static_cast<gint>(converters.size());
    if (budget < 0 || conversions_per_frame <= budget)
        return std::nullopt;
    std::string which;
    for (const Converter *converter : converters)
        which += (which.empty() ? "" : "; ") + std::string(name(converter->from())) + " to " +
                 std::string(name(converter->to())) + " by " + converter->description() + " for " +
                 converted_pads_of(decisions, converter);
    const std::string from(name(converters.front()->from()));
    return Refusal{GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                   "copy-budget " + std::to_string(budget) +
                       " exceeded: " + std::to_string(conversions_per_frame) +
                       (conversions_per_frame == 1 ? " conversion" : " conversions") + " per frame, " + which,
                   "raise copy-budget, or give those branches a peer that takes " + from};
}

// Writes the decisions into the branch pads (those not released meanwhile). A branch whose route
// changed starts from its new source's stream events, and a new conversion from the stream's.
void apply(G2gTee *self, const std::vector<Decision> &decisions, const std::vector<Converter *> &created,
           bool in_caps_event)
{
    TeeState &state = self->priv->state;
    state.relabel_verified = false;
    std::vector<const Decision *> changed;
    {
        const ObjectLock lock(self);
        for (const Decision &decision : decisions) {
            if (!holds_branch(state, decision.pad.get()))
                continue;
            G2gTeeSrcPad *branch = branch_of(decision.pad.get());
            if (branch->route != decision.route || branch->converter != decision.converter)
                changed.push_back(&decision);
            if (branch->route != decision.route)
                branch->gap_sent = false;
            branch->route = decision.route;
            branch->converter = decision.converter;
        }
    }
    for (const Decision *decision : changed) {
        GstPad *pad = decision->pad.get();
        GST_DEBUG_OBJECT(self, "%s: route %d", GST_OBJECT_NAME(pad), static_cast<int>(decision->route));
        if (decision->route == BranchRoute::Converted)
            copy_stream_events(decision->converter->collector(), pad, {.store = true});
        else if (decision->route != BranchRoute::Dropped)
            copy_stream_events(self->sinkpad, pad, {.store = true, .route = decision->route});
    }
    for (Converter *made : created)
        copy_stream_events(self->sinkpad, made->feeder(), {.store = false, .before_caps = in_caps_event});
}

} // namespace

std::optional<Refusal> decide_routes(G2gTee *self, GstCaps *caps, bool in_caps_event)
{
    TeeState &state = self->priv->state;
    const std::optional<K> upstream = domain_of(caps);
    std::vector<Decision> decisions;
    FanOutPolicy policy;
    gint budget;
    bool allow_not_linked;
    {
        const ObjectLock lock(self);
        for (const PadRef &pad : state.branches)
            decisions.push_back({pad, branch_of(pad.get())->route, BranchRoute::Unresolved, nullptr, {}});
        policy = self->priv->settings.fan_out_policy;
        budget = self->priv->settings.copy_budget;
        allow_not_linked = self->priv->settings.allow_not_linked;
    }

    route_branches(self, decisions, caps, upstream);
    std::vector<Converter *> created;
    const std::vector<Converter *> used =
        upstream ? conversions_for(self, decisions, *upstream, created) : std::vector<Converter *>{};
    if (auto refused = apply_fan_out_policy(self, decisions, policy, allow_not_linked))
        return refused;
    if (auto refused = check_copy_budget(budget, used, decisions))
        return refused;
    apply(self, decisions, created, in_caps_event);

    // Conversions no branch needs any more stop.
    std::erase_if(state.converters, [&](const std::unique_ptr<Converter> &running) {
        return std::find(used.begin(), used.end(), running.get()) == used.end();
    });
    return std::nullopt;
}

} // namespace g2g::tee
