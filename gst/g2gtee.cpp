#include "g2gtee.h"

#include <g2g/memory-domain.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(g2g_tee_debug);
#define GST_CAT_DEFAULT g2g_tee_debug

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
};

// tee's pull modes, same nicks; only "never" is implemented (push mode).
enum G2gTeePullMode { G2G_TEE_PULL_MODE_NEVER, G2G_TEE_PULL_MODE_SINGLE };

GType pull_mode_get_type()
{
    static GType type = [] {
        static const GEnumValue values[] = {
            {G2G_TEE_PULL_MODE_NEVER, "Never activate in pull mode", "never"},
            {G2G_TEE_PULL_MODE_SINGLE,
             "Only one src pad can be active in pull mode (not supported by g2gtee)", "single"},
            {0, nullptr, nullptr}};
        return g_enum_register_static("G2gTeePullMode", values);
    }();
    return type;
}

// Guarded by the object lock.
struct TeeState {
    std::vector<GstPad *> src_pads; // one reference each
    guint next_index = 0;
    bool has_chain = true;
    bool silent = true;
    bool allow_not_linked = false;
    G2gTeePullMode pull_mode = G2G_TEE_PULL_MODE_NEVER;
    std::string last_message;
    GstPad *alloc_pad = nullptr; // kept for tee compatibility; allocation is aggregated over all pads
    // Accounting (the seed's copy policy): frames in, shares handed out, bytes copied by the tee.
    guint64 frames = 0;
    guint64 shares = 0;
    guint64 copies = 0;
    guint64 bytes_copied = 0;
    // The streaming thread's copy of src_pads for the frame being pushed (reused: no allocation
    // per frame). Only the chain function touches it, under the sink pad's stream lock.
    std::vector<GstPad *> pushing;
};

} // namespace

struct _G2gTee {
    GstElement parent;
    GstPad *sinkpad;
    TeeState *state;
};

G_DEFINE_TYPE(G2gTee, g2g_tee, GST_TYPE_ELEMENT)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src_%u", GST_PAD_SRC, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);

// The src pads as they are now, each with a reference the caller drops.
static std::vector<GstPad *> snapshot_pads(G2gTee *self)
{
    GST_OBJECT_LOCK(self);
    std::vector<GstPad *> pads = self->state->src_pads;
    GST_OBJECT_UNLOCK(self);
    for (GstPad *pad : pads)
        gst_object_ref(pad);
    return pads;
}

static GstFlowReturn g2g_tee_chain(GstPad *, GstObject *parent, GstBuffer *buffer)
{
    G2gTee *self = G2G_TEE(parent);
    std::vector<GstPad *> &pads = self->state->pushing;
    GST_OBJECT_LOCK(self);
    pads.assign(self->state->src_pads.begin(), self->state->src_pads.end());
    const bool allow_not_linked = self->state->allow_not_linked;
    const bool silent = self->state->silent;
    GST_OBJECT_UNLOCK(self);
    for (GstPad *pad : pads)
        gst_object_ref(pad);

    // The seed's fan-out: make the frame shareable once, then a reference per branch. A buffer
    // of a memory type g2g does not know is still shared by reference, just not re-wrapped.
    g2g::BufferRef frame = g2g::BufferRef::adopt(buffer);
    if (!g2g::buffer_is_shareable(frame.get())) {
        if (auto domain = g2g::MemoryDomain::from_buffer(frame.get())) {
            domain->make_shareable();
            frame = domain->buffer_ref();
        }
    }

    if (!silent) {
        gchar *line =
            g_strdup_printf("chain   ******* (%s:sink) (%" G_GSIZE_FORMAT " bytes, %" GST_TIME_FORMAT ") %p",
                            GST_OBJECT_NAME(self), gst_buffer_get_size(frame.get()),
                            GST_TIME_ARGS(GST_BUFFER_PTS(frame.get())), frame.get());
        GST_OBJECT_LOCK(self);
        self->state->last_message = line;
        GST_OBJECT_UNLOCK(self);
        g_free(line);
        g_object_notify(G_OBJECT(self), "last-message");
    }

    // tee's flow rules: OK when one branch took the frame; EOS only when every linked branch
    // is at EOS; the first other error as it is; NOT_LINKED when no branch is linked (OK with
    // allow-not-linked).
    guint ok = 0, eos = 0, not_linked = 0;
    GstFlowReturn failure = GST_FLOW_OK;
    for (GstPad *pad : pads) {
        const GstFlowReturn ret = gst_pad_push(pad, gst_buffer_ref(frame.get()));
        if (ret == GST_FLOW_OK)
            ++ok;
        else if (ret == GST_FLOW_EOS)
            ++eos;
        else if (ret == GST_FLOW_NOT_LINKED)
            ++not_linked;
        else if (failure == GST_FLOW_OK)
            failure = ret;
    }
    for (GstPad *pad : pads)
        gst_object_unref(pad);
    pads.clear();

    GST_OBJECT_LOCK(self);
    ++self->state->frames;
    self->state->shares += ok;
    GST_OBJECT_UNLOCK(self);

    if (failure != GST_FLOW_OK && failure != GST_FLOW_FLUSHING)
        return failure;
    if (ok > 0)
        return GST_FLOW_OK;
    if (failure == GST_FLOW_FLUSHING)
        return failure;
    if (eos > 0)
        return GST_FLOW_EOS;
    (void)not_linked;
    return allow_not_linked ? GST_FLOW_OK : GST_FLOW_NOT_LINKED;
}

static gboolean forward_sticky_event(GstPad *, GstEvent **event, gpointer user_data)
{
    gst_pad_store_sticky_event(GST_PAD(user_data), *event);
    return TRUE;
}

// ALLOCATION over all branches: what every branch can take (metas all of them support, the
// largest alignment and padding), no pool (one pool cannot serve every branch).
static gboolean aggregate_allocation(G2gTee *self, GstQuery *query)
{
    std::vector<GstPad *> pads = snapshot_pads(self);
    GstCaps *caps = nullptr;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &caps, &need_pool);
    bool answered = false;
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    std::vector<GType> metas;
    guint min_buffers = 0;
    for (GstPad *pad : pads) {
        GstQuery *branch = gst_query_new_allocation(caps, need_pool);
        if (!gst_pad_peer_query(pad, branch)) {
            gst_query_unref(branch);
            continue;
        }
        std::vector<GType> branch_metas;
        for (guint i = 0; i < gst_query_get_n_allocation_metas(branch); ++i)
            branch_metas.push_back(gst_query_parse_nth_allocation_meta(branch, i, nullptr));
        if (!answered) {
            metas = branch_metas;
        } else {
            std::erase_if(metas, [&](GType api) {
                return std::find(branch_metas.begin(), branch_metas.end(), api) == branch_metas.end();
            });
        }
        for (guint i = 0; i < gst_query_get_n_allocation_params(branch); ++i) {
            GstAllocationParams p;
            gst_query_parse_nth_allocation_param(branch, i, nullptr, &p);
            params.align = std::max(params.align, p.align);
            params.prefix = std::max(params.prefix, p.prefix);
            params.padding = std::max(params.padding, p.padding);
        }
        for (guint i = 0; i < gst_query_get_n_allocation_pools(branch); ++i) {
            guint size = 0, min = 0, max = 0;
            gst_query_parse_nth_allocation_pool(branch, i, nullptr, &size, &min, &max);
            min_buffers += min;
        }
        answered = true;
        gst_query_unref(branch);
    }
    for (GstPad *pad : pads)
        gst_object_unref(pad);
    if (!answered)
        return FALSE;
    gst_query_add_allocation_param(query, nullptr, &params);
    for (GType api : metas)
        gst_query_add_allocation_meta(query, api, nullptr);
    GST_DEBUG_OBJECT(self, "aggregated allocation: %zu metas, min %u buffers", metas.size(), min_buffers);
    return TRUE;
}

static gboolean g2g_tee_sink_query(GstPad *pad, GstObject *parent, GstQuery *query)
{
    if (GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION)
        return aggregate_allocation(G2G_TEE(parent), query);
    return gst_pad_query_default(pad, parent, query);
}

static gboolean g2g_tee_src_activate_mode(GstPad *, GstObject *, GstPadMode mode, gboolean)
{
    // Push mode only: pull-mode=single is not implemented.
    return mode == GST_PAD_MODE_PUSH;
}

static GstPad *g2g_tee_request_new_pad(GstElement *element, GstPadTemplate *templ, const gchar *name_req,
                                       const GstCaps *)
{
    G2gTee *self = G2G_TEE(element);
    GST_OBJECT_LOCK(self);
    guint index = self->state->next_index;
    if (name_req && sscanf(name_req, "src_%u", &index) == 1) {
        for (GstPad *pad : self->state->src_pads) {
            if (g_strcmp0(GST_OBJECT_NAME(pad), name_req) == 0) {
                GST_OBJECT_UNLOCK(self);
                GST_WARNING_OBJECT(self, "pad %s exists already", name_req);
                return nullptr;
            }
        }
    }
    self->state->next_index = std::max(self->state->next_index, index + 1);
    GST_OBJECT_UNLOCK(self);

    gchar *name = g_strdup_printf("src_%u", index);
    GstPad *pad = gst_pad_new_from_template(templ, name);
    g_free(name);
    GST_PAD_SET_PROXY_CAPS(pad);
    gst_pad_set_activatemode_function(pad, g2g_tee_src_activate_mode);

    if (GST_STATE(element) > GST_STATE_READY || GST_STATE_TARGET(element) > GST_STATE_READY)
        gst_pad_set_active(pad, TRUE);
    // Stream-start, caps and segment of the stream so far (after activation, which would clear
    // them), so the branch starts where the stream is.
    gst_pad_sticky_events_foreach(self->sinkpad, forward_sticky_event, pad);

    GST_OBJECT_LOCK(self);
    self->state->src_pads.push_back(GST_PAD(gst_object_ref(pad)));
    GST_OBJECT_UNLOCK(self);
    gst_element_add_pad(element, pad);
    g_object_notify(G_OBJECT(self), "num-src-pads");
    return pad;
}

static void g2g_tee_release_pad(GstElement *element, GstPad *pad)
{
    G2gTee *self = G2G_TEE(element);
    GST_OBJECT_LOCK(self);
    auto &pads = self->state->src_pads;
    auto found = std::find(pads.begin(), pads.end(), pad);
    const bool ours = found != pads.end();
    if (ours)
        pads.erase(found);
    if (self->state->alloc_pad == pad) {
        gst_object_unref(self->state->alloc_pad);
        self->state->alloc_pad = nullptr;
    }
    GST_OBJECT_UNLOCK(self);
    if (!ours)
        return;
    gst_pad_set_active(pad, FALSE);
    gst_element_remove_pad(element, pad);
    gst_object_unref(pad); // the list's reference
    g_object_notify(G_OBJECT(self), "num-src-pads");
}

static GstStructure *stats_of(const TeeState &state)
{
    return gst_structure_new("g2gtee-stats", "frames", G_TYPE_UINT64, state.frames, "shares", G_TYPE_UINT64,
                             state.shares, "copies", G_TYPE_UINT64, state.copies, "bytes-copied",
                             G_TYPE_UINT64, state.bytes_copied, nullptr);
}

static void g2g_tee_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    G2gTee *self = G2G_TEE(object);
    GST_OBJECT_LOCK(self);
    TeeState &state = *self->state;
    switch (prop_id) {
    case PROP_HAS_CHAIN:
        state.has_chain = g_value_get_boolean(value);
        break;
    case PROP_SILENT:
        state.silent = g_value_get_boolean(value);
        break;
    case PROP_PULL_MODE:
        state.pull_mode = static_cast<G2gTeePullMode>(g_value_get_enum(value));
        break;
    case PROP_ALLOC_PAD:
        gst_object_replace(reinterpret_cast<GstObject **>(&state.alloc_pad),
                           static_cast<GstObject *>(g_value_get_object(value)));
        break;
    case PROP_ALLOW_NOT_LINKED:
        state.allow_not_linked = g_value_get_boolean(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
    if (prop_id == PROP_HAS_CHAIN)
        gst_pad_set_chain_function(self->sinkpad, state.has_chain ? g2g_tee_chain : nullptr);
}

static void g2g_tee_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    G2gTee *self = G2G_TEE(object);
    GST_OBJECT_LOCK(self);
    const TeeState &state = *self->state;
    switch (prop_id) {
    case PROP_NUM_SRC_PADS:
        g_value_set_int(value, static_cast<gint>(state.src_pads.size()));
        break;
    case PROP_HAS_CHAIN:
        g_value_set_boolean(value, state.has_chain);
        break;
    case PROP_SILENT:
        g_value_set_boolean(value, state.silent);
        break;
    case PROP_LAST_MESSAGE:
        g_value_set_string(value, state.last_message.empty() ? nullptr : state.last_message.c_str());
        break;
    case PROP_PULL_MODE:
        g_value_set_enum(value, state.pull_mode);
        break;
    case PROP_ALLOC_PAD:
        g_value_set_object(value, state.alloc_pad);
        break;
    case PROP_ALLOW_NOT_LINKED:
        g_value_set_boolean(value, state.allow_not_linked);
        break;
    case PROP_STATS:
        g_value_take_boxed(value, stats_of(state));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void g2g_tee_finalize(GObject *object)
{
    G2gTee *self = G2G_TEE(object);
    for (GstPad *pad : self->state->src_pads)
        gst_object_unref(pad);
    if (self->state->alloc_pad)
        gst_object_unref(self->state->alloc_pad);
    delete self->state;
    G_OBJECT_CLASS(g2g_tee_parent_class)->finalize(object);
}

static void g2g_tee_class_init(G2gTeeClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    object_class->set_property = g2g_tee_set_property;
    object_class->get_property = g2g_tee_get_property;
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
                          pull_mode_get_type(), G2G_TEE_PULL_MODE_NEVER,
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
            "frames in, shares handed to branches, copies and bytes copied by the tee (zero-copy "
            "fan-out keeps those at 0)",
            GST_TYPE_STRUCTURE, ro));

    gst_element_class_set_static_metadata(
        element_class, "g2g tee", "Generic",
        "1-to-N fan-out that hands every branch the same frame by reference count (pool memory flagged "
        "NO_SHARE is made shareable once, without copying), with tee's pads and properties",
        "g2g developers");
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    element_class->request_new_pad = g2g_tee_request_new_pad;
    element_class->release_pad = g2g_tee_release_pad;

    gst_type_mark_as_plugin_api(pull_mode_get_type(), static_cast<GstPluginAPIFlags>(0));
    GST_DEBUG_CATEGORY_INIT(g2g_tee_debug, "g2gtee", 0, "g2g tee");
}

static void g2g_tee_init(G2gTee *self)
{
    self->state = new TeeState();
    self->sinkpad = gst_pad_new_from_static_template(&sink_template, "sink");
    GST_PAD_SET_PROXY_CAPS(self->sinkpad);
    gst_pad_set_chain_function(self->sinkpad, g2g_tee_chain);
    gst_pad_set_query_function(self->sinkpad, g2g_tee_sink_query);
    gst_element_add_pad(GST_ELEMENT(self), self->sinkpad);
}
