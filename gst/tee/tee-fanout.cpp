// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's frames: each frame made shareable once, then a reference to every branch fed it as
// it is, and one conversion per target domain whose output every branch of that domain shares.
#include "tee-private.h"

#include <g2g/classify.h>
#include <g2g/converters.h>
#include <g2g/memory-domain.h>

#include "common/element-error.h"
#include "common/object-lock.h"

#include <algorithm>

#include <span>
#include <utility>

namespace g2g::tee {

using element::ObjectLock;

void FlowTally::add(GstFlowReturn ret)
{
    if (ret == GST_FLOW_OK) {
        ++ok;
        ++shares;
    } else {
        add_verdict(ret);
    }
}

void FlowTally::add_verdict(GstFlowReturn ret)
{
    if (ret == GST_FLOW_OK)
        ++ok;
    else if (ret == GST_FLOW_EOS)
        ++eos;
    else if (ret != GST_FLOW_NOT_LINKED && failure == GST_FLOW_OK)
        failure = ret; // FLUSHING too: one flushing branch flushes the tee, as with tee
}

GstFlowReturn FlowTally::combined(bool allow_not_linked) const
{
    if (failure != GST_FLOW_OK)
        return failure;
    if (ok > 0)
        return GST_FLOW_OK;
    if (eos > 0)
        return GST_FLOW_EOS;
    return allow_not_linked ? GST_FLOW_OK : GST_FLOW_NOT_LINKED;
}

namespace {

// A push to a branch; a branch released while the frame was on its way is NOT_LINKED, not
// FLUSHING (which would stop upstream), as tee does with its removed pads.
GstFlowReturn push_to_branch(G2gTee *self, GstPad *pad, GstBuffer *frame)
{
    const GstFlowReturn ret = gst_pad_push(pad, gst_buffer_ref(frame));
    if (ret != GST_FLOW_FLUSHING)
        return ret;
    const ObjectLock lock(self);
    return holds_branch(self->priv->state, pad) ? ret : GST_FLOW_NOT_LINKED;
}

void push_to_all(G2gTee *self, std::span<const PadRef> pads, GstBuffer *frame, FlowTally &tally)
{
    for (const PadRef &pad : pads)
        tally.add(push_to_branch(self, pad.get(), frame));
}

// A relabelled branch reads the DMABuf in place: every memory must map for reading.
bool maps_for_reading(GstBuffer *buffer)
{
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, i);
        GstMapInfo info;
        if (!gst_memory_map(memory, &info, GST_MAP_READ))
            return false;
        gst_memory_unmap(memory, &info);
    }
    return true;
}

// The chain's steps, in order.

// True when a branch unlinked in the plan has been linked since without a RECONFIGURE (a link
// made with GST_PAD_LINK_CHECK_NO_RECONFIGURE): fed nothing by this plan, it waits for the next,
// made before this frame. Fed as it is, it would get frames in a domain it may not read.
bool linked_since(const TeePlan &plan)
{
    return plan.negotiated && std::any_of(plan.unlinked.begin(), plan.unlinked.end(),
                                          [](const PadRef &pad) { return gst_pad_is_linked(pad.get()); });
}

// A frame the plan refused: the element error once, then an error for every frame. The one place
// a refusal is posted.
GstFlowReturn refuse(G2gTee *self)
{
    TeeState &state = self->priv->state;
    if (std::exchange(state.refusal_posted, true))
        return GST_FLOW_ERROR;
    const Refusal &refusal = *state.refusal;
    return element::post_error(GST_ELEMENT(self), refusal.domain, refusal.code, refusal.message,
                               refusal.debug);
}

// The seed's fan-out: pool memory flagged NO_SHARE made shareable once (without copying), so
// every branch's reference shares it. A buffer of a memory type g2g does not know is still
// shared by reference, just not re-wrapped.
void make_shareable(BufferRef &frame)
{
    if (buffer_is_shareable(frame.get()))
        return;
    if (auto domain = MemoryDomain::from_buffer(frame.get())) {
        domain->make_shareable();
        frame = domain->buffer_ref();
    }
}

// last-message (silent=false only): what the tee does with this frame per branch, in the plan's
// words (made once per plan), notified so gst-launch-1.0 -v prints it as it prints identity's.
void announce(G2gTee *self, const TeePlan &plan, GstBuffer *frame)
{
    g_autofree gchar *line = g_strdup_printf("pts %" GST_TIME_FORMAT ": %s",
                                             GST_TIME_ARGS(GST_BUFFER_PTS(frame)), plan.summary.c_str());
    {
        const ObjectLock lock(self);
        self->priv->state.last_message = line;
    }
    g_object_notify(G_OBJECT(self), "last-message");
}

// A dropped branch's sink still has to preroll, or the pipeline never reaches PLAYING: it gets
// the stream (without caps) and a gap where the frames would have been.
void gap_dropped_branches(G2gTee *self, const TeePlan &plan, GstBuffer *frame)
{
    if (!std::exchange(self->priv->state.gaps_owed, false))
        return;
    for (const PadRef &pad : plan.newly_dropped) {
        copy_stream_events(self->sinkpad, pad.get(), {.store = true, .skip_caps = true});
        gst_pad_push_event(pad.get(),
                           gst_event_new_gap(GST_BUFFER_PTS_IS_VALID(frame) ? GST_BUFFER_PTS(frame) : 0,
                                             GST_BUFFER_DURATION(frame)));
    }
}

// Relabelled frames are checked once per stream (a map of fd memory is an mmap): one that maps
// shows the stream's memory does; a later frame that would not fails its reader. True when the
// frame went to them (a relabelling to count).
bool push_to_relabelled(G2gTee *self, const TeePlan &plan, GstBuffer *frame, FlowTally &tally)
{
    TeeState &state = self->priv->state;
    if (plan.relabelled.empty())
        return false;
    if (!state.relabel_verified && !maps_for_reading(frame)) {
        element::post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                            std::string(GST_OBJECT_NAME(self)) +
                                ": a DMABuf frame that cannot be mapped reached branches that read system "
                                "memory: insert " +
                                converter_between(MemoryDomainKind::DmaBuf, MemoryDomainKind::System) +
                                " before them");
        tally.add_verdict(GST_FLOW_ERROR);
        return false;
    }
    state.relabel_verified = true;
    push_to_all(self, plan.relabelled, frame, tally);
    return true;
}

// Each conversion converts the frame once for all its branches; its result (collector_chain's
// over its branches, or the conversion's own where it kept the frame or failed on it) speaks for
// them once.
void push_through_conversions(const TeePlan &plan, GstBuffer *frame, FlowTally &tally)
{
    for (const PlannedConversion &conversion : plan.conversions)
        tally.add_verdict(gst_pad_push(conversion.feeder.get(), gst_buffer_ref(frame)));
}

// The tally's shares are of `frame` itself (those of converted frames collector_chain counts, by
// their own domain).
void account(G2gTee *self, const FlowTally &tally, bool relabelled, GstBuffer *frame)
{
    static const std::string relabel_pair = "DmaBuf-to-System";
    const Result<MemoryDomainKind> domain = classify_buffer(frame);
    const ObjectLock lock(self);
    TeeCounters &counters = self->priv->state.counters;
    ++counters.frames;
    counters.shares += tally.shares;
    if (domain)
        counters.shares_by_domain[static_cast<std::size_t>(*domain)] += tally.shares;
    if (relabelled)
        ++counters.conversions[relabel_pair];
}

} // namespace

GstFlowReturn sink_chain(GstPad *, GstObject *parent, GstBuffer *buffer)
{
    G2gTee *self = G2G_TEE(parent);
    TeeState &state = self->priv->state;
    BufferRef frame = BufferRef::adopt(buffer);

    refresh_plan(self);
    if (!state.refusal && linked_since(*state.plan)) {
        state.plan_stale = true;
        refresh_plan(self);
    }
    if (state.refusal)
        return refuse(self);
    // Only this thread replaces the plan, and not while a frame is on its way.
    const TeePlan &plan = *state.plan;
    make_shareable(frame);
    if (!plan.silent)
        announce(self, plan, frame.get());
    gap_dropped_branches(self, plan, frame.get());

    FlowTally tally;
    push_to_all(self, plan.direct, frame.get(), tally);
    push_to_all(self, plan.restated, frame.get(), tally);
    const bool relabelled = push_to_relabelled(self, plan, frame.get(), tally);
    account(self, tally, relabelled, frame.get());
    push_through_conversions(plan, frame.get(), tally);
    // Branches waiting for upstream's new caps: the frame is one of the old caps, theirs by right
    // of being no refusal (upstream is not told not-linked for them).
    if (!plan.waiting.empty())
        tally.add_verdict(GST_FLOW_OK);
    return tally.combined(plan.allow_not_linked);
}

GstFlowReturn collector_chain(GstPad *pad, GstObject *, GstBuffer *buffer)
{
    const BufferRef owned = BufferRef::adopt(buffer);
    Converter *converter = converter_of(pad);
    G2gTee *self = G2G_TEE(converter->tee());
    TeeState &state = self->priv->state;
    // Bytes a conversion wrote: a frame still in its source domain (handed on, not converted)
    // moved none.
    const Result<MemoryDomainKind> out = classify_buffer(buffer);
    const bool converted = !out || *out != converter->from();
    std::shared_ptr<const TeePlan> plan;
    {
        const ObjectLock lock(self);
        ++state.counters.conversions[converter->pair()];
        state.counters.converters[converter->pair()] = converter->description();
        state.counters.host_round_trips += converter->through_host() ? 1 : 0;
        state.counters.bytes_converted += converted ? gst_buffer_get_size(buffer) : 0;
        plan = state.plan;
    }
    FlowTally delivered;
    if (const PlannedConversion *conversion = plan->conversion_of(converter))
        push_to_all(self, conversion->pads, buffer, delivered);
    {
        const ObjectLock lock(self);
        state.counters.shares += delivered.shares;
        if (out)
            state.counters.shares_by_domain[static_cast<std::size_t>(*out)] += delivered.shares;
    }
    // Back through the conversion to push_through_conversions, as the verdict of its branches.
    return delivered.combined(false);
}

} // namespace g2g::tee
