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

// Why no route reaches the branch on `pad` for frames of `caps`.
std::string refusal(G2gTee *self, GstPad *pad, GstCaps *caps, K upstream)
{
    const PadRef peer = PadRef::adopt(gst_pad_get_peer(pad));
    const ElementRef peer_element =
        ElementRef::adopt(peer ? gst_pad_get_parent_element(peer.get()) : nullptr);
    g_autofree gchar *category =
        g_strdup_printf("branch %s of %s (to %s)", GST_OBJECT_NAME(pad), GST_OBJECT_NAME(self),
                        peer_element ? GST_OBJECT_NAME(peer_element.get()) : "an unknown peer");
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
    if (gst_caps_is_any(takes.get()) || accepted.contains(upstream)) {
        g_autofree gchar *wanted = gst_caps_to_string(caps);
        return std::string(category) + " takes " + std::string(name(upstream)) +
               " frames but refuses these caps (format, size or rate, not the memory domain): " + wanted;
    }
    std::string message = wrong_domain_error(category, accepted, upstream).message();
    if (!accepted.contains(K::System))
        message += " (g2gtee converts frames into system memory only)";
    return message;
}

// Whether the branch on `pad` takes `caps` (fixed). Accept-caps alone is shallow (a
// basetransform with ANY templates, such as identity or g2gprobe, accepts everything), so the
// branch's caps, asked down to the element that cares, must also allow them.
bool branch_takes(GstPad *pad, GstCaps *caps)
{
    if (!gst_pad_peer_query_accept_caps(pad, caps))
        return false;
    const CapsRef takes = CapsRef::adopt(gst_pad_peer_query_caps(pad, caps));
    return !gst_caps_is_empty(takes.get());
}

struct Decision {
    PadRef pad;
    Route before; // the branch's route when the decision began
    Route route = Route::Unresolved;
    Converter *converter = nullptr;
    std::string refusal;
};

// The route of each linked branch: the frame as it is, else the frame in system memory where
// g2gtee converts it, else nothing. Views go as they are only to branches that name the view
// feature; every other branch, whatever its caps (ANY included), gets the one dense frame
// g2gmaterialize makes of each view for all of them. Caps of an unknown memory type go
// everywhere as they are.
void route_branches(G2gTee *self, std::vector<Decision> &decisions, GstCaps *caps, std::optional<K> upstream)
{
    const bool views = carries_views(caps);
    // A view over device memory (CUDA memory with the view feature) has no conversion here:
    // cudadownload would copy the bytes under the view, not the view.
    const bool convertible = upstream && *upstream != K::System && converts_to_system(*upstream) &&
                             (!views || *upstream == K::SystemView);
    const CapsRef system_caps = convertible ? in_domain(caps, K::System) : CapsRef();
    for (Decision &decision : decisions) {
        GstPad *pad = decision.pad.get();
        if (!gst_pad_is_linked(pad))
            decision.route = Route::Unresolved;
        else if (!upstream || (branch_takes(pad, caps) && (!views || names_views(pad, caps))))
            decision.route = Route::Direct;
        else if (system_caps && branch_takes(pad, system_caps.get()))
            decision.route = *upstream == K::DmaBuf ? Route::Relabelled : Route::Converted;
        else {
            decision.route = Route::Dropped;
            decision.refusal = refusal(self, pad, caps, *upstream);
        }
    }
}

// The conversion the converted branches share: the one running already, or a new one (`created`).
// Where none can be made, those branches are dropped, saying why.
Converter *conversion_for(G2gTee *self, std::vector<Decision> &decisions, K upstream, Converter *&created)
{
    TeeState &state = self->priv->state;
    if (std::none_of(decisions.begin(), decisions.end(),
                     [](const Decision &d) { return d.route == Route::Converted; }))
        return nullptr;
    Converter *converter = nullptr;
    for (const auto &running : state.converters) {
        if (running->from() == upstream && running->to() == K::System)
            converter = running.get();
    }
    if (converter)
        return converter;
    auto made = Converter::create(GST_BIN(self), upstream, K::System, pad_functions());
    if (made) {
        created = made->get();
        state.converters.push_back(std::move(*made));
        return created;
    }
    for (Decision &decision : decisions) {
        if (decision.route == Route::Converted) {
            decision.route = Route::Dropped;
            decision.refusal = std::string("branch ") + GST_OBJECT_NAME(decision.pad.get()) +
                               " needs system memory: " + made.error().message();
        }
    }
    return nullptr;
}

// Hands the converted branches `converter`; their names, for the copy-budget's message.
std::string assign_conversion(std::vector<Decision> &decisions, Converter *converter)
{
    std::string converted_pads;
    for (Decision &decision : decisions) {
        if (decision.route != Route::Converted)
            continue;
        decision.converter = converter;
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
    const auto is_dropped = [](const Decision &d) { return d.route == Route::Dropped; };
    const auto linked = std::count_if(decisions.begin(), decisions.end(),
                                      [](const Decision &d) { return d.route != Route::Unresolved; });
    const auto dropped = std::find_if(decisions.begin(), decisions.end(), is_dropped);
    if (policy == FAN_OUT_POLICY_DROP_BRANCH && !allow_not_linked && dropped != decisions.end() &&
        std::count_if(decisions.begin(), decisions.end(), is_dropped) == linked)
        return Refusal{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                       std::string("fan-out-policy=drop-branch drops every branch of ") +
                           GST_OBJECT_NAME(self) + ", so frames reach none: " + dropped->refusal,
                       "link a branch that takes these frames, or set allow-not-linked=true to let them "
                       "go nowhere"};
    for (const Decision &decision : decisions) {
        if (decision.route != Route::Dropped)
            continue;
        if (policy == FAN_OUT_POLICY_FAIL)
            return Refusal{
                GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, decision.refusal,
                "fan-out-policy=fail; fan-out-policy=drop-branch keeps the other branches running"};
        if (decision.before != Route::Dropped)
            GST_ELEMENT_WARNING(
                self, CORE, NEGOTIATION,
                ("%s: fan-out-policy=drop-branch, this branch gets no frames", decision.refusal.c_str()),
                (nullptr));
    }
    return std::nullopt;
}

// The seed's copy policy: copies plus conversions per frame within copy-budget (-1: unlimited).
std::optional<Refusal> check_copy_budget(gint budget, const Converter *converter,
                                         const std::string &converted_pads)
{
    const gint conversions_per_frame = converter ? 1 : 0;
    if (budget < 0 || conversions_per_frame <= budget)
        return std::nullopt;
    const std::string from(name(converter->from()));
    return Refusal{GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                   "copy-budget " + std::to_string(budget) +
                       " exceeded: " + std::to_string(conversions_per_frame) + " conversion per frame, " +
                       from + " to " + std::string(name(converter->to())) + " by " +
                       converter->description() + " for " + converted_pads,
                   "raise copy-budget, or give those branches a peer that takes " + from};
}

// Writes the decisions into the branch pads (those not released meanwhile). A branch whose route
// changed starts from its new source's stream events, and a new conversion from the stream's.
void apply(G2gTee *self, const std::vector<Decision> &decisions, Converter *created, bool in_caps_event)
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
        if (decision->route == Route::Converted)
            copy_stream_events(decision->converter->collector(), pad, {.store = true});
        else if (decision->route != Route::Dropped)
            copy_stream_events(self->sinkpad, pad,
                               {.store = true, .relabel = decision->route == Route::Relabelled});
    }
    if (created)
        copy_stream_events(self->sinkpad, created->feeder(), {.store = false, .before_caps = in_caps_event});
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
            decisions.push_back({pad, branch_of(pad.get())->route, Route::Unresolved, nullptr, {}});
        policy = self->priv->settings.fan_out_policy;
        budget = self->priv->settings.copy_budget;
        allow_not_linked = self->priv->settings.allow_not_linked;
    }

    route_branches(self, decisions, caps, upstream);
    Converter *created = nullptr;
    Converter *converter = upstream ? conversion_for(self, decisions, *upstream, created) : nullptr;
    const std::string converted_pads = assign_conversion(decisions, converter);
    if (auto refused = apply_fan_out_policy(self, decisions, policy, allow_not_linked))
        return refused;
    if (auto refused = check_copy_budget(budget, converter, converted_pads))
        return refused;
    apply(self, decisions, created, in_caps_event);

    // Conversions no branch needs any more stop.
    std::erase_if(state.converters,
                  [&](const std::unique_ptr<Converter> &running) { return running.get() != converter; });
    return std::nullopt;
}

} // namespace g2g::tee
