// SPDX-License-Identifier: LGPL-2.1-or-later
// A lane: shared memory between g2gipcsink and one g2g consumer that asked for it (WANT_LANE before
// its HELLO), so that a frame costs the producer no system call per consumer. Over a socket each
// consumer cost the producer a sendmsg a frame, and its RELEASE a wake-up of the server's thread, a
// poll of every consumer's socket and a recvmsg: producer CPU that grew with the consumers.
//
// - The producer writes each message it would have sent as a record in the consumer's lane (a ring
//   of bytes only it writes), then rings the bell once a frame for all of its consumers: one futex
//   word in a page of its own, which consumers map read-only and wait on.
// - A record's descriptors still cross the socket (a DESCRIPTORS message just before the record is
//   written): after LANE, nothing else comes on it, so the two stay in order.
// - The consumer writes the ids of the frames it releases into a ring of its lane and writes the
//   producer's doorbell (an eventfd all consumers share); the producer's thread, woken, waits a
//   moment for the others' releases and reaps every lane at once.
//
// Neither side trusts what the other writes: every position and size read from the shared pages
// is checked against the reader's own copy before it is used, and a record's bytes are copied out
// before they are decoded. A lane only ever harms its own consumer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <g2g/error.h>

#include "ipc-socket.h"

namespace g2g::ipc {

// The lane's records, its release ring, and the bell.
inline constexpr std::uint32_t kLaneMagic = 0x4c473247; // "G2GL"
inline constexpr std::uint32_t kLaneVersion = 1;
inline constexpr std::size_t kLaneBytes = std::size_t(1) << 20;
inline constexpr std::size_t kLaneReleases = 1024;
// A record's header: {u32 type, u32 payload size, u32 descriptors, u32 zero}; its payload follows,
// padded to 8 bytes.
inline constexpr std::size_t kLaneRecordHeader = 16;

// The shared pages of one lane, as both processes map them.
struct LaneLayout {
    std::uint32_t magic;
    std::uint32_t version;
    std::uint64_t bytes;                             // kLaneBytes
    std::uint64_t releases;                          // kLaneReleases
    alignas(64) std::atomic<std::uint64_t> written;  // producer: record bytes written
    alignas(64) std::atomic<std::uint64_t> read;     // consumer: record bytes read
    alignas(64) std::atomic<std::uint64_t> released; // consumer: frame ids written
    alignas(64) std::atomic<std::uint64_t> reaped;   // producer: frame ids taken
    alignas(64) std::uint64_t ids[kLaneReleases];
    alignas(64) std::uint8_t records[kLaneBytes];
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "a lane's counters are shared memory");

// One record of a lane, copied out of it.
struct LaneRecord {
    std::uint32_t type = 0;
    std::uint32_t descriptors = 0; // that came before it on the socket
    std::vector<std::uint8_t> payload;
};

// A mapping of a memfd, unmapped with its owner.
class SharedPages {
public:
    SharedPages() = default;
    SharedPages(SharedPages &&other) noexcept;
    SharedPages &operator=(SharedPages &&other) noexcept;
    ~SharedPages();
    void *data() const { return data_; }
    std::size_t size() const { return size_; }
    int fd() const { return fd_.get(); }

    // A new memfd of `size` bytes, mapped writable, then sealed against resizing (and, with
    // `read_only_for_others`, against any later writable mapping: a consumer's).
    static Result<SharedPages> create(const char *name, std::size_t size, bool read_only_for_others);
    // A peer's memfd: it must be `size` bytes and sealed against shrinking (so no access can fault).
    static Result<SharedPages> map(UniqueFd fd, std::size_t size, bool writable, const char *what);

private:
    UniqueFd fd_;
    void *data_ = nullptr;
    std::size_t size_ = 0;
};

// The producer's side of one consumer's lane.
class LaneWriter {
public:
    static Result<LaneWriter> create();
    int fd() const { return pages_.fd(); }
    // Appends one record; false where the consumer left no room for it (it stopped reading).
    bool write(std::uint32_t type, std::span<const std::uint8_t> payload, std::uint32_t descriptors);
    // The ids the consumer released since the last call, appended to `ids`; refused where its
    // counters say what cannot be (the consumer misbehaved).
    Result<void> take_releases(std::vector<std::uint64_t> &ids);

private:
    LaneLayout *layout() const { return static_cast<LaneLayout *>(pages_.data()); }
    SharedPages pages_;
    std::uint64_t written_ = 0, reaped_ = 0; // the producer's own: never read back from the lane
};

// The consumer's side.
class LaneReader {
public:
    static Result<LaneReader> map(UniqueFd fd);
    // The next record, or nullopt where none was written yet; refused where the lane says what
    // cannot be (a position past what was written, a size past the lane).
    Result<std::optional<LaneRecord>> next();
    // Whether a record waits, without taking it.
    bool pending() const;
    // Writes a released frame's id; false where the ring is full (the producer stopped reaping):
    // the caller sends a RELEASE on the socket instead.
    bool release(std::uint64_t id);

private:
    LaneLayout *layout() const { return static_cast<LaneLayout *>(pages_.data()); }
    SharedPages pages_;
    std::uint64_t read_ = 0, released_ = 0; // the consumer's own
};

// A doorbell a producer gave: an eventfd (a pipe's write would kill the consumer with SIGPIPE once
// its reader is gone), made non-blocking (an eventfd filled to its limit would block the write of
// whichever thread freed a frame). Refused: any other kind of file.
Result<void> check_doorbell(int fd);

// The futex word every consumer of a producer waits on, and when it last rang.
class Bell {
public:
    static Result<Bell> create();         // the producer's: writable
    static Result<Bell> map(UniqueFd fd); // a consumer's: read-only
    int fd() const { return pages_.fd(); }
    std::uint32_t value() const;
    // CLOCK_MONOTONIC ns of the last ring (0: never, or a producer that does not say): a consumer's
    // wake-up is late by the host's latency, the producer's own time is not.
    std::int64_t rang_ns() const;
    void ring();     // the producer: a new value, every waiter woken
    void wake_all(); // anyone: every waiter woken (an unlock)
    // Waits while the word is `seen`, at most `timeout_ms`; false where the time ran out.
    bool wait(std::uint32_t seen, int timeout_ms) const
    {
        return wait_ns(seen, std::int64_t(timeout_ms) * 1000000);
    }
    bool wait_ns(std::uint32_t seen, std::int64_t timeout_ns) const;

private:
    // The bell's page: the word, then the time of its last ring.
    struct Page {
        std::atomic<std::uint32_t> word;
        std::atomic<std::int64_t> rang_ns;
    };
    Page *page() const { return static_cast<Page *>(pages_.data()); }
    std::atomic<std::uint32_t> *word() const { return &page()->word; }
    SharedPages pages_;
};

} // namespace g2g::ipc
