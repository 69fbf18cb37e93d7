// SPDX-License-Identifier: LGPL-2.1-or-later
// The lane between g2gipcsink and a g2g consumer (ipc-lane.h): records and releases cross in order
// around its rings, a full ring is said rather than overwritten, and whatever one side writes into
// the shared pages that cannot be is refused by the other with its text. Each side maps the memfd
// as the other process would (the consumer's mapping from a duplicate of the producer's fd). A
// consumer's BellWatch (spin-us) foresees the next frame from the producer's ring times, and sees
// a ring inside its window without sleeping.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ipc-bell-watch.h"
#include "ipc-lane.h"
#include "ipc-wire.h"

using namespace g2g::ipc;

namespace {

UniqueFd duplicate(int fd)
{
    return UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
}

// The lane's pages as a third party that can write them (a hostile peer of either side) sees them.
struct Tamper {
    void *data = MAP_FAILED;
    explicit Tamper(int fd)
        : data(::mmap(nullptr, sizeof(LaneLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0))
    {
    }
    ~Tamper()
    {
        if (data != MAP_FAILED)
            ::munmap(data, sizeof(LaneLayout));
    }
    LaneLayout &lane() { return *static_cast<LaneLayout *>(data); }
};

std::vector<std::uint8_t> bytes_of(std::size_t size, std::uint8_t seed)
{
    std::vector<std::uint8_t> bytes(size);
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<std::uint8_t>(seed + i * 7);
    return bytes;
}

} // namespace

TEST(IpcLane, RecordsAndReleasesCrossInOrderAroundTheRing)
{
    g2g::Result<LaneWriter> writer = LaneWriter::create();
    ASSERT_TRUE(writer) << writer.error().message();
    g2g::Result<LaneReader> reader = LaneReader::map(duplicate(writer->fd()));
    ASSERT_TRUE(reader) << reader.error().message();

    // Records of every size up to 5000 bytes: the ring (1 MiB) wraps a few times, some records
    // across its end.
    std::size_t read = 0, written = 0, total = 0;
    for (std::size_t i = 0; i < 3000; ++i) {
        const std::vector<std::uint8_t> payload = bytes_of((i * 1237) % 5001, static_cast<std::uint8_t>(i));
        ASSERT_TRUE(writer->write(static_cast<std::uint32_t>(i), payload, static_cast<std::uint32_t>(i % 3)));
        ++written;
        total += payload.size();
        // The consumer keeps up with every other record.
        while (read < written && (i % 2 || read + 1 < written)) {
            g2g::Result<std::optional<LaneRecord>> record = reader->next();
            ASSERT_TRUE(record) << record.error().message();
            ASSERT_TRUE(*record) << "record " << read;
            EXPECT_EQ((*record)->type, read);
            EXPECT_EQ((*record)->descriptors, read % 3);
            ASSERT_EQ((*record)->payload, bytes_of((read * 1237) % 5001, static_cast<std::uint8_t>(read)))
                << "record " << read;
            ++read;
        }
    }
    EXPECT_GT(total, 3 * kLaneBytes) << "the ring wrapped";
    g2g::Result<std::optional<LaneRecord>> none = reader->next();
    ASSERT_TRUE(none);
    EXPECT_FALSE(*none);
    EXPECT_FALSE(reader->pending());

    // A consumer that stops reading: the producer is told the lane is full, and nothing is lost.
    const std::vector<std::uint8_t> big = bytes_of(60000, 1);
    std::size_t fitted = 0;
    while (writer->write(7, big, 0))
        ++fitted;
    EXPECT_EQ(fitted, kLaneBytes / (kLaneRecordHeader + big.size()));
    EXPECT_TRUE(reader->pending());
    ASSERT_TRUE(*reader->next());
    EXPECT_TRUE(writer->write(7, big, 0)) << "room again once a record was read";

    // Releases: in order, and a full ring is said (the consumer sends RELEASE on its socket then).
    std::vector<std::uint64_t> ids;
    for (std::uint64_t id = 1; id <= kLaneReleases; ++id)
        ASSERT_TRUE(reader->release(id));
    EXPECT_FALSE(reader->release(9999)) << "the ring is full until the producer reaps";
    ASSERT_TRUE(writer->take_releases(ids));
    ASSERT_EQ(ids.size(), kLaneReleases);
    for (std::size_t i = 0; i < ids.size(); ++i)
        ASSERT_EQ(ids[i], i + 1);
    EXPECT_TRUE(reader->release(10000));
    ids.clear();
    ASSERT_TRUE(writer->take_releases(ids));
    EXPECT_EQ(ids, std::vector<std::uint64_t>{10000});
}

TEST(IpcLane, WhatALaneCannotSayIsRefused)
{
    g2g::Result<LaneWriter> writer = LaneWriter::create();
    ASSERT_TRUE(writer);
    g2g::Result<LaneReader> reader = LaneReader::map(duplicate(writer->fd()));
    ASSERT_TRUE(reader);
    Tamper tamper(writer->fd());
    ASSERT_NE(tamper.data, MAP_FAILED);
    const auto refusal = [&]() -> std::string {
        g2g::Result<std::optional<LaneRecord>> record = reader->next();
        return record ? std::string("taken") : record.error().message();
    };

    // The producer's lies, as the consumer reads them.
    tamper.lane().written = 3 * kLaneBytes;
    EXPECT_EQ(refusal(), "its lane says 3145728 bytes were written where 0 were read");
    tamper.lane().written = 8;
    EXPECT_EQ(refusal(), "its lane holds 8 bytes, less than a record's header");
    const std::uint32_t too_long[4] = {0, 100, 0, 0};
    std::memcpy(tamper.lane().records, too_long, sizeof too_long);
    tamper.lane().written = 64;
    EXPECT_EQ(refusal(), "its lane's record of 100 bytes is past the 64 written");
    const std::uint32_t past_payloads[4] = {0, kMaxPayload, 0, 0};
    std::memcpy(tamper.lane().records, past_payloads, sizeof past_payloads);
    tamper.lane().written = kLaneBytes;
    EXPECT_EQ(refusal(), "its lane's record of 1048576 bytes is past the 1048576 written");
    const std::uint32_t descriptors[4] = {0, 0, 17, 0};
    std::memcpy(tamper.lane().records, descriptors, sizeof descriptors);
    tamper.lane().written = 16;
    EXPECT_EQ(refusal(), "its lane's record names 17 descriptors, more than 16");

    // The consumer's, as the producer reads them.
    std::vector<std::uint64_t> ids;
    tamper.lane().released = 5000;
    g2g::Result<void> taken = writer->take_releases(ids);
    ASSERT_FALSE(taken);
    EXPECT_EQ(taken.error().message(), "its lane's release count went from 0 to 5000");
    EXPECT_TRUE(ids.empty());
    tamper.lane().released = 3;
    ASSERT_TRUE(writer->take_releases(ids));
    tamper.lane().released = 1;
    taken = writer->take_releases(ids);
    ASSERT_FALSE(taken);
    EXPECT_EQ(taken.error().message(), "its lane's release count went from 3 to 1");
    // A read position past what was written leaves no room: the producer writes nothing.
    tamper.lane().read = 1u << 30;
    EXPECT_FALSE(writer->write(0, bytes_of(10, 0), 0));
}

TEST(IpcLane, OnlyALaneOfThisVersionSealedAndWholeIsMapped)
{
    // A memfd of the right size, unsealed: a producer could shrink it under the consumer's reads.
    UniqueFd unsealed(::memfd_create("not-a-lane", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    ASSERT_EQ(::ftruncate(unsealed.get(), sizeof(LaneLayout)), 0);
    g2g::Result<LaneReader> reader = LaneReader::map(duplicate(unsealed.get()));
    ASSERT_FALSE(reader);
    EXPECT_EQ(reader.error().message(), "the lane is not sealed against shrinking");
    // Sealed, and of no lane's version.
    ASSERT_EQ(::fcntl(unsealed.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
    reader = LaneReader::map(duplicate(unsealed.get()));
    ASSERT_FALSE(reader);
    EXPECT_EQ(reader.error().message(), "the lane is not of this version (magic 0, version 0)");
    // Of another size.
    UniqueFd small(::memfd_create("small", MFD_CLOEXEC));
    ASSERT_EQ(::ftruncate(small.get(), 4096), 0);
    reader = LaneReader::map(std::move(small));
    ASSERT_FALSE(reader);
    EXPECT_EQ(reader.error().message(), "the lane is 4096 bytes, not " + std::to_string(sizeof(LaneLayout)));
}

TEST(IpcLane, TheBellWakesItsWaitersAndOnlyTheProducerRingsIt)
{
    g2g::Result<Bell> bell = Bell::create();
    ASSERT_TRUE(bell) << bell.error().message();
    g2g::Result<Bell> heard = Bell::map(duplicate(bell->fd()));
    ASSERT_TRUE(heard) << heard.error().message();
    // A consumer cannot map it writable: the bell is the producer's alone.
    void *writable = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, bell->fd(), 0);
    EXPECT_EQ(writable, MAP_FAILED);
    if (writable != MAP_FAILED)
        ::munmap(writable, 4096);

    const std::uint32_t seen = heard->value();
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(heard->wait(seen, 30)) << "nothing rang";
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(25));

    bool woken = false;
    std::thread waiter([&] { woken = heard->wait(seen, 5000); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto rung = std::chrono::steady_clock::now();
    bell->ring();
    waiter.join();
    EXPECT_TRUE(woken);
    EXPECT_LT(std::chrono::steady_clock::now() - rung, std::chrono::milliseconds(1000));
    EXPECT_NE(heard->value(), seen);
    EXPECT_TRUE(heard->wait(seen, 5000)) << "a bell already rung is not waited for";
}

// The bell says when it rang, on CLOCK_MONOTONIC: what a consumer's window is placed by.
TEST(IpcLane, TheBellSaysWhenItRang)
{
    g2g::Result<Bell> bell = Bell::create();
    ASSERT_TRUE(bell) << bell.error().message();
    g2g::Result<Bell> heard = Bell::map(duplicate(bell->fd()));
    ASSERT_TRUE(heard) << heard.error().message();
    EXPECT_EQ(heard->rang_ns(), 0) << "never rang";
    const std::int64_t before = BellWatch::now_ns();
    bell->ring();
    const std::int64_t after = BellWatch::now_ns();
    EXPECT_GE(heard->rang_ns(), before);
    EXPECT_LE(heard->rang_ns(), after);
}

// The next frame is due a median interval after the last rings, each carried forward: one frame
// rung late by its producer's scheduling moves it by nothing. Fewer than four rings, a consumer that
// fell behind, and a window of 0 foresee nothing; a ring time that cannot be (in the future, or more
// than a second ago) is taken as now.
TEST(IpcLane, ABellWatchForeseesTheNextFrameFromTheProducersRings)
{
    constexpr std::int64_t period = 33333333, late = 400000;
    BellWatch watch(1000);
    const std::int64_t start = BellWatch::now_ns() - 7 * period - period / 2;
    for (int i = 0; i < 3; ++i)
        watch.frame_seen(start + i * period);
    EXPECT_EQ(watch.due_ns(), -1) << "three rings make no rate";
    for (int i = 3; i < 8; ++i)
        watch.frame_seen(start + i * period + (i == 6 ? late : 0));
    // The next frame (8) is half a period from now; the late one (6) does not move it.
    const std::int64_t due = watch.due_ns();
    EXPECT_NEAR(static_cast<double>(due), static_cast<double>(start + 8 * period), 1000.0);

    watch.behind();
    watch.frame_seen(BellWatch::now_ns());
    EXPECT_EQ(watch.due_ns(), -1) << "after falling behind, the rate is learned again";

    // A lie: rings from the future are now.
    BellWatch lied(1000);
    for (int i = 0; i < 5; ++i)
        lied.frame_seen(BellWatch::now_ns() + std::int64_t(1000000000) * 3600);
    EXPECT_LE(lied.due_ns(), BellWatch::now_ns() + 1000000000) << "no window an hour away";
}

// Inside its window a consumer watches the bell word itself: a ring there is seen with no wake-up
// (rings_watched), one before it wakes the consumer from the futex (rings_woken); `stop` ends the
// watch at once.
TEST(IpcLane, ABellWatchSeesARingInsideItsWindowWithoutSleeping)
{
    g2g::Result<Bell> bell = Bell::create();
    ASSERT_TRUE(bell) << bell.error().message();
    g2g::Result<Bell> heard = Bell::map(duplicate(bell->fd()));
    ASSERT_TRUE(heard) << heard.error().message();
    constexpr std::int64_t period = 20000000; // 50 frames a second
    BellWatch watch(10000);                   // a window of 10 ms
    const std::int64_t first = BellWatch::now_ns() - 4 * period;
    for (int i = 0; i < 5; ++i)
        watch.frame_seen(first + i * period);
    const std::int64_t due = watch.due_ns();
    ASSERT_NEAR(static_cast<double>(due), static_cast<double>(first + 5 * period), 1000.0);

    // The producer rings at the due time; the consumer is inside its window then.
    std::thread producer([&] {
        std::this_thread::sleep_for(std::chrono::nanoseconds(due - BellWatch::now_ns()));
        bell->ring();
    });
    EXPECT_TRUE(watch.wait(*heard, heard->value(), 1000, [] { return false; }));
    producer.join();
    EXPECT_EQ(watch.rings_watched() + watch.rings_woken(), 1u);
    // Under load the consumer may reach its window late; alone it watches. A machine too busy to
    // start watching 5 ms before the ring is told apart by rings_woken.
    if (watch.rings_woken() == 0) {
        EXPECT_EQ(watch.rings_watched(), 1u);
    }

    // Nothing rings: `stop` ends the watch (an unlock), the futex wait after it ends at its time.
    BellWatch stopped(10000);
    for (int i = 0; i < 5; ++i)
        stopped.frame_seen(BellWatch::now_ns() - (5 - i) * period + period / 4);
    const auto started = std::chrono::steady_clock::now();
    EXPECT_TRUE(stopped.wait(*heard, heard->value(), 1000, [] { return true; })) << "stopped";
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500));
    EXPECT_EQ(stopped.rings_watched() + stopped.rings_woken(), 0u);
}
