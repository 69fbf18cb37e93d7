// SPDX-License-Identifier: LGPL-2.1-or-later
// Hostile peers of g2gipcsink and g2gipcsrc, each a process of its own: a producer that sends what
// no frame can be (a memory past its descriptor, a wrong descriptor count, a message cut short, a
// view past its memory) ends its consumer (a gst-launch-1.0) with an error that says which, never
// a crash or a frame read past its memory; a consumer that sends what no consumer may (a release
// of a frame it does not hold, a second HELLO, a message too long, half a message) is let go of
// while the producer serves the others.
#include <gst/gst.h>
#include <gst/video/video.h>

#include <gtest/gtest.h>

#include <g2g/frame-view.h>

#include "ipc-control.h"
#include "ipc-cuda-record.h"
#include "ipc-frame.h"
#include "ipc-lane.h"
#include "ipc-socket.h"
#include "ipc-view.h"
#include "ipc-vulkan-record.h"
#include "ipc-wire.h"
#include "memfd-dmabuf.h"
#include "pipeline.h"
#include "processes.h"

#include "g2g-config.h"
#if G2G_HAVE_VULKAN
#include "platform/vulkan/vulkan-external.h"
#endif

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <thread>
#include <string>
#include <vector>

using g2g::test::ChildProcess;
using g2g::test::PipelineRun;
using g2g::test::Scratch;
using namespace g2g::ipc;

namespace {

constexpr const char *kCaps = "video/x-raw, format=(string)NV12, width=(int)64, height=(int)48, "
                              "framerate=(fraction)30/1";
constexpr std::size_t kFrameSize = 64 * 48 * 3 / 2;

// What the fake producer's stream is: its caps' features (and the consumer reads it with
// g2gmaterialize, vulkandownload, cudadownload), or no caps at all.
enum class Stream { System, View, Vulkan, VulkanView, Cuda, CudaView, NoCaps };

// A producer that listens at `path`, takes one consumer, reads its HELLO and sends it CAPS.
struct FakeProducer {
    UniqueFd listener, consumer;

    explicit FakeProducer(const std::string &path)
    {
        listener = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
        if (::bind(listener.get(), reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
            ::listen(listener.get(), 1) != 0)
            return;
        consumer = UniqueFd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    }
    // The consumer's HELLO (its WANT_LANE before it left unanswered: this producer speaks on the
    // socket alone, as one without lanes does), then the stream's caps (of `stream`'s features; none
    // for NoCaps).
    bool greet(Stream stream)
    {
        g2g::Result<Message> hello = receive_message(consumer.get());
        if (hello && hello->header.type == static_cast<std::uint32_t>(ControlType::WantLane))
            hello = receive_message(consumer.get());
        if (!hello || hello->header.type != static_cast<std::uint32_t>(ControlType::Hello))
            return false;
        if (stream == Stream::NoCaps)
            return true;
        std::string caps = kCaps;
        if (stream == Stream::View)
            caps.replace(caps.find(','), 0, "(memory:SystemMemory, meta:G2gTensorView)");
        if (stream == Stream::Vulkan)
            caps.replace(caps.find(','), 0, "(memory:VulkanImage)");
        if (stream == Stream::VulkanView)
            caps.replace(caps.find(','), 0, "(memory:VulkanImage, meta:G2gTensorView)");
        if (stream == Stream::Cuda)
            caps.replace(caps.find(','), 0, "(memory:CUDAMemory)");
        if (stream == Stream::CudaView)
            caps.replace(caps.find(','), 0, "(memory:CUDAMemory, meta:G2gTensorView)");
        return bool(send_message(consumer.get(), MessageType::Caps, encode_caps(caps)));
    }
};

// A NEW_BUFFER of one memory of `size` bytes, laid out as NV12 64x48.
NewBuffer frame_message(std::uint64_t size)
{
    NewBuffer message;
    message.id = 1;
    message.pts = 0;
    message.memories.push_back({size, 0});
    GstVideoInfo layout;
    gst_video_info_set_format(&layout, GST_VIDEO_FORMAT_NV12, 64, 48);
    message.metas.push_back(encode_video_meta(video_meta_of(layout)));
    return message;
}

// The consumer process: `g2gipcsrc ! (reader of its stream) ! fakesink` (or another sink); what it
// said, once it ended.
struct Ended {
    int status = -1;
    std::string said;
};

// Runs a consumer against a fake producer that does `misbehave` once greeted.
template <typename Misbehave>
Ended consumer_of(Misbehave &&misbehave, Stream stream = Stream::System, const std::string &sink = "fakesink")
{
    Scratch scratch("g2g-ipc-hostile");
    const std::string socket = scratch.path("socket");
    const std::string reader =
        stream == Stream::View || stream == Stream::VulkanView || stream == Stream::CudaView
            ? " ! g2gmaterialize"
        : stream == Stream::Vulkan ? " ! vulkandownload"
        : stream == Stream::Cuda   ? " ! cudadownload"
                                   : "";
    ChildProcess consumer(
        g2g::test::launch_when_socket(socket, "g2gipcsrc socket-path=" + socket + reader + " ! " + sink,
                                      scratch.path("registry.bin"), scratch.path("consumer.log")));
    {
        FakeProducer producer(socket);
        EXPECT_TRUE(producer.consumer) << "no consumer connected";
        if (producer.consumer && producer.greet(stream))
            misbehave(producer.consumer.get());
        // The consumer ends on its own: the producer's socket stays open until it has.
        Ended ended;
        ended.status = consumer.wait();
        ended.said = g2g::test::read_file(scratch.path("consumer.log"));
        return ended;
    }
}

// Where `said` has "ERROR: ... g2gipcsrc0: the producer at <socket> <what>" (the socket varies).
bool says(const Ended &ended, const std::string &what)
{
    return ended.said.find("g2gipcsrc0: the producer at /tmp/g2g-ipc-hostile-") != std::string::npos &&
           ended.said.find(what) != std::string::npos;
}

// The view records a lying producer sends of an NV12 64x48 frame: its identity view, of the
// stream's size, and its 90r view (48x64).
struct Nv12Views {
    MetaRecord identity, turned;
};

Nv12Views nv12_views()
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 64, 48);
    const g2g::BufferRef source =
        g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, kFrameSize, nullptr));
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(source.get(), info);
    EXPECT_TRUE(view);
    Nv12Views views{encode_view(*view), {}};
    view->orient(GST_VIDEO_ORIENTATION_90R);
    views.turned = encode_view(*view);
    return views;
}

// A lie of records: the stream's caps, the records a frame carries, what the consumer says of it.
struct RecordLie {
    const char *what;
    Stream stream;
    std::vector<MetaRecord> metas;
    std::string said;
};

// Each lie, sent by `send(socket, metas)` to a consumer of its stream, ends it with its refusal.
template <typename Send> void expect_each_refused(const std::vector<RecordLie> &lies, Send &&send)
{
    for (const RecordLie &lie : lies) {
        const Ended ended = consumer_of([&](int socket) { send(socket, lie.metas); }, lie.stream);
        EXPECT_EQ(ended.status, 1) << lie.what << ": " << ended.said;
        EXPECT_TRUE(says(ended, "/socket sent a frame refused here: " + lie.said))
            << lie.what << ": " << ended.said;
    }
}

} // namespace

TEST(IpcHostileProducer, AMemoryPastItsDescriptorIsRefused)
{
    const Ended ended = consumer_of([](int socket) {
        const UniqueFd fd(g2g::test::make_memfd(100));
        const int fds[] = {fd.get()};
        send_message(socket, MessageType::NewBuffer, encode(frame_message(kFrameSize)), fds);
    });
    EXPECT_EQ(ended.status, 1) << ended.said;
    EXPECT_TRUE(says(ended,
                     "/socket sent a frame refused here: NEW_BUFFER 1 memory 0 (bytes 0..4608) lies past "
                     "the end of its 100-byte descriptor"))
        << ended.said;
}

// A memfd its producer did not seal against shrinking could be truncated under the consumer's
// reads (a SIGBUS): refused before it is mapped.
TEST(IpcHostileProducer, AFileItsProducerCouldShrinkIsRefused)
{
    const Ended ended = consumer_of([](int socket) {
        const UniqueFd fd(g2g::test::make_memfd(kFrameSize, false));
        const int fds[] = {fd.get()};
        send_message(socket, MessageType::NewBuffer, encode(frame_message(kFrameSize)), fds);
    });
    EXPECT_EQ(ended.status, 1) << ended.said;
    EXPECT_TRUE(says(ended, "/socket sent a frame refused here: NEW_BUFFER 1 memory 0: a file its producer "
                            "could shrink under this process's reads (neither a DMA-BUF nor sealed with "
                            "F_SEAL_SHRINK, as g2gipcsink's and unixfdsink's memfds are)"))
        << ended.said;
}

TEST(IpcHostileProducer, AWrongDescriptorCountIsRefused)
{
    const Ended ended = consumer_of([](int socket) {
        NewBuffer message = frame_message(kFrameSize);
        message.memories.push_back({kFrameSize, 0});
        const UniqueFd fd(g2g::test::make_memfd(kFrameSize));
        const int fds[] = {fd.get()};
        send_message(socket, MessageType::NewBuffer, encode(message), fds);
    });
    EXPECT_EQ(ended.status, 1) << ended.said;
    EXPECT_TRUE(
        says(ended, "/socket sent a frame that does not read: NEW_BUFFER 1 came with 1 file descriptor for 2 "
                    "memories"))
        << ended.said;
}

// A producer's numbered files (g2g's files record): a number it never sent, a file sent twice, a
// number forgotten that was never sent: each refused with its fault, nothing read.
TEST(IpcHostileProducer, NumberedFilesItNeverSentAreRefused)
{
    const auto frame_of = [](std::uint64_t id, std::vector<FileRef> files,
                             std::vector<std::uint64_t> forget) {
        NewBuffer message = frame_message(kFrameSize);
        message.id = id;
        message.files = std::move(files);
        message.forget = std::move(forget);
        return encode(message);
    };
    const UniqueFd fd(g2g::test::make_memfd(kFrameSize));
    const int fds[] = {fd.get()};
    const struct {
        const char *what;
        std::function<void(int)> send;
        std::string said;
    } lies[] = {
        {"a number never sent",
         [&](int socket) {
             send_message(socket, MessageType::NewBuffer, frame_of(1, {{5, false}}, {}));
         },
         "NEW_BUFFER 1 memory 0 names file 5, which its producer did not send (or said to forget)"},
        {"a file sent twice",
         [&](int socket) {
             send_message(socket, MessageType::NewBuffer, frame_of(1, {{5, true}}, {}), fds);
             send_message(socket, MessageType::NewBuffer, frame_of(2, {{5, true}}, {}), fds);
         },
         "NEW_BUFFER 2 memory 0: sends file 5 again, which it sent before"},
        {"a number forgotten that was never sent",
         [&](int socket) {
             send_message(socket, MessageType::NewBuffer, frame_of(1, {{5, true}}, {6}), fds);
         },
         "NEW_BUFFER 1 forgets file 6, which it did not send"},
    };
    for (const auto &lie : lies) {
        const Ended ended = consumer_of(lie.send);
        EXPECT_EQ(ended.status, 1) << lie.what << ": " << ended.said;
        EXPECT_TRUE(says(ended, "/socket sent a frame refused here: " + lie.said))
            << lie.what << ": " << ended.said;
    }
}

TEST(IpcHostileProducer, AFrameBeforeItsCapsIsRefused)
{
    const Ended ended = consumer_of(
        [](int socket) {
            const UniqueFd fd(g2g::test::make_memfd(kFrameSize));
            const int fds[] = {fd.get()};
            send_message(socket, MessageType::NewBuffer, encode(frame_message(kFrameSize)), fds);
        },
        Stream::NoCaps);
    EXPECT_EQ(ended.status, 1) << ended.said;
    EXPECT_TRUE(says(ended, "/socket sent a frame before its caps")) << ended.said;
}

// Not hostile: caps with the video library's own types (nvh264dec's carry a multiview flag set),
// which a consumer parses before any frame made it load that library's types, are read.
TEST(IpcHostileProducer, CapsWithTheVideoLibrarysTypesAreRead)
{
    const Ended ended = consumer_of(
        [](int socket) {
            send_message(
                socket, MessageType::Caps,
                encode_caps(std::string(kCaps) +
                            ", multiview-mode=(string)mono, multiview-flags=(GstVideoMultiviewFlagsSet)"
                            "0:ffffffff:/right-view-first/left-flipped/left-flopped/right-flipped/"
                            "right-flopped/half-aspect/mixed-mono"));
            const UniqueFd fd(g2g::test::make_memfd(kFrameSize));
            const int fds[] = {fd.get()};
            send_message(socket, MessageType::NewBuffer, encode(frame_message(kFrameSize)), fds);
            send_message(socket, MessageType::Eos, {});
        },
        Stream::NoCaps);
    EXPECT_EQ(ended.status, 0) << ended.said;
}

TEST(IpcHostileProducer, CapsOfNoFixedVideoFrameAreRefused)
{
    const Ended ended = consumer_of(
        [](int socket) {
            send_message(socket, MessageType::Caps, encode_caps("video/x-raw, format={ NV12, I420 }"));
        },
        Stream::NoCaps);
    EXPECT_EQ(ended.status, 1) << ended.said;
    EXPECT_TRUE(says(
        ended, "/socket sent caps of no fixed video frame: video/x-raw, format={ NV12, I420 } (not fixed)"))
        << ended.said;
}

TEST(IpcHostileProducer, AMessageCutShortIsRefused)
{
    const Ended ended = consumer_of([](int socket) {
        const std::vector<std::uint8_t> header = encode_header({0, 200});
        ASSERT_EQ(::send(socket, header.data(), header.size(), MSG_NOSIGNAL), 8);
        const std::vector<std::uint8_t> part(20, 0);
        ASSERT_EQ(::send(socket, part.data(), part.size(), MSG_NOSIGNAL), 20);
        ::shutdown(socket, SHUT_WR);
    });
    EXPECT_EQ(ended.status, 1) << ended.said;
    EXPECT_TRUE(
        says(ended, "/socket went away: the peer closed the connection after 20 of a payload's 200 bytes"))
        << ended.said;
}

TEST(IpcHostileProducer, AViewPastItsMemoryIsRefused)
{
    // A view of a 64x48 NV12 frame (the stream's size), sent over a memory of 3000 bytes: its luma
    // plane ends past it.
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 64, 48);
    g2g::BufferRef source = g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, kFrameSize, nullptr));
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(source.get(), info);
    ASSERT_TRUE(view);
    view->orient(GST_VIDEO_ORIENTATION_180);
    const MetaRecord record = encode_view(*view);
    const Ended ended = consumer_of(
        [&](int socket) {
            NewBuffer message = frame_message(3000);
            message.metas.push_back(record);
            const UniqueFd fd(g2g::test::make_memfd(3000));
            const int fds[] = {fd.get()};
            send_message(socket, MessageType::NewBuffer, encode(message), fds);
        },
        Stream::View);
    EXPECT_EQ(ended.status, 1) << ended.said;
    // The view is rebuilt over the frame that came, checked as FrameView checks any frame.
    EXPECT_TRUE(says(ended,
                     "/socket sent a frame refused here: NEW_BUFFER 1 plane 0 (bytes 0..3072) lies outside "
                     "the 3000-byte buffer"))
        << ended.said;
}

namespace {

// The lane a fake producer gives its consumer (LANE, with `descriptors` of the lane's, the bell's
// and a doorbell's), the consumer having asked for it; `lie` is then done to its pages (mapped
// writable, as the producer has them) before the bell rings.
template <typename Lie> void give_lane(int socket, std::size_t descriptors, Lie &&lie)
{
    g2g::Result<LaneWriter> lane = LaneWriter::create();
    g2g::Result<Bell> bell = Bell::create();
    const UniqueFd doorbell(eventfd(0, EFD_CLOEXEC));
    ASSERT_TRUE(lane && bell);
    const int fds[3] = {lane->fd(), bell->fd(), doorbell.get()};
    send_message(socket, message_type(ControlType::Lane), {}, std::span<const int>(fds, descriptors));
    void *pages = ::mmap(nullptr, sizeof(LaneLayout), PROT_READ | PROT_WRITE, MAP_SHARED, lane->fd(), 0);
    ASSERT_NE(pages, MAP_FAILED);
    lie(*lane, *static_cast<LaneLayout *>(pages));
    bell->ring();
    ::munmap(pages, sizeof(LaneLayout));
    g_usleep(200000); // the consumer reads the lie while the bell's pages are still the producer's
}

} // namespace

// A producer's lane is checked as its socket is: a lane that lies ends its consumer with what it
// said, never a read past the lane or a wait for descriptors that never come.
TEST(IpcHostileProducer, ALaneThatLiesIsRefused)
{
    struct Lie {
        const char *what;
        std::function<void(int socket)> send;
        std::string said;
    };
    const auto no_lie = [](LaneWriter &, LaneLayout &) {};
    const std::vector<Lie> lies = {
        {"two descriptors", [&](int socket) { give_lane(socket, 2, no_lie); },
         "/socket sent a lane of 2 descriptors, not 3"},
        {"an unsealed lane",
         [](int socket) {
             const UniqueFd unsealed(::memfd_create("lane", MFD_CLOEXEC));
             const UniqueFd doorbell(eventfd(0, EFD_CLOEXEC));
             g2g::Result<Bell> bell = Bell::create();
             ASSERT_EQ(::ftruncate(unsealed.get(), sizeof(LaneLayout)), 0);
             ASSERT_TRUE(bell);
             const int fds[3] = {unsealed.get(), bell->fd(), doorbell.get()};
             send_message(socket, message_type(ControlType::Lane), {}, fds);
             g_usleep(200000);
         },
         "/socket sent a lane refused here: the lane is not sealed against shrinking"},
        {"bytes written past the lane",
         [&](int socket) {
             give_lane(socket, 3, [](LaneWriter &, LaneLayout &pages) { pages.written = 3 * kLaneBytes; });
         },
         "/socket wrote a lane refused here: its lane says 3145728 bytes were written where 0 were read"},
        {"a record's descriptors that do not come",
         [&](int socket) {
             give_lane(socket, 3, [&](LaneWriter &lane, LaneLayout &) {
                 lane.write(static_cast<std::uint32_t>(MessageType::Caps), encode_caps(kCaps), 1);
                 send_message(socket, MessageType::Caps, encode_caps(kCaps));
             });
         },
         "/socket sent message type 2 with 0 descriptors where its lane's record named 1"},
        {"a second lane",
         [&](int socket) {
             give_lane(socket, 3, [&](LaneWriter &lane, LaneLayout &) {
                 // A LANE record on the lane, its three descriptors on the socket.
                 const UniqueFd a(g2g::test::make_memfd(100)), b(g2g::test::make_memfd(100)),
                     c(g2g::test::make_memfd(100));
                 const int fds[] = {a.get(), b.get(), c.get()};
                 send_message(socket, message_type(ControlType::Descriptors), {}, fds);
                 lane.write(static_cast<std::uint32_t>(ControlType::Lane), {}, 3);
             });
         },
         "/socket sent a second lane"},
        {"a pipe for a doorbell",
         [](int socket) {
             g2g::Result<LaneWriter> lane = LaneWriter::create();
             g2g::Result<Bell> bell = Bell::create();
             int ends[2];
             ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
             const UniqueFd read_end(ends[0]), write_end(ends[1]);
             ASSERT_TRUE(lane && bell);
             const int fds[3] = {lane->fd(), bell->fd(), write_end.get()};
             send_message(socket, message_type(ControlType::Lane), {}, fds);
             g_usleep(200000);
         },
         "/socket sent a lane refused here: its doorbell is pipe:["},
        {"descriptors no record named",
         [](int socket) {
             const UniqueFd fd(g2g::test::make_memfd(100));
             const int fds[] = {fd.get()};
             send_message(socket, message_type(ControlType::Descriptors), {}, fds);
         },
         "/socket sent descriptors that no record of a lane named"},
    };
    for (const Lie &lie : lies) {
        const Ended ended = consumer_of([&](int socket) { lie.send(socket); }, Stream::NoCaps);
        EXPECT_EQ(ended.status, 1) << lie.what << ": " << ended.said;
        EXPECT_TRUE(says(ended, lie.said)) << lie.what << ": " << ended.said;
    }
}

// A doorbell filled to the eventfd's limit would block the write of the thread that frees a frame
// (here fakesink's, as it renders), and with it the stream: the consumer's writes never wait, and
// its stream goes to EOS (the producer reaps its lanes at its next frame anyway).
TEST(IpcHostileProducer, ADoorbellThatNeverEmptiesStallsNoConsumer)
{
    const Ended ended = consumer_of(
        [](int socket) {
            g2g::Result<LaneWriter> lane = LaneWriter::create();
            g2g::Result<Bell> bell = Bell::create();
            const UniqueFd doorbell(eventfd(0, EFD_CLOEXEC));
            ASSERT_TRUE(lane && bell);
            const std::uint64_t most = 0xfffffffffffffffeull; // what an eventfd holds at most
            ASSERT_EQ(::write(doorbell.get(), &most, sizeof most), ssize_t(sizeof most));
            const int fds[3] = {lane->fd(), bell->fd(), doorbell.get()};
            send_message(socket, message_type(ControlType::Lane), {}, fds);
            lane->write(static_cast<std::uint32_t>(MessageType::Caps), encode_caps(kCaps), 0);
            const UniqueFd memory(g2g::test::make_memfd(kFrameSize));
            const int frame_fds[] = {memory.get()};
            send_message(socket, message_type(ControlType::Descriptors), {}, frame_fds);
            lane->write(static_cast<std::uint32_t>(MessageType::NewBuffer), encode(frame_message(kFrameSize)),
                        1);
            lane->write(static_cast<std::uint32_t>(MessageType::Eos), {}, 0);
            bell->ring();
            g_usleep(1000000);
        },
        Stream::NoCaps);
    EXPECT_EQ(ended.status, 0) << ended.said;
}

namespace {

// Connects to the producer at `socket`, does `misbehave`, and says whether the producer then
// closed the connection (within 3 s).
template <typename Misbehave> bool let_go_after(const std::string &socket, Misbehave &&misbehave)
{
    g2g::Result<UniqueFd> connection = connect_to(socket);
    if (!connection)
        return false;
    misbehave(connection->get());
    pollfd polled{connection->get(), POLLIN, 0};
    for (gint64 until = g_get_monotonic_time() + 3 * G_USEC_PER_SEC; g_get_monotonic_time() < until;) {
        if (::poll(&polled, 1, 100) <= 0)
            continue;
        std::uint8_t bytes[4096];
        const ssize_t n = ::recv(connection->get(), bytes, sizeof bytes, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return true;
    }
    return false;
}

// The CPU seconds the processes of process group `group` have spent so far (/proc/<pid>/stat's
// utime and stime of each).
double cpu_seconds_of_group(GPid group)
{
    double ticks = 0;
    GDir *dir = g_dir_open("/proc", 0, nullptr);
    for (const char *name; dir && (name = g_dir_read_name(dir));) {
        if (!g_ascii_isdigit(name[0]))
            continue;
        gchar *stat = nullptr;
        if (!g_file_get_contents(("/proc/" + std::string(name) + "/stat").c_str(), &stat, nullptr, nullptr))
            continue;
        // After the command's ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt
        // cmajflt utime stime.
        const char *after = std::strrchr(stat, ')');
        gchar **fields = after ? g_strsplit(after + 2, " ", 14) : nullptr;
        if (fields && g_strv_length(fields) >= 13 && std::atoi(fields[2]) == group)
            ticks += std::atof(fields[11]) + std::atof(fields[12]);
        g_strfreev(fields);
        g_free(stat);
    }
    if (dir)
        g_dir_close(dir);
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

} // namespace

// More consumers connecting than the producer has descriptors for. It once took them until its
// pool could make no memfd (the stream failed, `Internal data stream error`); it keeps its last
// descriptors for its frames now, refusing a consumer past them with why, and leaves its listener
// alone a while after (as where accept itself fails for want of one: the listener stays readable,
// and polling it again at once would spin). It serves the consumers it has, spends no CPU on the
// flood, and takes a consumer that comes when the flood has gone.
TEST(IpcHostileConsumer, AFloodOfConsumersNeverStarvesTheProducersDescriptors)
{
    Scratch scratch("g2g-ipc-hostile");
    const std::string socket = scratch.path("socket");
    // 6 s of frames; each consumer holds at most one, so the flood holds few of the pool's memfds.
    ChildProcess producer("ulimit -n 128; " +
                          g2g::test::launch("videotestsrc is-live=true num-buffers=600 ! "
                                            "video/x-raw,format=NV12,width=64,height=48,framerate=100/1 ! "
                                            "g2gipcsink max-queued=1 sync=false socket-path=" +
                                                socket,
                                            scratch.path("registry.bin"), scratch.path("producer.log"), ""));
    for (int i = 0; i < 400 && !g_file_test(socket.c_str(), G_FILE_TEST_EXISTS); ++i)
        g_usleep(20000);
    ASSERT_TRUE(g_file_test(socket.c_str(), G_FILE_TEST_EXISTS))
        << g2g::test::read_file(scratch.path("producer.log"));
    // Connections as fast as the producer takes them (a full backlog says EAGAIN: a moment later),
    // until the producer, out of descriptors, takes none and its backlog stays full.
    std::vector<UniqueFd> flood;
    const sockaddr_un address = *socket_address(socket);
    for (gint64 until = g_get_monotonic_time() + 3 * G_USEC_PER_SEC;
         flood.size() < 100 && g_get_monotonic_time() < until;) {
        UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        if (fd && ::connect(fd.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0)
            flood.push_back(std::move(fd));
        else
            g_usleep(2000);
    }
    EXPECT_GT(flood.size(), 64u) << "the flood did not reach past the producer's descriptors";
    g_usleep(300000); // the producer accepts what it can and meets EMFILE
    const double before = cpu_seconds_of_group(producer.pid());
    g_usleep(1500000);
    const double spent = cpu_seconds_of_group(producer.pid()) - before;
    EXPECT_LT(spent, 0.7) << "the producer spent " << spent << " s of CPU in 1.5 s of the flood";
    // The last to connect was refused, with why.
    ASSERT_FALSE(flood.empty());
    const int last = flood.back().get();
    ::fcntl(last, F_SETFL, 0);
    const timeval timeout{5, 0};
    setsockopt(last, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    g2g::Result<Message> refused = receive_message(last);
    ASSERT_TRUE(refused) << refused.error().message();
    EXPECT_EQ(refused->header.type, static_cast<std::uint32_t>(ControlType::Refused));
    g2g::Result<std::string> why = decode_caps(refused->payload);
    ASSERT_TRUE(why);
    EXPECT_EQ(*why, "the producer keeps the last 64 of its 128 descriptors for its frames: no further "
                    "consumer now");
    flood.clear();
    ChildProcess steady(g2g::test::launch("g2gipcsrc socket-path=" + socket + " ! fakesink",
                                          scratch.path("registry.bin"), scratch.path("steady.log")));
    EXPECT_EQ(steady.wait(), 0) << g2g::test::read_file(scratch.path("steady.log"));
    EXPECT_EQ(producer.wait(), 0) << g2g::test::read_file(scratch.path("producer.log"));
}

// Consumers that send what no consumer sends, or stop halfway through a message, are let go of,
// each with the producer's warning saying why; the producer serves its steady consumer meanwhile.
#if G2G_HAVE_VULKAN
namespace {

// `use(device)` on this machine's first Vulkan device, opened with VK_KHR_external_memory_fd; false
// where there is none.
template <typename Use> bool with_first_device(Use &&use)
{
    bool opened = false;
    GstVulkanInstance *instance = gst_vulkan_instance_new();
    if (gst_vulkan_instance_open(instance, nullptr)) {
        GstVulkanDevice *device = gst_vulkan_device_new_with_index(instance, 0);
        gst_vulkan_device_enable_extension(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        if (gst_vulkan_device_open(device, nullptr)) {
            opened = true;
            use(device);
        }
        gst_object_unref(device);
    }
    gst_object_unref(instance);
    return opened;
}

GstVideoInfo nv12_64x48()
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 64, 48);
    return info;
}

// The G2gVulkanImages record a producer on this machine's first Vulkan device sends for an NV12
// 64x48 frame (a real exported frame's), the images left in VK_IMAGE_LAYOUT_GENERAL; nullopt
// where there is no Vulkan device that exports.
std::optional<VulkanImages> real_images()
{
    std::optional<VulkanImages> images;
    with_first_device([&](GstVulkanDevice *device) {
        if (auto frame = g2g::vulkan::ExportedFrame::create(device, nv12_64x48())) {
            images.emplace();
            images->identity = g2g::vulkan::identity_of(device);
            images->frame = 7;
            for (const g2g::vulkan::ExternalImage &plane : (*frame)->planes()) {
                images->planes.push_back(plane.description);
                images->planes.back().layout = VK_IMAGE_LAYOUT_GENERAL;
            }
        }
    });
    return images;
}

// An NV12 64x48 frame of linear images made as g2gconvert's (cuda_vulkan::SharedImages, which
// needs CUDA) are, on this machine's first Vulkan device: vulkan::exportable_usage and
// vulkan::external_image with linear tiling, each in an exportable allocation of its own, written
// here through a mapping as CUDA writes them by pitch. A driver imports only memory it exported
// (lavapipe's fds carry its own header), so the test exports it as g2gipcsink would.
class LinearFrame {
public:
    LinearFrame()
    {
        instance_ = gst_vulkan_instance_new();
        if (!gst_vulkan_instance_open(instance_, nullptr))
            return;
        device_ = gst_vulkan_device_new_with_index(instance_, 0);
        gst_vulkan_device_enable_extension(device_, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        if (!gst_vulkan_device_open(device_, nullptr))
            return;
        const GstVideoInfo info = nv12_64x48();
        images_.identity = g2g::vulkan::identity_of(device_);
        images_.frame = 9;
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p)
            if (!make_plane(info, p))
                return;
        made_ = true;
    }
    ~LinearFrame()
    {
        for (const Plane &plane : planes_) {
            if (plane.image)
                vkDestroyImage(device_->device, plane.image, nullptr);
            if (plane.memory)
                vkFreeMemory(device_->device, plane.memory, nullptr);
        }
        if (device_)
            gst_object_unref(device_);
        gst_object_unref(instance_);
    }
    LinearFrame(const LinearFrame &) = delete;
    LinearFrame &operator=(const LinearFrame &) = delete;

    // Whether the device makes, exports and maps such images.
    bool made() const { return made_; }
    const VulkanImages &images() const { return images_; }
    // `frame` (NV12 64x48, dense) written into the images' rows, the bytes between rows set to 0xee.
    void write(const std::vector<std::uint8_t> &frame)
    {
        const GstVideoInfo info = nv12_64x48();
        for (guint p = 0; p < planes_.size(); ++p) {
            const g2g::vulkan::ExternalPlane &d = images_.planes[p];
            void *map = nullptr;
            ASSERT_EQ(vkMapMemory(device_->device, planes_[p].memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
            auto *bytes = static_cast<std::uint8_t *>(map);
            std::memset(bytes, 0xee, d.size);
            const auto row = static_cast<std::size_t>(GST_VIDEO_INFO_PLANE_STRIDE(&info, p));
            for (guint y = 0; y < d.height; ++y)
                std::memcpy(bytes + planes_[p].rows.offset + y * planes_[p].rows.rowPitch,
                            frame.data() + GST_VIDEO_INFO_PLANE_OFFSET(&info, p) + y * row, row);
            vkUnmapMemory(device_->device, planes_[p].memory);
        }
    }
    // A new fd of each plane's allocation.
    std::vector<UniqueFd> fds() const
    {
        std::vector<UniqueFd> fds;
        for (const Plane &plane : planes_) {
            g2g::Result<int> fd = g2g::vulkan::exported_fd(device_, plane.memory);
            fds.emplace_back(fd ? *fd : -1);
        }
        return fds;
    }

private:
    struct Plane {
        VkImage image = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        VkSubresourceLayout rows{};
    };

    bool make_plane(const GstVideoInfo &info, guint p)
    {
        g2g::vulkan::ExternalPlane d;
        d.format = p == 0 ? VK_FORMAT_R8_UNORM : VK_FORMAT_R8G8_UNORM;
        g2g::Result<VkImageUsageFlags> usage = g2g::vulkan::exportable_usage(
            device_, static_cast<VkFormat>(d.format), VK_IMAGE_TILING_LINEAR, "plane");
        if (!usage)
            return false;
        d.usage = *usage;
        d.width = static_cast<std::uint32_t>(GST_VIDEO_INFO_COMP_WIDTH(&info, p));
        d.height = static_cast<std::uint32_t>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p));
        d.tiling = VK_IMAGE_TILING_LINEAR;
        d.layout = VK_IMAGE_LAYOUT_GENERAL;
        g2g::Result<VkImage> image = g2g::vulkan::external_image(device_, d, "plane");
        if (!image)
            return false;
        Plane &plane = planes_.emplace_back();
        plane.image = *image;
        VkMemoryRequirements requirements{};
        vkGetImageMemoryRequirements(device_->device, plane.image, &requirements);
        d.size = requirements.size;
        // Written through a mapping: the device-local memory the exporter takes must be mappable
        // (lavapipe's is).
        const gint type = g2g::vulkan::device_local_memory_type(device_, requirements.memoryTypeBits);
        const VkMemoryPropertyFlags mappable =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if (type < 0 || (device_->physical_device->memory_properties.memoryTypes[type].propertyFlags &
                         mappable) != mappable)
            return false;
        g2g::Result<VkDeviceMemory> memory =
            g2g::vulkan::bind_external_memory(device_, plane.image, requirements, -1, "plane");
        if (!memory)
            return false;
        plane.memory = *memory;
        const VkImageSubresource color{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
        vkGetImageSubresourceLayout(device_->device, plane.image, &color, &plane.rows);
        images_.planes.push_back(d);
        return true;
    }

    GstVulkanInstance *instance_ = nullptr;
    GstVulkanDevice *device_ = nullptr;
    VulkanImages images_;
    std::vector<Plane> planes_;
    bool made_ = false;
};

// A NEW_BUFFER of Vulkan images `images` says, with a memfd of `fd_size` bytes per plane, and
// `metas` after the images' record.
void send_images(int socket, const VulkanImages &images, std::uint64_t fd_size, bool with_record = true,
                 const std::vector<MetaRecord> &metas = {})
{
    NewBuffer message;
    message.id = 1;
    message.pts = 0;
    message.kind = MemoryKind::VulkanImage;
    std::vector<UniqueFd> fds;
    std::vector<int> raw;
    for (const g2g::vulkan::ExternalPlane &plane : images.planes) {
        message.memories.push_back({plane.size, 0});
        fds.emplace_back(g2g::test::make_memfd(fd_size));
        raw.push_back(fds.back().get());
    }
    if (with_record)
        message.metas.push_back(encode_vulkan_images(images));
    message.metas.insert(message.metas.end(), metas.begin(), metas.end());
    send_message(socket, MessageType::NewBuffer, encode(message), raw);
}

} // namespace

// Each lie of a producer's Vulkan record is refused before anything is imported: the driver is
// never handed memory smaller than the image, or an image another GPU or driver made.
TEST(IpcHostileProducer, VulkanImagesThatAreNotWhatTheySayAreRefused)
{
    SKIP_WITHOUT_VULKAN();
    const std::optional<VulkanImages> real = real_images();
    if (!real)
        GTEST_SKIP() << "the first Vulkan device exports no NV12 images as opaque fds";
    const std::uint64_t size = real->planes[0].size;
    struct Case {
        const char *what;
        std::function<void(VulkanImages &)> lie;
        std::uint64_t fd_size;
        bool record;
        std::string said;
        std::vector<MetaRecord> metas = {};
    };
    const std::string plane0 = "plane 0 of NV12 64x48";
    // A decoder's frame: one multi-planar image (VK_FORMAT_G8_B8R8_2PLANE_420_UNORM) of a video
    // profile, which only a device opened with the video extensions makes (lavapipe has none).
    const std::string h264 = "video/x-h264, profile=(string)high, interlace-mode=(string)progressive, "
                             "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8";
    auto decoded = [](VulkanImages &images) {
        images.planes.resize(1);
        images.planes[0].format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
        images.planes[0].width = 64;
        images.planes[0].height = 64; // the coded size: 48 rounded up to H.264's macroblocks
        images.planes[0].usage = VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                 VK_IMAGE_USAGE_SAMPLED_BIT;
    };
#if GST_CHECK_VERSION(1, 24, 0)
    const std::string two_images = "NEW_BUFFER 1: 2 images and 2 descriptors for a video frame of NV12 64x48 "
                                   "(one multi-planar image)";
    const std::string no_video_queue = "NEW_BUFFER 1: the Vulkan device ";
    const std::string not_caps =
        "NEW_BUFFER 1 \"not caps, at all\" are no fixed caps of one Vulkan video profile";
#else
    // 1.22 has no Vulkan video: any profile is refused before its images are looked at.
    const std::string two_images = "NEW_BUFFER 1 images of the Vulkan video profile " + h264 +
                                   " cannot be made here: GStreamer 1.22 has no Vulkan video";
    const std::string no_video_queue = two_images;
    const std::string not_caps =
        "NEW_BUFFER 1 images of the Vulkan video profile not caps, at all cannot be made "
        "here: GStreamer 1.22 has no Vulkan video";
#endif
    std::vector<Case> cases = {
        {"another GPU", [](VulkanImages &images) { images.identity = {}; }, size, true,
         "NEW_BUFFER 1: the producer's images are of the GPU 00000000-0000-0000-0000-000000000000 (driver "
         "00000000-0000-0000-0000-000000000000), this process's Vulkan device "},
        {"another extent", [](VulkanImages &images) { images.planes[0].width = 128; }, size, true,
         "NEW_BUFFER 1: image 0 is VkFormat " + std::to_string(real->planes[0].format) + " 128x48, " +
             plane0 + " is VkFormat " + std::to_string(real->planes[0].format) + " 64x48"},
        {"another allocation size", [](VulkanImages &images) { images.planes[0].size += 4096; }, size + 4096,
         true,
         "NEW_BUFFER 1: image 0's allocation is said to be " + std::to_string(size + 4096) + " bytes; " +
             plane0 + " takes " + std::to_string(size)},
        {"a descriptor smaller than the image", [](VulkanImages &) {}, 100, true,
         "NEW_BUFFER 1: image 0's descriptor holds 100 bytes; " + plane0 + " takes " + std::to_string(size)},
        {"no record", [](VulkanImages &) {}, size, false,
         "NEW_BUFFER 1 of Vulkan images came without its G2gVulkanImages record"},
        {"a tiling no exporter makes", [](VulkanImages &images) { images.planes[0].tiling = 5; }, size, true,
         "NEW_BUFFER 1: image 0 has tiling 5: an exported image is of optimal or linear tiling"},
        {"a usage no exporter gives",
         [](VulkanImages &images) { images.planes[0].usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT; },
         size, true,
         "NEW_BUFFER 1: image 0 has usage " +
             std::to_string(real->planes[0].usage | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT) +
             ": this process makes " + plane0 + " with usage " + std::to_string(real->planes[0].usage) +
             ", optimal tiling"},
        {"a video profile that is not printable text",
         [](VulkanImages &) {},
         size,
         true,
         "NEW_BUFFER 1 a G2gVulkanVideoProfile record holds the byte 10: caps are printable text",
         {encode_video_profile("video/x-h264,\nprofile=high")}},
        {"a video profile that is no caps",
         [](VulkanImages &) {},
         size,
         true,
         not_caps,
         {encode_video_profile("not caps, at all")}},
        {"a video frame of an image per plane",
         [](VulkanImages &) {},
         size,
         true,
         two_images,
         {encode_video_profile(h264)}},
    };
    // Where the device decodes (GStreamer opens it with the video extensions), the image is made and
    // the memfd is what is refused: the case is of a device without them, as lavapipe is.
    bool video_queue = false;
    with_first_device([&](GstVulkanDevice *device) {
        video_queue = gst_vulkan_device_is_extension_enabled(device, "VK_KHR_video_queue");
    });
    if (!video_queue)
        cases.push_back({"a video frame on a device without the video extensions",
                         decoded,
                         size,
                         true,
                         no_video_queue,
                         {encode_video_profile(h264)}});
    for (const Case &c : cases) {
        VulkanImages images = *real;
        c.lie(images);
        const Ended ended = consumer_of(
            [&](int socket) { send_images(socket, images, c.fd_size, c.record, c.metas); }, Stream::Vulkan);
        EXPECT_EQ(ended.status, 1) << c.what << ": " << ended.said;
        EXPECT_TRUE(says(ended, "/socket sent a frame refused here: " + c.said))
            << c.what << ": " << ended.said;
    }
}

// Not hostile: linear images (g2gconvert's, which CUDA writes by pitch, cross as they are) are made
// again over the producer's memory and read as the producer laid their rows out. Each lie of a
// linear image's record is refused as an optimal one's is.
TEST(IpcHostileProducer, LinearImagesAreReadAsTheirProducerLaidThemOut)
{
    SKIP_WITHOUT_VULKAN();
    LinearFrame linear;
    if (!linear.made())
        GTEST_SKIP()
            << "the first Vulkan device makes no mappable linear NV12 images it exports as opaque fds";
    std::vector<std::uint8_t> expected(kFrameSize);
    for (std::size_t i = 0; i < expected.size(); ++i)
        expected[i] = static_cast<std::uint8_t>(i * 7 + i / 64);
    linear.write(expected);
    auto send_frame = [&](int socket, const VulkanImages &images) {
        NewBuffer message;
        message.id = 1;
        message.pts = 0;
        message.kind = MemoryKind::VulkanImage;
        const std::vector<UniqueFd> fds = linear.fds();
        std::vector<int> raw;
        for (std::size_t p = 0; p < fds.size(); ++p) {
            raw.push_back(fds[p].get());
            message.memories.push_back({images.planes[p].size, 0});
        }
        message.metas.push_back(encode_vulkan_images(images));
        send_message(socket, MessageType::NewBuffer, encode(message), raw);
        send_message(socket, MessageType::Eos, {});
    };
    Scratch scratch("g2g-ipc-linear");
    const std::string read = scratch.path("read.nv12");
    const Ended ended = consumer_of([&](int socket) { send_frame(socket, linear.images()); }, Stream::Vulkan,
                                    "video/x-raw,format=NV12 ! filesink location=" + read);
    ASSERT_EQ(ended.status, 0) << ended.said;
    const std::string bytes = g2g::test::read_file(read);
    EXPECT_TRUE(bytes == std::string(expected.begin(), expected.end())) << bytes.size() << " bytes read";

    // The same images said to be of optimal tiling: their usage is not an optimal image's.
    std::string optimal_usage;
    with_first_device([&](GstVulkanDevice *device) {
        if (auto usage =
                g2g::vulkan::exportable_usage(device, VK_FORMAT_R8_UNORM, VK_IMAGE_TILING_OPTIMAL, ""))
            optimal_usage = std::to_string(*usage);
    });
    const std::string linear_usage = std::to_string(linear.images().planes[0].usage);
    if (optimal_usage == linear_usage)
        return; // the same usage: that lie is caught by the allocation's size, tested above
    VulkanImages lie = linear.images();
    lie.planes[0].tiling = VK_IMAGE_TILING_OPTIMAL;
    const Ended optimal = consumer_of([&](int socket) { send_frame(socket, lie); }, Stream::Vulkan);
    EXPECT_EQ(optimal.status, 1) << optimal.said;
    EXPECT_TRUE(says(optimal, "/socket sent a frame refused here: NEW_BUFFER 1: image 0 has usage " +
                                  linear_usage + ": this process makes plane 0 of NV12 64x48 with usage " +
                                  optimal_usage + ", optimal tiling"))
        << optimal.said;
}

// A view of Vulkan images is checked as a view in memfds is: it travels in view caps alone, with
// the layout of the frame it reads, of the stream's format, and the view made again over the
// images must be a crop and an orientation of them of the stream's size.
TEST(IpcHostileProducer, VulkanViewsThatAreNotWhatTheySayAreRefused)
{
    SKIP_WITHOUT_VULKAN();
    const std::optional<VulkanImages> real = real_images();
    if (!real)
        GTEST_SKIP() << "the first Vulkan device exports no NV12 images as opaque fds";
    const Nv12Views views = nv12_views();
    GstVideoInfo nv12, i420;
    gst_video_info_set_format(&nv12, GST_VIDEO_FORMAT_NV12, 64, 48);
    gst_video_info_set_format(&i420, GST_VIDEO_FORMAT_I420, 64, 48);
    const MetaRecord layout = encode_video_meta(video_meta_of(nv12));
    expect_each_refused(
        {
            {"view caps, no view",
             Stream::VulkanView,
             {layout},
             "NEW_BUFFER 1 arrived in view caps (meta:G2gTensorView) without its view"},
            {"a view in caps of dense images",
             Stream::Vulkan,
             {layout, views.identity},
             "NEW_BUFFER 1 carries a view in caps without meta:G2gTensorView"},
            {"no layout",
             Stream::VulkanView,
             {views.identity},
             "NEW_BUFFER 1 carries a view without the layout of the frame it reads (a GstVideoMeta record)"},
            {"a layout of another format",
             Stream::VulkanView,
             {encode_video_meta(video_meta_of(i420)), views.identity},
             "NEW_BUFFER 1 lays out I420 in a stream of NV12"},
            {"a view of another size than the caps'",
             Stream::VulkanView,
             {layout, views.turned},
             "NEW_BUFFER 1 a G2gTensorView record of 48x64 pixels in a stream of 64x48"},
        },
        [&](int socket, const std::vector<MetaRecord> &metas) {
            send_images(socket, *real, real->planes[0].size, true, metas);
        });
}
#endif

// A frame's memory kind must be what its stream's caps say: device memory in a stream of memfds
// (and memfds in a stream of Vulkan images) would be read as what it is not.
TEST(IpcHostileProducer, AFrameOfAnotherMemoryThanItsCapsIsRefused)
{
    const Ended images = consumer_of([](int socket) {
        NewBuffer message = frame_message(kFrameSize);
        message.kind = MemoryKind::VulkanImage;
        const UniqueFd fd(g2g::test::make_memfd(kFrameSize));
        const int fds[] = {fd.get()};
        send_message(socket, MessageType::NewBuffer, encode(message), fds);
    });
    EXPECT_EQ(images.status, 1) << images.said;
    EXPECT_TRUE(
        says(images, "/socket sent a frame of Vulkan images in a stream of memfds or DMA-BUFs (its caps)"))
        << images.said;
    SKIP_WITHOUT_VULKAN();
    const Ended memfds = consumer_of(
        [](int socket) {
            const UniqueFd fd(g2g::test::make_memfd(kFrameSize));
            const int fds[] = {fd.get()};
            send_message(socket, MessageType::NewBuffer, encode(frame_message(kFrameSize)), fds);
        },
        Stream::Vulkan);
    EXPECT_EQ(memfds.status, 1) << memfds.said;
    EXPECT_TRUE(
        says(memfds, "/socket sent a frame of memfds or DMA-BUFs in a stream of Vulkan images (its caps)"))
        << memfds.said;
}

// A producer's CUDA handles are checked before the driver opens anything: a layout past the memory
// it says it sends is refused, and a handle the driver does not know ends the consumer with the
// driver's error, never a read of memory that is not there.
TEST(IpcHostileProducer, CudaHandlesThatAreNotWhatTheySayAreRefused)
{
    if (!g2g::test::have_cuda_device())
        GTEST_SKIP() << "needs a CUDA device and the nvcodec plugin (the consumer opens a CUDA context)";
    auto send_handle = [](int socket, std::uint64_t size) {
        NewBuffer message = frame_message(size);
        message.kind = MemoryKind::CudaIpc;
        g2g::cuda::IpcHandle handle; // no allocation's handle
        handle.size = size;
        message.metas.push_back(encode_cuda_handles({handle}));
        send_message(socket, MessageType::NewBuffer, encode(message), {});
    };
    const Ended short_memory = consumer_of([&](int socket) { send_handle(socket, 100); }, Stream::Cuda);
    EXPECT_EQ(short_memory.status, 1) << short_memory.said;
    EXPECT_TRUE(says(short_memory,
                     "/socket sent a frame refused here: NEW_BUFFER 1 plane 0 (48 rows of 64 bytes "
                     "from 0) lies outside the 100-byte frame"))
        << short_memory.said;
    const Ended unknown = consumer_of([&](int socket) { send_handle(socket, kFrameSize); }, Stream::Cuda);
    EXPECT_EQ(unknown.status, 1) << unknown.said;
    EXPECT_TRUE(says(unknown,
                     "/socket sent a frame refused here: NEW_BUFFER 1: cuIpcOpenMemHandle of the producer's "
                     "allocation failed: CUDA_ERROR_"))
        << unknown.said;
}

// A view of CUDA memory is read before the handle is opened: in view caps alone, of the stream's
// size; a view that passes is made again over the opened memory (not reached here: the handle is
// no allocation's, and the driver refuses it).
TEST(IpcHostileProducer, CudaViewsThatAreNotWhatTheySayAreRefused)
{
    if (!g2g::test::have_cuda_device())
        GTEST_SKIP() << "needs a CUDA device and the nvcodec plugin (the consumer opens a CUDA context)";
    const Nv12Views views = nv12_views();
    expect_each_refused(
        {
            {"view caps, no view",
             Stream::CudaView,
             {},
             "NEW_BUFFER 1 arrived in view caps (meta:G2gTensorView) without its view"},
            {"a view in caps of dense frames",
             Stream::Cuda,
             {views.identity},
             "NEW_BUFFER 1 carries a view in caps without meta:G2gTensorView"},
            {"a view of another size than the caps'",
             Stream::CudaView,
             {views.turned},
             "NEW_BUFFER 1 a G2gTensorView record of 48x64 pixels in a stream of 64x48"},
            {"a view that passes, over a handle the driver does not know",
             Stream::CudaView,
             {views.identity},
             "NEW_BUFFER 1: cuIpcOpenMemHandle of the producer's allocation failed: CUDA_ERROR_"},
        },
        [](int socket, const std::vector<MetaRecord> &metas) {
            NewBuffer message = frame_message(kFrameSize);
            message.kind = MemoryKind::CudaIpc;
            g2g::cuda::IpcHandle handle; // no allocation's handle
            handle.size = kFrameSize;
            message.metas.push_back(encode_cuda_handles({handle}));
            message.metas.insert(message.metas.end(), metas.begin(), metas.end());
            send_message(socket, MessageType::NewBuffer, encode(message), {});
        });
}

namespace {

// What a raw consumer of the producer at `socket` received, to EOS: frames, descriptors, and the
// files each frame named (by number, where the producer numbered them). It says nothing (as
// unixfdsrc), HELLO (g2g's consumer), or asks for a lane before its HELLO (as g2gipcsrc does), and
// releases each frame at once.
enum class Speaks { Nothing, Hello, Lane };

struct RawStream {
    int frames = 0, descriptors = 0;
    int socket_messages = 0; // on a lane: LANE and DESCRIPTORS alone
    std::set<std::uint64_t> files;
    std::string fault; // the first thing that was not as it should be
};

// The next message of a lane consumer: its lane's next record, its descriptors from the socket.
g2g::Result<Message> next_on_lane(int socket, LaneReader &lane, const Bell &bell, RawStream &stream)
{
    for (int waited = 0; waited < 100; ++waited) {
        const std::uint32_t seen = bell.value();
        g2g::Result<std::optional<LaneRecord>> record = lane.next();
        if (!record)
            return record.error();
        if (!*record) {
            bell.wait(seen, 100);
            continue;
        }
        Message message;
        message.header = {(*record)->type, static_cast<std::uint32_t>((*record)->payload.size())};
        message.payload = std::move((*record)->payload);
        if ((*record)->descriptors) {
            g2g::Result<Message> carried = receive_message(socket);
            if (!carried)
                return carried.error();
            ++stream.socket_messages;
            if (carried->header.type != static_cast<std::uint32_t>(ControlType::Descriptors) ||
                carried->fds.size() != (*record)->descriptors)
                return g2g::Error(g2g::ErrorCode::InvalidArgument, "descriptors not as the record said");
            message.fds = std::move(carried->fds);
        }
        return message;
    }
    return g2g::Error(g2g::ErrorCode::InvalidArgument, "nothing on the lane for 10 s");
}

RawStream read_raw_stream(const std::string &socket, Speaks speaks)
{
    RawStream stream;
    g2g::Result<UniqueFd> connection = connect_to(socket);
    for (int i = 0; i < 200 && !connection; ++i) {
        g_usleep(20000);
        connection = connect_to(socket);
    }
    if (!connection) {
        stream.fault = "no producer";
        return stream;
    }
    const int fd = connection->get();
    if (speaks == Speaks::Lane)
        send_message(fd, message_type(ControlType::WantLane), {});
    if (speaks != Speaks::Nothing)
        send_message(fd, message_type(ControlType::Hello), encode_caps("video/x-raw"));
    std::optional<LaneReader> lane;
    std::optional<Bell> bell;
    UniqueFd doorbell;
    if (speaks == Speaks::Lane) {
        g2g::Result<Message> given = receive_message(fd);
        ++stream.socket_messages;
        if (!given || given->header.type != static_cast<std::uint32_t>(ControlType::Lane) ||
            given->fds.size() != 3) {
            stream.fault = "no LANE first";
            return stream;
        }
        g2g::Result<LaneReader> mapped = LaneReader::map(std::move(given->fds[0]));
        g2g::Result<Bell> heard = Bell::map(std::move(given->fds[1]));
        if (!mapped || !heard) {
            stream.fault = (!mapped ? mapped.error() : heard.error()).message();
            return stream;
        }
        lane = std::move(*mapped);
        bell = std::move(*heard);
        doorbell = std::move(given->fds[2]);
    }
    for (;;) {
        g2g::Result<Message> message = lane ? next_on_lane(fd, *lane, *bell, stream) : receive_message(fd);
        if (!lane)
            ++stream.socket_messages;
        if (!message) {
            stream.fault = message.error().message();
            return stream;
        }
        if (message->header.type == static_cast<std::uint32_t>(MessageType::Eos))
            return stream;
        if (message->header.type != static_cast<std::uint32_t>(MessageType::NewBuffer))
            continue;
        g2g::Result<NewBuffer> frame = decode_new_buffer(message->payload, message->fds.size());
        if (!frame) {
            stream.fault = frame.error().message();
            return stream;
        }
        ++stream.frames;
        stream.descriptors += static_cast<int>(message->fds.size());
        for (const FileRef &file : frame->files) {
            // A file comes attached the first time only.
            if (file.attached == stream.files.count(file.number) && stream.fault.empty())
                stream.fault = "frame " + std::to_string(stream.frames) + " has file " +
                               std::to_string(file.number) +
                               (file.attached ? " attached again" : " named before it came");
            stream.files.insert(file.number);
        }
        if (lane && lane->release(frame->id)) {
            const std::uint64_t one = 1;
            [[maybe_unused]] ssize_t n = ::write(doorbell.get(), &one, sizeof one);
        } else {
            send_message(fd, MessageType::ReleaseBuffer, encode_release(frame->id));
        }
    }
}

} // namespace

// A consumer that said HELLO gets each of the producer's files' descriptors once: the frames of a
// pool of a few memfds cross with one descriptor per file, every later frame naming its file by
// number (no descriptor passed, installed and closed a frame on either side). A consumer that says
// nothing (unixfdsrc) gets a descriptor with every frame, as unixfd's format has it. A consumer on
// a lane gets the same frames from shared memory: its socket carries the lane and each file's
// descriptor once, nothing else, and its releases go back through the lane (the producer's queue
// of 4 waits for them: a release lost would stall it).
TEST(IpcWireConsumers, AConsumerThatSaidHelloGetsEachFilesDescriptorOnce)
{
    Scratch scratch("g2g-ipc-hostile");
    const std::string socket = scratch.path("socket");
    const int frames = 60;
    ChildProcess producer(g2g::test::launch(
        "videotestsrc num-buffers=" + std::to_string(frames) +
            " ! video/x-raw,format=NV12,width=64,height=48,framerate=100/1 ! "
            "g2gipcsink min-consumers=3 max-queued=4 queue-full=wait sync=false socket-path=" +
            socket,
        scratch.path("registry.bin"), scratch.path("producer.log"), ""));
    RawStream unixfd_way, lane_way;
    std::thread quiet([&] { unixfd_way = read_raw_stream(socket, Speaks::Nothing); });
    std::thread laned([&] { lane_way = read_raw_stream(socket, Speaks::Lane); });
    const RawStream g2g_way = read_raw_stream(socket, Speaks::Hello);
    quiet.join();
    laned.join();
    EXPECT_EQ(producer.wait(), 0) << g2g::test::read_file(scratch.path("producer.log"));

    EXPECT_EQ(g2g_way.fault, "");
    EXPECT_EQ(g2g_way.frames, frames);
    EXPECT_EQ(g2g_way.descriptors, static_cast<int>(g2g_way.files.size()));
    EXPECT_GE(g2g_way.files.size(), 1u);
    // The pool's files, not a file a frame: 5 to 13 here, loaded or not; a sanitized run on a loaded
    // machine had its pool make 31 of 60 (why it grew so was not found).
    EXPECT_LT(g2g_way.files.size(), std::size_t(frames)) << "the pool's files, not a file a frame";

    EXPECT_EQ(unixfd_way.fault, "");
    EXPECT_EQ(unixfd_way.frames, frames);
    EXPECT_EQ(unixfd_way.descriptors, frames);
    EXPECT_TRUE(unixfd_way.files.empty());

    EXPECT_EQ(lane_way.fault, "");
    EXPECT_EQ(lane_way.frames, frames);
    EXPECT_EQ(lane_way.descriptors, static_cast<int>(lane_way.files.size()));
    EXPECT_LT(lane_way.files.size(), std::size_t(frames));
    // LANE, then one DESCRIPTORS a file: no frame, caps or EOS on the socket.
    EXPECT_EQ(lane_way.socket_messages, 1 + static_cast<int>(lane_way.files.size()));
}

TEST(IpcHostileConsumer, MisbehavingConsumersAreLetGoOfAndTheOthersServed)
{
    Scratch scratch("g2g-ipc-hostile");
    const std::string socket = scratch.path("socket");
    ChildProcess producer(g2g::test::launch("videotestsrc is-live=true num-buffers=300 ! "
                                            "video/x-raw,format=NV12,width=64,height=48,framerate=100/1 ! "
                                            "g2gipcsink min-consumers=1 sync=false socket-path=" +
                                                socket,
                                            scratch.path("registry.bin"), scratch.path("producer.log"), ""));
    ChildProcess steady(
        g2g::test::launch_when_socket(socket, "g2gipcsrc socket-path=" + socket + " ! fakesink",
                                      scratch.path("registry.bin"), scratch.path("steady.log")));
    for (int i = 0; i < 200 && !g_file_test(socket.c_str(), G_FILE_TEST_EXISTS); ++i)
        g_usleep(20000);
    const auto hello = [](int fd) {
        send_message(fd, message_type(ControlType::Hello), encode_caps("video/x-raw"));
    };
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        hello(fd);
        send_message(fd, MessageType::ReleaseBuffer, encode_release(123456789));
    })) << "a release of a frame it does not hold";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        hello(fd);
        hello(fd);
    })) << "a second HELLO";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        const std::vector<std::uint8_t> header = encode_header({1, 1u << 24});
        ::send(fd, header.data(), header.size(), MSG_NOSIGNAL);
    })) << "a message too long";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        hello(fd);
        const std::vector<std::uint8_t> header = encode_header({1, 8});
        ::send(fd, header.data(), header.size(), MSG_NOSIGNAL);
        ::send(fd, header.data(), 3, MSG_NOSIGNAL); // 3 of the release's 8 bytes, and no more
    })) << "half a message";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        hello(fd);
        send_message(fd, MessageType::Caps, encode_caps("video/x-raw"));
    })) << "a producer's message";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        hello(fd);
        send_message(fd, message_type(ControlType::WantLane), {});
    })) << "a lane asked for after HELLO";
    // On a lane: what it writes there is read as what it sends is.
    const auto on_lane = [&](int fd, auto &&write) {
        send_message(fd, message_type(ControlType::WantLane), {});
        hello(fd);
        g2g::Result<Message> given = receive_message(fd);
        ASSERT_TRUE(given && given->fds.size() == 3) << "no LANE";
        void *pages =
            ::mmap(nullptr, sizeof(LaneLayout), PROT_READ | PROT_WRITE, MAP_SHARED, given->fds[0].get(), 0);
        ASSERT_NE(pages, MAP_FAILED);
        write(*static_cast<LaneLayout *>(pages));
        ::munmap(pages, sizeof(LaneLayout));
        const std::uint64_t one = 1;
        [[maybe_unused]] ssize_t n = ::write(given->fds[2].get(), &one, sizeof one);
    };
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        on_lane(fd, [](LaneLayout &lane) { lane.released = 5000; });
    })) << "a release count that cannot be";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        on_lane(fd, [](LaneLayout &lane) { lane.read = 1ull << 40; });
    })) << "a read position past what was written";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        send_message(fd, message_type(ControlType::WantLane), {});
        send_message(fd, message_type(ControlType::WantLane), {});
    })) << "a lane asked for twice";
    EXPECT_TRUE(let_go_after(socket, [&](int fd) {
        on_lane(fd, [](LaneLayout &lane) {
            lane.ids[0] = 987654321;
            lane.released = 1;
        });
    })) << "a release on its lane of a frame it does not hold";
    EXPECT_EQ(steady.wait(), 0) << g2g::test::read_file(scratch.path("steady.log"));
    EXPECT_EQ(producer.wait(), 0);
    const std::string said = g2g::test::read_file(scratch.path("producer.log"));
    EXPECT_NE(
        said.find(
            "WARNING: from element /GstPipeline:pipeline0/G2gIpcSink:g2gipcsink0: g2gipcsink0: consumer "),
        std::string::npos)
        << said;
    for (const char *why :
         {") let go of: released frame 123456789, which it does not hold", ") let go of: said HELLO twice",
          ") let go of: a message of type 1 says its payload is 16777216 bytes, more than any message "
          "carries "
          "(1048575)",
          ") let go of: cannot receive a message payload: Resource temporarily unavailable",
          ") let go of: sent a producer's message (type 2)", ") let go of: asked for a lane after its HELLO",
          ") let go of: its lane's release count went from 0 to 5000", ") let go of: asked for a lane twice",
          ") let go of: its lane stayed full: it stopped reading",
          ") let go of: released frame 987654321, which it does not hold"})
        EXPECT_NE(said.find(why), std::string::npos) << why << "\n" << said;
}
