// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ipc-control.h"

GST_DEBUG_CATEGORY_STATIC(ipc_server_debug);
#define GST_CAT_DEFAULT ipc_server_debug

namespace g2g::ipc {

namespace {

// A consumer that takes longer than this to take a message, or to send the rest of one it began,
// is let go: the producer never waits on a socket for longer.
constexpr int kSocketTimeoutMs = 1000;

Error failed(const std::string &what, int error)
{
    return Error(ErrorCode::InvalidArgument, what + ": " + std::strerror(error));
}

void set_timeouts(int socket)
{
    timeval timeout{kSocketTimeoutMs / 1000, (kSocketTimeoutMs % 1000) * 1000};
    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
}

} // namespace

struct Server::Consumer {
    std::uint64_t number = 0;
    UniqueFd socket;
    pid_t pid = 0;
    gint64 joined_us = 0;
    bool said_hello = false;
    bool announced = false; // said HELLO, or its grace is over
    bool dead = false;      // let go of: the thread closes it
    CapsRef accepts;
    RouteId route = -1;
    CapsRef caps; // the caps it was last sent
    std::set<std::uint64_t> held;
    FilesSent files; // said HELLO (g2g's consumer): what it keeps, forgotten as a CAPS message passes
    bool wants_lane = false;
    std::optional<LaneWriter> lane; // its messages go there, and its releases come from there
};

Result<std::unique_ptr<Server>> Server::listen(const std::string &path, RouteChooser chooser,
                                               MisbehaviourReport report)
{
    static std::once_flag category;
    std::call_once(category, [] {
        GST_DEBUG_CATEGORY_INIT(ipc_server_debug, "g2gipcserver", 0, "g2gipcsink's socket");
    });
    Result<sockaddr_un> address = socket_address(path);
    if (!address)
        return address.error();
    UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!listener)
        return failed("cannot make a socket", errno);
    auto *where = reinterpret_cast<const sockaddr *>(&*address);
    if (::bind(listener.get(), where, sizeof *address) < 0) {
        if (errno != EADDRINUSE)
            return failed("cannot listen at " + path, errno);
        // Something is there. Only a socket is replaced, and only one nobody listens at (a dead
        // producer's): a file or a folder of that name is the user's, never removed.
        if (const std::string there = not_a_socket_at(path, false); !there.empty())
            return Error(ErrorCode::InvalidArgument,
                         "cannot listen at " + path + ": " + there +
                             " is there (only a socket a producer left is replaced)");
        if (connect_to(path))
            return Error(ErrorCode::InvalidArgument,
                         "cannot listen at " + path + ": another producer listens there");
        ::unlink(path.c_str());
        if (::bind(listener.get(), where, sizeof *address) < 0)
            return failed("cannot listen at " + path, errno);
    }
    if (::listen(listener.get(), 16) < 0)
        return failed("cannot listen at " + path, errno);
    struct stat bound {};
    ::lstat(path.c_str(), &bound);
    std::unique_ptr<Server> server(
        new Server(path, std::move(listener), std::move(chooser), std::move(report)));
    server->socket_file_ = {bound.st_dev, bound.st_ino};
    if (!server->wake_)
        return failed("cannot make an eventfd", errno);
    // Without a bell or a doorbell every consumer stays on its socket, as unixfdsink's do.
    if (Result<Bell> bell = Bell::create(); bell && server->doorbell_)
        server->bell_ = std::move(*bell);
    else
        GST_WARNING("no lanes: %s", bell ? std::strerror(errno) : bell.error().message().c_str());
    server->thread_ = std::thread([s = server.get()] { s->run(); });
    return server;
}

Server::Server(std::string path, UniqueFd listener, RouteChooser chooser, MisbehaviourReport report)
    : path_(std::move(path)), listener_(std::move(listener)), wake_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      doorbell_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), chooser_(std::move(chooser)),
      report_(std::move(report))
{
}

Server::~Server()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        interrupted_ = true;
    }
    changed_.notify_all();
    wake();
    if (thread_.joinable())
        thread_.join();
    consumers_.clear();
    held_.clear();
    // Only the socket file this server made: one a later producer made at the path after this one's
    // was removed (a supervisor restarting a stuck producer) stays for that producer's consumers.
    struct stat there {};
    if (::lstat(path_.c_str(), &there) == 0 && there.st_dev == socket_file_.first &&
        there.st_ino == socket_file_.second)
        ::unlink(path_.c_str());
}

void Server::wake()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_.get(), &one, sizeof one);
}

void Server::set_queue(std::size_t max_held, QueueFull full)
{
    std::lock_guard lock(mutex_);
    max_held_ = max_held;
    full_ = full;
    changed_.notify_all();
}

void Server::run()
{
    for (;;) {
        std::vector<std::string> reports;
        {
            std::lock_guard lock(mutex_);
            reports.swap(misbehaviours_);
        }
        if (report_)
            for (const std::string &what : reports)
                report_(what);
        std::vector<pollfd> polled{
            {listener_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}, {doorbell_.get(), POLLIN, 0}};
        std::vector<std::uint64_t> numbers;
        int timeout = -1;
        {
            std::lock_guard lock(mutex_);
            if (stopping_)
                return;
            const gint64 now = g_get_monotonic_time();
            for (auto it = consumers_.begin(); it != consumers_.end();) {
                Consumer &consumer = *it->second;
                if (consumer.dead) {
                    GST_INFO("consumer %" G_GUINT64_FORMAT " (pid %d) closed", consumer.number, consumer.pid);
                    it = consumers_.erase(it);
                    changed_.notify_all();
                    continue;
                }
                if (!consumer.announced) {
                    const gint64 left_ms = (consumer.joined_us + gint64(kGraceMs) * 1000 - now) / 1000;
                    if (left_ms <= 0) {
                        consumer.announced = true;
                        decide(consumer);
                    } else if (timeout < 0 || left_ms < timeout) {
                        timeout = static_cast<int>(left_ms) + 1;
                    }
                }
                if (!consumer.dead) {
                    polled.push_back({consumer.socket.get(), POLLIN, 0});
                    numbers.push_back(consumer.number);
                }
                ++it;
            }
        }
        if (const gint64 wait_us = accept_again_us_ - g_get_monotonic_time(); wait_us > 0) {
            polled[0].fd = -1; // poll skips it
            const int wait_ms = static_cast<int>(wait_us / 1000) + 1;
            timeout = timeout < 0 ? wait_ms : std::min(timeout, wait_ms);
        }
        if (::poll(polled.data(), polled.size(), timeout) < 0 && errno != EINTR) {
            GST_ERROR("poll: %s", std::strerror(errno));
            return;
        }
        if (polled[1].revents) {
            std::uint64_t count;
            [[maybe_unused]] ssize_t n = ::read(wake_.get(), &count, sizeof count);
        }
        if (polled[0].revents & POLLIN)
            accept_consumer();
        if (polled[2].revents) {
            // The first release of a frame rang: the others' come within the moment waited.
            g_usleep(kReapGatherUs);
            std::uint64_t count;
            [[maybe_unused]] ssize_t n = ::read(doorbell_.get(), &count, sizeof count);
            std::lock_guard lock(mutex_);
            reap_lanes();
        }
        for (std::size_t i = 3; i < polled.size(); ++i) {
            if (!polled[i].revents)
                continue;
            // Only this thread erases consumers: the socket stays open while it reads, unlocked.
            Consumer *consumer;
            {
                std::lock_guard lock(mutex_);
                auto found = consumers_.find(numbers[i - 3]);
                consumer = found == consumers_.end() || found->second->dead ? nullptr : found->second.get();
            }
            if (consumer)
                read_from(*consumer);
        }
    }
}

void Server::accept_consumer()
{
    UniqueFd socket(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!socket) {
        const int error = errno;
        if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
            // The consumer waits in the backlog (or its connect fails there) until a descriptor
            // is free again; the consumers that joined go on.
            GST_WARNING("accept: %s: no new consumer for %d ms", std::strerror(error), kAcceptPauseMs);
            accept_again_us_ = g_get_monotonic_time() + gint64(kAcceptPauseMs) * 1000;
        } else {
            GST_WARNING("accept: %s", std::strerror(error));
        }
        return;
    }
    set_timeouts(socket.get());
    // Descriptors are handed out lowest first, so this one's number is how many are in use.
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        static_cast<rlim_t>(socket.get()) + kReservedFds >= limit.rlim_cur) {
        const std::string why = "the producer keeps the last " + std::to_string(kReservedFds) + " of its " +
                                std::to_string(limit.rlim_cur) +
                                " descriptors for its frames: no further consumer now";
        GST_WARNING("a consumer refused: %s", why.c_str());
        const std::vector<std::uint8_t> text = encode_caps(why);
        send_message(socket.get(), message_type(ControlType::Refused), text);
        std::lock_guard lock(mutex_);
        ++counters_.refused;
        accept_again_us_ = g_get_monotonic_time() + gint64(kAcceptPauseMs) * 1000;
        return;
    }
    auto consumer = std::make_unique<Consumer>();
    ucred peer{};
    socklen_t length = sizeof peer;
    if (getsockopt(socket.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0)
        consumer->pid = peer.pid;
    consumer->socket = std::move(socket);
    consumer->joined_us = g_get_monotonic_time();
    std::lock_guard lock(mutex_);
    consumer->number = next_consumer_++;
    ++counters_.joined;
    GST_INFO("consumer %" G_GUINT64_FORMAT " (pid %d) joined", consumer->number, consumer->pid);
    consumers_.emplace(consumer->number, std::move(consumer));
}

void Server::read_from(Consumer &consumer)
{
    Result<Message> message = receive_message(consumer.socket.get());
    std::lock_guard lock(mutex_);
    if (!message) {
        // A close is a consumer's way to leave; anything else it sent or did not is its fault.
        const std::string why = message.error().message();
        drop(consumer.number, why, why != "the peer closed the connection");
        return;
    }
    switch (static_cast<std::uint32_t>(message->header.type)) {
    case static_cast<std::uint32_t>(MessageType::ReleaseBuffer): {
        Result<std::uint64_t> id = decode_release(message->payload);
        if (!id)
            drop(consumer.number, id.error().message(), true);
        else
            release_held(consumer, *id);
        return;
    }
    case static_cast<std::uint32_t>(ControlType::WantLane):
        if (consumer.said_hello || consumer.wants_lane) {
            drop(consumer.number,
                 consumer.said_hello ? "asked for a lane after its HELLO" : "asked for a lane twice", true);
            return;
        }
        consumer.wants_lane = true;
        return;
    case static_cast<std::uint32_t>(ControlType::Hello): {
        Result<std::string> text = decode_caps(message->payload);
        GstCaps *accepts = text ? gst_caps_from_string(text->c_str()) : nullptr;
        if (!accepts || consumer.said_hello) {
            const std::string why = !text                 ? text.error().message()
                                    : consumer.said_hello ? "said HELLO twice"
                                                          : "HELLO of no caps: " + *text;
            drop(consumer.number, why, true);
            if (accepts)
                gst_caps_unref(accepts);
            return;
        }
        consumer.accepts = CapsRef::adopt(accepts);
        consumer.said_hello = true;
        consumer.announced = true;
        if (consumer.wants_lane)
            open_lane(consumer);
        decide(consumer);
        ring_bell();
        return;
    }
    case static_cast<std::uint32_t>(MessageType::NewBuffer):
    case static_cast<std::uint32_t>(MessageType::Caps):
        drop(consumer.number, "sent a producer's message (type " + std::to_string(message->header.type) + ")",
             true);
        return;
    default:
        // As unixfdsink: a type this producer does not know is skipped (a later consumer's).
        return;
    }
}

void Server::decide(Consumer &consumer)
{
    RouteDecision decision = chooser_(consumer.said_hello ? consumer.accepts.get() : nullptr);
    if (decision.route < 0) {
        consumer.route = -1;
        if (!decision.refusal.empty()) {
            ++counters_.refused;
            if (consumer.said_hello) {
                const std::vector<std::uint8_t> text = encode_caps(decision.refusal);
                send_to(consumer, message_type(ControlType::Refused), text);
            }
            drop(consumer.number, "refused: " + decision.refusal);
        }
        return;
    }
    const bool same = consumer.route == decision.route && consumer.caps && decision.caps &&
                      gst_caps_is_equal(consumer.caps.get(), decision.caps.get());
    consumer.route = decision.route;
    if (!same) {
        consumer.caps = std::move(decision.caps);
        consumer.files.clear(); // the consumer lets go of every file as the caps come
        gchar *text = gst_caps_to_string(consumer.caps.get());
        const std::vector<std::uint8_t> payload = encode_caps(text);
        g_free(text);
        if (!send_to(consumer, MessageType::Caps, payload))
            return;
    }
    if (consumer.said_hello && !segment_.empty())
        send_to(consumer, message_type(ControlType::Segment), segment_);
    changed_.notify_all();
}

void Server::restart_routes()
{
    std::lock_guard lock(mutex_);
    for (auto &[number, consumer] : consumers_)
        if (consumer->announced && !consumer->dead)
            decide(*consumer);
    ring_bell();
}

void Server::set_segment(std::vector<std::uint8_t> segment)
{
    std::lock_guard lock(mutex_);
    segment_ = std::move(segment);
    for (auto &[number, consumer] : consumers_)
        if (consumer->said_hello && consumer->route >= 0 && !consumer->dead)
            send_to(*consumer, message_type(ControlType::Segment), segment_);
    ring_bell();
}

std::set<RouteId> Server::routes_in_use()
{
    std::lock_guard lock(mutex_);
    std::set<RouteId> routes;
    for (auto &[number, consumer] : consumers_)
        if (consumer->route >= 0 && !consumer->dead)
            routes.insert(consumer->route);
    return routes;
}

bool Server::wait_for_consumers(std::size_t count)
{
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] {
        if (interrupted_)
            return true;
        std::size_t routed = 0;
        for (auto &[number, consumer] : consumers_)
            routed += consumer->route >= 0 && !consumer->dead;
        return routed >= count;
    });
    return !interrupted_;
}

void Server::drop(std::uint64_t number, const std::string &why, bool misbehaved)
{
    auto found = consumers_.find(number);
    if (found == consumers_.end() || found->second->dead)
        return;
    Consumer &consumer = *found->second;
    const std::string what = "consumer " + std::to_string(number) + " (pid " + std::to_string(consumer.pid) +
                             ") let go of: " + why;
    GST_INFO("%s", what.c_str());
    if (misbehaved)
        misbehaviours_.push_back(what);
    consumer.dead = true;
    ++counters_.left;
    // What it held goes back now, not when the thread closes it.
    while (!consumer.held.empty())
        release(consumer, *consumer.held.begin());
    changed_.notify_all();
    wake();
}

void Server::release(Consumer &consumer, std::uint64_t id)
{
    consumer.held.erase(id);
    ++counters_.released;
    auto found = held_.find(id);
    if (found != held_.end() && --found->second.holders == 0)
        held_.erase(found);
    changed_.notify_all();
}

bool Server::send_to(Consumer &consumer, MessageType type, std::span<const std::uint8_t> payload,
                     std::span<const int> fds)
{
    if (consumer.dead)
        return false;
    if (!consumer.lane)
        return send_on_socket(consumer, type, payload, fds);
    // The record's descriptors first, on the socket: the consumer takes them as it reads it.
    if (!fds.empty() && !send_on_socket(consumer, message_type(ControlType::Descriptors), {}, fds))
        return false;
    if (!consumer.lane->write(static_cast<std::uint32_t>(type), payload,
                              static_cast<std::uint32_t>(fds.size()))) {
        drop(consumer.number, "its lane stayed full: it stopped reading", true);
        return false;
    }
    bell_due_ = true;
    return true;
}

bool Server::send_on_socket(Consumer &consumer, MessageType type, std::span<const std::uint8_t> payload,
                            std::span<const int> fds)
{
    const Result<void> sent = send_message(consumer.socket.get(), type, payload, fds);
    const int error = errno;
    if (!sent) {
        // A consumer that died has its socket reset (EPIPE, ECONNRESET); a live one that took
        // nothing for a second stalled.
        drop(consumer.number, sent.error().message(), error == EAGAIN || error == EWOULDBLOCK);
        return false;
    }
    return true;
}

void Server::open_lane(Consumer &consumer)
{
    if (!bell_)
        return;
    Result<LaneWriter> lane = LaneWriter::create();
    if (!lane) {
        GST_WARNING("consumer %" G_GUINT64_FORMAT ": no lane, its socket instead: %s", consumer.number,
                    lane.error().message().c_str());
        return;
    }
    const int fds[3] = {lane->fd(), bell_->fd(), doorbell_.get()};
    if (send_to(consumer, message_type(ControlType::Lane), {}, fds))
        consumer.lane = std::move(*lane);
}

void Server::reap_lanes()
{
    std::vector<std::uint64_t> ids;
    for (auto &[number, consumer] : consumers_) {
        if (!consumer->lane || consumer->dead)
            continue;
        ids.clear();
        if (Result<void> taken = consumer->lane->take_releases(ids); !taken) {
            drop(number, taken.error().message(), true);
            continue;
        }
        for (std::uint64_t id : ids)
            if (!release_held(*consumer, id))
                break;
    }
}

bool Server::release_held(Consumer &consumer, std::uint64_t id)
{
    // unixfdsink's rule: a consumer that releases what it does not hold is let go.
    if (!consumer.held.count(id)) {
        drop(consumer.number, "released frame " + std::to_string(id) + ", which it does not hold", true);
        return false;
    }
    release(consumer, id);
    return true;
}

void Server::ring_bell()
{
    if (bell_due_ && bell_)
        bell_->ring();
    bell_due_ = false;
}

bool Server::send_addressed(Consumer &consumer, const OutgoingFrame &frame,
                            std::span<const std::uint8_t> payload)
{
    const FilesSent::Addressed own = consumer.files.address(frame);
    return send_to(consumer, MessageType::NewBuffer, with_files(payload, own.files, own.forget), own.fds);
}

Result<bool> Server::send_frame(RouteId route, BufferRef frame,
                                const std::function<Result<OutgoingFrame>(std::uint64_t id)> &describe)
{
    std::unique_lock lock(mutex_);
    // Interrupted (a flush, a stop) before this frame came: it is not sent, and nothing waits.
    if (interrupted_)
        return false;
    reap_lanes();
    const std::uint64_t id = next_id_++;
    Result<OutgoingFrame> outgoing = describe(id);
    if (!outgoing)
        return outgoing.error();
    const std::vector<std::uint8_t> payload = encode(outgoing->message);
    std::vector<std::uint64_t> numbers;
    for (auto &[number, consumer] : consumers_)
        if (consumer->route == route && !consumer->dead)
            numbers.push_back(number);
    std::size_t holders = 0;
    for (std::uint64_t number : numbers) {
        Consumer *consumer = nullptr;
        for (;;) {
            auto found = consumers_.find(number);
            consumer = found == consumers_.end() || found->second->dead || found->second->route != route
                           ? nullptr
                           : found->second.get();
            if (!consumer || consumer->held.size() < max_held_)
                break;
            if (full_ == QueueFull::Drop) {
                ++counters_.dropped;
                consumer = nullptr;
                break;
            }
            ring_bell();         // those written so far read while this one waits
            changed_.wait(lock); // interrupt() sets its flag under this lock, then wakes this wait
            if (interrupted_) {
                if (holders)
                    held_[id] = {std::move(frame), holders};
                return false;
            }
        }
        if (!consumer)
            continue;
        // g2g's consumers get each file's descriptor once, unixfdsrc every frame's.
        const bool by_number = consumer->said_hello && !outgoing->file_numbers.empty();
        if (!(by_number ? send_addressed(*consumer, *outgoing, payload)
                        : send_to(*consumer, MessageType::NewBuffer, payload, outgoing->fds)))
            continue;
        consumer->held.insert(id);
        ++holders;
        ++counters_.sent;
    }
    if (holders)
        held_[id] = {std::move(frame), holders};
    ring_bell();
    return true;
}

void Server::send_all(MessageType type, std::span<const std::uint8_t> payload, bool g2g_only)
{
    std::lock_guard lock(mutex_);
    for (auto &[number, consumer] : consumers_)
        if (consumer->route >= 0 && (!g2g_only || consumer->said_hello))
            send_to(*consumer, type, payload);
    ring_bell();
}

void Server::interrupt()
{
    {
        std::lock_guard lock(mutex_);
        interrupted_ = true;
    }
    changed_.notify_all();
}

void Server::resume()
{
    std::lock_guard lock(mutex_);
    interrupted_ = stopping_;
}

ServerCounters Server::counters()
{
    std::lock_guard lock(mutex_);
    return counters_;
}

std::size_t Server::consumers()
{
    std::lock_guard lock(mutex_);
    std::size_t announced = 0;
    for (auto &[number, consumer] : consumers_)
        announced += consumer->announced && !consumer->dead;
    return announced;
}

std::size_t Server::frames_held()
{
    std::lock_guard lock(mutex_);
    return held_.size();
}

} // namespace g2g::ipc
