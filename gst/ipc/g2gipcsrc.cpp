// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsrc: frames of another process's g2gipcsink (or unixfdsink), their memory mapped from the
// producer's descriptors, never copied. At start it connects to `socket-path` and says which caps
// its downstream takes (g2g's HELLO: a downstream that takes ANY takes dense system frames); the
// producer answers with the caps of the route it chose (a view where downstream reads views,
// DMA-BUFs where it asks for memory:DMABuf) or why none fits, which this element posts as its
// error. It is a live source: a frame is timestamped as its producer had it, in a segment whose
// running time is the producer's clock time of it, so a consumer synchronises with its producer;
// the producer's segment, flushes and EOS come through. A frame goes back to the producer when
// the last of its memories is freed here. A producer that goes away ends the stream with an
// error naming the socket.
//
//   gst-launch-1.0 g2gipcsrc socket-path=/tmp/cam ! g2gmaterialize ! autovideosink
//
// Settings: socket-path, under the object lock. State: the connection (made at start, shared with
// the frames that are out, which release through it), the caps and the segment the producer sent
// (streaming thread).
#include "g2gipcsrc.h"

#include <g2g-internal/plugin-interface.h>
#include <g2g/dmabuf.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/cuda-context.h"
#include "common/element-docs.h"
#include "common/element-error.h"
#include "common/settings-slot.h"
#include "common/vulkan-context.h"
#include "ipc-clock.h"
#include "ipc-cuda.h"
#include "ipc-control.h"
#include "ipc-frame.h"
#include "ipc-bell-watch.h"
#include "ipc-lane.h"
#include "ipc-socket.h"
#include "ipc-vulkan.h"

GST_DEBUG_CATEGORY_STATIC(g2g_ipc_src_debug);
#define GST_CAT_DEFAULT g2g_ipc_src_debug

namespace {

enum { PROP_0, PROP_SOCKET_PATH, PROP_CONNECTION_TIMEOUT, PROP_SPIN_US, PROP_STATS };

constexpr gulong kConnectRetryUs = 50000;

struct SrcSettings {
    std::string socket_path;
    guint connection_timeout = 5; // seconds
    guint spin_us = 0;            // BellWatch's window
};

// How long a consumer on a lane sleeps on the bell before it looks whether the producer is still
// there (and whether an unlock came while it went to sleep): a producer that died ends the stream
// within this and a socket's poll.
constexpr int kLaneCheckMs = 50;

// The socket to the producer (and its lane, once it gave one), shared by the element and every
// frame that is out: a frame's release goes from whichever thread frees its last memory.
struct Connection {
    std::mutex mutex; // a leaf: guards the socket's writes, the lane's releases and their closing
    g2g::ipc::UniqueFd socket;
    std::optional<g2g::ipc::LaneReader> lane; // its records are read by the streaming thread alone
    g2g::ipc::UniqueFd doorbell;

    void release(std::uint64_t id)
    {
        std::lock_guard lock(mutex);
        if (lane && lane->release(id)) {
            const std::uint64_t one = 1;
            [[maybe_unused]] ssize_t n = ::write(doorbell.get(), &one, sizeof one);
            return;
        }
        if (socket)
            g2g::ipc::send_message(socket.get(), g2g::ipc::MessageType::ReleaseBuffer,
                                   g2g::ipc::encode_release(id));
    }
    void close()
    {
        std::lock_guard lock(mutex);
        socket = g2g::ipc::UniqueFd();
        lane.reset();
        doorbell = g2g::ipc::UniqueFd();
    }
};

// One frame that is out: its RELEASE is sent when the last of its memories goes.
struct OutFrame {
    std::shared_ptr<Connection> connection;
    std::uint64_t id = 0;
    std::atomic<guint> memories = 0;
};

void memory_gone(gpointer data, GstMiniObject *)
{
    auto *frame = static_cast<OutFrame *>(data);
    if (--frame->memories == 0) {
        frame->connection->release(frame->id);
        delete frame;
    }
}

struct SrcState {
    std::shared_ptr<Connection> connection;
    int socket = -1;                    // connection's, read by the streaming thread alone
    g2g::ipc::UniqueFd wake;            // an eventfd: unlock() ends a wait for the producer
    std::optional<g2g::ipc::Bell> bell; // the producer's, once it gave this consumer a lane
    g2g::ipc::BellWatch bell_watch;     // how this consumer waits for it (spin-us)
    std::string path;
    GstVideoInfo info{};
    bool have_info = false;
    bool view_caps = false;
    g2g::ipc::MemoryKind device_kind =
        g2g::ipc::MemoryKind::Fd; // what a frame of these caps is: a device's kind, or fds
    bool g2g_producer = false;    // it sent a SEGMENT: frames carry their own times
    GstSegment segment{};         // the producer's
    bool segment_pending = false;
};

struct SrcPrivate {
    g2g::element::SettingsSlot<SrcSettings> settings;
    SrcState state;
    // For a producer's Vulkan images: the device they are imported on (opened by us, with
    // VK_KHR_external_memory_fd, where no one else has one: vulkandownload downstream takes ours),
    // and the producer's frames imported so far (streaming thread).
    g2g::element::VulkanContextUse vulkan;
    g2g::ipc::VulkanImports imports;
    // For a producer's CUDA memory: the pipeline's CUDA context it is opened on, and the
    // allocations opened so far (streaming thread).
    g2g::element::CudaContextUse cuda;
    g2g::ipc::CudaImports cuda_imports;
    // The producer's memfds and DMA-BUFs received so far, kept mapped (streaming thread).
    g2g::ipc::ReceivedMemories memories;
    // Between unlock and unlock_stop: a wait on the bell ends (the socket's ends by `wake`).
    std::atomic<bool> unlocking = false;
    // The bell watch's counts, for the stats property (the streaming thread's copy, published).
    std::atomic<guint64> rings_watched = 0, rings_woken = 0;
};

std::string caps_text(const GstCaps *caps)
{
    gchar *text = gst_caps_to_string(caps);
    std::string out = text;
    g_free(text);
    return out;
}

} // namespace

struct _G2gIpcSrc {
    GstPushSrc parent;
    SrcPrivate *priv;
};

G_DEFINE_TYPE(G2gIpcSrc, g2g_ipc_src, GST_TYPE_PUSH_SRC)

namespace {

GstFlowReturn fail(G2gIpcSrc *self, GQuark domain, gint code, const std::string &what)
{
    return g2g::element::post_error(GST_ELEMENT(self), domain, code,
                                    std::string(GST_OBJECT_NAME(self)) + ": the producer at " +
                                        self->priv->state.path + " " + what);
}

// What downstream takes, as the HELLO says it: its caps, ANY as dense system frames.
std::string downstream_caps(G2gIpcSrc *self)
{
    GstPad *pad = GST_BASE_SRC_PAD(self);
    g2g::CapsRef template_caps = g2g::CapsRef::adopt(gst_pad_get_pad_template_caps(pad));
    g2g::CapsRef peer = g2g::CapsRef::adopt(gst_pad_peer_query_caps(pad, nullptr));
    if (!peer || gst_caps_is_any(peer.get()))
        return "video/x-raw";
    g2g::CapsRef both = g2g::CapsRef::adopt(gst_caps_intersect(peer.get(), template_caps.get()));
    if (gst_caps_is_empty(both.get()))
        return "video/x-raw";
    return caps_text(both.get());
}

} // namespace

static gboolean g2g_ipc_src_start(GstBaseSrc *base)
{
    G2gIpcSrc *self = G2G_IPC_SRC(base);
    SrcState &state = self->priv->state;
    const SrcSettings settings = self->priv->settings.snapshot(self);
    state = SrcState();
    state.path = settings.socket_path;
    state.bell_watch = g2g::ipc::BellWatch(settings.spin_us);
    self->priv->rings_watched = 0;
    self->priv->rings_woken = 0;
    if (settings.socket_path.empty()) {
        g2g::element::post_error(GST_ELEMENT(self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                                 std::string(GST_OBJECT_NAME(self)) + ": socket-path is not set");
        return FALSE;
    }
    // A path no socket can have is refused now, not after connection-timeout's tries.
    if (g2g::Result<sockaddr_un> address = g2g::ipc::socket_address(settings.socket_path); !address) {
        g2g::element::post_error(GST_ELEMENT(self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                                 std::string(GST_OBJECT_NAME(self)) + ": " + address.error().message());
        return FALSE;
    }
    // Nor does a producer ever listen where a file or a folder is (g2gipcsink refuses those).
    if (const std::string there = g2g::ipc::not_a_socket_at(settings.socket_path, true); !there.empty()) {
        g2g::element::post_error(GST_ELEMENT(self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                                 std::string(GST_OBJECT_NAME(self)) + ": socket path " +
                                     settings.socket_path + " is " + there);
        return FALSE;
    }
    // A consumer may start before its producer: it tries again until connection-timeout.
    const gint64 until = g_get_monotonic_time() + gint64(settings.connection_timeout) * G_USEC_PER_SEC;
    g2g::Result<g2g::ipc::UniqueFd> socket = g2g::ipc::connect_to(settings.socket_path);
    while (!socket && g_get_monotonic_time() < until) {
        g_usleep(kConnectRetryUs);
        socket = g2g::ipc::connect_to(settings.socket_path);
    }
    if (!socket) {
        g2g::element::post_error(
            GST_ELEMENT(self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
            std::string(GST_OBJECT_NAME(self)) + ": no producer within connection-timeout (" +
                std::to_string(settings.connection_timeout) + " s): " + socket.error().message());
        return FALSE;
    }
    // A lane first (its frames with no system call of the producer's), then what it takes.
    const std::vector<std::uint8_t> hello = g2g::ipc::encode_caps(downstream_caps(self));
    g2g::Result<void> said =
        g2g::ipc::send_message(socket->get(), g2g::ipc::message_type(g2g::ipc::ControlType::WantLane), {});
    if (said)
        said = g2g::ipc::send_message(socket->get(), g2g::ipc::message_type(g2g::ipc::ControlType::Hello),
                                      hello);
    if (!said) {
        fail(self, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
             "cannot be written to: " + said.error().message());
        return FALSE;
    }
    // A release is sent from whichever thread frees a frame's last memory: it never waits more than
    // a second on a producer that stopped reading (the release is lost; the producer lets go of the
    // frame when this consumer leaves).
    const timeval timeout{1, 0};
    setsockopt(socket->get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    state.socket = socket->get();
    state.connection = std::make_shared<Connection>();
    state.connection->socket = std::move(*socket);
    state.wake = g2g::ipc::UniqueFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    gst_segment_init(&state.segment, GST_FORMAT_TIME);
    return TRUE;
}

static gboolean g2g_ipc_src_stop(GstBaseSrc *base)
{
    G2G_IPC_SRC(base)->priv->imports.clear();
    G2G_IPC_SRC(base)->priv->cuda_imports.clear();
    G2G_IPC_SRC(base)->priv->memories.clear();
    SrcState &state = G2G_IPC_SRC(base)->priv->state;
    // Frames still out keep the connection; closed, their releases go nowhere and the producer,
    // seeing the socket close, lets go of all of them at once.
    if (state.connection)
        state.connection->close();
    state.connection.reset();
    state.socket = -1;
    state.wake = g2g::ipc::UniqueFd();
    state.bell.reset();
    return TRUE;
}

// The caps are the producer's (its CAPS message, set in create): basesrc's own guess from
// downstream's caps, before any came, would be a caps event of no frame.
static gboolean g2g_ipc_src_negotiate(GstBaseSrc *)
{
    return TRUE;
}

static gboolean g2g_ipc_src_unlock(GstBaseSrc *base)
{
    SrcPrivate *priv = G2G_IPC_SRC(base)->priv;
    SrcState &state = priv->state;
    const std::uint64_t one = 1;
    if (state.wake) [[maybe_unused]]
        ssize_t n = ::write(state.wake.get(), &one, sizeof one);
    // The bell is woken for every consumer of the producer (they look at their lanes and sleep
    // again); one that went to sleep just before this sees the flag within kLaneCheckMs.
    priv->unlocking = true;
    if (state.bell)
        state.bell->wake_all();
    return TRUE;
}

static gboolean g2g_ipc_src_unlock_stop(GstBaseSrc *base)
{
    G2G_IPC_SRC(base)->priv->unlocking = false;
    SrcState &state = G2G_IPC_SRC(base)->priv->state;
    std::uint64_t count;
    if (state.wake) [[maybe_unused]]
        ssize_t n = ::read(state.wake.get(), &count, sizeof count);
    return TRUE;
}

namespace {

GstFlowReturn take_caps(G2gIpcSrc *self, const std::vector<std::uint8_t> &payload)
{
    SrcState &state = self->priv->state;
    g2g::Result<std::string> text = g2g::ipc::decode_caps(payload);
    if (!text)
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                    "sent caps that do not read: " + text.error().message());
    if (*text == "NULL")
        return GST_FLOW_OK; // unixfdsink before its stream's caps
    g2g::CapsRef caps = g2g::CapsRef::adopt(gst_caps_from_string(text->c_str()));
    const g2g::CapsRef plain = caps ? g2g::dmabuf::caps_from_dma_drm(caps.get()) : g2g::CapsRef();
    GstVideoInfo info;
    const char *why = !caps                                                     ? "they do not parse"
                      : !gst_caps_is_fixed(caps.get())                          ? "not fixed"
                      : !plain || !gst_video_info_from_caps(&info, plain.get()) ? "no video layout"
                                                                                : nullptr;
    if (why)
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                    "sent caps of no fixed video frame: " + *text + " (" + why + ")");
    if (!gst_base_src_set_caps(GST_BASE_SRC(self), caps.get()))
        return fail(self, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                    "sent " + *text + ", which downstream does not take");
    const std::optional<g2g::MemoryDomainKind> domain = g2g::detail::domain_of(caps.get());
    if (domain == g2g::MemoryDomainKind::VulkanTexture && !self->priv->vulkan.ensure(GST_ELEMENT(self)))
        return GST_FLOW_ERROR;
    if (domain == g2g::MemoryDomainKind::Cuda && !self->priv->cuda.ensure(GST_ELEMENT(self)))
        return GST_FLOW_ERROR;
    state.device_kind = domain == g2g::MemoryDomainKind::VulkanTexture ? g2g::ipc::MemoryKind::VulkanImage
                        : domain == g2g::MemoryDomainKind::Cuda        ? g2g::ipc::MemoryKind::CudaIpc
                                                                       : g2g::ipc::MemoryKind::Fd;
    const GstCapsFeatures *features = gst_caps_get_features(caps.get(), 0);
    state.view_caps = features && gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW);
    state.info = info;
    self->priv->memories.clear(); // a new stream: the producer's pool of the old one goes
    state.have_info = true;
    return GST_FLOW_OK;
}

// The producer's times of a frame, in a segment whose running time is this pipeline's of the same
// clock instant.
void stamp(G2gIpcSrc *self, GstBuffer *frame, const g2g::ipc::NewBuffer &message)
{
    SrcState &state = self->priv->state;
    g2g::Ref<GstClock> clock = g2g::Ref<GstClock>::adopt(gst_element_get_clock(GST_ELEMENT(self)));
    const GstClockTimeDiff offset = g2g::ipc::clock_offset(clock.get());
    const GstClockTime base_time = gst_element_get_base_time(GST_ELEMENT(self));
    const GstClockTime here = g2g::ipc::from_wire(message.pts, base_time, offset);
    std::optional<g2g::ipc::StreamTimes> times;
    for (const g2g::ipc::MetaRecord &record : message.metas)
        if (record.name == g2g::ipc::kTimesRecordName)
            if (g2g::Result<g2g::ipc::StreamTimes> decoded = g2g::ipc::decode_times(record))
                times = *decoded;
    if (!state.g2g_producer || !times) {
        // unixfdsink's frames: the wire's clock times are the timestamps, in this source's segment.
        GST_BUFFER_PTS(frame) = here;
        GST_BUFFER_DTS(frame) = g2g::ipc::from_wire(message.dts, base_time, offset);
        return;
    }
    GST_BUFFER_PTS(frame) = times->pts;
    GST_BUFFER_DTS(frame) = times->dts;
    if (state.segment_pending && GST_CLOCK_TIME_IS_VALID(here) && GST_CLOCK_TIME_IS_VALID(times->pts)) {
        GstSegment segment = state.segment;
        const guint64 there = gst_segment_to_running_time(&segment, GST_FORMAT_TIME, times->pts);
        if (GST_CLOCK_TIME_IS_VALID(there) &&
            gst_segment_offset_running_time(&segment, GST_FORMAT_TIME,
                                            static_cast<gint64>(here) - static_cast<gint64>(there)))
            gst_base_src_new_segment(GST_BASE_SRC(self), &segment);
        else
            gst_base_src_new_segment(GST_BASE_SRC(self), &state.segment);
        state.segment_pending = false;
    }
}

GstFlowReturn take_frame(G2gIpcSrc *self, g2g::ipc::Message &message, GstBuffer **out)
{
    SrcState &state = self->priv->state;
    g2g::Result<g2g::ipc::NewBuffer> decoded =
        g2g::ipc::decode_new_buffer(message.payload, message.fds.size());
    if (!decoded)
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                    "sent a frame that does not read: " + decoded.error().message());
    if (!state.have_info) {
        state.connection->release(decoded->id);
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "sent a frame before its caps");
    }
    const bool images = decoded->kind == g2g::ipc::MemoryKind::VulkanImage;
    const bool cuda = decoded->kind == g2g::ipc::MemoryKind::CudaIpc;
    // A device's memory in its own caps alone, and descriptors (memfds, DMA-BUFs) in no device's.
    const g2g::ipc::MemoryKind kind = images || cuda ? decoded->kind : g2g::ipc::MemoryKind::Fd;
    if (kind != state.device_kind) {
        auto name = [](g2g::ipc::MemoryKind k) {
            return k == g2g::ipc::MemoryKind::VulkanImage ? "Vulkan images"
                   : k == g2g::ipc::MemoryKind::CudaIpc   ? "CUDA memory"
                                                          : "memfds or DMA-BUFs";
        };
        state.connection->release(decoded->id);
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                    std::string("sent a frame of ") + name(kind) + " in a stream of " +
                        name(state.device_kind) + " (its caps)");
    }
    const std::shared_ptr<g2g::vulkan::Engine> engine = images ? self->priv->vulkan.engine() : nullptr;
    g2g::Result<g2g::BufferRef> frame =
        images ? self->priv->imports.build(g2g::ipc::engine_device(*engine), *decoded, std::move(message.fds),
                                           state.info, state.view_caps)
        : cuda ? self->priv->cuda_imports.build(self->priv->cuda.context(), *decoded, state.info,
                                                state.view_caps)
               : g2g::ipc::build_frame(*decoded, std::move(message.fds), state.info, state.view_caps,
                                       self->priv->memories);
    if (!frame) {
        state.connection->release(decoded->id);
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                    "sent a frame refused here: " + frame.error().message());
    }
    GstBuffer *buffer = frame->get();
    const guint n = gst_buffer_n_memory(buffer);
    if (n == 0) {
        state.connection->release(decoded->id);
    } else {
        auto *out_frame = new OutFrame{state.connection, decoded->id, {}};
        out_frame->memories = n;
        for (guint i = 0; i < n; ++i)
            gst_mini_object_weak_ref(GST_MINI_OBJECT(gst_buffer_peek_memory(buffer, i)), memory_gone,
                                     out_frame);
    }
    stamp(self, buffer, *decoded);
    *out = frame->release();
    return GST_FLOW_OK;
}

} // namespace

namespace {

// The producer's LANE (on the socket): its records are read from then on.
GstFlowReturn take_lane(G2gIpcSrc *self, g2g::ipc::Message &message)
{
    SrcState &state = self->priv->state;
    if (message.fds.size() != 3 || state.bell)
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                    state.bell
                        ? std::string("sent a second lane")
                        : "sent a lane of " + std::to_string(message.fds.size()) + " descriptors, not 3");
    g2g::Result<g2g::ipc::LaneReader> lane = g2g::ipc::LaneReader::map(std::move(message.fds[0]));
    g2g::Result<g2g::ipc::Bell> bell = g2g::ipc::Bell::map(std::move(message.fds[1]));
    g2g::Result<void> doorbell = g2g::ipc::check_doorbell(message.fds[2].get());
    if (!lane || !bell || !doorbell)
        return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                    "sent a lane refused here: " + (!lane   ? lane.error()
                                                    : !bell ? bell.error()
                                                            : doorbell.error())
                                                       .message());
    std::lock_guard lock(state.connection->mutex);
    state.connection->lane = std::move(*lane);
    state.connection->doorbell = std::move(message.fds[2]);
    state.bell = std::move(*bell);
    return GST_FLOW_OK;
}

// The next record of the lane, its descriptors taken from the socket; a wait on the bell meanwhile.
GstFlowReturn next_from_lane(G2gIpcSrc *self, g2g::ipc::Message &message)
{
    SrcState &state = self->priv->state;
    g2g::ipc::LaneReader &lane = *state.connection->lane;
    for (bool waited = false;; waited = true) {
        if (self->priv->unlocking)
            return GST_FLOW_FLUSHING;
        const std::uint32_t seen = state.bell->value();
        g2g::Result<std::optional<g2g::ipc::LaneRecord>> record = lane.next();
        if (!record)
            return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                        "wrote a lane refused here: " + record.error().message());
        if (*record) {
            if ((*record)->type == static_cast<std::uint32_t>(g2g::ipc::MessageType::NewBuffer)) {
                if (waited)
                    state.bell_watch.frame_seen(state.bell->rang_ns());
                else
                    state.bell_watch.behind();
            }
            message.header = {(*record)->type, static_cast<std::uint32_t>((*record)->payload.size())};
            message.payload = std::move((*record)->payload);
            message.fds.clear();
            if ((*record)->descriptors == 0)
                return GST_FLOW_OK;
            g2g::Result<g2g::ipc::Message> carried = g2g::ipc::receive_message(state.socket);
            if (!carried)
                return fail(self, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
                            "went away: " + carried.error().message());
            if (carried->header.type != static_cast<std::uint32_t>(g2g::ipc::ControlType::Descriptors) ||
                carried->fds.size() != (*record)->descriptors)
                return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                            "sent message type " + std::to_string(carried->header.type) + " with " +
                                std::to_string(carried->fds.size()) +
                                " descriptors where its lane's record named " +
                                std::to_string((*record)->descriptors));
            message.fds = std::move(carried->fds);
            return GST_FLOW_OK;
        }
        const bool rang = state.bell_watch.wait(*state.bell, seen, kLaneCheckMs,
                                                [self] { return self->priv->unlocking.load(); });
        self->priv->rings_watched.store(state.bell_watch.rings_watched(), std::memory_order_relaxed);
        self->priv->rings_woken.store(state.bell_watch.rings_woken(), std::memory_order_relaxed);
        if (rang)
            continue;
        // Nothing rang: is the producer still there? Its socket carries nothing else now.
        pollfd polled{state.socket, POLLRDHUP, 0};
        if (::poll(&polled, 1, 0) > 0 && (polled.revents & (POLLHUP | POLLRDHUP | POLLERR)) &&
            !lane.pending())
            return fail(self, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
                        "went away: the peer closed the connection");
    }
}

// The next message: from the lane where the producer gave one, else from the socket.
GstFlowReturn next_message(G2gIpcSrc *self, g2g::ipc::Message &message)
{
    SrcState &state = self->priv->state;
    if (state.bell)
        return next_from_lane(self, message);
    pollfd polled[2] = {{state.socket, POLLIN, 0}, {state.wake.get(), POLLIN, 0}};
    while (!polled[0].revents) {
        if (::poll(polled, 2, -1) < 0 && errno != EINTR)
            return fail(self, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ, "cannot be waited for");
        if (polled[1].revents)
            return GST_FLOW_FLUSHING;
    }
    g2g::Result<g2g::ipc::Message> received = g2g::ipc::receive_message(state.socket);
    if (!received)
        return fail(self, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
                    "went away: " + received.error().message());
    message = std::move(*received);
    return GST_FLOW_OK;
}

} // namespace

static GstFlowReturn g2g_ipc_src_create(GstPushSrc *push, GstBuffer **out)
{
    G2gIpcSrc *self = G2G_IPC_SRC(push);
    SrcState &state = self->priv->state;
    for (;;) {
        g2g::ipc::Message received;
        if (GstFlowReturn next = next_message(self, received); next != GST_FLOW_OK)
            return next;
        g2g::ipc::Message *message = &received;
        const std::uint32_t type = message->header.type;
        switch (type) {
        case static_cast<std::uint32_t>(g2g::ipc::MessageType::NewBuffer):
            return take_frame(self, *message, out);
        case static_cast<std::uint32_t>(g2g::ipc::MessageType::Caps):
            if (GstFlowReturn taken = take_caps(self, message->payload); taken != GST_FLOW_OK)
                return taken;
            break;
        case static_cast<std::uint32_t>(g2g::ipc::MessageType::Eos):
            return GST_FLOW_EOS;
        case static_cast<std::uint32_t>(g2g::ipc::ControlType::Refused): {
            g2g::Result<std::string> why = g2g::ipc::decode_caps(message->payload);
            return fail(self, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                        "has no frames this consumer takes: " + (why ? *why : why.error().message()));
        }
        case static_cast<std::uint32_t>(g2g::ipc::ControlType::Segment): {
            g2g::Result<GstSegment> segment = g2g::ipc::decode_segment(message->payload);
            if (!segment)
                return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                            "sent a segment that does not read: " + segment.error().message());
            state.segment = *segment;
            state.segment_pending = true;
            state.g2g_producer = true;
            break;
        }
        case static_cast<std::uint32_t>(g2g::ipc::ControlType::FlushStart):
            gst_pad_push_event(GST_BASE_SRC_PAD(self), gst_event_new_flush_start());
            break;
        case static_cast<std::uint32_t>(g2g::ipc::ControlType::FlushStop): {
            const bool reset = message->payload.size() == 1 && message->payload[0] != 0;
            gst_pad_push_event(GST_BASE_SRC_PAD(self), gst_event_new_flush_stop(reset));
            break;
        }
        case static_cast<std::uint32_t>(g2g::ipc::MessageType::ReleaseBuffer):
            return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                        "sent a consumer's message (RELEASE)");
        case static_cast<std::uint32_t>(g2g::ipc::ControlType::Lane):
            if (GstFlowReturn taken = take_lane(self, *message); taken != GST_FLOW_OK)
                return taken;
            break;
        case static_cast<std::uint32_t>(g2g::ipc::ControlType::Descriptors):
            return fail(self, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                        "sent descriptors that no record of a lane named");
        default:
            break; // a type of a later producer: skipped, as unixfdsrc does
        }
    }
}

// The CUDA and Vulkan contexts, as g2gipcsink's Vulkan one (context-glue.h's handling, for a source).
static void g2g_ipc_src_set_context(GstElement *element, GstContext *context)
{
    G2G_IPC_SRC(element)->priv->cuda.set_context(element, context);
    G2G_IPC_SRC(element)->priv->vulkan.set_context(element, context);
    GST_ELEMENT_CLASS(g2g_ipc_src_parent_class)->set_context(element, context);
}

static gboolean g2g_ipc_src_query(GstBaseSrc *base, GstQuery *query)
{
    SrcPrivate *priv = G2G_IPC_SRC(base)->priv;
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && (priv->cuda.answer_query(GST_ELEMENT(base), query) ||
                                                       priv->vulkan.answer_query(GST_ELEMENT(base), query)))
        return TRUE;
    return GST_BASE_SRC_CLASS(g2g_ipc_src_parent_class)->query(base, query);
}

static GstStateChangeReturn g2g_ipc_src_change_state(GstElement *element, GstStateChange transition)
{
    G2gIpcSrc *self = G2G_IPC_SRC(element);
    if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
        self->priv->vulkan.join(element);
    const GstStateChangeReturn result =
        GST_ELEMENT_CLASS(g2g_ipc_src_parent_class)->change_state(element, transition);
    if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && result != GST_STATE_CHANGE_FAILURE) {
        self->priv->vulkan.release();
        self->priv->cuda.release();
    }
    return result;
}

static void g2g_ipc_src_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    G2gIpcSrc *self = G2G_IPC_SRC(object);
    self->priv->settings.update(self, [&](SrcSettings &settings) {
        if (id == PROP_SOCKET_PATH)
            settings.socket_path = g_value_get_string(value) ? g_value_get_string(value) : "";
        else if (id == PROP_CONNECTION_TIMEOUT)
            settings.connection_timeout = g_value_get_uint(value);
        else if (id == PROP_SPIN_US)
            settings.spin_us = g_value_get_uint(value);
        else
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    });
}

static void g2g_ipc_src_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    G2gIpcSrc *self = G2G_IPC_SRC(object);
    const SrcSettings settings = self->priv->settings.snapshot(self);
    if (id == PROP_SOCKET_PATH)
        g_value_set_string(value, settings.socket_path.c_str());
    else if (id == PROP_CONNECTION_TIMEOUT)
        g_value_set_uint(value, settings.connection_timeout);
    else if (id == PROP_SPIN_US)
        g_value_set_uint(value, settings.spin_us);
    else if (id == PROP_STATS)
        g_value_take_boxed(value, gst_structure_new("g2gipcsrc-stats", "rings-watched", G_TYPE_UINT64,
                                                    self->priv->rings_watched.load(), "rings-woken",
                                                    G_TYPE_UINT64, self->priv->rings_woken.load(), nullptr));
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void g2g_ipc_src_finalize(GObject *object)
{
    delete G2G_IPC_SRC(object)->priv;
    G_OBJECT_CLASS(g2g_ipc_src_parent_class)->finalize(object);
}

static void g2g_ipc_src_class_init(G2gIpcSrcClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseSrcClass *base_class = GST_BASE_SRC_CLASS(klass);
    object_class->set_property = g2g_ipc_src_set_property;
    object_class->get_property = g2g_ipc_src_get_property;
    object_class->finalize = g2g_ipc_src_finalize;
    g_object_class_install_property(
        object_class, PROP_SOCKET_PATH,
        g_param_spec_string(
            "socket-path", "Socket path", "The unix socket of the producer (g2gipcsink, unixfdsink)", nullptr,
            static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    g_object_class_install_property(
        object_class, PROP_CONNECTION_TIMEOUT,
        g_param_spec_uint(
            "connection-timeout", "Connection timeout",
            "Seconds to keep trying to connect at start while no producer listens (0: fail at once)", 0, 3600,
            5,
            static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    g_object_class_install_property(
        object_class, PROP_SPIN_US,
        g_param_spec_uint(
            "spin-us", "Spin window (us)",
            "Where frames come at a steady rate, microseconds around each next frame's due time that this "
            "consumer watches for it without sleeping (0: it sleeps until the producer wakes it). Costs "
            "up to that much CPU a frame; saves the producer a wake-up of this consumer a frame, and the "
            "frame the host's wake-up latency (g2g's own producers, on a lane)",
            0, 100000, 0,
            static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    g_object_class_install_property(
        object_class, PROP_STATS,
        g_param_spec_boxed("stats", "Statistics",
                           "On a lane: rings-watched (frames seen while watching in the spin-us window: the "
                           "producer woke no one) and rings-woken (frames that woke this consumer from its "
                           "sleep), since the element started",
                           GST_TYPE_STRUCTURE,
                           static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    g2g::element::set_metadata(element_class, "g2gipcsrc", "g2g IPC source", "Source/Video",
                               "Frames of another process's g2gipcsink, its memory mapped, never copied");
    GstCaps *caps = gst_caps_from_string("video/x-raw(ANY)");
    gst_element_class_add_pad_template(element_class,
                                       gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    element_class->set_context = g2g_ipc_src_set_context;
    element_class->change_state = g2g_ipc_src_change_state;
    base_class->query = g2g_ipc_src_query;
    base_class->start = g2g_ipc_src_start;
    base_class->stop = g2g_ipc_src_stop;
    base_class->negotiate = g2g_ipc_src_negotiate;
    base_class->unlock = g2g_ipc_src_unlock;
    base_class->unlock_stop = g2g_ipc_src_unlock_stop;
    GST_PUSH_SRC_CLASS(klass)->create = g2g_ipc_src_create;
    GST_DEBUG_CATEGORY_INIT(g2g_ipc_src_debug, "g2gipcsrc", 0, "g2g IPC source");
}

static void g2g_ipc_src_init(G2gIpcSrc *self)
{
    self->priv = new SrcPrivate();
    self->priv->vulkan.provide([](GstElement *) { return std::optional<g2g::element::GpuUuid>(); });
    gst_base_src_set_live(GST_BASE_SRC(self), TRUE);
    gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_TIME);
    // GstVideoMeta's record is read by name: the meta must be known in this process; so must the
    // video library's types a producer's caps carry (nvh264dec's multiview flag set), before the
    // first caps are parsed.
    gst_video_meta_get_info();
    gst_video_multiview_flagset_get_type();
}
