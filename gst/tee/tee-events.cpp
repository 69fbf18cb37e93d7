// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's events: downstream events follow the frames' routes (a relabelled branch's caps in
// system memory, a restated branch's in the other DMABuf form, a conversion's branches through
// the conversion, a dropped branch only what ends or flushes its stream); upstream events of
// branches and conversions go upstream.
#include "tee-private.h"

#include "tee-caps.h"

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
    if (how.before_caps && GST_EVENT_TYPE(*event) >= GST_EVENT_CAPS)
        return FALSE;
    if (caps && how.skip_caps)
        return TRUE;
    EventRef copy = event_for(how.route, *event);
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

// Routes for the caps of a caps event; false where they are refused. A refusal is an element
// error at the first frame and an error for each frame, while the caps event itself is accepted
// and goes no further: upstream then adds no not-negotiated of its own (and stops on the first
// frame, as it would on any other flow error).
bool route_caps(G2gTee *self, GstEvent *event)
{
    TeeState &state = self->priv->state;
    GstCaps *caps = nullptr;
    gst_event_parse_caps(event, &caps);
    state.routes_stale = false;
    state.refusal = decide_routes(self, caps, true);
    return !state.refusal;
}

// Branches fed as they are, restated branches, each conversion once, relabelled branches, and
// dropped branches only what ends or flushes their stream.
gboolean dispatch(G2gTee *self, RouteSnapshot &routes, GstEvent *event)
{
    const HeldRoutes held = routes.take(self, Gaps::Leave);
    // A branch linked since the routes were decided gets the stream's sticky events with its
    // route, before the next frame.
    if (routes.undecided)
        self->priv->state.routes_stale = true;
    bool dispatched = false;
    gboolean result = push_event_to(routes.direct, event, dispatched);
    if (!routes.restated.empty())
        result |= push_event_to(routes.restated, event_for(BranchRoute::Restated, event).get(), dispatched);
    for (const Conversion &conversion : routes.conversions())
        result |= push_event_to({&conversion.feeder, 1}, event, dispatched);
    if (!routes.relabelled.empty())
        result |=
            push_event_to(routes.relabelled, event_for(BranchRoute::Relabelled, event).get(), dispatched);
    const GstEventType type = GST_EVENT_TYPE(event);
    if (type == GST_EVENT_EOS || type == GST_EVENT_FLUSH_START || type == GST_EVENT_FLUSH_STOP)
        push_event_to(routes.dropped, event, dispatched);
    return dispatched ? result : TRUE;
}

} // namespace

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

void copy_stream_events(GstPad *from, GstPad *to, StreamEventCopy how)
{
    std::pair<GstPad *, StreamEventCopy> data{to, how};
    gst_pad_sticky_events_foreach(from, copy_stream_event, &data);
}

gboolean sink_event(GstPad *, GstObject *parent, GstEvent *event)
{
    G2gTee *self = G2G_TEE(parent);
    const EventRef owned = EventRef::adopt(event);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS && !route_caps(self, event))
        return TRUE;
    // A serialized event comes under the sink pad's stream lock, as frames do: it reuses the
    // chain's snapshot. Others (flush-start) may come while a frame is on its way: their own.
    if (serialized(event))
        return dispatch(self, self->priv->state.routes, event);
    RouteSnapshot routes;
    return dispatch(self, routes, event);
}

gboolean src_event(GstPad *pad, GstObject *parent, GstEvent *event)
{
    // A branch relinked or asking to renegotiate: decide its route again before the next frame.
    if (GST_EVENT_TYPE(event) == GST_EVENT_RECONFIGURE)
        G2G_TEE(parent)->priv->state.routes_stale = true;
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
        gst_event_unref(event);
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
