// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink's server (ipc-server.h) with a consumer that never releases: a frame sent after an
// interrupt (a flush began while it was on its way to the sink) returns at once and is not sent,
// where it once waited for room that the flushing consumer never made, and the producer's seek hung
// (IpcProcesses.AProducersSeekFlushesItsConsumersAndBringsTheNewSegment, now and then, under ASan).
#include <gst/gst.h>

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <string>

#include "ipc-server.h"
#include "memfd-dmabuf.h"
#include "processes.h"

using namespace g2g::ipc;

namespace {

// A consumer that connects and says nothing: after the grace period it is taken for unixfdsrc.
UniqueFd silent_consumer(const std::string &path)
{
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (::connect(fd.get(), reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
        return {};
    return fd;
}

} // namespace

TEST(IpcServer, AFrameAfterAnInterruptIsNotSentAndNeverWaits)
{
    gst_init(nullptr, nullptr);
    g2g::test::Scratch scratch("g2g-ipc-server");
    g2g::Result<std::unique_ptr<Server>> server = Server::listen(scratch.path("socket"), [](const GstCaps *) {
        RouteDecision decision;
        decision.route = 0;
        decision.caps =
            g2g::CapsRef::adopt(gst_caps_from_string("video/x-raw,format=GRAY8,width=4,height=4"));
        return decision;
    });
    ASSERT_TRUE(server) << server.error().message();
    (*server)->set_queue(1, QueueFull::Wait);
    UniqueFd consumer = silent_consumer(scratch.path("socket"));
    ASSERT_TRUE(consumer);
    ASSERT_TRUE((*server)->wait_for_consumers(1));

    const UniqueFd memory(g2g::test::make_memfd(16));
    auto describe = [&](std::uint64_t id) -> g2g::Result<OutgoingFrame> {
        OutgoingFrame out;
        out.message.id = id;
        out.message.memories.push_back({16, 0});
        out.fds.push_back(memory.get());
        return out;
    };
    auto frame = [] { return g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, 16, nullptr)); };
    // The consumer holds the first frame and never releases it: its queue is full.
    g2g::Result<bool> first = (*server)->send_frame(0, frame(), describe);
    ASSERT_TRUE(first);
    EXPECT_TRUE(*first);
    EXPECT_EQ((*server)->frames_held(), 1u);

    (*server)->interrupt();
    std::future<g2g::Result<bool>> second =
        std::async(std::launch::async, [&] { return (*server)->send_frame(0, frame(), describe); });
    const bool returned = second.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
    if (!returned)
        consumer = UniqueFd(); // the consumer leaves: that ends the wait, so the test can end
    const g2g::Result<bool> sent = second.get();
    EXPECT_TRUE(returned) << "a frame sent after an interrupt waited for a full queue";
    ASSERT_TRUE(sent);
    EXPECT_FALSE(*sent);
    EXPECT_EQ((*server)->counters().sent, 1u);

    // After resume() frames wait for room again: the consumer leaving makes it.
    (*server)->resume();
    std::future<g2g::Result<bool>> third =
        std::async(std::launch::async, [&] { return (*server)->send_frame(0, frame(), describe); });
    EXPECT_EQ(third.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
        << "with the queue full and no interrupt, the frame waits";
    consumer = UniqueFd();
    ASSERT_EQ(third.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    EXPECT_TRUE(third.get());
}
