// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-snapshot.h"

#include "tee-private.h"
#include "tee-route-name.h"

#include "common/object-lock.h"

#include <algorithm>
#include <map>
#include <utility>

#define GST_CAT_DEFAULT g2g_tee_debug

namespace g2g::tee {
namespace {

using element::ObjectLock;

const ConverterPadFunctions &pad_functions()
{
    static const ConverterPadFunctions functions{feeder_query, feeder_event, collector_chain, collector_event,
                                                 collector_query};
    return functions;
}

// The settings, the branches and their routes in the plan in force, in one go under the object
// lock; then, without it, each linked branch's peer asked once.
PlanInputs take_inputs(G2gTee *self, GstCaps *caps)
{
    PlanInputs inputs;
    inputs.tee_name = GST_OBJECT_NAME(self);
    inputs.caps = CapsRef::borrow(caps);
    std::shared_ptr<const TeePlan> before;
    {
        const ObjectLock lock(self);
        const TeeSettings &settings = self->priv->settings;
        inputs.settings = {settings.silent, settings.allow_not_linked, settings.fan_out_policy,
                           settings.copy_budget};
        for (const PadRef &pad : self->priv->state.branches)
            inputs.branches.push_back(
                BranchAnswer{.pad = pad, .linked = false, .takes = {}, .peer_name = {}});
        before = self->priv->state.plan;
    }
    inputs.renegotiating = before->negotiated;
    for (BranchAnswer &branch : inputs.branches) {
        // Before the stream's caps every branch is fed as it is: one there when upstream first
        // negotiated is no branch linked since.
        branch.before = before->negotiated ? before->route_of(branch.pad.get()) : BranchRoute::Direct;
        const auto waiting = self->priv->state.waiting_since.find(branch.pad.get());
        if (waiting != self->priv->state.waiting_since.end())
            branch.renegotiations_waited = self->priv->state.renegotiations - waiting->second;
        branch.linked = gst_pad_is_linked(branch.pad.get());
        if (!caps || !branch.linked)
            continue;
        branch.takes = CapsRef::adopt(gst_pad_peer_query_caps(branch.pad.get(), nullptr));
        const PadRef peer = PadRef::adopt(gst_pad_get_peer(branch.pad.get()));
        const ElementRef element = ElementRef::adopt(peer ? gst_pad_get_parent_element(peer.get()) : nullptr);
        if (element)
            branch.peer_name = GST_OBJECT_NAME(element.get());
    }
    return inputs;
}

// The plan for `inputs` with its conversions made (or reused): one that cannot be made is planned
// again as unavailable, so its branches are dropped, saying why. `created`: the new ones.
PlanOrRefusal plan_with_conversions(G2gTee *self, PlanInputs &inputs, std::vector<Converter *> &created)
{
    TeeState &state = self->priv->state;
    for (;;) {
        PlanOrRefusal made = make_plan(inputs);
        TeePlan *plan = std::get_if<TeePlan>(&made);
        if (plan && plan->needs_upstream_offer && !inputs.upstream_offer) {
            inputs.upstream_offer = CapsRef::adopt(gst_pad_peer_query_caps(self->sinkpad, nullptr));
            if (!inputs.upstream_offer)
                inputs.upstream_offer = CapsRef::adopt(gst_caps_new_empty());
            continue;
        }
        if (!plan)
            return made;
        bool replanned = false;
        for (PlannedConversion &conversion : plan->conversions) {
            const auto running =
                std::find_if(state.converters.begin(), state.converters.end(), [&](const auto &c) {
                    return c->from() == conversion.from && c->to() == conversion.to;
                });
            if (running != state.converters.end()) {
                conversion.converter = running->get();
            } else {
                auto converter =
                    Converter::create(GST_BIN(self), conversion.from, conversion.to, pad_functions());
                if (!converter) {
                    inputs.unavailable[{conversion.from, conversion.to}] = converter.error().message();
                    replanned = true;
                    break;
                }
                conversion.converter = converter->get();
                created.push_back(conversion.converter);
                state.converters.push_back(std::move(*converter));
            }
            conversion.feeder = PadRef::borrow(conversion.converter->feeder());
        }
        if (!replanned)
            return made;
    }
}

// Where a branch's frames come from in `plan`: its conversion, or nullptr.
const Converter *source_of(const TeePlan &plan, const GstPad *pad)
{
    for (const PlannedConversion &conversion : plan.conversions) {
        if (std::any_of(conversion.pads.begin(), conversion.pads.end(),
                        [&](const PadRef &p) { return p.get() == pad; }))
            return conversion.converter;
    }
    return nullptr;
}

} // namespace

std::optional<Refusal> replan(G2gTee *self, GstCaps *caps, bool in_caps_event)
{
    TeeState &state = self->priv->state;
    CapsRef current;
    if (!caps && !in_caps_event) {
        current = CapsRef::adopt(gst_pad_get_current_caps(self->sinkpad));
        caps = current.get();
    }
    PlanInputs inputs = take_inputs(self, caps);
    std::vector<Converter *> created;
    PlanOrRefusal made = plan_with_conversions(self, inputs, created);
    if (Refusal *refused = std::get_if<Refusal>(&made)) {
        GST_DEBUG_OBJECT(self, "refused (caps %" GST_PTR_FORMAT ", in caps event %d): %s", caps,
                         in_caps_event, refused->message.c_str());
        GST_INFO_OBJECT(self, "%s: %s", refused->branch.empty() ? "plan" : refused->branch.c_str(),
                        route_name({.route = BranchRoute::Dropped,
                                    .from = std::nullopt,
                                    .to = MemoryDomainKind::System,
                                    .converter = {},
                                    .why = refused->message})
                            .c_str());
        return std::move(*refused);
    }

    auto plan = std::make_shared<const TeePlan>(std::move(std::get<TeePlan>(made)));
    const std::shared_ptr<const TeePlan> before = state.plan;
    {
        const ObjectLock lock(self);
        state.plan = plan;
    }
    state.gaps_owed = !plan->newly_dropped.empty();
    // The renegotiations a waiting branch has waited for count from the first plan it waited in.
    std::map<const GstPad *, guint> waiting_since;
    for (const PadRef &pad : plan->waiting) {
        const auto known = state.waiting_since.find(pad.get());
        waiting_since[pad.get()] = known != state.waiting_since.end() ? known->second : state.renegotiations;
    }
    state.waiting_since = std::move(waiting_since);
    state.relabel_verified = false;
    for (const std::string &warning : plan->warnings)
        GST_ELEMENT_WARNING(self, CORE, NEGOTIATION, ("%s", warning.c_str()), (nullptr));

    // A branch whose route changed starts from its new source's stream events, and a new
    // conversion from the stream's.
    for (const auto &[pad, route, said] : plan->routes) {
        // Every route of a plan made for caps, by name (each plan is made at a caps event or after
        // branches or settings changed, never per frame).
        if (plan->negotiated)
            GST_INFO_OBJECT(self, "%s: %s", GST_OBJECT_NAME(pad.get()), said.c_str());
        const Converter *source = source_of(*plan, pad.get());
        if (before->route_of(pad.get()) == route && source_of(*before, pad.get()) == source)
            continue;
        if (route == BranchRoute::Converted)
            copy_stream_events(source->collector(), pad.get(), {.store = true});
        else if (route != BranchRoute::Dropped && route != BranchRoute::Waiting)
            copy_stream_events(self->sinkpad, pad.get(), {.store = true, .route = route});
    }
    for (Converter *made_now : created)
        copy_stream_events(self->sinkpad, made_now->feeder(),
                           {.store = false, .caps = in_caps_event ? caps : nullptr});

    // Conversions no branch needs any more stop.
    std::erase_if(state.converters, [&](const std::unique_ptr<Converter> &running) {
        return !plan->conversion_of(running.get());
    });
    // Waiting branches ask upstream to negotiate with them (again): a branch fed views until caps
    // decided before its link caught up with it has no RECONFIGURE of its own left to answer, and
    // a renegotiation that kept other caps is counted, so the wait ends either way.
    if (!plan->waiting.empty())
        gst_pad_push_event(self->sinkpad, gst_event_new_reconfigure());
    return std::nullopt;
}

void refresh_plan(G2gTee *self)
{
    TeeState &state = self->priv->state;
    if (!state.plan_stale.exchange(false))
        return;
    state.refusal = replan(self, nullptr, false);
    state.refusal_posted = false;
}

std::shared_ptr<const TeePlan> current_plan(G2gTee *self)
{
    const ObjectLock lock(self);
    return self->priv->state.plan;
}

std::vector<PadRef> pads_of(G2gTee *self, const Converter *converter)
{
    const std::shared_ptr<const TeePlan> plan = current_plan(self);
    const PlannedConversion *conversion = plan->conversion_of(converter);
    return conversion ? conversion->pads : std::vector<PadRef>{};
}

bool holds_branch(const TeeState &state, const GstPad *pad)
{
    return std::any_of(state.branches.begin(), state.branches.end(),
                       [&](const PadRef &branch) { return branch.get() == pad; });
}

} // namespace g2g::tee
