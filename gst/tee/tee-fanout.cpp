// g2gtee's data flow: each frame made shareable once, then a reference to every branch fed it
// as it is, and one conversion per target domain whose output every branch of that domain
// shares; events follow the same routes.
#include "tee-private.h"

#include "tee-caps.h"

#include <g2g/converters.h>
#include <g2g/classify.h>
#include <g2g/memory-domain.h>

#include <algorithm>
#include <utility>

namespace g2g::tee {

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

void FlowTally::merge(const FlowTally &other)
{
    ok += other.ok;
    shares += other.shares;
    eos += other.eos;
    if (failure == GST_FLOW_OK)
        failure = other.failure;
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

std::vector<GstPad *> pads_of(G2gTee *self, const Converter *converter)
{
    std::vector<GstPad *> pads;
    GST_OBJECT_LOCK(self);
    for (const Branch &branch : self->state->branches) {
        if (branch.route == Route::Converted && branch.converter == converter)
            pads.push_back(GST_PAD(gst_object_ref(branch.pad)));
    }
    GST_OBJECT_UNLOCK(self);
    return pads;
}

void unref_all(std::vector<GstPad *> &pads)
{
    for (GstPad *pad : pads)
        gst_object_unref(pad);
    pads.clear();
}

GstEvent *relabelled_caps_event(GstCaps *caps)
{
    GstCaps *system = in_domain(caps, MemoryDomainKind::System);
    GstEvent *event = gst_event_new_caps(system);
    gst_caps_unref(system);
    return event;
}

namespace {

gboolean copy_stream_event(GstPad *, GstEvent **event, gpointer user_data)
{
    const auto &[to, how] = *static_cast<std::pair<GstPad *, StreamEventCopy> *>(user_data);
    const bool caps = GST_EVENT_TYPE(*event) == GST_EVENT_CAPS;
    if (how.before_caps && GST_EVENT_TYPE(*event) >= GST_EVENT_CAPS)
        return FALSE;
    if (caps && how.skip_caps)
        return TRUE;
    GstEvent *copy = gst_event_ref(*event);
    if (caps && how.relabel) {
        GstCaps *original = nullptr;
        gst_event_parse_caps(*event, &original);
        gst_event_unref(copy);
        copy = relabelled_caps_event(original);
    }
    if (how.store) {
        gst_pad_store_sticky_event(to, copy);
        gst_event_unref(copy);
    } else {
        gst_pad_push_event(to, copy);
    }
    return TRUE;
}

} // namespace

void copy_stream_events(GstPad *from, GstPad *to, StreamEventCopy how)
{
    std::pair<GstPad *, StreamEventCopy> data{to, how};
    gst_pad_sticky_events_foreach(from, copy_stream_event, &data);
}

namespace {

// A push to a branch; a branch released while the frame was on its way is NOT_LINKED, not
// FLUSHING (which would stop upstream), as tee does with its removed pads.
GstFlowReturn push_to_branch(G2gTee *self, GstPad *pad, GstBuffer *buffer)
{
    GstFlowReturn ret = gst_pad_push(pad, buffer);
    if (ret == GST_FLOW_FLUSHING) {
        GST_OBJECT_LOCK(self);
        const auto &branches = self->state->branches;
        const bool released =
            std::none_of(branches.begin(), branches.end(), [&](const Branch &b) { return b.pad == pad; });
        GST_OBJECT_UNLOCK(self);
        if (released)
            ret = GST_FLOW_NOT_LINKED;
    }
    return ret;
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

void set_last_message(G2gTee *self, GstBuffer *frame)
{
    gchar *line = g_strdup_printf(
        "chain   ******* (%s:sink) (%" G_GSIZE_FORMAT " bytes, %" GST_TIME_FORMAT ") %p",
        GST_OBJECT_NAME(self), gst_buffer_get_size(frame), GST_TIME_ARGS(GST_BUFFER_PTS(frame)), frame);
    GST_OBJECT_LOCK(self);
    self->state->last_message = line;
    GST_OBJECT_UNLOCK(self);
    g_free(line);
    g_object_notify(G_OBJECT(self), "last-message");
}

// Pushes `event` to each pad: TRUE when one took it, or when there was no pad (as
// gst_pad_event_default does).
gboolean push_event_to(const std::vector<GstPad *> &pads, GstEvent *event, bool &dispatched)
{
    gboolean result = FALSE;
    for (GstPad *pad : pads) {
        result |= gst_pad_push_event(pad, gst_event_ref(event));
        dispatched = true;
    }
    return result;
}

} // namespace

GstFlowReturn sink_chain(GstPad *, GstObject *parent, GstBuffer *buffer)
{
    G2gTee *self = G2G_TEE(parent);
    TeeState &state = *self->state;
    g2g::BufferRef frame = g2g::BufferRef::adopt(buffer);

    if (state.routes_stale.exchange(false)) {
        GstCaps *caps = gst_pad_get_current_caps(self->sinkpad);
        state.refusal = caps ? decide_routes(self, caps, false) : std::nullopt;
        if (caps)
            gst_caps_unref(caps);
    }
    if (state.refusal) {
        Refusal &refusal = *state.refusal;
        if (!std::exchange(refusal.posted, true)) {
            gst_element_message_full(GST_ELEMENT(self), GST_MESSAGE_ERROR, refusal.domain, refusal.code,
                                     g_strdup(refusal.message.c_str()), g_strdup(refusal.debug.c_str()),
                                     __FILE__, GST_FUNCTION, __LINE__);
        }
        return GST_FLOW_ERROR;
    }

    GST_OBJECT_LOCK(self);
    for (Branch &branch : state.branches) {
        GstPad *pad = GST_PAD(gst_object_ref(branch.pad));
        switch (branch.route) {
        case Route::Unresolved:
        case Route::Direct:
            state.pushing.push_back(pad);
            break;
        case Route::Relabelled:
            state.pushing_relabelled.push_back(pad);
            break;
        case Route::Converted:
            branch.converter->pushing.push_back(pad);
            break;
        case Route::Dropped:
            gst_object_unref(pad);
            if (!branch.gap_sent) {
                state.gapping.push_back(GST_PAD(gst_object_ref(branch.pad)));
                branch.gap_sent = true;
            }
            break;
        }
    }
    const bool allow_not_linked = state.allow_not_linked;
    const bool silent = state.silent;
    GST_OBJECT_UNLOCK(self);

    // The seed's fan-out: make the frame shareable once, then a reference per branch. A buffer
    // of a memory type g2g does not know is still shared by reference, just not re-wrapped.
    if (!g2g::buffer_is_shareable(frame.get())) {
        if (auto domain = g2g::MemoryDomain::from_buffer(frame.get())) {
            domain->make_shareable();
            frame = domain->buffer_ref();
        }
    }
    if (!silent)
        set_last_message(self, frame.get());

    // A dropped branch's sink still has to preroll, or the pipeline never reaches PLAYING:
    // it gets the stream (without caps) and a gap where the frames would have been.
    for (GstPad *pad : state.gapping) {
        copy_stream_events(self->sinkpad, pad, {.store = true, .skip_caps = true});
        gst_pad_push_event(
            pad, gst_event_new_gap(GST_BUFFER_PTS_IS_VALID(frame.get()) ? GST_BUFFER_PTS(frame.get()) : 0,
                                   GST_BUFFER_DURATION(frame.get())));
    }
    unref_all(state.gapping);

    FlowTally &tally = state.tally;
    tally = {};
    for (GstPad *pad : state.pushing)
        tally.add(push_to_branch(self, pad, gst_buffer_ref(frame.get())));

    // Relabelled frames are checked once per stream (a map of fd memory is an mmap): one that
    // maps shows the stream's memory does; a later frame that would not fails its reader.
    bool relabelled = false;
    if (!state.pushing_relabelled.empty()) {
        if (!state.relabel_verified && !maps_for_reading(frame.get())) {
            GST_ELEMENT_ERROR(self, STREAM, FAILED,
                              ("%s: a DMABuf frame that cannot be mapped reached branches that read system "
                               "memory: insert %s before them",
                               GST_OBJECT_NAME(self),
                               converter_between(MemoryDomainKind::DmaBuf, MemoryDomainKind::System).c_str()),
                              (nullptr));
            tally.add_verdict(GST_FLOW_ERROR);
        } else {
            state.relabel_verified = relabelled = true;
            for (GstPad *pad : state.pushing_relabelled)
                tally.add(push_to_branch(self, pad, gst_buffer_ref(frame.get())));
        }
    }

    for (const auto &converter : state.converters) {
        if (converter->pushing.empty())
            continue;
        converter->delivered = false;
        const GstFlowReturn ret = gst_pad_push(converter->feeder(), gst_buffer_ref(frame.get()));
        // A conversion that kept the frame (or failed on it) speaks for its branches once.
        if (!converter->delivered)
            tally.add_verdict(ret);
        unref_all(converter->pushing);
    }
    unref_all(state.pushing);
    unref_all(state.pushing_relabelled);

    static const std::string relabel_pair = "DmaBuf-to-System";
    GST_OBJECT_LOCK(self);
    ++state.frames;
    state.shares += tally.shares;
    if (relabelled)
        ++state.conversions[relabel_pair];
    GST_OBJECT_UNLOCK(self);
    return tally.combined(allow_not_linked);
}

GstFlowReturn collector_chain(GstPad *pad, GstObject *, GstBuffer *buffer)
{
    Converter *converter = converter_of(pad);
    G2gTee *self = G2G_TEE(converter->tee());
    TeeState &state = *self->state;
    converter->delivered = true;
    // Bytes a conversion wrote: a frame still in its source domain (handed on, not converted)
    // moved none.
    const Result<MemoryDomainKind> out = classify_buffer(buffer);
    const bool converted = !out || *out != converter->from();
    GST_OBJECT_LOCK(self);
    ++state.conversions[converter->pair()];
    state.bytes_converted += converted ? gst_buffer_get_size(buffer) : 0;
    GST_OBJECT_UNLOCK(self);
    FlowTally delivered;
    for (GstPad *branch : converter->pushing)
        delivered.add(push_to_branch(self, branch, gst_buffer_ref(buffer)));
    gst_buffer_unref(buffer);
    state.tally.merge(delivered);
    // The conversion goes on while one of its branches takes frames.
    return delivered.combined(true);
}

gboolean sink_event(GstPad *, GstObject *parent, GstEvent *event)
{
    G2gTee *self = G2G_TEE(parent);
    TeeState &state = *self->state;
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
        GstCaps *caps = nullptr;
        gst_event_parse_caps(event, &caps);
        state.routes_stale = false;
        // A refusal is an element error at the first frame and an error for each frame; the
        // caps themselves are accepted, so upstream does not add a not-negotiated of its own
        // (and stops on the first frame, as it would on any other flow error).
        state.refusal = decide_routes(self, caps, true);
        if (state.refusal) {
            gst_event_unref(event);
            return TRUE;
        }
    }

    // Branches fed as they are, relabelled ones, each conversion once, and dropped branches
    // only what ends or flushes their stream.
    std::vector<GstPad *> plain, relabelled, feeders, dropped;
    GST_OBJECT_LOCK(self);
    for (const Branch &branch : state.branches) {
        switch (branch.route) {
        case Route::Unresolved:
        case Route::Direct:
            plain.push_back(GST_PAD(gst_object_ref(branch.pad)));
            break;
        case Route::Relabelled:
            relabelled.push_back(GST_PAD(gst_object_ref(branch.pad)));
            break;
        case Route::Converted:
            if (std::find(feeders.begin(), feeders.end(), branch.converter->feeder()) == feeders.end())
                feeders.push_back(GST_PAD(gst_object_ref(branch.converter->feeder())));
            break;
        case Route::Dropped:
            dropped.push_back(GST_PAD(gst_object_ref(branch.pad)));
            break;
        }
    }
    GST_OBJECT_UNLOCK(self);

    bool dispatched = false;
    gboolean result = push_event_to(plain, event, dispatched);
    result |= push_event_to(feeders, event, dispatched);
    if (!relabelled.empty()) {
        GstEvent *relabelled_event = event;
        if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
            GstCaps *caps = nullptr;
            gst_event_parse_caps(event, &caps);
            relabelled_event = relabelled_caps_event(caps);
        } else {
            gst_event_ref(relabelled_event);
        }
        result |= push_event_to(relabelled, relabelled_event, dispatched);
        gst_event_unref(relabelled_event);
    }
    const GstEventType type = GST_EVENT_TYPE(event);
    if (type == GST_EVENT_EOS || type == GST_EVENT_FLUSH_START || type == GST_EVENT_FLUSH_STOP)
        push_event_to(dropped, event, dispatched);
    gst_event_unref(event);
    for (auto *pads : {&plain, &relabelled, &feeders, &dropped})
        unref_all(*pads);
    return dispatched ? result : TRUE;
}

gboolean src_event(GstPad *pad, GstObject *parent, GstEvent *event)
{
    // A branch relinked or asking to renegotiate: decide its route again before the next frame.
    if (GST_EVENT_TYPE(event) == GST_EVENT_RECONFIGURE)
        G2G_TEE(parent)->state->routes_stale = true;
    return gst_pad_event_default(pad, parent, event);
}

gboolean feeder_event(GstPad *pad, GstObject *, GstEvent *event)
{
    // Upstream events of a conversion (QoS, reconfigure) go where the branches' would.
    return gst_pad_push_event(G2G_TEE(converter_of(pad)->tee())->sinkpad, event);
}

gboolean collector_event(GstPad *pad, GstObject *, GstEvent *event)
{
    Converter *converter = converter_of(pad);
    std::vector<GstPad *> pads = pads_of(G2G_TEE(converter->tee()), converter);
    bool dispatched = false;
    const gboolean result = push_event_to(pads, event, dispatched);
    gst_event_unref(event);
    unref_all(pads);
    return dispatched ? result : TRUE;
}

} // namespace g2g::tee
