// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee: tee for frames in any memory domain. Every branch gets the same frame by reference
// count (pool memory flagged NO_SHARE is made shareable once, without copying), in the memory
// domain it negotiated: a branch that takes the upstream domain gets the frame itself, a
// system-memory branch of a mappable DMABuf stream reads it in place, and the branches of
// another domain share one conversion per frame (vulkandownload, cudadownload, g2gmaterialize)
// instead of one each. Pads and properties are tee's, plus fan-out-policy, copy-budget and stats.
// It says what it did: the stats as an element message at EOS (gst-launch-1.0 -m), each branch's
// route in last-message with silent=false (gst-launch-1.0 -v) and at INFO when a plan is made.
//
//   gst-launch-1.0 videotestsrc ! vulkanupload ! g2gtee name=t ! queue ! vulkansink t. ! queue ! glimagesink
//
// This file is the element: its pads, properties and state changes. The properties
// (TeeSettings) are kept apart from what negotiation decides: one immutable plan (tee-plan.h),
// made from a snapshot of them, the caps and the branches' answers at the caps event and again
// after pads or settings changed, and swapped in whole; frames and events read only the plan.
#include "g2gtee.h"

#include "tee-private.h"
#include "tee-stats.h"

#include "common/element-docs.h"
#include "common/object-lock.h"
#include <g2g-internal/plugin-interface.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY(g2g_tee_debug);
#define GST_CAT_DEFAULT g2g_tee_debug

using g2g::element::ObjectLock;
using g2g::tee::PadRef;
using g2g::tee::TeePrivate;
using g2g::tee::TeeSettings;
using g2g::tee::TeeState;

namespace {

enum {
    PROP_0,
    PROP_NUM_SRC_PADS,
    PROP_HAS_CHAIN,
    PROP_SILENT,
    PROP_LAST_MESSAGE,
    PROP_PULL_MODE,
    PROP_ALLOC_PAD,
    PROP_ALLOW_NOT_LINKED,
    PROP_STATS,
    PROP_FAN_OUT_POLICY,
    PROP_COPY_BUDGET,
};

GType pull_mode_get_type()
{
    static GType type = [] {
        static const GEnumValue values[] = {
            {g2g::tee::PULL_MODE_NEVER, "Never activate in pull mode", "never"},
            {g2g::tee::PULL_MODE_SINGLE,
             "Only one src pad can be active in pull mode (not supported by g2gtee)", "single"},
            {0, nullptr, nullptr}};
        return g_enum_register_static("G2gTeePullMode", values);
    }();
    return type;
}

GType fan_out_policy_get_type()
{
    static GType type = [] {
        static const GEnumValue values[] = {
            {g2g::tee::FAN_OUT_POLICY_FAIL,
             "A branch no conversion reaches is an element error naming the branch, the domain and the "
             "converter to insert",
             "fail"},
            {g2g::tee::FAN_OUT_POLICY_DROP_BRANCH,
             "A branch no conversion reaches gets no frames (one warning says so); the others go on",
             "drop-branch"},
            {0, nullptr, nullptr}};
        return g_enum_register_static("G2gTeeFanOutPolicy", values);
    }();
    return type;
}

// Claims the index of a new src pad exactly as GStreamer 1.22's tee does: a name that sscanf reads
// as src_%u asks for that index (refused when a pad has it: "src_00" asks for 0 like "src_0"),
// any other name or none takes the next free index. nullopt where the index is taken. Object
// lock held.
std::optional<guint> claim_index(TeeState &state, const gchar *name_req)
{
    guint index = 0;
    if (name_req && sscanf(name_req, "src_%u", &index) == 1) {
        if (state.pad_indexes.contains(index))
            return std::nullopt;
        if (index >= state.next_index)
            state.next_index = index + 1;
    } else {
        index = state.next_index;
        while (state.pad_indexes.contains(index))
            ++index;
        state.next_index = index + 1;
    }
    state.pad_indexes.insert(index);
    return index;
}

gboolean store_sticky_event(GstPad *, GstEvent **event, gpointer user_data)
{
    gst_pad_store_sticky_event(GST_PAD(user_data), *event);
    return TRUE;
}

} // namespace

G_DEFINE_TYPE(G2gTee, g2g_tee, GST_TYPE_BIN)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src_%u", GST_PAD_SRC, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);

static GstPad *g2g_tee_request_new_pad(GstElement *element, GstPadTemplate *templ, const gchar *name_req,
                                       const GstCaps *)
{
    G2gTee *self = G2G_TEE(element);
    TeeState &state = self->priv->state;
    std::optional<guint> index;
    {
        const ObjectLock lock(self);
        index = claim_index(state, name_req);
    }
    if (!index) {
        GST_ERROR_OBJECT(self, "pad name %s is not unique", name_req);
        return nullptr;
    }

    g_autofree gchar *name = g_strdup_printf("src_%u", *index);
    GstPad *pad = GST_PAD(g_object_new(G2G_TYPE_TEE_SRC_PAD, "name", name, "direction",
                                       GST_PAD_TEMPLATE_DIRECTION(templ), "template", templ, nullptr));
    g2g::tee::branch_of(pad)->index = *index;
    gst_pad_set_query_function(pad, g2g::tee::src_query);
    gst_pad_set_event_function(pad, g2g::tee::src_event);

    if (GST_STATE(element) > GST_STATE_READY || GST_STATE_TARGET(element) > GST_STATE_READY)
        gst_pad_set_active(pad, TRUE);
    // Stream-start, caps and segment of the stream so far (after activation, which would clear
    // them), so the branch starts where the stream is; its route, and with it the caps it gets,
    // is decided before the next frame.
    gst_pad_sticky_events_foreach(self->sinkpad, store_sticky_event, pad);

    {
        const ObjectLock lock(self);
        state.branches.push_back(PadRef::borrow(pad));
    }
    state.plan_stale = true;
    if (!gst_element_add_pad(element, pad)) {
        // Not a branch after all (the element refused the pad): no count, no index kept.
        {
            const ObjectLock lock(self);
            std::erase_if(state.branches, [&](const PadRef &b) { return b.get() == pad; });
            state.pad_indexes.erase(*index);
        }
        gst_pad_set_active(pad, FALSE);
        const PadRef unwanted = PadRef::adopt(GST_PAD(gst_object_ref_sink(pad))); // no parent took it
        return nullptr;
    }
    g_object_notify(G_OBJECT(self), "num-src-pads");
    return pad;
}

static void g2g_tee_release_pad(GstElement *element, GstPad *pad)
{
    G2gTee *self = G2G_TEE(element);
    TeePrivate &priv = *self->priv;
    PadRef released; // the list's reference, dropped once the pad is removed
    {
        const ObjectLock lock(self);
        auto &branches = priv.state.branches;
        const auto found =
            std::find_if(branches.begin(), branches.end(), [&](const PadRef &b) { return b.get() == pad; });
        if (found != branches.end()) {
            released = std::move(*found);
            branches.erase(found);
        }
        if (priv.settings.alloc_pad.get() == pad)
            priv.settings.alloc_pad.reset();
    }
    if (!released)
        return;
    const guint index = g2g::tee::branch_of(pad)->index;
    gst_pad_set_active(pad, FALSE);
    gst_element_remove_pad(element, pad);
    released.reset();
    priv.state.plan_stale = true; // its conversion may have no branch left
    {
        // Free for a new pad only now that no pad has the name (tee frees it here too).
        const ObjectLock lock(self);
        priv.state.pad_indexes.erase(index);
    }
    g_object_notify(G_OBJECT(self), "num-src-pads");
}

static void g2g_tee_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gTee *self = G2G_TEE(object);
    TeePrivate &priv = *self->priv;
    TeeSettings &settings = priv.settings;
    bool has_chain;
    {
        const ObjectLock lock(self);
        switch (prop_id) {
        case PROP_HAS_CHAIN:
            settings.has_chain = g_value_get_boolean(value);
            break;
        case PROP_SILENT:
            settings.silent = g_value_get_boolean(value);
            priv.state.plan_stale = true; // the plan follows it
            break;
        case PROP_PULL_MODE:
            settings.pull_mode = static_cast<g2g::tee::PullMode>(g_value_get_enum(value));
            break;
        case PROP_ALLOC_PAD:
            settings.alloc_pad = PadRef::borrow(GST_PAD(g_value_get_object(value)));
            break;
        case PROP_ALLOW_NOT_LINKED:
            settings.allow_not_linked = g_value_get_boolean(value);
            priv.state.plan_stale = true; // the plan follows it (and fan-out-policy=drop-branch reads it)
            break;
        case PROP_FAN_OUT_POLICY:
            settings.fan_out_policy = static_cast<g2g::tee::FanOutPolicy>(g_value_get_enum(value));
            priv.state.plan_stale = true;
            break;
        case PROP_COPY_BUDGET:
            settings.copy_budget = g_value_get_int(value);
            priv.state.plan_stale = true;
            break;
        default:
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
            break;
        }
        has_chain = settings.has_chain;
    }
    if (prop_id == PROP_HAS_CHAIN)
        gst_pad_set_chain_function(self->sinkpad, has_chain ? g2g::tee::sink_chain : nullptr);
}

static void g2g_tee_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gTee *self = G2G_TEE(object);
    const ObjectLock lock(self);
    const TeeSettings &settings = self->priv->settings;
    const TeeState &state = self->priv->state;
    switch (prop_id) {
    case PROP_NUM_SRC_PADS:
        // The pads the element has, as tee counts them (a pad the element refused is none).
        g_value_set_int(value, static_cast<gint>(GST_ELEMENT(self)->numsrcpads));
        break;
    case PROP_HAS_CHAIN:
        g_value_set_boolean(value, settings.has_chain);
        break;
    case PROP_SILENT:
        g_value_set_boolean(value, settings.silent);
        break;
    case PROP_LAST_MESSAGE:
        g_value_set_string(value, state.last_message.empty() ? nullptr : state.last_message.c_str());
        break;
    case PROP_PULL_MODE:
        g_value_set_enum(value, settings.pull_mode);
        break;
    case PROP_ALLOC_PAD:
        g_value_set_object(value, settings.alloc_pad.get());
        break;
    case PROP_ALLOW_NOT_LINKED:
        g_value_set_boolean(value, settings.allow_not_linked);
        break;
    case PROP_STATS:
        g_value_take_boxed(value, g2g::tee::stats_of(state.counters));
        break;
    case PROP_FAN_OUT_POLICY:
        g_value_set_enum(value, settings.fan_out_policy);
        break;
    case PROP_COPY_BUDGET:
        g_value_set_int(value, settings.copy_budget);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

static GstStateChangeReturn g2g_tee_change_state(GstElement *element, GstStateChange transition)
{
    G2gTee *self = G2G_TEE(element);
    TeeState &state = self->priv->state;
    const GstStateChangeReturn ret =
        GST_ELEMENT_CLASS(g2g_tee_parent_class)->change_state(element, transition);
    if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
        self->priv->gpu.cuda.release();
        self->priv->gpu.vulkan.release();
        // The stream is over (streaming has stopped): its plan and conversions go, a plan is made
        // afresh for the next one.
        {
            const ObjectLock lock(self);
            state.plan = std::make_shared<const g2g::tee::TeePlan>();
        }
        state.converters.clear();
        state.refusal.reset();
        state.waiting_since.clear();
        state.plan_stale = true;
    }
    return ret;
}

// What the application or a bin hands the tee (a Vulkan device, a CUDA context): kept for the
// branches that ask, and handed to the children (the conversions) as GstBin does.
static void g2g_tee_set_context(GstElement *element, GstContext *context)
{
    g2g::tee::TeeGpu &gpu = G2G_TEE(element)->priv->gpu;
    gpu.cuda.set_context(element, context);
    gpu.vulkan.set_context(element, context);
    GST_ELEMENT_CLASS(g2g_tee_parent_class)->set_context(element, context);
}

static void g2g_tee_dispose(GObject *object)
{
    // Conversions are children: they leave before GstBin's dispose drops the children.
    G2G_TEE(object)->priv->state.converters.clear();
    G_OBJECT_CLASS(g2g_tee_parent_class)->dispose(object);
}

static void g2g_tee_finalize(GObject *object)
{
    delete G2G_TEE(object)->priv; // with it the branch pads' references
    G_OBJECT_CLASS(g2g_tee_parent_class)->finalize(object);
}

static void g2g_tee_class_init(G2gTeeClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    object_class->set_property = g2g_tee_set_property;
    object_class->get_property = g2g_tee_get_property;
    object_class->dispose = g2g_tee_dispose;
    object_class->finalize = g2g_tee_finalize;

    const auto rw = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    const auto ro = static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_property(
        object_class, PROP_NUM_SRC_PADS,
        g_param_spec_int("num-src-pads", "Num Src Pads", "The number of source pads", 0, G_MAXINT, 0, ro));
    g_object_class_install_property(object_class, PROP_HAS_CHAIN,
                                    g_param_spec_boolean("has-chain", "Has Chain",
                                                         "If the element can operate in push mode", TRUE,
                                                         static_cast<GParamFlags>(rw | G_PARAM_CONSTRUCT)));
    g_object_class_install_property(object_class, PROP_SILENT,
                                    g_param_spec_boolean("silent", "Silent",
                                                         "Don't produce last_message events", TRUE,
                                                         static_cast<GParamFlags>(rw | G_PARAM_CONSTRUCT)));
    g_object_class_install_property(object_class, PROP_LAST_MESSAGE,
                                    g_param_spec_string("last-message", "Last Message",
                                                        "The message describing current status", nullptr,
                                                        ro));
    g_object_class_install_property(
        object_class, PROP_PULL_MODE,
        g_param_spec_enum("pull-mode", "Pull mode", "Behavior of tee in pull mode (only never is supported)",
                          pull_mode_get_type(), g2g::tee::PULL_MODE_NEVER,
                          static_cast<GParamFlags>(rw | G_PARAM_CONSTRUCT)));
    g_object_class_install_property(
        object_class, PROP_ALLOC_PAD,
        g_param_spec_object("alloc-pad", "Allocation Src Pad",
                            "The pad ALLOCATION queries will be proxied to (DEPRECATED, has no effect)",
                            GST_TYPE_PAD, rw));
    g_object_class_install_property(
        object_class, PROP_ALLOW_NOT_LINKED,
        g_param_spec_boolean("allow-not-linked", "Allow not linked",
                             "Return GST_FLOW_OK even if there are no source pads or they are all unlinked",
                             FALSE, static_cast<GParamFlags>(rw | G_PARAM_CONSTRUCT)));
    g_object_class_install_property(
        object_class, PROP_STATS,
        g_param_spec_boxed(
            "stats", "Statistics",
            "frames in; shares handed to branches, and shares-by-domain (\"D3D11Texture\": shares of frames "
            "in that domain); copies and bytes-copied the tee made itself (zero-copy "
            "fan-out keeps those at 0); conversions (one per frame per target domain), bytes-converted they "
            "wrote, and conversions-by-pair (\"VulkanTexture-to-System\": frames)",
            GST_TYPE_STRUCTURE, ro));
    g_object_class_install_property(
        object_class, PROP_FAN_OUT_POLICY,
        g_param_spec_enum("fan-out-policy", "Fan-out policy",
                          "What happens to a branch whose memory domain no conversion reaches",
                          fan_out_policy_get_type(), g2g::tee::FAN_OUT_POLICY_FAIL,
                          static_cast<GParamFlags>(rw | G_PARAM_CONSTRUCT | GST_PARAM_MUTABLE_PLAYING)));
    g_object_class_install_property(
        object_class, PROP_COPY_BUDGET,
        g_param_spec_int(
            "copy-budget", "Copy budget",
            "Most copies plus conversions per frame the tee may make (-1: unlimited); more is an "
            "element error naming the conversions. Relabelling mappable DMABuf for system-memory "
            "branches copies nothing and does not count",
            -1, G_MAXINT, -1, static_cast<GParamFlags>(rw | G_PARAM_CONSTRUCT | GST_PARAM_MUTABLE_PLAYING)));

    g2g::element::set_metadata(element_class, "g2gtee", "g2g tee", "Generic",
                               "Fans frames out by reference, each branch in its own memory domain");
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template_with_gtype(element_class, &src_template, G2G_TYPE_TEE_SRC_PAD);
    element_class->request_new_pad = g2g_tee_request_new_pad;
    element_class->release_pad = g2g_tee_release_pad;
    element_class->change_state = g2g_tee_change_state;
    element_class->set_context = g2g_tee_set_context;

    gst_type_mark_as_plugin_api(pull_mode_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(fan_out_policy_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(G2G_TYPE_TEE_SRC_PAD, static_cast<GstPluginAPIFlags>(0));
    GST_DEBUG_CATEGORY_INIT(g2g_tee_debug, "g2gtee", 0, "g2g tee");
}

static void g2g_tee_init(G2gTee *self)
{
    self->priv = new TeePrivate();
    if (g2g::platform::cuda_vulkan::built()) {
        g2g::tee::TeeGpu *gpu = &self->priv->gpu;
        gpu->vulkan.provide([gpu](GstElement *element) -> std::optional<g2g::element::GpuUuid> {
            if (!gpu->cuda.find_upstream(element))
                return std::nullopt;
            return g2g::cuda_vulkan::gpu_of_cuda_context(gpu->cuda.context());
        });
    }
    self->sinkpad = gst_pad_new_from_static_template(&sink_template, "sink");
    gst_pad_set_chain_function(self->sinkpad, g2g::tee::sink_chain);
    gst_pad_set_event_function(self->sinkpad, g2g::tee::sink_event);
    gst_pad_set_query_function(self->sinkpad, g2g::tee::sink_query);
    gst_element_add_pad(GST_ELEMENT(self), self->sinkpad);
}
