// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's queries: the caps it offers upstream (what every branch can be fed, conversions
// counted in) and downstream (what upstream can produce, converted), allocation aggregated over
// the branches, and the queries of its conversions' private pads.
#include "tee-private.h"

#include "tee-allocation.h"
#include "tee-caps.h"

#include <g2g/dmabuf.h>
#include <g2g/domain-set.h>

#include <gst/video/video.h>

#include "common/object-lock.h"

#include <algorithm>

#define GST_CAT_DEFAULT g2g_tee_debug

namespace g2g::tee {
namespace {

// A CONTEXT query no one along the pad's way answered: the tee's own Vulkan device, created if it
// provides one (TeeGpu).
gboolean answer_context(G2gTee *self, GstQuery *query)
{
    return self->priv->gpu.cuda.answer_query(GST_ELEMENT(self), query) ||
           self->priv->gpu.vulkan.answer_query(GST_ELEMENT(self), query);
}

using element::ObjectLock;
using K = MemoryDomainKind;

GstPad *sinkpad_of(GstPad *private_pad)
{
    return G2G_TEE(converter_of(private_pad)->tee())->sinkpad;
}

// The intersection of what `pads`' peers take (ANY when there are none), then `filter`.
CapsRef caps_all_take(std::span<const PadRef> pads, GstCaps *filter)
{
    CapsRef result = CapsRef::adopt(gst_caps_new_any());
    for (const PadRef &pad : pads) {
        const CapsRef peer = CapsRef::adopt(gst_pad_peer_query_caps(pad.get(), filter));
        result = CapsRef::adopt(gst_caps_intersect_full(result.get(), peer.get(), GST_CAPS_INTERSECT_FIRST));
    }
    return result;
}

void answer_caps(GstQuery *query, CapsRef result, GstCaps *filter)
{
    if (filter)
        result = CapsRef::adopt(gst_caps_intersect_full(result.get(), filter, GST_CAPS_INTERSECT_FIRST));
    gst_query_set_caps_result(query, result.get());
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
    std::vector<PadRef> pads;
    {
        const ObjectLock lock(self);
        const TeePlan &plan = *self->priv->state.plan;
        for (const PadRef &pad : self->priv->state.branches) {
            if (plan.route_of(pad.get()) != BranchRoute::Dropped)
                pads.push_back(pad);
        }
    }
    // What every branch can be fed, branch by branch (a tee's intersection, with g2gtee's
    // conversions counted in). A branch that would leave nothing that upstream offers (the
    // filter) and the branches before it take is left out, so upstream still negotiates and
    // the caps event then names that branch (fan-out-policy), instead of upstream failing with
    // a bare not-negotiated.
    CapsRef agreed = CapsRef::adopt(filter ? gst_caps_ref(filter) : gst_caps_new_any());
    CapsRef direct = CapsRef::adopt(gst_caps_new_empty());
    std::vector<CapsRef> peers;
    for (const PadRef &pad : pads) {
        CapsRef peer = CapsRef::adopt(gst_pad_peer_query_caps(pad.get(), nullptr));
        peers.push_back(peer);
        const CapsRef fed = feedable(peer.get());
        CapsRef both =
            CapsRef::adopt(gst_caps_intersect_full(agreed.get(), fed.get(), GST_CAPS_INTERSECT_FIRST));
        if (gst_caps_is_empty(both.get())) {
            GST_DEBUG_OBJECT(self, "%s takes none of what the other branches take",
                             GST_OBJECT_NAME(pad.get()));
            continue;
        }
        agreed = std::move(both);
        merge(direct, std::move(peer));
    }
    // Views only where some branch takes them: for dense branches alone, the producer of a view
    // (g2gview) materializes it itself, with no conversion in the tee.
    if (!gst_caps_is_any(agreed.get()) && !names_domain(direct.get(), K::SystemView)) {
        agreed.reset(gst_caps_make_writable(agreed.release()));
        without_domain(agreed.get(), K::SystemView);
    }
    CapsRef result = ordered_for_upstream(agreed.get(), direct.get());

    // Then, last, the domains the agreement lost: a domain-restricted branch (Cuda only, say)
    // narrows the agreement to its domain, which must not stop upstream from producing what the
    // other branches take; that branch is then refused by name when the stream starts. Formats
    // stay intersected as tee does: only domains missing from the agreement come back.
    DomainSet agreed_domains;
    for (guint i = 0; i < gst_caps_get_size(agreed.get()) && !gst_caps_is_any(agreed.get()); ++i) {
        const std::optional<K> kind = domain_of(gst_caps_get_features(agreed.get(), i));
        agreed_domains = kind ? agreed_domains.insert(*kind) : DomainSet::all();
    }
    if (!gst_caps_is_any(agreed.get())) {
        for (const CapsRef &peer : peers) {
            if (gst_caps_is_any(peer.get())) {
                if (!agreed_domains.contains(K::System))
                    merge(result, in_domain(agreed.get(), K::System));
                continue;
            }
            for (guint i = 0; i < gst_caps_get_size(peer.get()); ++i) {
                const std::optional<K> kind = domain_of(gst_caps_get_features(peer.get(), i));
                if (kind && !agreed_domains.contains(*kind)) {
                    const CapsRef lost = CapsRef::adopt(gst_caps_copy_nth(peer.get(), i));
                    merge(result, dmabuf::caps_with_dma_drm(lost.get())); // DMABuf in both forms
                }
            }
        }
    }
    answer_caps(query, std::move(result), filter);
}

} // namespace

gboolean sink_query(GstPad *pad, GstObject *parent, GstQuery *query)
{
    G2gTee *self = G2G_TEE(parent);
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS:
        answer_sink_caps(self, query);
        return TRUE;
    case GST_QUERY_ALLOCATION: {
        // Upstream renegotiated, with the caps event before (counted there) or keeping its caps:
        // branches waiting for other caps are planned again.
        TeeState &state = self->priv->state;
        if (!std::exchange(state.caps_before_allocation, false))
            ++state.renegotiations;
        // Branches fed the frame as it is (every branch before caps, and one requested since the
        // plan was made), and the conversions (whose first element answers).
        std::vector<PadRef> pads;
        std::vector<BranchRoute> routes;
        bool allow_not_linked;
        {
            const ObjectLock lock(self);
            const TeePlan &plan = *state.plan;
            if (!plan.waiting.empty())
                state.plan_stale = true;
            for (const PadRef &branch_pad : state.branches) {
                const BranchRoute route =
                    plan.negotiated ? plan.route_of(branch_pad.get()) : BranchRoute::Direct;
                GstPad *target = nullptr;
                if (route == BranchRoute::Converted) {
                    for (const PlannedConversion &conversion : plan.conversions) {
                        for (const PadRef &converted : conversion.pads) {
                            if (converted.get() == branch_pad.get())
                                target = conversion.feeder.get();
                        }
                    }
                } else if (route != BranchRoute::Dropped && route != BranchRoute::Waiting) {
                    target = branch_pad.get();
                }
                if (target && std::none_of(pads.begin(), pads.end(),
                                           [&](const PadRef &known) { return known.get() == target; })) {
                    pads.push_back(PadRef::borrow(target));
                    routes.push_back(route);
                }
            }
            allow_not_linked = self->priv->settings.allow_not_linked;
        }
        // Each branch asked in the caps it negotiated (a relabelled one in system memory, a
        // restated one in its DMABuf form), as a tee's branch would be asked by its own upstream.
        GstCaps *caps = nullptr;
        gst_query_parse_allocation(query, &caps, nullptr);
        std::vector<CapsRef> caps_of;
        for (BranchRoute route : routes)
            caps_of.push_back(caps ? caps_for_route(route, caps) : CapsRef());
        return aggregate_allocation(parent, pads, allow_not_linked, query, caps_of);
    }
    case GST_QUERY_CONTEXT:
        return gst_pad_query_default(pad, parent, query) || answer_context(self, query);
    default:
        return gst_pad_query_default(pad, parent, query);
    }
}

gboolean src_query(GstPad *pad, GstObject *parent, GstQuery *query)
{
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT)
        return gst_pad_query_default(pad, parent, query) || answer_context(G2G_TEE(parent), query);
    if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS)
        return gst_pad_query_default(pad, parent, query);
    // What upstream can produce, converted where g2gtee converts, then the domains no conversion
    // reaches: a branch of those links, and the plan refuses it by name (linkable).
    GstCaps *filter = nullptr;
    gst_query_parse_caps(query, &filter);
    const CapsRef upstream = CapsRef::adopt(gst_pad_peer_query_caps(G2G_TEE(parent)->sinkpad, nullptr));
    answer_caps(query, linkable(upstream.get()), filter);
    return TRUE;
}

gboolean feeder_query(GstPad *pad, GstObject *, GstQuery *query)
{
    // The conversion asks upstream: caps, and contexts (its Vulkan device, its CUDA context), which
    // the tee answers when upstream has none.
    return gst_pad_peer_query(sinkpad_of(pad), query) ||
           (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
            answer_context(G2G_TEE(converter_of(pad)->tee()), query));
}

gboolean collector_query(GstPad *pad, GstObject *, GstQuery *query)
{
    Converter *converter = converter_of(pad);
    G2gTee *self = G2G_TEE(converter->tee());
    const std::vector<PadRef> pads = pads_of(self, converter);
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
        GstCaps *filter = nullptr;
        gst_query_parse_caps(query, &filter);
        gst_query_set_caps_result(query, caps_all_take(pads, filter).get());
        return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS: {
        GstCaps *caps = nullptr;
        gst_query_parse_accept_caps(query, &caps);
        gst_query_set_accept_caps_result(query, gst_caps_is_subset(caps, caps_all_take(pads, caps).get()));
        return TRUE;
    }
    case GST_QUERY_ALLOCATION: {
        const gboolean answered = aggregate_allocation(GST_OBJECT(self), pads, true, query);
        // cudadownload 1.22 hands CUDA memory on, unconverted, to a peer that takes GstVideoMeta
        // (each branch would then download it when mapping it): without the meta it downloads
        // here, once, and every branch shares the system-memory frame.
        guint index = 0;
        if (answered && converter->from() == K::Cuda &&
            gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, &index))
            gst_query_remove_nth_allocation_meta(query, index);
        return answered;
    }
    default:
        return std::any_of(pads.begin(), pads.end(),
                           [&](const PadRef &branch) { return gst_pad_peer_query(branch.get(), query); });
    }
}

} // namespace g2g::tee
