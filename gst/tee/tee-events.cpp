// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's events: downstream events follow the frames' routes (a relabelled branch's caps in
// system memory, a restated branch's in the other DMABuf form, a conversion's branches through
// the conversion, a dropped branch only what ends or flushes its stream); upstream events of
// branches and conversions go upstream.
#include "tee-private.h"

#include "tee-caps.h"
#include "tee-stats.h"

#include "common/object-lock.h"

#include <span>
#include <utility>

namespace g2g::tee {
namespace {

using EventRef = Ref<GstEvent>;

// The event as a branch of `route` gets it: a mappable DMABuf read in place is system memory to
// a relabelled branch, and a restated branch reads DMABuf caps in its form, so their caps say so;
// any other event is the same.
EventRef event_for(BranchRoute route, GstEvent *event)
{
    if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS ||
        (route != BranchRoute::Relabelled && route != BranchRoute::Restated))
        return EventRef::borrow(event);
    GstCaps *caps = nullptr;
    gst_event_parse_caps(event, &caps);
    return EventRef::adopt(gst_event_new_caps(caps_for_route(route, caps).get()));
}

// GST_EVENT_IS_SERIALIZED, without its enum arithmetic (deprecated in C++20).
bool serialized(GstEvent *event)
{
    return (static_cast<guint>(GST_EVENT_TYPE(event)) & static_cast<guint>(GST_EVENT_TYPE_SERIALIZED)) != 0;
}

gboolean copy_stream_event(GstPad *, GstEvent **event, gpointer user_data)
{
    const auto &[to, how] = *static_cast<std::pair<GstPad *, StreamEventCopy> *>(user_data);
    const bool caps = GST_EVENT_TYPE(*event) == GST_EVENT_CAPS;
    if (caps && how.skip_caps)
        return TRUE;
    EventRef copy =
        caps && how.caps ? EventRef::adopt(gst_event_new_caps(how.caps)) : EventRef::borrow(*event);
    copy = event_for(how.route, copy.get());
    if (how.store)
        gst_pad_store_sticky_event(to, copy.get());
    else
        gst_pad_push_event(to, copy.release());
    return TRUE;
}

// Pushes `event` to each pad: TRUE when one took it, or when there was no pad (as
// gst_pad_event_default does).
gboolean push_event_to(std::span<const PadRef> pads, GstEvent *event, bool &dispatched)
{
    gboolean result = FALSE;
    for (const PadRef &pad : pads) {
        result |= gst_pad_push_event(pad.get(), gst_event_ref(event));
        dispatched = true;
    }
    return result;
}

// The plan for the caps of a caps event; false where it is refused. A refusal is an element
// error at the first frame and an error for each frame, while the caps event itself is accepted
// and goes no further: upstream then adds no not-negotiated of its own (and stops on the first
// frame, as it would on any other flow error).
bool plan_caps(G2gTee *self, GstEvent *event)
{
    TeeState &state = self->priv->state;
    GstCaps *caps = nullptr;
    gst_event_parse_caps(event, &caps);
    ++state.renegotiations;
    state.caps_before_allocation = true;
    state.plan_stale = false;
    state.refusal = replan(self, caps, true);
    state.refusal_posted = false;
    return !state.refusal;
}

// Branches fed as they are, restated branches, each conversion once, relabelled branches, and
// dropped or waiting branches only what ends or flushes their stream.
gboolean dispatch(const TeePlan &plan, GstEvent *event)
{
    bool dispatched = false;
    gboolean result = push_event_to(plan.direct, event, dispatched);
    if (!plan.restated.empty())
        result |= push_event_to(plan.restated, event_for(BranchRoute::Restated, event).get(), dispatched);
    for (const PlannedConversion &conversion : plan.conversions)
        result |= push_event_to({&conversion.feeder, 1}, event, dispatched);
    if (!plan.relabelled.empty())
        result |= push_event_to(plan.relabelled, event_for(BranchRoute::Relabelled, event).get(), dispatched);
    const GstEventType type = GST_EVENT_TYPE(event);
    if (type == GST_EVENT_EOS || type == GST_EVENT_FLUSH_START || type == GST_EVENT_FLUSH_STOP) {
        push_event_to(plan.dropped, event, dispatched);
        push_event_to(plan.waiting, event, dispatched);
    }
    return dispatched ? result : TRUE;
}

// At EOS the tee says what it did, on the bus (gst-launch-1.0 -m prints element messages): its
// counters as the stats property holds them, flattened (tee-stats.h). Posted before the EOS goes
// on, so it comes before the pipeline's EOS message; the counters are complete by then, since
// every frame, converted ones too, was handed on synchronously in this thread.
void post_stats(G2gTee *self)
{
    TeeCounters counters;
    {
        const element::ObjectLock lock(self);
        counters = self->priv->state.counters;
    }
    gst_element_post_message(GST_ELEMENT(self),
                             gst_message_new_element(GST_OBJECT(self), stats_message_of(counters)));
}

} // namespace

void copy_stream_events(GstPad *from, GstPad *to, StreamEventCopy how)
{
    std::pair<GstPad *, StreamEventCopy> data{to, how};
    gst_pad_sticky_events_foreach(from, copy_stream_event, &data);
}

gboolean sink_event(GstPad *, GstObject *parent, GstEvent *event)
{
    G2gTee *self = G2G_TEE(parent);
    const EventRef owned = EventRef::adopt(event);
    if (GST_EVENT_TYPE(event) == GST_EVENT_EOS)
        post_stats(self);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS && !plan_caps(self, event))
        return TRUE;
    // A serialized event comes on the streaming thread, which alone replaces the plan. Others
    // (flush-start) may come from any thread while a frame is on its way: a copy of the pointer.
    if (serialized(event)) {
        if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS)
            refresh_plan(self);
        return dispatch(*self->priv->state.plan, event);
    }
    return dispatch(*current_plan(self), event);
}

gboolean src_event(GstPad *pad, GstObject *parent, GstEvent *event)
{
    // A branch relinked or asking to renegotiate: the plan is made again before the next frame.
    if (GST_EVENT_TYPE(event) == GST_EVENT_RECONFIGURE)
        G2G_TEE(parent)->priv->state.plan_stale = true;
    return gst_pad_event_default(pad, parent, event);
}

gboolean feeder_event(GstPad *pad, GstObject *, GstEvent *event)
{
    // A conversion's RECONFIGURE is the tee's own doing, not upstream's to answer: linking the
    // conversion sends one up through each of its two links, and the tee links conversions while
    // it decides routes, in the caps event (whose allocation query, next, already covers the
    // conversion) or before a frame after branches came, went or relinked (whose pads sent their
    // own RECONFIGURE upstream). Passed on, it made upstream negotiate and query allocation again
    // at the stream's second frame, and a pipeline stopped then crashed in GStreamer 1.22's
    // vulkanupload (docs/design-notes.md, known trouble).
    if (GST_EVENT_TYPE(event) == GST_EVENT_RECONFIGURE) {
        const EventRef dropped = EventRef::adopt(event);
        return TRUE;
    }
    // Other upstream events of a conversion (QoS, navigation) go where the branches' would.
    return gst_pad_push_event(G2G_TEE(converter_of(pad)->tee())->sinkpad, event);
}

gboolean collector_event(GstPad *pad, GstObject *, GstEvent *event)
{
    const EventRef owned = EventRef::adopt(event);
    Converter *converter = converter_of(pad);
    const std::vector<PadRef> pads = pads_of(G2G_TEE(converter->tee()), converter);
    bool dispatched = false;
    const gboolean result = push_event_to(pads, event, dispatched);
    return dispatched ? result : TRUE;
}

} // namespace g2g::tee
