// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink's side of the socket: it listens at the socket path, takes consumers as they come
// and go, learns what each takes (g2g's HELLO; a consumer that says nothing in its first
// kGraceMs is unixfdsrc, which takes the stream as unixfdsink sends it), and keeps the frames each
// holds. A frame is held (its buffer referenced) from its sending until every consumer it went to
// released it or went away: a consumer that dies (SIGKILL included) lets go of all it held as its
// socket closes. A consumer holds at most `max_held` frames: past that, its frames are dropped
// for it alone, or the producer waits for it (QueueFull). Its messages are read by a thread of
// its own, so a release is seen whatever the producer is doing. A g2g consumer that asks for a lane
// (ipc-lane.h) gets its messages there instead, and its releases are reaped from it: one bell a
// frame for every such consumer, and one wake-up of the thread for a frame's releases.
//
// Lock order: mutex_ alone; no GStreamer lock is taken under it (buffers released under it go
// back to their pools, which take only their own).
#pragma once

#include <gst/gst.h>

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

#include "ipc-frame.h"
#include "ipc-lane.h"
#include "ipc-socket.h"

namespace g2g::ipc {

// What the producer does with a frame for a consumer that holds max_held frames already.
enum class QueueFull { Drop, Wait };

// A consumer's route: which of the producer's forms of a frame it takes (the element decides
// what each is; the server only groups consumers by it). Negative: none yet.
using RouteId = int;

// The decision for one consumer: its route and the caps that say it, or why it has none.
struct RouteDecision {
    RouteId route = -1;
    CapsRef caps;        // sent to the consumer before its first frame of the route
    std::string refusal; // set where route < 0: sent to the consumer (REFUSED), which is let go
};

// Decides a consumer's route: `accepts` is what it takes (null for a consumer that said nothing:
// unixfdsrc). Called under the server's lock, on its thread or the producer's.
using RouteChooser = std::function<RouteDecision(const GstCaps *accepts)>;

struct ServerCounters {
    std::uint64_t joined = 0, left = 0, refused = 0;
    std::uint64_t sent = 0;    // frames sent, one per consumer
    std::uint64_t dropped = 0; // frames a full queue dropped, one per consumer
    std::uint64_t released = 0;
};

// Told, on the server's thread with no lock held, why a consumer was let go of for what it did
// (a message no consumer sends, a socket that stalled): "consumer 3 (pid 1234) ...". A consumer
// that closes its socket, or is refused a route, is not reported here.
using MisbehaviourReport = std::function<void(const std::string &what)>;

class Server {
public:
    // Listens at `path` (a socket file; one left by a producer that died is replaced, one a
    // producer listens at is refused by name).
    static Result<std::unique_ptr<Server>> listen(const std::string &path, RouteChooser chooser,
                                                  MisbehaviourReport report = {});
    ~Server(); // stops its thread, closes every consumer (their frames let go of), removes the path

    Server(const Server &) = delete;
    Server &operator=(const Server &) = delete;

    const std::string &path() const { return path_; }

    void set_queue(std::size_t max_held, QueueFull full);
    // The stream's caps changed: every consumer's route is decided again, and its caps (or its
    // refusal) sent.
    void restart_routes();
    // The routes some consumer takes now.
    std::set<RouteId> routes_in_use();
    // Waits until `count` consumers have their routes, or interrupt(). False when interrupted.
    bool wait_for_consumers(std::size_t count);

    // Sends `frame` (described by `describe` with the id given) to every consumer of `route`;
    // false when interrupted before it came (a flush began while the frame was on its way: nothing
    // is sent, nothing waits) or while waiting for a full queue. A refusal of describe is returned.
    Result<bool> send_frame(RouteId route, BufferRef frame,
                            const std::function<Result<OutgoingFrame>(std::uint64_t id)> &describe);
    // Sends a message without descriptors to every consumer with a route (`g2g_only`: to those that
    // said HELLO, which know g2g's types).
    void send_all(MessageType type, std::span<const std::uint8_t> payload, bool g2g_only);
    // The stream's segment (encode_segment): sent now to every consumer that said HELLO, and to
    // each that joins later after its caps.
    void set_segment(std::vector<std::uint8_t> segment);

    // Ends any wait (a flush, a state change) until resume().
    void interrupt();
    void resume();

    ServerCounters counters();
    std::size_t consumers();   // with a route
    std::size_t frames_held(); // frames some consumer holds

    // How long a consumer has to say HELLO before it is taken for unixfdsrc.
    static constexpr int kGraceMs = 200;
    // How long the listener is left alone after accept found no descriptor (or memory) for a
    // new consumer: it stays readable meanwhile, and polling it at once again would spin.
    static constexpr int kAcceptPauseMs = 100;
    // Descriptors kept for the frames (pool memfds, DMA-BUFs, device exports): a consumer whose
    // connection would take one of the last kReservedFds of the process's limit is refused, so
    // that consumers connecting can never starve the producer's own allocations.
    static constexpr int kReservedFds = 64;
    // How long the thread waits, once a consumer rang the doorbell, for the others' releases of
    // the same frame before it reaps every lane: one wake-up for them all.
    static constexpr int kReapGatherUs = 1000;

private:
    struct Consumer;
    Server(std::string path, UniqueFd listener, RouteChooser chooser, MisbehaviourReport report);
    void run();
    void accept_consumer();
    void read_from(Consumer &consumer);
    void decide(Consumer &consumer);
    // Lets the consumer go; `misbehaved`: reported (report_).
    void drop(std::uint64_t number, const std::string &why, bool misbehaved = false);
    void release(Consumer &consumer, std::uint64_t id);
    // A consumer's release (RELEASE, or on its lane): false where it does not hold the frame, and
    // is let go.
    bool release_held(Consumer &consumer, std::uint64_t id);
    bool send_to(Consumer &consumer, MessageType type, std::span<const std::uint8_t> payload,
                 std::span<const int> fds = {});
    // The message on the consumer's socket; a consumer that does not take it is let go.
    bool send_on_socket(Consumer &consumer, MessageType type, std::span<const std::uint8_t> payload,
                        std::span<const int> fds);
    // `frame` (its message encoded as `payload`) to a consumer that said HELLO: its files by number
    // where it keeps them.
    bool send_addressed(Consumer &consumer, const OutgoingFrame &frame,
                        std::span<const std::uint8_t> payload);
    // Gives a consumer that asked for one its lane (LANE on its socket); where none can be made, it
    // stays on the socket.
    void open_lane(Consumer &consumer);
    // The releases every lane holds, taken as RELEASE messages are.
    void reap_lanes();
    // Rings the bell where a lane was written since it last rang.
    void ring_bell();
    void wake();

    std::string path_;
    UniqueFd listener_;
    UniqueFd wake_; // eventfd: the thread's poll wakes for a new consumer list or the end
    // Lanes: the bell they share (none where it could not be made: every consumer on its socket),
    // and the doorbell (an eventfd) consumers write after a release.
    std::optional<Bell> bell_;
    UniqueFd doorbell_;
    bool bell_due_ = false; // a lane was written since the bell last rang
    RouteChooser chooser_;
    MisbehaviourReport report_;

    std::mutex mutex_;
    std::condition_variable changed_; // a release, a consumer came or went, an interrupt
    std::map<std::uint64_t, std::unique_ptr<Consumer>> consumers_; // by number, in joining order
    struct Held {
        BufferRef frame;
        std::size_t holders = 0;
    };
    std::map<std::uint64_t, Held> held_; // by frame id
    std::uint64_t next_consumer_ = 1, next_id_ = 1;
    std::size_t max_held_ = 8;
    QueueFull full_ = QueueFull::Drop;
    bool interrupted_ = false, stopping_ = false;
    ServerCounters counters_;
    std::vector<std::uint8_t> segment_;
    std::vector<std::string> misbehaviours_; // reported by the thread, unlocked
    std::pair<dev_t, ino_t> socket_file_{};  // the file listen() made: removed at the end if still there
    gint64 accept_again_us_ = 0;             // the thread's alone: no accept before (kAcceptPauseMs)
    std::thread thread_;
};

} // namespace g2g::ipc
