// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's instance and what its files share. g2gtee.cpp is the element (pads, properties,
// state changes); tee-pad is a branch's src pad; tee-plan.h is what negotiation decided, made by
// tee-routes (the plan function) from what tee-snapshot takes and swapped in by it; tee-fanout
// pushes frames and tee-events events along the plan; tee-negotiation answers queries, with
// tee-allocation; tee-converter is one conversion, tee-caps the caps arithmetic of domains;
// tee-route-name says a route in words (the log, last-message), tee-stats the counters (the stats
// property, the message at EOS).
#pragma once

#include "g2gtee.h"
#include "tee-converter.h"
#include "tee-pad.h"
#include "tee-snapshot.h"

#include "common/cuda-context.h"
#include "common/vulkan-context.h"

#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_EXTERN(g2g_tee_debug);

namespace g2g::tee {

// tee's pull modes, same nicks; only "never" is implemented (push mode).
enum PullMode { PULL_MODE_NEVER, PULL_MODE_SINGLE };

// tee's flow rules over the pushes of one frame: OK when one branch took it; EOS only when
// every linked branch is at EOS; the first other error as it is; NOT_LINKED when no branch is
// linked (OK with allow-not-linked).
struct FlowTally {
    guint ok = 0;
    guint shares = 0; // OK pushes to branches (a conversion's result is a verdict, not a share)
    guint eos = 0;
    GstFlowReturn failure = GST_FLOW_OK;

    void add(GstFlowReturn ret);         // a push to a branch
    void add_verdict(GstFlowReturn ret); // a conversion's result for its branches
    GstFlowReturn combined(bool allow_not_linked) const;
};

// The properties. Guarded by the object lock, which is the innermost lock: taken inside the
// sink pad's stream lock, never around it, and held only to copy values in or out (never across
// a push, a query, a posted message or a log line, which may take other locks).
struct TeeSettings {
    bool has_chain = true;
    bool silent = true;
    bool allow_not_linked = false;
    PullMode pull_mode = PULL_MODE_NEVER;
    FanOutPolicy fan_out_policy = FAN_OUT_POLICY_FAIL;
    gint copy_budget = -1;
    PadRef alloc_pad; // kept for tee compatibility; allocation is aggregated over all pads
};

// The stats property (the seed's copy policy): frames in, shares handed out (also per domain),
// copies the tee made itself, conversions per domain pair ("VulkanTexture-to-System") and the bytes they
// wrote.
struct TeeCounters {
    guint64 frames = 0;
    // Conversions between two device domains through system memory (a download, then an upload).
    guint64 host_round_trips = 0;
    guint64 shares = 0;
    // The shares by the domain of the frame shared (a converted frame's is its target's), indexed
    // by MemoryDomainKind: a count, so a frame allocates nothing.
    std::array<guint64, kMemoryDomainKindCount> shares_by_domain{};
    guint64 copies = 0;
    guint64 bytes_copied = 0;
    std::map<std::string, guint64> conversions;
    std::map<std::string, std::string> converters; // per pair, the element chain that converts
    guint64 bytes_converted = 0;
};

// Negotiated and streaming state.
struct TeeState {
    // Object lock (as TeeSettings): the branches, each a G2gTeeSrcPad with its route, in
    // request order; the indexes of the src_%u pads that exist (claimed before a pad is made,
    // freed once it is removed, as tee's pad_indexes) and the next one; last-message; the
    // counters.
    std::vector<PadRef> branches;
    std::set<guint> pad_indexes;
    guint next_index = 0;
    std::string last_message;
    TeeCounters counters;

    // The plan in force: replaced in whole by the streaming thread under the object lock (so the
    // streaming thread reads it without the lock, and every other thread copies the pointer under
    // it); a released branch or a stopped conversion's feeder stays alive while a plan names it.
    std::shared_ptr<const TeePlan> plan = std::make_shared<const TeePlan>();

    // Any thread, no lock: set when pads come, go or relink and when a setting changes; the
    // streaming thread makes the plan again before the next frame.
    std::atomic<bool> plan_stale{true};

    // Streaming thread only, under the sink pad's stream lock (taken before the object lock):
    // the chain, serialized events and route decisions run there; state changes and dispose
    // touch these only once streaming has stopped.
    //
    // The last plan was refused: frames are refused until a plan is made again, and the first
    // refused frame posts the error (refuse(), the one place). Not at the caps event: there upstream
    // is still negotiating (its allocation query comes next), and an error makes the application
    // stop the pipeline under it. GStreamer 1.22's vulkanupload answers that query with a device its
    // stop has just released: the loader aborts.
    std::optional<Refusal> refusal;
    bool refusal_posted = false;
    // Upstream's renegotiations: caps events, and allocation queries that no caps event came
    // before (upstream renegotiated and kept its caps). The count at which each branch of the plan
    // that waits began to (BranchAnswer::renegotiations_waited).
    guint renegotiations = 0;
    bool caps_before_allocation = false;
    std::map<const GstPad *, guint> waiting_since;
    // The plan's newly dropped branches are owed a gap by its first frame.
    bool gaps_owed = false;
    // A relabelled (DMABuf) frame of the current plan mapped for reading.
    bool relabel_verified = false;
    // The conversions in use (the plan points at them).
    std::vector<std::unique_ptr<Converter>> converters;
};

// The Vulkan device g2gtee hands the Vulkan elements of its branches and of its conversions when
// no one upstream has one (a provider, in a build with g2gconvert): the branches' elements ask for
// it before the tee's own state change, and the device that a CUDA-to-Vulkan conversion writes
// into must be one that g2g opened with the extension sharing needs. On the GPU of the CUDA
// context upstream, if any. Their own locks (contexts come from other threads).
struct TeeGpu {
    g2g::element::CudaContextUse cuda;
    g2g::element::VulkanContextUse vulkan;
};

struct TeePrivate {
    TeeSettings settings;
    TeeState state;
    TeeGpu gpu;
};

} // namespace g2g::tee

struct _G2gTee {
    GstBin parent;
    GstPad *sinkpad;
    g2g::tee::TeePrivate *priv; // created in _init, deleted in _finalize
};

namespace g2g::tee {

// tee-negotiation.cpp
gboolean sink_query(GstPad *pad, GstObject *parent, GstQuery *query);
gboolean src_query(GstPad *pad, GstObject *parent, GstQuery *query);
gboolean feeder_query(GstPad *pad, GstObject *parent, GstQuery *query);
gboolean collector_query(GstPad *pad, GstObject *parent, GstQuery *query);

// tee-fanout.cpp
GstFlowReturn sink_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer);
GstFlowReturn collector_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer);

// tee-events.cpp
gboolean sink_event(GstPad *pad, GstObject *parent, GstEvent *event);
gboolean src_event(GstPad *pad, GstObject *parent, GstEvent *event);
gboolean collector_event(GstPad *pad, GstObject *parent, GstEvent *event);
gboolean feeder_event(GstPad *pad, GstObject *parent, GstEvent *event);

// How copy_stream_events hands on the events.
struct StreamEventCopy {
    bool store = true;       // stored on `to` (a branch pad), else pushed (into a feeder)
    GstCaps *caps = nullptr; // in place of the stored caps (those of the caps event in flight)
    BranchRoute route = BranchRoute::Direct; // the caps as a branch of this route takes them (caps_for_route)
    bool skip_caps = false;                  // everything but the caps (a dropped branch)
};

// Hands `from`'s sticky events (stream-start, caps, segment, tags) to `to`, so a branch or a
// conversion starts where the stream is.
void copy_stream_events(GstPad *from, GstPad *to, StreamEventCopy how);

} // namespace g2g::tee
