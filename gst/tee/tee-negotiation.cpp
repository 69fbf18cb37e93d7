// g2gtee's negotiation: what it offers upstream and downstream, each branch's route for the
// stream's caps, the conversions those routes need, fan-out-policy and copy-budget.
#include "tee-private.h"

#include "tee-caps.h"

#include <g2g/converters.h>
#include <g2g/domain-set.h>

#include <gst/video/video.h>

#include <algorithm>

namespace g2g::tee {
namespace {

using K = MemoryDomainKind;

GstPad *sinkpad_of(GstPad *private_pad)
{
    return G2G_TEE(converter_of(private_pad)->tee())->sinkpad;
}

const ConverterPadFunctions &pad_functions()
{
    static const ConverterPadFunctions functions{feeder_query, feeder_event, collector_chain, collector_event,
                                                 collector_query};
    return functions;
}

// ALLOCATION over `pads`' peers, as tee aggregates it: the largest alignment, prefix and
// padding; the metas every peer takes with the same parameters; one pool entry without a pool
// object (one pool cannot serve every branch) of the largest size, the largest minimum plus
// one for the buffer the fan-out holds while pushing, and no maximum. A peer that fails the
// query fails it; an unlinked pad fails it too unless allow-not-linked.
gboolean aggregate_allocation(GstObject *owner, const std::vector<GstPad *> &pads, bool allow_not_linked,
                              GstQuery *query)
{
    GstCaps *caps = nullptr;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &caps, &need_pool);
    struct Meta {
        GType api;
        GstStructure *params; // owned, may be null
    };
    std::vector<Meta> metas;
    bool first = true;
    bool have_params = false, have_pool = false;
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    guint size = 0, min_buffers = 0, answered = 0;
    gboolean ok = TRUE;
    for (GstPad *pad : pads) {
        if (!gst_pad_is_linked(pad)) {
            ok = allow_not_linked;
            if (!ok)
                break;
            continue;
        }
        GstQuery *branch = gst_query_new_allocation(caps, need_pool);
        if (!gst_pad_peer_query(pad, branch)) {
            gst_query_unref(branch);
            ok = FALSE;
            break;
        }
        ++answered;
        std::vector<Meta> branch_metas;
        for (guint i = 0; i < gst_query_get_n_allocation_metas(branch); ++i) {
            const GstStructure *meta_params = nullptr;
            GType api = gst_query_parse_nth_allocation_meta(branch, i, &meta_params);
            branch_metas.push_back({api, meta_params ? gst_structure_copy(meta_params) : nullptr});
        }
        if (first) {
            metas = std::move(branch_metas);
        } else {
            std::erase_if(metas, [&](Meta &meta) {
                const bool shared =
                    std::any_of(branch_metas.begin(), branch_metas.end(), [&](const Meta &other) {
                        return other.api == meta.api &&
                               (meta.params && other.params
                                    ? gst_structure_is_equal(meta.params, other.params)
                                    : meta.params == other.params);
                    });
                if (!shared && meta.params)
                    gst_structure_free(meta.params);
                return !shared;
            });
            for (Meta &meta : branch_metas) {
                if (meta.params)
                    gst_structure_free(meta.params);
            }
        }
        first = false;
        for (guint i = 0; i < gst_query_get_n_allocation_params(branch); ++i) {
            GstAllocationParams p;
            gst_query_parse_nth_allocation_param(branch, i, nullptr, &p);
            params.align = std::max(params.align, p.align);
            params.prefix = std::max(params.prefix, p.prefix);
            params.padding = std::max(params.padding, p.padding);
            have_params = true;
        }
        for (guint i = 0; i < gst_query_get_n_allocation_pools(branch); ++i) {
            guint pool_size = 0, min = 0, max = 0;
            gst_query_parse_nth_allocation_pool(branch, i, nullptr, &pool_size, &min, &max);
            size = std::max(size, pool_size);
            min_buffers = std::max(min_buffers, min);
            have_pool = true;
        }
        gst_query_unref(branch);
    }
    if (ok) {
        if (have_params)
            gst_query_add_allocation_param(query, nullptr, &params);
        if (have_pool)
            gst_query_add_allocation_pool(query, nullptr, size, min_buffers + (answered > 1 ? 1 : 0), 0);
        for (const Meta &meta : metas)
            gst_query_add_allocation_meta(query, meta.api, meta.params);
        GST_DEBUG_OBJECT(owner, "aggregated allocation over %u branches: %zu metas", answered, metas.size());
    }
    for (Meta &meta : metas) {
        if (meta.params)
            gst_structure_free(meta.params);
    }
    return ok;
}

// The intersection of what `pads`' peers take (ANY when there are none), then `filter`.
GstCaps *caps_all_take(const std::vector<GstPad *> &pads, GstCaps *filter)
{
    GstCaps *result = gst_caps_new_any();
    for (GstPad *pad : pads) {
        GstCaps *peer = gst_pad_peer_query_caps(pad, filter);
        GstCaps *both = gst_caps_intersect_full(result, peer, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(peer);
        gst_caps_unref(result);
        result = both;
    }
    return result;
}

void answer_caps(GstQuery *query, GstCaps *result, GstCaps *filter)
{
    if (filter) {
        GstCaps *filtered = gst_caps_intersect_full(result, filter, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(result);
        result = filtered;
    }
    gst_query_set_caps_result(query, result);
    gst_caps_unref(result);
}

// True when a structure of `caps` names `kind`'s domain (ANY does not: it takes anything
// without asking for it).
bool names_domain(const GstCaps *caps, K kind)
{
    for (guint i = 0; i < gst_caps_get_size(caps) && !gst_caps_is_any(caps); ++i) {
        if (domain_of(gst_caps_get_features(caps, i)) == kind)
            return true;
    }
    return false;
}

// Removes `caps`' (writable) structures of `kind`'s domain.
void without_domain(GstCaps *caps, K kind)
{
    for (guint i = gst_caps_get_size(caps); i-- > 0;) {
        if (domain_of(gst_caps_get_features(caps, i)) == kind)
            gst_caps_remove_structure(caps, i);
    }
}

// The sink pad's caps: what every branch can be fed (its peer's caps, or a domain g2gtee
// converts into them), best domain first, preferring domains some branch takes as they are.
void answer_sink_caps(G2gTee *self, GstQuery *query)
{
    GstCaps *filter = nullptr;
    gst_query_parse_caps(query, &filter);
    std::vector<GstPad *> pads;
    GST_OBJECT_LOCK(self);
    for (const Branch &branch : self->state->branches) {
        if (branch.route != Route::Dropped)
            pads.push_back(GST_PAD(gst_object_ref(branch.pad)));
    }
    GST_OBJECT_UNLOCK(self);
    // What every branch can be fed, branch by branch (a tee's intersection, with g2gtee's
    // conversions counted in). A branch that would leave nothing that upstream offers (the
    // filter) and the branches before it take is left out, so upstream still negotiates and
    // the caps event then names that branch (fan-out-policy), instead of upstream failing with
    // a bare not-negotiated.
    GstCaps *agreed = filter ? gst_caps_ref(filter) : gst_caps_new_any();
    GstCaps *direct = gst_caps_new_empty();
    std::vector<GstCaps *> peers;
    for (GstPad *pad : pads) {
        GstCaps *peer = gst_pad_peer_query_caps(pad, nullptr);
        peers.push_back(gst_caps_ref(peer));
        GstCaps *fed = feedable(peer);
        GstCaps *both = gst_caps_intersect_full(agreed, fed, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(fed);
        if (gst_caps_is_empty(both)) {
            GST_DEBUG_OBJECT(self, "%s takes none of what the other branches take", GST_OBJECT_NAME(pad));
            gst_caps_unref(both);
            gst_caps_unref(peer);
            continue;
        }
        gst_caps_unref(agreed);
        agreed = both;
        direct = gst_caps_merge(direct, peer);
    }
    unref_all(pads);
    // Views only where some branch takes them: for dense branches alone, the producer of a view
    // (g2gview) materializes it itself, with no conversion in the tee.
    if (!gst_caps_is_any(agreed) && !names_domain(direct, K::SystemView)) {
        agreed = gst_caps_make_writable(agreed);
        without_domain(agreed, K::SystemView);
    }
    GstCaps *result = ordered_for_upstream(agreed, direct);
    gst_caps_unref(direct);

    // Then, last, the domains the agreement lost: a domain-restricted branch (Cuda only, say)
    // narrows the agreement to its domain, which must not stop upstream from producing what the
    // other branches take; that branch is then refused by name when the stream starts. Formats
    // stay intersected as tee does: only domains missing from the agreement come back.
    DomainSet agreed_domains;
    for (guint i = 0; i < gst_caps_get_size(agreed) && !gst_caps_is_any(agreed); ++i) {
        const std::optional<K> kind = domain_of(gst_caps_get_features(agreed, i));
        agreed_domains = kind ? agreed_domains.insert(*kind) : DomainSet::all();
    }
    if (!gst_caps_is_any(agreed)) {
        for (GstCaps *peer : peers) {
            if (gst_caps_is_any(peer)) {
                if (!agreed_domains.contains(K::System))
                    result = gst_caps_merge(result, in_domain(agreed, K::System));
                continue;
            }
            for (guint i = 0; i < gst_caps_get_size(peer); ++i) {
                const std::optional<K> kind = domain_of(gst_caps_get_features(peer, i));
                if (kind && !agreed_domains.contains(*kind))
                    result = gst_caps_merge(result, gst_caps_copy_nth(peer, i));
            }
        }
    }
    for (GstCaps *peer : peers)
        gst_caps_unref(peer);
    gst_caps_unref(agreed);
    answer_caps(query, result, filter);
}

// Why no route reaches the branch on `pad` for frames of `caps`.
std::string refusal(G2gTee *self, GstPad *pad, GstCaps *caps, K upstream)
{
    GstPad *peer = gst_pad_get_peer(pad);
    GstElement *peer_element = peer ? gst_pad_get_parent_element(peer) : nullptr;
    gchar *category = g_strdup_printf("branch %s of %s (to %s)", GST_OBJECT_NAME(pad), GST_OBJECT_NAME(self),
                                      peer_element ? GST_OBJECT_NAME(peer_element) : "an unknown peer");
    GstCaps *takes = gst_pad_peer_query_caps(pad, nullptr);
    DomainSet accepted;
    for (guint i = 0; i < gst_caps_get_size(takes); ++i) {
        const std::optional<K> kind = domain_of(gst_caps_get_features(takes, i));
        accepted = kind ? accepted.insert(*kind) : DomainSet::all();
    }
    std::string message;
    if (gst_caps_is_any(takes) || accepted.contains(upstream)) {
        gchar *wanted = gst_caps_to_string(caps);
        message = std::string(category) + " takes " + std::string(name(upstream)) +
                  " frames but refuses these caps (format, size or rate, not the memory domain): " + wanted;
        g_free(wanted);
    } else {
        message = wrong_domain_error(category, accepted, upstream).message();
        if (!accepted.contains(K::System))
            message += " (g2gtee converts frames into system memory only)";
    }
    gst_caps_unref(takes);
    g_free(category);
    if (peer_element)
        gst_object_unref(peer_element);
    if (peer)
        gst_object_unref(peer);
    return message;
}

// Whether the branch on `pad` takes `caps` (fixed). Accept-caps alone is shallow (a
// basetransform with ANY templates, such as identity or g2gprobe, accepts everything), so the
// branch's caps, asked down to the element that cares, must also allow them.
bool branch_takes(GstPad *pad, GstCaps *caps)
{
    if (!gst_pad_peer_query_accept_caps(pad, caps))
        return false;
    GstCaps *takes = gst_pad_peer_query_caps(pad, caps);
    const bool allowed = !gst_caps_is_empty(takes);
    gst_caps_unref(takes);
    return allowed;
}

struct Decision {
    GstPad *pad; // one reference
    Route route;
    Converter *converter;
    std::string refusal;
};

} // namespace

std::optional<Refusal> decide_routes(G2gTee *self, GstCaps *caps, bool in_caps_event)
{
    TeeState &state = *self->state;
    const std::optional<K> upstream = domain_of(caps);
    std::vector<Decision> decisions;
    std::vector<Route> before;
    GST_OBJECT_LOCK(self);
    for (const Branch &branch : state.branches) {
        decisions.push_back({GST_PAD(gst_object_ref(branch.pad)), Route::Unresolved, nullptr, {}});
        before.push_back(branch.route);
    }
    const FanOutPolicy policy = state.fan_out_policy;
    const gint budget = state.copy_budget;
    GST_OBJECT_UNLOCK(self);
    auto release_decisions = [&] {
        for (Decision &decision : decisions)
            gst_object_unref(decision.pad);
    };

    // Each linked branch: the frame as it is, else the frame in system memory where g2gtee
    // converts it, else nothing. Caps of an unknown memory type go everywhere as they are.
    const bool convertible = upstream && *upstream != K::System && converts_to_system(*upstream);
    GstCaps *system_caps = convertible ? in_domain(caps, K::System) : nullptr;
    for (Decision &decision : decisions) {
        if (!gst_pad_is_linked(decision.pad))
            decision.route = Route::Unresolved;
        else if (!upstream || branch_takes(decision.pad, caps))
            decision.route = Route::Direct;
        else if (system_caps && branch_takes(decision.pad, system_caps))
            decision.route = *upstream == K::DmaBuf ? Route::Relabelled : Route::Converted;
        else {
            decision.route = Route::Dropped;
            decision.refusal = refusal(self, decision.pad, caps, *upstream);
        }
    }
    if (system_caps)
        gst_caps_unref(system_caps);

    // The conversion the converted branches share: the one running already, or a new one.
    Converter *converter = nullptr;
    Converter *created = nullptr;
    if (std::any_of(decisions.begin(), decisions.end(),
                    [](const Decision &d) { return d.route == Route::Converted; })) {
        for (const auto &running : state.converters) {
            if (running->from() == *upstream && running->to() == K::System)
                converter = running.get();
        }
        if (!converter) {
            auto made = Converter::create(GST_BIN(self), *upstream, K::System, pad_functions());
            if (made) {
                converter = created = made->get();
                state.converters.push_back(std::move(*made));
            } else {
                for (Decision &decision : decisions) {
                    if (decision.route == Route::Converted) {
                        decision.route = Route::Dropped;
                        decision.refusal = std::string("branch ") + GST_OBJECT_NAME(decision.pad) +
                                           " needs system memory: " + made.error().message();
                    }
                }
            }
        }
    }
    std::string converted_pads;
    for (Decision &decision : decisions) {
        if (decision.route == Route::Converted) {
            decision.converter = converter;
            converted_pads +=
                (converted_pads.empty() ? "" : ", ") + std::string(GST_OBJECT_NAME(decision.pad));
        }
    }

    for (std::size_t i = 0; i < decisions.size(); ++i) {
        const Decision &decision = decisions[i];
        if (decision.route != Route::Dropped)
            continue;
        if (policy == FAN_OUT_POLICY_FAIL) {
            Refusal refused{
                GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, decision.refusal,
                "fan-out-policy=fail; fan-out-policy=drop-branch keeps the other branches running"};
            release_decisions();
            return refused;
        }
        if (before[i] != Route::Dropped)
            GST_ELEMENT_WARNING(
                self, CORE, NEGOTIATION,
                ("%s: fan-out-policy=drop-branch, this branch gets no frames", decision.refusal.c_str()),
                (nullptr));
    }

    // The seed's copy policy: copies plus conversions per frame within copy-budget.
    const gint conversions_per_frame = converter ? 1 : 0;
    if (budget >= 0 && conversions_per_frame > budget) {
        const std::string from(name(converter->from()));
        Refusal refused{GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                        "copy-budget " + std::to_string(budget) +
                            " exceeded: " + std::to_string(conversions_per_frame) +
                            " conversion per frame, " + from + " to " + std::string(name(converter->to())) +
                            " by " + converter->description() + " for " + converted_pads,
                        "raise copy-budget, or give those branches a peer that takes " + from};
        release_decisions();
        return refused;
    }

    // Apply; a branch whose route changed starts from its new source's stream events.
    state.relabel_verified = false;
    std::vector<Decision *> changed;
    GST_OBJECT_LOCK(self);
    for (Decision &decision : decisions) {
        for (Branch &branch : state.branches) {
            if (branch.pad != decision.pad)
                continue;
            if (branch.route != decision.route || branch.converter != decision.converter)
                changed.push_back(&decision);
            if (branch.route != decision.route)
                branch.gap_sent = false;
            branch.route = decision.route;
            branch.converter = decision.converter;
        }
    }
    GST_OBJECT_UNLOCK(self);
    for (Decision *decision : changed) {
        GST_DEBUG_OBJECT(self, "%s: route %d", GST_OBJECT_NAME(decision->pad),
                         static_cast<int>(decision->route));
        if (decision->route == Route::Converted) {
            copy_stream_events(decision->converter->collector(), decision->pad, {.store = true});
        } else if (decision->route != Route::Dropped) {
            copy_stream_events(self->sinkpad, decision->pad,
                               {.store = true, .relabel = decision->route == Route::Relabelled});
        }
    }
    if (created) {
        copy_stream_events(self->sinkpad, created->feeder(), {.store = false, .before_caps = in_caps_event});
    }
    release_decisions();

    // Conversions no branch needs any more stop.
    std::erase_if(state.converters,
                  [&](const std::unique_ptr<Converter> &running) { return running.get() != converter; });
    return std::nullopt;
}

gboolean sink_query(GstPad *pad, GstObject *parent, GstQuery *query)
{
    G2gTee *self = G2G_TEE(parent);
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS:
        answer_sink_caps(self, query);
        return TRUE;
    case GST_QUERY_ALLOCATION: {
        // Branches fed the frame as it is, and the conversions (whose first element answers).
        std::vector<GstPad *> pads;
        GST_OBJECT_LOCK(self);
        for (const Branch &branch : self->state->branches) {
            GstPad *target = nullptr;
            if (branch.route == Route::Converted)
                target = branch.converter->feeder();
            else if (branch.route != Route::Dropped)
                target = branch.pad;
            if (target && std::find(pads.begin(), pads.end(), target) == pads.end())
                pads.push_back(GST_PAD(gst_object_ref(target)));
        }
        GST_OBJECT_UNLOCK(self);
        GST_OBJECT_LOCK(self);
        const bool allow_not_linked = self->state->allow_not_linked;
        GST_OBJECT_UNLOCK(self);
        const gboolean answered = aggregate_allocation(parent, pads, allow_not_linked, query);
        unref_all(pads);
        return answered;
    }
    default:
        return gst_pad_query_default(pad, parent, query);
    }
}

gboolean src_query(GstPad *pad, GstObject *parent, GstQuery *query)
{
    if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS)
        return gst_pad_query_default(pad, parent, query);
    // What upstream can produce, and those of its domains g2gtee converts, in system memory.
    GstCaps *filter = nullptr;
    gst_query_parse_caps(query, &filter);
    GstCaps *upstream = gst_pad_peer_query_caps(G2G_TEE(parent)->sinkpad, nullptr);
    GstCaps *result = producible(upstream);
    gst_caps_unref(upstream);
    answer_caps(query, result, filter);
    return TRUE;
}

gboolean feeder_query(GstPad *pad, GstObject *, GstQuery *query)
{
    // The conversion asks upstream: caps, and contexts (its Vulkan device, its CUDA context).
    return gst_pad_peer_query(sinkpad_of(pad), query);
}

gboolean collector_query(GstPad *pad, GstObject *, GstQuery *query)
{
    Converter *converter = converter_of(pad);
    G2gTee *self = G2G_TEE(converter->tee());
    std::vector<GstPad *> pads = pads_of(self, converter);
    gboolean answered = FALSE;
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
        GstCaps *filter = nullptr;
        gst_query_parse_caps(query, &filter);
        GstCaps *taken = caps_all_take(pads, filter);
        gst_query_set_caps_result(query, taken);
        gst_caps_unref(taken);
        answered = TRUE;
        break;
    }
    case GST_QUERY_ACCEPT_CAPS: {
        GstCaps *caps = nullptr;
        gst_query_parse_accept_caps(query, &caps);
        GstCaps *taken = caps_all_take(pads, caps);
        gst_query_set_accept_caps_result(query, gst_caps_is_subset(caps, taken));
        gst_caps_unref(taken);
        answered = TRUE;
        break;
    }
    case GST_QUERY_ALLOCATION:
        answered = aggregate_allocation(GST_OBJECT(self), pads, true, query);
        // cudadownload 1.22 hands CUDA memory on, unconverted, to a peer that takes GstVideoMeta
        // (each branch would then download it when mapping it): without the meta it downloads
        // here, once, and every branch shares the system-memory frame.
        if (answered && converter->from() == K::Cuda) {
            guint index = 0;
            if (gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, &index))
                gst_query_remove_nth_allocation_meta(query, index);
        }
        break;
    default:
        for (GstPad *branch : pads) {
            if ((answered = gst_pad_peer_query(branch, query)))
                break;
        }
        break;
    }
    unref_all(pads);
    return answered;
}

} // namespace g2g::tee
