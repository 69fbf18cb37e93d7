// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink: the end of a producer's pipeline that other processes read, each with its own
// domain. It listens at `socket-path`; g2gipcsrc (and GStreamer's unixfdsrc) connect there while
// it plays. Frames cross as their memory's descriptors (unixfdsink's wire format), never as bytes
// through the socket: upstream is offered memfd memory, so that what it writes is already
// shareable; a view crosses as its view. Each consumer takes the route its caps allow
// (ipc-routes.h), each frame is made once per route in use, and a consumer holds at most
// `max-queued` frames (`queue-full`: drop its frames past that, or wait for it).
//
//   gst-launch-1.0 videotestsrc ! g2gview video-direction=90r ! g2gipcsink socket-path=/tmp/cam
//   gst-launch-1.0 g2gipcsrc socket-path=/tmp/cam ! videoconvert ! autovideosink
//
// Settings: the properties (socket-path, max-queued, queue-full, min-consumers), under the object
// lock. State: the server (made at start), the stream's caps (at set_caps; the server's route
// chooser reads them under their own lock), the route forms and counters (streaming thread).
#include "g2gipcsink.h"

#include <g2g-internal/plugin-interface.h>
#include <g2g/dmabuf.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>
#include <gst/video/video.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/element-docs.h"
#include "common/element-error.h"
#include "common/settings-slot.h"
#include "common/vulkan-context.h"
#include "ipc-clock.h"
#include "ipc-cuda.h"
#include "ipc-control.h"
#include "ipc-routes.h"
#include "ipc-server.h"
#include "ipc-vulkan.h"

GST_DEBUG_CATEGORY_STATIC(g2g_ipc_sink_debug);
#define GST_CAT_DEFAULT g2g_ipc_sink_debug

namespace {

using g2g::ipc::QueueFull;

enum {
    PROP_0,
    PROP_SOCKET_PATH,
    PROP_MAX_QUEUED,
    PROP_QUEUE_FULL,
    PROP_MIN_CONSUMERS,
    PROP_CONSUMERS,
    PROP_STATS
};

GType queue_full_get_type()
{
    static GType type = [] {
        static const GEnumValue values[] = {{static_cast<gint>(QueueFull::Drop),
                                             "Drop the frames of a consumer that holds max-queued", "drop"},
                                            {static_cast<gint>(QueueFull::Wait),
                                             "Wait until the consumer releases one (it slows every consumer)",
                                             "wait"},
                                            {0, nullptr, nullptr}};
        return g_enum_register_static("G2gIpcQueueFull", values);
    }();
    return type;
}

struct SinkSettings {
    std::string socket_path;
    guint max_queued = 8;
    QueueFull queue_full = QueueFull::Drop;
    guint min_consumers = 0;
};

// The stream's caps, read by the server's route chooser on its own thread.
struct StreamCaps {
    std::mutex mutex; // a leaf: taken under the server's lock, takes none
    g2g::CapsRef caps;
};

struct SinkState {
    std::unique_ptr<g2g::ipc::Server> server;
    // min-consumers as the frames read it: set with the property, read per frame without copying
    // the settings (their socket path) under the object lock.
    std::atomic<guint> min_consumers = 0;
    g2g::ipc::RouteForms forms;
    std::uint64_t frames = 0;
};

struct SinkPrivate {
    g2g::element::SettingsSlot<SinkSettings> settings;
    // The pipeline's Vulkan device and queue, for a VulkanImage stream's copies into exportable
    // images: opened by us (with VK_KHR_external_memory_fd) where no one else has, so vulkanupload
    // upstream takes ours.
    g2g::element::VulkanContextUse vulkan;
    std::shared_ptr<StreamCaps> stream = std::make_shared<StreamCaps>();
    SinkState state;
};

GstCaps *template_caps()
{
    const std::string raw = "video/x-raw";
    std::string text = raw + "; " + raw + "(" GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY ", " +
                       G2G_CAPS_FEATURE_META_TENSOR_VIEW + ")";
    g2g::CapsRef caps = g2g::CapsRef::adopt(gst_caps_from_string(text.c_str()));
    g2g::CapsRef dmabuf =
        g2g::CapsRef::adopt(gst_caps_from_string("video/x-raw(" GST_CAPS_FEATURE_MEMORY_DMABUF ")"));
    g2g::CapsRef both = g2g::dmabuf::caps_with_dma_drm(dmabuf.get());
    GstCaps *all = gst_caps_merge(caps.release(), both.release());
    if (g2g::ipc::vulkan_built())
        all = gst_caps_merge(
            all,
            gst_caps_from_string("video/x-raw(memory:VulkanImage); "
                                 "video/x-raw(memory:VulkanImage, " G2G_CAPS_FEATURE_META_TENSOR_VIEW ")"));
    if (g2g::ipc::cuda_built())
        all =
            gst_caps_merge(all, gst_caps_from_string(
                                    "video/x-raw(memory:CUDAMemory); "
                                    "video/x-raw(memory:CUDAMemory, " G2G_CAPS_FEATURE_META_TENSOR_VIEW ")"));
    return all;
}

} // namespace

struct _G2gIpcSink {
    GstBaseSink parent;
    SinkPrivate *priv;
};

G_DEFINE_TYPE(G2gIpcSink, g2g_ipc_sink, GST_TYPE_BASE_SINK)

namespace {

GstStructure *stats_of(G2gIpcSink *self, const char *name)
{
    SinkState &state = self->priv->state;
    g2g::ipc::ServerCounters counters;
    guint consumers = 0, held = 0;
    if (state.server) {
        counters = state.server->counters();
        consumers = static_cast<guint>(state.server->consumers());
        held = static_cast<guint>(state.server->frames_held());
    }
    const g2g::ipc::FormCounters &forms = state.forms.counters();
    guint64 conversions = 0, converted = 0;
    for (const auto &[pair, n] : forms.conversions)
        conversions += n;
    for (const auto &[pair, n] : forms.bytes_converted)
        converted += n;
    GstStructure *stats = gst_structure_new(
        name, "frames", G_TYPE_UINT64, state.frames, "consumers", G_TYPE_UINT, consumers, "joined",
        G_TYPE_UINT64, counters.joined, "left", G_TYPE_UINT64, counters.left, "refused", G_TYPE_UINT64,
        counters.refused, "shares", G_TYPE_UINT64, counters.sent, "dropped", G_TYPE_UINT64, counters.dropped,
        "released", G_TYPE_UINT64, counters.released, "frames-held", G_TYPE_UINT, held, "copies",
        G_TYPE_UINT64, forms.copies, "bytes-copied", G_TYPE_UINT64, forms.bytes_copied, "conversions",
        G_TYPE_UINT64, conversions, "bytes-converted", G_TYPE_UINT64, converted, nullptr);
    for (const auto &[pair, n] : forms.conversions)
        gst_structure_set(stats, ("conversions." + pair).c_str(), G_TYPE_UINT64, n, nullptr);
    return stats;
}

} // namespace

static gboolean g2g_ipc_sink_start(GstBaseSink *sink)
{
    G2gIpcSink *self = G2G_IPC_SINK(sink);
    const SinkSettings settings = self->priv->settings.snapshot(self);
    if (settings.socket_path.empty()) {
        g2g::element::post_error(GST_ELEMENT(self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                                 std::string(GST_OBJECT_NAME(self)) + ": socket-path is not set");
        return FALSE;
    }
    std::shared_ptr<StreamCaps> stream = self->priv->stream;
    const std::string name = GST_OBJECT_NAME(self);
    auto chooser = [stream, name](const GstCaps *accepts) {
        std::lock_guard lock(stream->mutex);
        return g2g::ipc::choose_route(stream->caps.get(), accepts, name);
    };
    // A consumer let go of for what it did is the producer's warning (its pid says which).
    GstElement *element = GST_ELEMENT(self);
    auto report = [element, name](const std::string &what) {
        g2g::element::post_warning(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ, name + ": " + what);
    };
    g2g::Result<std::unique_ptr<g2g::ipc::Server>> server =
        g2g::ipc::Server::listen(settings.socket_path, chooser, report);
    if (!server) {
        g2g::element::post_error(GST_ELEMENT(self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ_WRITE,
                                 name + ": " + server.error().message());
        return FALSE;
    }
    (*server)->set_queue(settings.max_queued, settings.queue_full);
    self->priv->state.server = std::move(*server);
    self->priv->state.frames = 0;
    return TRUE;
}

static gboolean g2g_ipc_sink_stop(GstBaseSink *sink)
{
    G2gIpcSink *self = G2G_IPC_SINK(sink);
    SinkState &state = self->priv->state;
    state.server.reset(); // every consumer's frames let go of, before the pools go
    state.forms.stop();
    std::lock_guard lock(self->priv->stream->mutex);
    self->priv->stream->caps.reset();
    return TRUE;
}

static gboolean g2g_ipc_sink_set_caps(GstBaseSink *sink, GstCaps *caps)
{
    G2gIpcSink *self = G2G_IPC_SINK(sink);
    SinkState &state = self->priv->state;
    if (g2g::Result<void> set = state.forms.set_stream(caps); !set) {
        g2g::element::post_error(GST_ELEMENT(self), GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                                 std::string(GST_OBJECT_NAME(self)) + ": " + set.error().message());
        return FALSE;
    }
    if (g2g::detail::domain_of(caps) == g2g::MemoryDomainKind::VulkanTexture) {
        if (!self->priv->vulkan.ensure(GST_ELEMENT(self)))
            return FALSE;
        state.forms.set_engine(self->priv->vulkan.engine());
    }
    {
        std::lock_guard lock(self->priv->stream->mutex);
        self->priv->stream->caps = g2g::CapsRef::adopt(gst_caps_copy(caps));
    }
    if (state.server)
        state.server->restart_routes();
    return TRUE;
}

// Upstream writes into memfds, or into exportable Vulkan images: a frame it makes crosses with no
// copy.
static gboolean g2g_ipc_sink_propose_allocation(GstBaseSink *sink, GstQuery *query)
{
    GstCaps *caps = nullptr;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &caps, &need_pool);
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    GstVideoInfo info;
    const std::optional<g2g::MemoryDomainKind> domain = caps ? g2g::detail::domain_of(caps) : std::nullopt;
    if (domain == g2g::MemoryDomainKind::VulkanTexture) {
        // Offered whether or not upstream asked for a pool: vulkanupload (1.24 on) takes the first
        // GstVulkanImageBufferPool it is offered, and g2gview passes one on for its input's caps.
        G2G_IPC_SINK(sink)->priv->vulkan.propose_export_pool(query);
        return TRUE;
    }
    if (domain != g2g::MemoryDomainKind::System && domain != g2g::MemoryDomainKind::SystemView)
        return TRUE;
    // A view's memory is its source's: the allocator reaches the element that writes it (g2gview
    // passes it on).
    gst_query_add_allocation_param(query, g2g::detail::memfd_allocator(), nullptr);
    if (need_pool && domain == g2g::MemoryDomainKind::System && gst_video_info_from_caps(&info, caps)) {
        g2g::Ref<GstBufferPool> pool = g2g::Ref<GstBufferPool>::adopt(gst_video_buffer_pool_new());
        GstStructure *config = gst_buffer_pool_get_config(pool.get());
        gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0, 0);
        gst_buffer_pool_config_set_allocator(config, g2g::detail::memfd_allocator(), nullptr);
        gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        if (gst_buffer_pool_set_config(pool.get(), config))
            gst_query_add_allocation_pool(query, pool.get(), static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)),
                                          0, 0);
    }
    return TRUE;
}

static gboolean g2g_ipc_sink_event(GstBaseSink *sink, GstEvent *event)
{
    G2gIpcSink *self = G2G_IPC_SINK(sink);
    g2g::ipc::Server *server = self->priv->state.server.get();
    if (server) {
        switch (GST_EVENT_TYPE(event)) {
        case GST_EVENT_SEGMENT: {
            const GstSegment *segment = nullptr;
            gst_event_parse_segment(event, &segment);
            if (segment->format == GST_FORMAT_TIME)
                server->set_segment(g2g::ipc::encode_segment(*segment));
            break;
        }
        case GST_EVENT_FLUSH_START:
            server->send_all(g2g::ipc::message_type(g2g::ipc::ControlType::FlushStart), {}, true);
            break;
        case GST_EVENT_FLUSH_STOP: {
            gboolean reset = TRUE;
            gst_event_parse_flush_stop(event, &reset);
            const std::uint8_t payload[1] = {static_cast<std::uint8_t>(reset ? 1 : 0)};
            server->send_all(g2g::ipc::message_type(g2g::ipc::ControlType::FlushStop), payload, true);
            break;
        }
        case GST_EVENT_EOS:
            server->send_all(g2g::ipc::MessageType::Eos, {}, false);
            gst_element_post_message(
                GST_ELEMENT(self),
                gst_message_new_element(GST_OBJECT(self), stats_of(self, "g2gipcsink-stats")));
            break;
        default:
            break;
        }
    }
    return GST_BASE_SINK_CLASS(g2g_ipc_sink_parent_class)->event(sink, event);
}

namespace {

// The message of `frame`, a frame of a route whose memory kind is `kind` (fixed at negotiation):
// its images' fds, its CUDA handle, or its fds.
g2g::Result<g2g::ipc::OutgoingFrame> describe_as(g2g::ipc::MemoryKind kind, GstBuffer *frame,
                                                 std::uint64_t id)
{
    std::optional<g2g::Result<g2g::ipc::OutgoingFrame>> device;
    switch (kind) {
    case g2g::ipc::MemoryKind::VulkanImage:
        device = g2g::ipc::describe_vulkan_frame(frame, id);
        break;
    case g2g::ipc::MemoryKind::CudaIpc:
        device = g2g::ipc::describe_cuda_frame(frame, id);
        break;
    default:
        return g2g::ipc::describe_frame(frame, id);
    }
    if (!device)
        return g2g::Error(g2g::ErrorCode::UnsupportedDomain,
                          std::string("a frame of a route of ") +
                              (kind == g2g::ipc::MemoryKind::VulkanImage ? "Vulkan images" : "CUDA memory") +
                              " is not made of them");
    return std::move(*device);
}

} // namespace

static GstFlowReturn g2g_ipc_sink_render(GstBaseSink *sink, GstBuffer *frame)
{
    G2gIpcSink *self = G2G_IPC_SINK(sink);
    SinkState &state = self->priv->state;
    const std::string name = GST_OBJECT_NAME(self);
    const guint min_consumers = state.min_consumers.load();
    if (min_consumers && !state.server->wait_for_consumers(min_consumers))
        return GST_FLOW_FLUSHING;
    ++state.frames;

    // The wire's clock times (unixfd's), and the frame's own times for g2g's consumers.
    GstSegment segment;
    {
        GST_OBJECT_LOCK(self);
        segment = sink->segment;
        GST_OBJECT_UNLOCK(self);
    }
    g2g::Ref<GstClock> clock = g2g::Ref<GstClock>::adopt(gst_element_get_clock(GST_ELEMENT(self)));
    const GstClockTimeDiff offset = g2g::ipc::clock_offset(clock.get());
    const GstClockTime base_time = gst_element_get_base_time(GST_ELEMENT(self));
    const GstClockTime latency = gst_base_sink_get_latency(sink);

    state.forms.next_frame();
    for (g2g::ipc::RouteId route : state.server->routes_in_use()) {
        g2g::Result<g2g::BufferRef> form = state.forms.form(route, frame, name);
        if (!form)
            return g2g::element::post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                                            name + ": " + form.error().message());
        GstBuffer *shared = form->get();
        const g2g::ipc::MemoryKind kind = state.forms.kind(route);
        auto describe = [&](std::uint64_t id) -> g2g::Result<g2g::ipc::OutgoingFrame> {
            g2g::Result<g2g::ipc::OutgoingFrame> out = describe_as(kind, shared, id);
            if (!out)
                return out;
            g2g::ipc::NewBuffer &message = out->message;
            message.kind = kind;
            message.metas.push_back(g2g::ipc::encode_times({GST_BUFFER_PTS(frame), GST_BUFFER_DTS(frame)}));
            message.pts = g2g::ipc::to_wire(segment, GST_BUFFER_PTS(frame), base_time, latency, offset);
            message.dts = g2g::ipc::to_wire(segment, GST_BUFFER_DTS(frame), base_time, latency, offset);
            return out;
        };
        g2g::Result<bool> sent = state.server->send_frame(route, std::move(*form), describe);
        if (!sent)
            return g2g::element::post_error(GST_ELEMENT(self), GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                                            name + ": " + sent.error().message());
        if (!*sent)
            return GST_FLOW_FLUSHING;
    }
    return GST_FLOW_OK;
}

static gboolean g2g_ipc_sink_unlock(GstBaseSink *sink)
{
    G2gIpcSink *self = G2G_IPC_SINK(sink);
    if (self->priv->state.server)
        self->priv->state.server->interrupt();
    return TRUE;
}

static gboolean g2g_ipc_sink_unlock_stop(GstBaseSink *sink)
{
    G2gIpcSink *self = G2G_IPC_SINK(sink);
    if (self->priv->state.server)
        self->priv->state.server->resume();
    return TRUE;
}

// The Vulkan context: taken from the application or a peer, answered to peers' queries, joined
// at READY->PAUSED and let go of at PAUSED->READY, as the view elements do (context-glue.h).
static void g2g_ipc_sink_set_context(GstElement *element, GstContext *context)
{
    G2G_IPC_SINK(element)->priv->vulkan.set_context(element, context);
    GST_ELEMENT_CLASS(g2g_ipc_sink_parent_class)->set_context(element, context);
}

static gboolean g2g_ipc_sink_query(GstBaseSink *sink, GstQuery *query)
{
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
        G2G_IPC_SINK(sink)->priv->vulkan.answer_query(GST_ELEMENT(sink), query))
        return TRUE;
    return GST_BASE_SINK_CLASS(g2g_ipc_sink_parent_class)->query(sink, query);
}

static GstStateChangeReturn g2g_ipc_sink_change_state(GstElement *element, GstStateChange transition)
{
    G2gIpcSink *self = G2G_IPC_SINK(element);
    if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
        self->priv->vulkan.join(element);
    const GstStateChangeReturn result =
        GST_ELEMENT_CLASS(g2g_ipc_sink_parent_class)->change_state(element, transition);
    if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && result != GST_STATE_CHANGE_FAILURE) {
        self->priv->state.forms.set_engine(nullptr);
        self->priv->vulkan.release();
    }
    return result;
}

static void g2g_ipc_sink_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    G2gIpcSink *self = G2G_IPC_SINK(object);
    self->priv->settings.update(self, [&](SinkSettings &settings) {
        switch (id) {
        case PROP_SOCKET_PATH:
            settings.socket_path = g_value_get_string(value) ? g_value_get_string(value) : "";
            break;
        case PROP_MAX_QUEUED:
            settings.max_queued = g_value_get_uint(value);
            break;
        case PROP_QUEUE_FULL:
            settings.queue_full = static_cast<QueueFull>(g_value_get_enum(value));
            break;
        case PROP_MIN_CONSUMERS:
            settings.min_consumers = g_value_get_uint(value);
            self->priv->state.min_consumers = settings.min_consumers;
            break;
        default:
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        }
    });
    // The queue applies at once to a server that runs (its own lock).
    if ((id == PROP_MAX_QUEUED || id == PROP_QUEUE_FULL) && self->priv->state.server) {
        const SinkSettings settings = self->priv->settings.snapshot(self);
        self->priv->state.server->set_queue(settings.max_queued, settings.queue_full);
    }
}

static void g2g_ipc_sink_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    G2gIpcSink *self = G2G_IPC_SINK(object);
    const SinkSettings settings = self->priv->settings.snapshot(self);
    switch (id) {
    case PROP_SOCKET_PATH:
        g_value_set_string(value, settings.socket_path.c_str());
        break;
    case PROP_MAX_QUEUED:
        g_value_set_uint(value, settings.max_queued);
        break;
    case PROP_QUEUE_FULL:
        g_value_set_enum(value, static_cast<gint>(settings.queue_full));
        break;
    case PROP_MIN_CONSUMERS:
        g_value_set_uint(value, settings.min_consumers);
        break;
    case PROP_CONSUMERS:
        g_value_set_uint(
            value, self->priv->state.server ? static_cast<guint>(self->priv->state.server->consumers()) : 0);
        break;
    case PROP_STATS:
        g_value_take_boxed(value, stats_of(self, "g2gipcsink-stats"));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void g2g_ipc_sink_finalize(GObject *object)
{
    delete G2G_IPC_SINK(object)->priv;
    G_OBJECT_CLASS(g2g_ipc_sink_parent_class)->finalize(object);
}

static void g2g_ipc_sink_class_init(G2gIpcSinkClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS(klass);
    object_class->set_property = g2g_ipc_sink_set_property;
    object_class->get_property = g2g_ipc_sink_get_property;
    object_class->finalize = g2g_ipc_sink_finalize;
    const auto rw =
        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
    const auto rw_playing =
        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    const auto ro = static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_property(
        object_class, PROP_SOCKET_PATH,
        g_param_spec_string("socket-path", "Socket path",
                            "The unix socket consumers connect to (g2gipcsrc, unixfdsrc); a stale one a dead "
                            "producer left is replaced, a file or a folder there is refused",
                            nullptr, rw));
    g_object_class_install_property(
        object_class, PROP_MAX_QUEUED,
        g_param_spec_uint("max-queued", "Max queued",
                          "Frames a consumer may hold (sent, not yet released) before queue-full applies", 1,
                          1024, 8, rw_playing));
    g_object_class_install_property(
        object_class, PROP_QUEUE_FULL,
        g_param_spec_enum(
            "queue-full", "Queue full",
            "What a consumer holding max-queued frames gets: its new frames dropped (the others go "
            "on), or the producer waits for it",
            queue_full_get_type(), static_cast<gint>(QueueFull::Drop), rw_playing));
    g_object_class_install_property(
        object_class, PROP_MIN_CONSUMERS,
        g_param_spec_uint("min-consumers", "Min consumers",
                          "Frames wait until this many consumers have joined (0: frames go on without any)",
                          0, G_MAXUINT, 0, rw_playing));
    g_object_class_install_property(object_class, PROP_CONSUMERS,
                                    g_param_spec_uint("consumers", "Consumers",
                                                      "Consumers connected now, each with its route", 0,
                                                      G_MAXUINT, 0, ro));
    g_object_class_install_property(
        object_class, PROP_STATS,
        g_param_spec_boxed(
            "stats", "Statistics",
            "frames, consumers, joined, left, refused, shares (frames sent, one per consumer), "
            "dropped, released, frames-held, copies and bytes-copied (frames copied into memfds), "
            "conversions and bytes-converted (one per route's frame), conversions.<pair>",
            GST_TYPE_STRUCTURE, ro));

    g2g::element::set_metadata(element_class, "g2gipcsink", "g2g IPC sink", "Sink/Video",
                               "Serves frames to other processes, each in its own domain, by descriptor");
    const g2g::CapsRef caps = g2g::CapsRef::adopt(template_caps());
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps.get()));
    gst_type_mark_as_plugin_api(queue_full_get_type(), static_cast<GstPluginAPIFlags>(0));

    element_class->set_context = g2g_ipc_sink_set_context;
    element_class->change_state = g2g_ipc_sink_change_state;
    sink_class->query = g2g_ipc_sink_query;
    sink_class->start = g2g_ipc_sink_start;
    sink_class->stop = g2g_ipc_sink_stop;
    sink_class->set_caps = g2g_ipc_sink_set_caps;
    sink_class->propose_allocation = g2g_ipc_sink_propose_allocation;
    sink_class->event = g2g_ipc_sink_event;
    sink_class->render = g2g_ipc_sink_render;
    sink_class->unlock = g2g_ipc_sink_unlock;
    sink_class->unlock_stop = g2g_ipc_sink_unlock_stop;

    GST_DEBUG_CATEGORY_INIT(g2g_ipc_sink_debug, "g2gipcsink", 0, "g2g IPC sink");
}

static void g2g_ipc_sink_init(G2gIpcSink *self)
{
    self->priv = new SinkPrivate();
    // A VulkanImage stream needs a device that exports memory: where no peer or application has
    // one, ours (on the first GPU) is what vulkanupload upstream then takes.
    self->priv->vulkan.provide([](GstElement *) { return std::optional<g2g::element::GpuUuid>(); });
    // The last frame kept as last-sample would hold a frame of the pool no consumer holds.
    gst_base_sink_set_last_sample_enabled(GST_BASE_SINK(self), FALSE);
}
