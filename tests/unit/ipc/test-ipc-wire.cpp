// SPDX-License-Identifier: LGPL-2.1-or-later
// The wire of g2gipcsink and g2gipcsrc (issue 33): unixfd's messages, encoded and decoded, and what
// a hostile or broken peer may send, each refused with its text before anything is built from it.
// The oracle for the format is GStreamer's own unixfdsink (1.24 on): its CAPS and NEW_BUFFER
// messages, read from its socket, decode here, and its GstVideoMeta record encodes back to the same
// bytes.
#include <gtest/gtest.h>

#include <gst/gst.h>
#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>
#include <gst/video/video.h>

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ipc-frame.h"
#include "memfd-dmabuf.h"
#include "open-fds.h"
#include "reference-frames.h"
#include "ipc-socket.h"
#include "ipc-cuda-record.h"
#include "ipc-view.h"
#include "ipc-vulkan-record.h"
#include "ipc-wire.h"

using namespace g2g::ipc;

namespace {

NewBuffer sample_frame()
{
    NewBuffer frame;
    frame.id = 42;
    frame.pts = 1000;
    frame.dts = UINT64_MAX;
    frame.duration = 33;
    frame.flags = GST_BUFFER_FLAG_DELTA_UNIT;
    frame.kind = MemoryKind::DmaBuf;
    frame.memories = {{4096, 0}, {2048, 4096}};
    WireVideoMeta video;
    video.format = GST_VIDEO_FORMAT_NV12;
    video.width = 64;
    video.height = 48;
    video.n_planes = 2;
    video.offset[1] = 4096;
    video.stride[0] = video.stride[1] = 64;
    frame.metas = {encode_video_meta(video), MetaRecord{"G2gTestMeta", 3, {1, 2, 3}}};
    return frame;
}

std::string refusal(std::span<const std::uint8_t> payload, std::size_t fds)
{
    g2g::Result<NewBuffer> decoded = decode_new_buffer(payload, fds);
    return decoded ? "accepted" : decoded.error().message();
}

// The payload's byte `at` onwards overwritten with `value`'s bytes.
template <typename T>
std::vector<std::uint8_t> patched(std::vector<std::uint8_t> bytes, std::size_t at, T value)
{
    std::memcpy(bytes.data() + at, &value, sizeof value);
    return bytes;
}

} // namespace

TEST(IpcWire, ANewBufferTravelsWhole)
{
    const NewBuffer frame = sample_frame();
    const std::vector<std::uint8_t> payload = encode(frame);
    // unixfd's layout: the fixed part, 16 bytes a memory, then each record: its 8-byte header, its
    // name and NUL, its version byte, its payload (GstVideoMeta's: 36 + 16 a plane).
    EXPECT_EQ(payload.size(), kNewBufferFixed + 2 * 16 + (8 + 12 + 2 + 68) + (8 + 11 + 2 + 3));
    g2g::Result<NewBuffer> decoded = decode_new_buffer(payload, 2);
    ASSERT_TRUE(decoded) << decoded.error().message();
    EXPECT_EQ(decoded->id, 42u);
    EXPECT_EQ(decoded->pts, 1000u);
    EXPECT_EQ(decoded->dts, UINT64_MAX);
    EXPECT_EQ(decoded->duration, 33u);
    EXPECT_EQ(decoded->flags, std::uint32_t(GST_BUFFER_FLAG_DELTA_UNIT));
    EXPECT_EQ(decoded->kind, MemoryKind::DmaBuf);
    ASSERT_EQ(decoded->memories.size(), 2u);
    EXPECT_EQ(decoded->memories[1].size, 2048u);
    EXPECT_EQ(decoded->memories[1].offset, 4096u);
    ASSERT_EQ(decoded->metas.size(), 2u);
    EXPECT_EQ(decoded->metas[1].name, "G2gTestMeta");
    EXPECT_EQ(decoded->metas[1].version, 3);
    EXPECT_EQ(decoded->metas[1].payload, (std::vector<std::uint8_t>{1, 2, 3}));
    g2g::Result<WireVideoMeta> video = decode_video_meta(decoded->metas[0]);
    ASSERT_TRUE(video) << video.error().message();
    EXPECT_EQ(video->format, GST_VIDEO_FORMAT_NV12);
    EXPECT_EQ(video->n_planes, 2u);
    EXPECT_EQ(video->offset[1], 4096u);
    EXPECT_EQ(video->stride[1], 64);
}

TEST(IpcWire, AHostileNewBufferIsRefusedWithItsFault)
{
    const std::vector<std::uint8_t> good = encode(sample_frame());
    // Offsets in the fixed part: kind at 52, n_memory at 53, n_meta at 54; the memories from 56.
    EXPECT_EQ(refusal(std::span(good).first(40), 2),
              "a NEW_BUFFER message of 40 bytes, shorter than its fixed 56");
    EXPECT_EQ(refusal(good, 1), "NEW_BUFFER 42 came with 1 file descriptor for 2 memories");
    EXPECT_EQ(refusal(good, 3), "NEW_BUFFER 42 came with 3 file descriptors for 2 memories");
    EXPECT_EQ(refusal(patched(good, 52, std::uint8_t(7)), 2),
              "NEW_BUFFER 42 has memory of type 7, neither fd (0), DMA-BUF (1), nor g2g's Vulkan image (2) "
              "or CUDA IPC handle (3)");
    EXPECT_EQ(refusal(patched(good, 53, std::uint8_t(17)), 17),
              "NEW_BUFFER 42 declares 17 memories, more than a buffer holds (16)");
    EXPECT_EQ(refusal(std::span(good).first(kNewBufferFixed + 16), 2),
              "NEW_BUFFER 42 declares 2 memories but its message ends after 1");
    EXPECT_EQ(refusal(patched(good, 56 + 16 + 8, std::uint64_t(UINT64_MAX - 100)), 2),
              "NEW_BUFFER 42's memory 1 ends past 2^64 (2048 bytes from 18446744073709551515)");
    const std::size_t meta0 = kNewBufferFixed + 2 * 16;
    EXPECT_EQ(refusal(patched(good, meta0, std::uint32_t(100000)), 2),
              "NEW_BUFFER 42: meta record 0 says it is 100000 bytes, past the message's end (" +
                  std::to_string(good.size() - meta0) + " bytes left)");
    EXPECT_EQ(refusal(patched(good, meta0, std::uint32_t(10)), 2),
              "NEW_BUFFER 42: meta record 0 says it is 10 bytes, fewer than its 22-byte header and name");
    EXPECT_EQ(refusal(patched(good, meta0 + 8 + 12, std::uint8_t('x')), 2),
              "NEW_BUFFER 42: meta record 0's name is not one NUL-terminated string of 12 bytes");
    EXPECT_EQ(refusal(std::span(good).first(meta0 + 4), 2),
              "NEW_BUFFER 42: meta record 0 is cut off inside its 8-byte header");
    std::vector<std::uint8_t> longer = good;
    longer.push_back(0);
    EXPECT_EQ(refusal(longer, 2), "NEW_BUFFER 42 has 1 bytes after its last meta record");
    // Every cut of a good message is refused, never read past.
    for (std::size_t cut = 0; cut < good.size(); ++cut)
        EXPECT_NE(refusal(std::span(good).first(cut), 2), "accepted") << "cut at " << cut;
}

// g2g's files record: each memory's file number, whether its descriptor came with the message, and
// the numbers the consumer forgets; the descriptors counted are the attached files', and a record
// that cannot be what it says is refused with its fault.
TEST(IpcWire, AFilesRecordTravelsAndRefusesWhatItCannotBe)
{
    NewBuffer frame = sample_frame();
    frame.files = {{7, true}, {9, false}};
    frame.forget = {3, 4};
    const std::vector<std::uint8_t> payload = encode(frame);
    // The record last: 8-byte header, "G2gFiles" and its NUL, version, 2 counts, 9 a file, 8 a number.
    EXPECT_EQ(payload.size(), encode(sample_frame()).size() + 8 + 9 + 1 + 2 + 2 * 9 + 2 * 8);
    // The record appended to a message encoded without it: the same bytes.
    EXPECT_EQ(with_files(encode(sample_frame()), frame.files, frame.forget), payload);
    g2g::Result<NewBuffer> decoded = decode_new_buffer(payload, 1);
    ASSERT_TRUE(decoded) << decoded.error().message();
    ASSERT_EQ(decoded->files.size(), 2u);
    EXPECT_EQ(decoded->files[0].number, 7u);
    EXPECT_TRUE(decoded->files[0].attached);
    EXPECT_EQ(decoded->files[1].number, 9u);
    EXPECT_FALSE(decoded->files[1].attached);
    EXPECT_EQ(decoded->forget, (std::vector<std::uint64_t>{3, 4}));
    EXPECT_EQ(decoded->metas.size(), 2u); // the record is not a meta the frame carries
    EXPECT_EQ(refusal(payload, 2), "NEW_BUFFER 42 came with 2 file descriptors for 1 attached file");
    EXPECT_EQ(refusal(payload, 0), "NEW_BUFFER 42 came with 0 file descriptors for 1 attached file");
    // Every file named, none attached: no descriptor at all.
    NewBuffer named = frame;
    named.files = {{7, false}, {9, false}};
    EXPECT_EQ(refusal(encode(named), 0), "accepted");

    const std::size_t record = encode(sample_frame()).size();
    const std::size_t body = record + 8 + 9 + 1; // the record's payload
    const auto lie = [&](NewBuffer message) { return refusal(encode(message), 1); };
    NewBuffer short_of_one = frame;
    short_of_one.files.pop_back();
    EXPECT_EQ(lie(short_of_one), "NEW_BUFFER 42's files record names 1 file for 2 memories");
    // A record that numbers no file (a frame of no memory) would say nothing: refused.
    NewBuffer empty = frame;
    empty.memories.clear();
    empty.files.clear();
    EXPECT_EQ(refusal(encode(empty), 0), "NEW_BUFFER 42's files record names 0 files for 0 memories");
    NewBuffer zero = frame;
    zero.files[1].number = 0;
    EXPECT_EQ(lie(zero), "NEW_BUFFER 42's files record names memory 1's file 0: files are numbered from 1, "
                         "attached 0 or 1");
    EXPECT_EQ(refusal(patched(payload, body + 2 + 8, std::uint8_t(2)), 1),
              "NEW_BUFFER 42's files record names memory 0's file 7 attached 2: files are numbered from 1, "
              "attached 0 or 1");
    EXPECT_EQ(refusal(patched(payload, body + 1, std::uint8_t(3)), 1),
              "NEW_BUFFER 42's files record of 2 files and 3 forgotten numbers is 36 bytes, not 44");
    EXPECT_EQ(refusal(patched(payload, body - 1, std::uint8_t(1)), 1),
              "NEW_BUFFER 42's files record is of version 1, not 0");
    NewBuffer forgets_zero = frame;
    forgets_zero.forget[1] = 0;
    EXPECT_EQ(lie(forgets_zero), "NEW_BUFFER 42's files record forgets file 0: files are numbered from 1");
    NewBuffer forgetful = frame;
    forgetful.forget.assign(kMaxNamedFiles + 1, 5);
    EXPECT_EQ(lie(forgetful),
              "NEW_BUFFER 42's files record forgets 33 numbers, more than a consumer keeps (32)");
    NewBuffer twice = frame;
    // A second record, as the first but forgetting nothing: 2 files, 0 numbers, {7, 1}, {9, 0}.
    MetaRecord again{kFilesRecordName, 0, {2, 0}};
    for (std::uint64_t number : {7, 9}) {
        for (int b = 0; b < 8; ++b)
            again.payload.push_back(static_cast<std::uint8_t>(number >> (8 * b)));
        again.payload.push_back(number == 7 ? 1 : 0);
    }
    twice.metas.push_back(again);
    EXPECT_EQ(lie(twice), "NEW_BUFFER 42 has a meta record after its files record (g2g's, last)");
    NewBuffer cuda = frame;
    cuda.kind = MemoryKind::CudaIpc;
    EXPECT_EQ(refusal(encode(cuda), 0),
              "NEW_BUFFER 42 numbers the files of memory that is neither fd nor DMA-BUF memory");
    // Every cut of it is refused, never read past.
    for (std::size_t cut = record; cut < payload.size(); ++cut)
        EXPECT_NE(refusal(std::span(payload).first(cut), 1), "accepted") << "cut at " << cut;
}

TEST(IpcWire, OtherMessagesRefuseWhatTheyCannotBe)
{
    EXPECT_EQ(
        decode_header(encode_header({0, kMaxPayload})).error().message(),
        "a message of type 0 says its payload is 1048576 bytes, more than any message carries (1048575)");
    EXPECT_EQ(decode_header(std::vector<std::uint8_t>(5)).error().message(),
              "a message header of 5 bytes, not 8");
    EXPECT_EQ(*decode_release(encode_release(7)), 7u);
    EXPECT_EQ(decode_release(std::vector<std::uint8_t>(9)).error().message(),
              "a RELEASE_BUFFER message of 9 bytes, not 8");
    EXPECT_EQ(*decode_caps(encode_caps("video/x-raw")), "video/x-raw");
    EXPECT_EQ(decode_caps(std::vector<std::uint8_t>{'a', 'b'}).error().message(),
              "a CAPS message of 2 bytes without its closing NUL");
    EXPECT_EQ(decode_caps(std::vector<std::uint8_t>{'a', 0, 'b', 0}).error().message(),
              "a CAPS message with a NUL inside its text");
    MetaRecord video = sample_frame().metas[0];
    video.version = 1;
    EXPECT_EQ(decode_video_meta(video).error().message(), "a GstVideoMeta record of version 1, not 0");
    video.version = 0;
    video.payload.pop_back();
    EXPECT_EQ(decode_video_meta(video).error().message(),
              "a GstVideoMeta record of 2 planes is 67 bytes, not 68");
    video.payload[16] = 5;
    EXPECT_EQ(decode_video_meta(video).error().message(), "a GstVideoMeta record of 5 planes (1 to 4)");
}

TEST(IpcSocket, AMessageAndItsDescriptorsCrossASocket)
{
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    UniqueFd sender(pair[0]), receiver(pair[1]);
    UniqueFd first(g2g::test::make_memfd(4096)), second(g2g::test::make_memfd(8192));
    const std::vector<std::uint8_t> payload = encode(sample_frame());
    const int fds[] = {first.get(), second.get()};
    ASSERT_TRUE(send_message(sender.get(), MessageType::NewBuffer, payload, fds));
    g2g::Result<Message> received = receive_message(receiver.get());
    ASSERT_TRUE(received) << received.error().message();
    EXPECT_EQ(received->header.type, std::uint32_t(MessageType::NewBuffer));
    EXPECT_EQ(received->payload, payload);
    ASSERT_EQ(received->fds.size(), 2u);
    struct stat info {};
    ASSERT_EQ(fstat(received->fds[1].get(), &info), 0);
    EXPECT_EQ(info.st_size, 8192);
    EXPECT_TRUE(decode_new_buffer(received->payload, received->fds.size()));
    // Too many descriptors: refused by the sender, and by the receiver when a peer sends them anyway.
    std::vector<int> many(17, first.get());
    EXPECT_EQ(send_message(sender.get(), MessageType::NewBuffer, payload, many).error().message(),
              "a message carries at most 16 file descriptors, not 17");
    std::uint8_t header[8] = {};
    iovec part{header, sizeof header};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 20)] = {};
    msghdr raw{};
    raw.msg_iov = &part;
    raw.msg_iovlen = 1;
    raw.msg_control = control;
    raw.msg_controllen = CMSG_SPACE(sizeof(int) * 20);
    cmsghdr *rights = CMSG_FIRSTHDR(&raw);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int) * 20);
    std::vector<int> twenty(20, first.get());
    std::memcpy(CMSG_DATA(rights), twenty.data(), sizeof(int) * 20);
    ASSERT_EQ(sendmsg(sender.get(), &raw, 0), 8);
    EXPECT_EQ(receive_message(receiver.get()).error().message(),
              "a message came with more file descriptors than 16: refused");
    // A payload cut short by the peer's end, then the end itself.
    const std::vector<std::uint8_t> whole = encode_header({0, 100});
    ASSERT_EQ(write(sender.get(), whole.data(), whole.size()), 8);
    ASSERT_EQ(write(sender.get(), payload.data(), 10), 10);
    sender = UniqueFd();
    EXPECT_EQ(receive_message(receiver.get()).error().message(),
              "the peer closed the connection after 10 of a payload's 100 bytes");
    EXPECT_EQ(receive_message(receiver.get()).error().message(), "the peer closed the connection");
}

// A frame of NV12 64x48 with padded rows (80 bytes) in a memfd, its GstVideoMeta saying so, its
// bytes numbered from `seed`.
constexpr std::uint32_t kPaddedStride = 80;
constexpr std::size_t kPaddedSize = kPaddedStride * 48 * 3 / 2;

GstBuffer *padded_fd_frame(GstAllocator *allocator, std::uint8_t seed)
{
    const int fd = g2g::test::make_memfd(kPaddedSize);
    void *bytes = mmap(nullptr, kPaddedSize, PROT_WRITE, MAP_SHARED, fd, 0);
    for (std::size_t i = 0; i < kPaddedSize; ++i)
        static_cast<std::uint8_t *>(bytes)[i] = static_cast<std::uint8_t>(seed + i * 7);
    munmap(bytes, kPaddedSize);
    GstBuffer *buffer = gst_buffer_new();
    gst_buffer_append_memory(buffer,
                             gst_fd_allocator_alloc(allocator, fd, kPaddedSize, GST_FD_MEMORY_FLAG_NONE));
    gsize offsets[GST_VIDEO_MAX_PLANES] = {0, kPaddedStride * 48};
    gint strides[GST_VIDEO_MAX_PLANES] = {gint(kPaddedStride), gint(kPaddedStride)};
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 64, 48, 2,
                                   offsets, strides);
    return buffer;
}

// GStreamer's unixfdsink (1.24 on) is the format's owner: what it sends decodes here.
TEST(IpcWire, UnixfdsinksMessagesDecode)
{
    GstElementFactory *factory = gst_element_factory_find("unixfdsink");
    if (!factory) {
        g_autofree gchar *version = gst_version_string();
        GTEST_SKIP() << "this " << version << " has no unixfdsink (gst-plugins-bad 1.24 on): no peer to read";
    }
    gst_object_unref(factory);
    const std::string path = "/tmp/g2g-test-ipc-wire-" + std::to_string(getpid());
    unlink(path.c_str());
    const std::string description =
        "appsrc name=src format=time caps=video/x-raw,format=NV12,width=64,"
        "height=48,framerate=30/1 ! unixfdsink wait-for-connection=true socket-path=" +
        path;
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    ASSERT_TRUE(pipeline) << (error ? error->message : "?");
    if (error) {
        // unixfdsink without wait-for-connection (1.24): it drops frames until a consumer connects,
        // a race this test does not run.
        g_error_free(error);
        gst_object_unref(pipeline);
        GTEST_SKIP() << "this unixfdsink has no wait-for-connection (GStreamer 1.24)";
    }
    // Stopped however the test ends (an ASSERT returns early), or the sink's thread outlives it.
    const std::unique_ptr<GstElement, void (*)(GstElement *)> stop(pipeline, [](GstElement *p) {
        gst_element_set_state(p, GST_STATE_NULL);
        gst_object_unref(p);
    });
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstAllocator *allocator = gst_fd_allocator_new();
    for (std::uint8_t seed : {3, 9}) {
        GstBuffer *frame = padded_fd_frame(allocator, seed);
        GST_BUFFER_PTS(frame) = seed * GST_MSECOND;
        GstFlowReturn pushed = GST_FLOW_ERROR;
        g_signal_emit_by_name(src, "push-buffer", frame, &pushed);
        gst_buffer_unref(frame);
        ASSERT_EQ(pushed, GST_FLOW_OK);
    }
    GstFlowReturn ended = GST_FLOW_ERROR;
    g_signal_emit_by_name(src, "end-of-stream", &ended);
    gst_object_unref(src);
    gst_object_unref(allocator);
    g2g::Result<UniqueFd> connection = [&] {
        g2g::Result<UniqueFd> attempt = connect_to(path);
        for (int i = 0; i < 200 && !attempt; ++i) {
            g_usleep(10000);
            attempt = connect_to(path);
        }
        return attempt;
    }();
    ASSERT_TRUE(connection) << connection.error().message();
    // On connecting, the sink's caps at once: "NULL" while it has none yet, then each caps it gets.
    std::vector<std::string> caps;
    g2g::Result<Message> message = receive_message(connection->get());
    for (; message && message->header.type == std::uint32_t(MessageType::Caps);
         message = receive_message(connection->get())) {
        g2g::Result<std::string> text = decode_caps(message->payload);
        ASSERT_TRUE(text) << text.error().message();
        caps.push_back(*text);
    }
    ASSERT_FALSE(caps.empty());
    EXPECT_NE(caps.back().find("format=(string)NV12"), std::string::npos) << caps.back();
    for (std::uint8_t seed : {3, 9}) {
        if (seed != 3)
            message = receive_message(connection->get());
        ASSERT_TRUE(message) << message.error().message();
        ASSERT_EQ(message->header.type, std::uint32_t(MessageType::NewBuffer));
        g2g::Result<NewBuffer> frame = decode_new_buffer(message->payload, message->fds.size());
        ASSERT_TRUE(frame) << frame.error().message();
        ASSERT_EQ(frame->memories.size(), 1u);
        EXPECT_EQ(frame->kind, MemoryKind::Fd);
        ASSERT_EQ(frame->memories[0].size, kPaddedSize);
        // The frame's own bytes, in the memfd that crossed (no copy on the way).
        const auto *bytes =
            static_cast<const std::uint8_t *>(mmap(nullptr, frame->memories[0].offset + kPaddedSize,
                                                   PROT_READ, MAP_SHARED, message->fds[0].get(), 0));
        ASSERT_NE(bytes, MAP_FAILED);
        std::size_t differ = 0;
        for (std::size_t i = 0; i < kPaddedSize; ++i)
            differ += bytes[frame->memories[0].offset + i] != static_cast<std::uint8_t>(seed + i * 7);
        munmap(const_cast<std::uint8_t *>(bytes), frame->memories[0].offset + kPaddedSize);
        EXPECT_EQ(differ, 0u);
        // Its GstVideoMeta, as GStreamer serialized it: decoded here, and encoded back to the same bytes.
        const MetaRecord *video_record = nullptr;
        for (const MetaRecord &meta : frame->metas)
            video_record = meta.name == kVideoMetaName ? &meta : video_record;
        ASSERT_TRUE(video_record) << "no GstVideoMeta record among " << frame->metas.size() << " metas";
        g2g::Result<WireVideoMeta> video = decode_video_meta(*video_record);
        ASSERT_TRUE(video) << video.error().message();
        EXPECT_EQ(video->format, GST_VIDEO_FORMAT_NV12);
        EXPECT_EQ(video->width, 64u);
        EXPECT_EQ(video->height, 48u);
        EXPECT_EQ(video->n_planes, 2u);
        EXPECT_EQ(video->offset[1], std::uint64_t(kPaddedStride) * 48);
        EXPECT_EQ(video->stride[0], gint(kPaddedStride));
        EXPECT_EQ(video->stride[1], gint(kPaddedStride));
        EXPECT_EQ(encode_video_meta(*video).payload, video_record->payload);
        ASSERT_TRUE(send_message(connection->get(), MessageType::ReleaseBuffer, encode_release(frame->id)));
    }
    g2g::Result<Message> eos = receive_message(connection->get());
    ASSERT_TRUE(eos) << eos.error().message();
    EXPECT_EQ(eos->header.type, std::uint32_t(MessageType::Eos));
    unlink(path.c_str());
}

namespace {

// A frame of `format` in system memory, its rows padded (strides that are not the caps' own), its
// bytes numbered, with a GstVideoMeta of that layout; `info` gets the caps' (unpadded) info.
g2g::BufferRef numbered_frame(GstVideoInfo &info, GstVideoFormat format, guint width, guint height)
{
    gst_video_info_set_format(&info, format, width, height);
    GstVideoInfo padded = info;
    GstVideoAlignment align;
    gst_video_alignment_reset(&align);
    align.padding_right = 16;
    gst_video_info_align(&padded, &align);
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&padded), nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (gsize i = 0; i < map.size; ++i)
        map.data[i] = static_cast<guint8>(i * 13 + i / 251);
    gst_buffer_unmap(buffer, &map);
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, format, width, height,
                                   GST_VIDEO_INFO_N_PLANES(&padded), padded.offset, padded.stride);
    return g2g::BufferRef::adopt(buffer);
}

// "" when views `a` over `a_frame` and `b` over `b_frame` materialize to the same visible bytes;
// else where they first differ.
std::string materialized_difference(const g2g::FrameView &a, GstBuffer *a_frame, const g2g::FrameView &b,
                                    GstBuffer *b_frame)
{
    g2g::Result<g2g::BufferRef> dense_a = a.materialize(a_frame), dense_b = b.materialize(b_frame);
    if (!dense_a || !dense_b)
        return "cannot materialize: " + (dense_a ? dense_b : dense_a).error().message();
    return g2g::test::first_difference(g2g::test::dense_planes(a.info(), dense_a->get()),
                                       g2g::test::dense_planes(b.info(), dense_b->get()));
}

} // namespace

// Every orientation of videoflip, with and without a crop, crosses as a record and comes back as the
// same view: the same pixels, and the same bytes materialized.
TEST(IpcView, EveryOrientationAndCropCrossesAsTheSameView)
{
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420}) {
        GstVideoInfo info;
        const g2g::BufferRef frame = numbered_frame(info, format, 64, 48);
        for (int m = GST_VIDEO_ORIENTATION_IDENTITY; m <= GST_VIDEO_ORIENTATION_UR_LL; ++m) {
            for (bool crop : {false, true}) {
                const auto method = static_cast<GstVideoOrientationMethod>(m);
                g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(frame.get(), info);
                ASSERT_TRUE(view) << view.error().message();
                if (crop) {
                    ASSERT_TRUE(view->crop(6, 4, 40, 30));
                }
                view->orient(method);
                if (crop) {
                    ASSERT_TRUE(view->crop(2, 2, view->width() - 4, view->height() - 6));
                }
                // What crosses: the memory, its layout (the view's source layout) as a GstVideoMeta
                // record, and the view record; what arrives: a buffer of that memory and nothing else.
                const GstVideoMeta *memory_layout = gst_buffer_get_video_meta(frame.get());
                for (guint p = 0; p < memory_layout->n_planes; ++p) {
                    EXPECT_EQ(GST_VIDEO_INFO_PLANE_STRIDE(&view->source_layout(), p),
                              memory_layout->stride[p]);
                    EXPECT_EQ(GST_VIDEO_INFO_PLANE_OFFSET(&view->source_layout(), p),
                              memory_layout->offset[p]);
                }
                const MetaRecord layout = encode_video_meta(video_meta_of(view->source_layout()));
                const MetaRecord record = encode_view(*view);
                g2g::BufferRef arrived = g2g::BufferRef::adopt(gst_buffer_new());
                gst_buffer_append_memory(arrived.get(), gst_buffer_get_all_memory(frame.get()));
                g2g::Result<WireVideoMeta> arrived_layout = decode_video_meta(layout);
                ASSERT_TRUE(arrived_layout) << arrived_layout.error().message();
                add_video_meta(arrived.get(), *arrived_layout);
                g2g::Result<g2g::FrameView> back = decode_view(record, arrived.get(), info, view->info());
                const std::string which = std::string(gst_video_format_to_string(format)) + " method " +
                                          std::to_string(m) + (crop ? " cropped" : "");
                ASSERT_TRUE(back) << which << ": " << back.error().message();
                EXPECT_EQ(back->pixels().origin, view->pixels().origin) << which;
                EXPECT_EQ(back->pixels().col, view->pixels().col) << which;
                EXPECT_EQ(back->pixels().row, view->pixels().row) << which;
                EXPECT_EQ(back->width(), view->width()) << which;
                EXPECT_EQ(materialized_difference(*back, arrived.get(), *view, frame.get()), "") << which;
            }
        }
    }
}

TEST(IpcView, AViewThatIsNoCropAndOrientationIsRefused)
{
    GstVideoInfo info;
    const g2g::BufferRef frame = numbered_frame(info, GST_VIDEO_FORMAT_RGBA, 64, 48);
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(frame.get(), info);
    ASSERT_TRUE(view);
    const MetaRecord good = encode_view(*view);
    const auto with = [&](std::size_t at, std::int64_t value) {
        MetaRecord record = good;
        std::memcpy(record.payload.data() + at, &value, sizeof value);
        return decode_view(record, frame.get(), info, info);
    };
    // Payload: format, width, height (u32); origin x, y; col x, y; row x, y (i64) from byte 12.
    EXPECT_EQ(with(36, 1).error().message(),
              "a G2gTensorView record whose steps are not a crop and an orientation "
              "(a column step of (1, 1), a row step of (0, 1))");
    EXPECT_EQ(with(52, 2).error().message(),
              "a G2gTensorView record whose steps are not a crop and an orientation "
              "(a column step of (1, 0), a row step of (0, 2))");
    EXPECT_EQ(with(12, 30).error().message(),
              "a G2gTensorView record of 64x48 pixels from (30, 0) reaching outside the 64x48 frame");
    EXPECT_EQ(with(12, -1).error().message(),
              "a G2gTensorView record starting at pixel (-1, 0), outside the 64x48 frame");
    EXPECT_EQ(with(12, INT64_MAX).error().message(),
              "a G2gTensorView record starting at pixel (9223372036854775807, 0), outside the 64x48 frame");
    MetaRecord other = good;
    other.version = 2;
    EXPECT_EQ(decode_view(other, frame.get(), info, info).error().message(),
              "a G2gTensorView record of version 2, not 1");
    other = good;
    other.payload.pop_back();
    EXPECT_EQ(decode_view(other, frame.get(), info, info).error().message(),
              "a G2gTensorView record of 59 bytes, not 60");
    // A view of another size than the stream's caps: downstream would read the caps' size.
    GstVideoInfo turned;
    gst_video_info_set_format(&turned, GST_VIDEO_FORMAT_RGBA, 48, 64);
    EXPECT_EQ(decode_view(good, frame.get(), info, turned).error().message(),
              "a G2gTensorView record of 64x48 pixels in a stream of 48x64");
    GstVideoInfo nv12;
    gst_video_info_set_format(&nv12, GST_VIDEO_FORMAT_NV12, 64, 48);
    EXPECT_EQ(decode_view(good, frame.get(), nv12, nv12).error().message(),
              "a G2gTensorView record of format " + std::to_string(GST_VIDEO_FORMAT_RGBA) +
                  " over a frame of NV12");
    // A frame whose memory is shorter than its layout: FrameView's own refusal.
    GstVideoInfo small_info;
    const g2g::BufferRef small = numbered_frame(small_info, GST_VIDEO_FORMAT_RGBA, 64, 48);
    gst_buffer_resize(small.get(), 0, 1000);
    g2g::Result<g2g::FrameView> outside = decode_view(good, small.get(), info, info);
    ASSERT_FALSE(outside);
    EXPECT_NE(outside.error().message().find("outside the 1000-byte"), std::string::npos)
        << outside.error().message();
}

namespace {

// `frame`'s bytes copied into one memfd, as fd memory, with its GstVideoMeta and metas kept: a frame
// as g2gipcsink's memfd pool would hold it.
g2g::BufferRef in_memfd(GstBuffer *frame)
{
    const g2g::Ref<GstAllocator> allocator = g2g::Ref<GstAllocator>::adopt(gst_fd_allocator_new());
    const gsize size = gst_buffer_get_size(frame);
    const int fd = g2g::test::make_memfd(size);
    void *bytes = mmap(nullptr, size, PROT_WRITE, MAP_SHARED, fd, 0);
    gst_buffer_extract(frame, 0, bytes, size);
    munmap(bytes, size);
    GstBuffer *copy = gst_buffer_new();
    gst_buffer_append_memory(copy,
                             gst_fd_allocator_alloc(allocator.get(), fd, size, GST_FD_MEMORY_FLAG_NONE));
    gst_buffer_copy_into(copy, frame, GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, size);
    const GstVideoMeta *meta = gst_buffer_get_video_meta(frame);
    gsize offsets[GST_VIDEO_MAX_PLANES];
    gint strides[GST_VIDEO_MAX_PLANES];
    for (guint p = 0; p < meta->n_planes; ++p) {
        offsets[p] = meta->offset[p];
        strides[p] = meta->stride[p];
    }
    gst_buffer_add_video_meta_full(copy, meta->flags, meta->format, meta->width, meta->height, meta->n_planes,
                                   offsets, strides);
    return g2g::BufferRef::adopt(copy);
}

// The frame as the consumer makes it: described, sent over a socket with its descriptors,
// received and built again.
g2g::Result<g2g::BufferRef> crossed(GstBuffer *frame, const GstVideoInfo &info, bool view_caps)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return g2g::Error(g2g::ErrorCode::InvalidArgument, "no socket pair");
    UniqueFd producer(pair[0]), consumer(pair[1]);
    g2g::Result<OutgoingFrame> out = describe_frame(frame, 7);
    if (!out)
        return out.error();
    if (g2g::Result<void> sent =
            send_message(producer.get(), MessageType::NewBuffer, encode(out->message), out->fds);
        !sent)
        return sent.error();
    g2g::Result<Message> in = receive_message(consumer.get());
    if (!in)
        return in.error();
    g2g::Result<NewBuffer> message = decode_new_buffer(in->payload, in->fds.size());
    if (!message)
        return message.error();
    ReceivedMemories memories;
    return build_frame(*message, std::move(in->fds), info, view_caps, memories);
}

} // namespace

// A padded frame and views of it cross through a socket as descriptors and come out as the same
// frame: the same bytes read, from the producer's own pages (a write there shows in the consumer).
TEST(IpcFrame, FramesAndViewsCrossAsTheirMemory)
{
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
        GstVideoInfo info;
        const g2g::BufferRef source = numbered_frame(info, format, 64, 48);
        const g2g::BufferRef frame = in_memfd(source.get());
        GST_BUFFER_PTS(frame.get()) = 5 * GST_SECOND;
        ASSERT_TRUE(gst_buffer_get_video_meta(frame.get()));
        g2g::Result<g2g::BufferRef> dense = crossed(frame.get(), info, false);
        ASSERT_TRUE(dense) << dense.error().message();
        EXPECT_EQ(GST_BUFFER_PTS(dense->get()), 5 * GST_SECOND);
        // The padded layout crossed with it (the caps' own would read other bytes).
        const GstVideoMeta *layout = gst_buffer_get_video_meta(dense->get());
        ASSERT_TRUE(layout);
        EXPECT_EQ(layout->stride[0], gst_buffer_get_video_meta(frame.get())->stride[0]);
        g2g::Result<g2g::FrameView> sent_view = g2g::FrameView::of_frame(frame.get(), info);
        g2g::Result<g2g::FrameView> got_view = g2g::FrameView::of_frame(dense->get(), info);
        ASSERT_TRUE(sent_view && got_view);
        EXPECT_EQ(materialized_difference(*got_view, dense->get(), *sent_view, frame.get()), "");
        // The same pages: a byte the producer writes after sending is the consumer's to read.
        GstMapInfo producer_map, consumer_map;
        ASSERT_TRUE(gst_buffer_map(frame.get(), &producer_map, GST_MAP_WRITE));
        producer_map.data[100] ^= 0xff;
        const guint8 written = producer_map.data[100];
        gst_buffer_unmap(frame.get(), &producer_map);
        ASSERT_TRUE(gst_buffer_map(dense->get(), &consumer_map, GST_MAP_READ));
        EXPECT_EQ(consumer_map.data[100], written);
        gst_buffer_unmap(dense->get(), &consumer_map);
        // The consumer's memory is read-only: it reads the producer's frame, never writes it (a
        // writer gets a copy from gst_buffer_map).
        GstMemory *memory = gst_buffer_peek_memory(dense->get(), 0);
        EXPECT_TRUE(GST_MEMORY_IS_READONLY(memory));
        GstMapInfo write_map;
        EXPECT_FALSE(gst_memory_map(memory, &write_map, GST_MAP_WRITE));

        // A view of it: the view record and its layout cross; the memory is the same.
        g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(frame.get(), info);
        ASSERT_TRUE(view);
        ASSERT_TRUE(view->crop(4, 2, 40, 30));
        view->orient(GST_VIDEO_ORIENTATION_90R);
        g2g::BufferRef view_frame = g2g::BufferRef::adopt(gst_buffer_copy(frame.get()));
        g2g::attach_tensor_view(view_frame.get(), *view);
        // The stream's caps are the view's (its size); the frame it reads is laid out by its record.
        g2g::Result<g2g::BufferRef> crossed_view = crossed(view_frame.get(), view->info(), true);
        ASSERT_TRUE(crossed_view) << crossed_view.error().message();
        // The same frame in caps without the view feature: refused, never read as dense bytes.
        EXPECT_EQ(crossed(view_frame.get(), view->info(), false).error().message(),
                  "NEW_BUFFER 7 carries a view in caps without meta:G2gTensorView");
        const g2g::FrameView *arrived = g2g::tensor_view_of(crossed_view->get());
        ASSERT_TRUE(arrived);
        EXPECT_EQ(arrived->width(), 30u);
        EXPECT_EQ(materialized_difference(*arrived, crossed_view->get(), *view, frame.get()), "");
    }
}

TEST(IpcFrame, WhatCannotCrossOrDoesNotFitIsRefused)
{
    GstVideoInfo info;
    const g2g::BufferRef source = numbered_frame(info, GST_VIDEO_FORMAT_NV12, 64, 48);
    // Memory that has no descriptor.
    EXPECT_EQ(describe_frame(source.get(), 1).error().message(),
              "memory 0 of the frame is SystemMemory, not fd memory: only memfd and DMA-BUF memory cross by "
              "descriptor");
    const g2g::BufferRef frame = in_memfd(source.get());
    g2g::Result<OutgoingFrame> out = describe_frame(frame.get(), 9);
    ASSERT_TRUE(out) << out.error().message();
    ASSERT_EQ(out->message.metas.size(), 1u); // the layout record
    ReceivedMemories memories;
    const auto build = [&](NewBuffer message, std::size_t fd_size, bool view_caps = false) {
        std::vector<UniqueFd> fds;
        fds.emplace_back(g2g::test::make_memfd(fd_size));
        return build_frame(message, std::move(fds), info, view_caps, memories);
    };
    const std::size_t size = gst_buffer_get_size(frame.get());
    ASSERT_TRUE(build(out->message, size));
    // A memory past the end of its descriptor.
    EXPECT_EQ(build(out->message, size - 1).error().message(),
              "NEW_BUFFER 9 memory 0 (bytes 0.." + std::to_string(size) + ") lies past the end of its " +
                  std::to_string(size - 1) + "-byte descriptor");
    NewBuffer shifted = out->message;
    shifted.memories[0].offset = 1000;
    EXPECT_EQ(build(shifted, size).error().message(),
              "NEW_BUFFER 9 memory 0 (bytes 1000.." + std::to_string(size + 1000) +
                  ") lies past the end of its " + std::to_string(size) + "-byte descriptor");
    // A layout whose chroma plane lies past the memory.
    NewBuffer past = out->message;
    WireVideoMeta layout = *decode_video_meta(past.metas[0]);
    layout.offset[1] = size - 10;
    past.metas[0] = encode_video_meta(layout);
    g2g::Result<g2g::BufferRef> outside = build(past, size);
    ASSERT_FALSE(outside);
    // NV12 64x48 padded to 80-byte rows: 5760 bytes; the chroma plane's 24 rows of 64 bytes from 5750.
    ASSERT_EQ(size, 5760u);
    EXPECT_EQ(outside.error().message(),
              "NEW_BUFFER 9 plane 1 (bytes 5750..7654) lies outside the 5760-byte buffer");
    // A layout of another format than the stream's.
    layout = *decode_video_meta(out->message.metas[0]);
    layout.format = GST_VIDEO_FORMAT_RGBA;
    NewBuffer other = out->message;
    other.metas[0] = encode_video_meta(layout);
    EXPECT_EQ(build(other, size).error().message(), "NEW_BUFFER 9 lays out RGBA in a stream of NV12");
    // View caps, and no view.
    EXPECT_EQ(build(out->message, size, true).error().message(),
              "NEW_BUFFER 9 arrived in view caps (meta:G2gTensorView) without its view");
    // Descriptors that do not match the memories.
    EXPECT_EQ(build_frame(out->message, {}, info, false, memories).error().message(),
              "NEW_BUFFER 9 came with 0 descriptors for 1 memories");
}

// A file that arrives again (a producer's pool frame sent again) is the memory it was: its
// descriptor is closed at once, and each frame's memory is a read-only share of one wrap of the
// file, mapped once, so reading it again faults no page in again.
TEST(IpcFrame, AFileReceivedAgainIsTheMemoryItWas)
{
    const int before = g2g::test::open_frame_fd_count();
    const UniqueFd file(g2g::test::make_memfd(8192));
    {
        ReceivedMemories memories;
        const auto wrap = [&](std::uint64_t offset, std::uint64_t size) {
            return memories.wrap(MemoryKind::Fd, UniqueFd(::dup(file.get())), offset, size, 8192);
        };
        g2g::Result<GstMemory *> first = wrap(0, 4096);
        g2g::Result<GstMemory *> second = wrap(4096, 4096);
        ASSERT_TRUE(first) << first.error().message();
        ASSERT_TRUE(second) << second.error().message();
        EXPECT_NE((*first)->parent, nullptr);
        EXPECT_EQ((*first)->parent, (*second)->parent);
        EXPECT_TRUE(GST_MEMORY_IS_READONLY(*first));
        GstMapInfo write_map;
        EXPECT_FALSE(gst_memory_map(*second, &write_map, GST_MAP_WRITE));
        // One descriptor kept for the file, beside the test's own: the second arrival's was closed.
        EXPECT_EQ(g2g::test::open_frame_fd_count(), before + 2);
        GstMapInfo a, b;
        ASSERT_TRUE(gst_memory_map(*first, &a, GST_MAP_READ));
        ASSERT_TRUE(gst_memory_map(*second, &b, GST_MAP_READ));
        EXPECT_EQ(b.data, a.data + 4096); // one mapping of the file
        const guint8 *mapped_at = a.data; // (GStreamer 1.28 clears a GstMapInfo at unmap)
        gst_memory_unmap(*second, &b);
        gst_memory_unmap(*first, &a);
        gst_memory_unref(*first);
        // Still mapped where it was once no frame maps it: the next frame reads the same pages.
        g2g::Result<GstMemory *> third = wrap(0, 8192);
        ASSERT_TRUE(third);
        GstMapInfo c;
        ASSERT_TRUE(gst_memory_map(*third, &c, GST_MAP_READ));
        EXPECT_EQ(c.data, mapped_at);
        gst_memory_unmap(*third, &c);
        gst_memory_unref(*third);
        // A file that grew since (a producer's memfd it did not seal): wrapped again, at its size.
        const UniqueFd growing(g2g::test::make_memfd(4096));
        g2g::Result<GstMemory *> small =
            memories.wrap(MemoryKind::Fd, UniqueFd(::dup(growing.get())), 0, 4096, 4096);
        ASSERT_TRUE(small);
        ASSERT_EQ(::ftruncate(growing.get(), 8192), 0);
        g2g::Result<GstMemory *> grown =
            memories.wrap(MemoryKind::Fd, UniqueFd(::dup(growing.get())), 4096, 4096, 8192);
        ASSERT_TRUE(grown) << grown.error().message();
        EXPECT_NE((*grown)->parent, (*small)->parent);
        EXPECT_EQ((*grown)->parent->size, 8192u);
        GstMapInfo d;
        ASSERT_TRUE(gst_memory_map(*grown, &d, GST_MAP_READ));
        EXPECT_EQ(d.size, 4096u);
        gst_memory_unmap(*grown, &d);
        gst_memory_unref(*grown);
        gst_memory_unref(*small);
        // Another file is another memory.
        const UniqueFd other(g2g::test::make_memfd(4096));
        g2g::Result<GstMemory *> elsewhere =
            memories.wrap(MemoryKind::Fd, UniqueFd(::dup(other.get())), 0, 4096, 4096);
        ASSERT_TRUE(elsewhere);
        EXPECT_NE((*elsewhere)->parent, (*second)->parent);
        gst_memory_unref(*elsewhere);
        gst_memory_unref(*second);
    }
    // Let go of with the memories: the test's descriptor alone is left.
    EXPECT_EQ(g2g::test::open_frame_fd_count(), before + 1);
}

// A file g2gipcsink numbered comes once with its descriptor and is named by its number after: each
// frame of it is a share of the one wrap, no descriptor passes, and the producer's word alone lets
// go of it. What a producer cannot have meant is refused: a number it never sent or said to forget,
// a file sent twice, more files than a consumer keeps, a range past the file.
TEST(IpcFrame, ANumberedFileComesOnceAndIsForgottenWhenTheProducerSays)
{
    GstVideoInfo info;
    const g2g::BufferRef source = numbered_frame(info, GST_VIDEO_FORMAT_NV12, 64, 48);
    const g2g::BufferRef frame = in_memfd(source.get());
    g2g::Result<OutgoingFrame> out = describe_frame(frame.get(), 9);
    ASSERT_TRUE(out) << out.error().message();
    // The producer's number of the file: the same for every frame of the same memory, another for
    // another memory.
    ASSERT_EQ(out->file_numbers.size(), 1u);
    const std::uint64_t number = out->file_numbers[0];
    EXPECT_NE(number, 0u);
    EXPECT_EQ(describe_frame(frame.get(), 10)->file_numbers[0], number);
    const g2g::BufferRef other = in_memfd(source.get());
    EXPECT_NE(describe_frame(other.get(), 11)->file_numbers[0], number);

    const std::size_t size = gst_buffer_get_size(frame.get());
    const int before = g2g::test::open_frame_fd_count();
    ReceivedMemories memories;
    const auto with = [&](std::vector<FileRef> files, std::vector<std::uint64_t> forget = {}) {
        NewBuffer message = out->message;
        message.files = std::move(files);
        message.forget = std::move(forget);
        return message;
    };
    const auto build = [&](const NewBuffer &message, std::size_t fds) {
        std::vector<UniqueFd> sent;
        for (std::size_t i = 0; i < fds; ++i)
            sent.emplace_back(::dup(out->fds[0]));
        return build_frame(message, std::move(sent), info, false, memories);
    };
    g2g::Result<g2g::BufferRef> first = build(with({{number, true}}), 1);
    ASSERT_TRUE(first) << first.error().message();
    EXPECT_EQ(g2g::test::open_frame_fd_count(), before + 1); // kept
    g2g::Result<g2g::BufferRef> second = build(with({{number, false}}), 0);
    ASSERT_TRUE(second) << second.error().message();
    EXPECT_EQ(gst_buffer_peek_memory(second->get(), 0)->parent,
              gst_buffer_peek_memory(first->get(), 0)->parent);
    EXPECT_EQ(g2g::test::open_frame_fd_count(), before + 1);
    GstMapInfo sent, received;
    ASSERT_TRUE(gst_buffer_map(frame.get(), &sent, GST_MAP_READ));
    ASSERT_TRUE(gst_buffer_map(second->get(), &received, GST_MAP_READ));
    EXPECT_EQ(received.size, size);
    EXPECT_EQ(std::memcmp(sent.data, received.data, size), 0);
    gst_buffer_unmap(second->get(), &received);
    gst_buffer_unmap(frame.get(), &sent);

    EXPECT_EQ(build(with({{number + 100, false}}), 0).error().message(),
              "NEW_BUFFER 9 memory 0 names file " + std::to_string(number + 100) +
                  ", which its producer did not send (or said to forget)");
    EXPECT_EQ(build(with({{number, true}}), 1).error().message(),
              "NEW_BUFFER 9 memory 0: sends file " + std::to_string(number) + " again, which it sent before");
    EXPECT_EQ(build(with({{number, false}}, {number + 100}), 0).error().message(),
              "NEW_BUFFER 9 forgets file " + std::to_string(number + 100) + ", which it did not send");
    NewBuffer past = with({{number, false}});
    past.memories[0].offset = 16;
    EXPECT_EQ(build(past, 0).error().message(), "NEW_BUFFER 9 memory 0 names bytes 16.." +
                                                    std::to_string(size + 16) + ", past the end of file " +
                                                    std::to_string(number) + " (" + std::to_string(size) +
                                                    " bytes)");
    EXPECT_EQ(build(with({{number, false}}), 1).error().message(),
              "NEW_BUFFER 9 came with 1 descriptors for 0 attached files");

    // Forgotten: the file goes once no frame holds it; its number names nothing any more.
    ASSERT_TRUE(build(with({{number + 1, true}}, {number}), 1));
    EXPECT_EQ(build(with({{number, false}}), 0).error().message(),
              "NEW_BUFFER 9 memory 0 names file " + std::to_string(number) +
                  ", which its producer did not send (or said to forget)");
    first = g2g::Error(g2g::ErrorCode::InvalidArgument, "let go of");
    second = g2g::Error(g2g::ErrorCode::InvalidArgument, "let go of");
    EXPECT_EQ(g2g::test::open_frame_fd_count(), before + 1); // number + 1's alone

    // At most kMaxNamedFiles, however many the producer sends without forgetting.
    for (std::uint64_t n = number + 2; n < number + 1 + kMaxNamedFiles; ++n)
        ASSERT_TRUE(build(with({{n, true}}), 1)) << n;
    EXPECT_EQ(build(with({{number + 1 + kMaxNamedFiles, true}}), 1).error().message(),
              "NEW_BUFFER 9 memory 0: sends a file past the 32 a consumer keeps, forgetting none");
    memories.clear();
    EXPECT_EQ(g2g::test::open_frame_fd_count(), before);
}

// The producer's count of what a consumer keeps (FilesSent) and the consumer's (ReceivedMemories)
// stay in step however many files come and go: frames of 1 to 3 memories from 40 files, in an
// order that is no pool's, each read back as its file's bytes, none refused, and the consumer
// never keeping more than kMaxNamedFiles.
TEST(IpcFrame, ProducerAndConsumerKeepTheSameFilesWhateverComes)
{
    const int before = g2g::test::open_frame_fd_count();
    const g2g::Ref<GstAllocator> allocator = g2g::Ref<GstAllocator>::adopt(gst_fd_allocator_new());
    std::vector<GstMemory *> files;
    for (int f = 0; f < 40; ++f) {
        const int fd = g2g::test::make_memfd(4096);
        const std::vector<std::uint8_t> marker(4096, static_cast<std::uint8_t>(f + 1));
        ASSERT_EQ(::pwrite(fd, marker.data(), marker.size(), 0), 4096);
        files.push_back(gst_fd_allocator_alloc(allocator.get(), fd, 4096, GST_FD_MEMORY_FLAG_NONE));
    }
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, 64, 64);
    FilesSent sent;
    ReceivedMemories received;
    std::uint32_t seed = 7;
    const auto next = [&](std::uint32_t n) {
        seed = seed * 1664525u + 1013904223u;
        return (seed >> 8) % n;
    };
    int attached_from_the_pool = 0;
    for (int i = 0; i < 500; ++i) {
        // 1 to 3 memories, each a file's whole 4096 bytes: GRAY8 64x64 over the first.
        const std::uint32_t count = 1 + next(3);
        g2g::BufferRef frame = g2g::BufferRef::adopt(gst_buffer_new());
        std::vector<int> which;
        for (std::uint32_t m = 0; m < count; ++m) {
            which.push_back(static_cast<int>(next(i < 250 ? 10 : 40))); // a pool's few, then many
            gst_buffer_append_memory(frame.get(), gst_memory_share(files[which.back()], 0, -1));
        }
        g2g::Result<OutgoingFrame> out = describe_frame(frame.get(), static_cast<std::uint64_t>(i));
        ASSERT_TRUE(out) << out.error().message();
        const FilesSent::Addressed own = sent.address(*out);
        const std::vector<int> &fds = own.fds;
        if (i < 250)
            attached_from_the_pool += static_cast<int>(fds.size());
        // As the wire has it: encoded, decoded with the descriptors that go, built.
        g2g::Result<NewBuffer> decoded =
            decode_new_buffer(with_files(encode(out->message), own.files, own.forget), fds.size());
        ASSERT_TRUE(decoded) << decoded.error().message();
        std::vector<UniqueFd> copies;
        for (int fd : fds)
            copies.emplace_back(::dup(fd));
        g2g::Result<g2g::BufferRef> built = build_frame(*decoded, std::move(copies), info, false, received);
        ASSERT_TRUE(built) << "frame " << i << ": " << built.error().message();
        for (std::uint32_t m = 0; m < count; ++m) {
            GstMapInfo map;
            ASSERT_TRUE(gst_memory_map(gst_buffer_peek_memory(built->get(), m), &map, GST_MAP_READ));
            EXPECT_EQ(map.data[100], which[m] + 1) << "frame " << i << " memory " << m;
            gst_memory_unmap(gst_buffer_peek_memory(built->get(), m), &map);
        }
        // The test's 40 files, and at most kMaxNamedFiles the consumer keeps open.
        EXPECT_LE(g2g::test::open_frame_fd_count(), before + 40 + static_cast<int>(kMaxNamedFiles));
    }
    EXPECT_LE(attached_from_the_pool, 10)
        << "a descriptor per file, not per frame, while the files are a pool's";
    received.clear();
    for (GstMemory *file : files)
        gst_memory_unref(file);
    EXPECT_EQ(g2g::test::open_frame_fd_count(), before);
}

// The G2gVulkanImages record: what the producer says of its images comes back as it was said;
// a record that cannot be what it claims is refused before any of it is used.
TEST(IpcVulkanRecord, TravelsWholeAndRefusesWhatItCannotBe)
{
    VulkanImages images;
    for (std::uint8_t i = 0; i < 16; ++i) {
        images.identity.device[i] = i;
        images.identity.driver[i] = std::uint8_t(0xf0 | i);
    }
    images.frame = 0x1122334455667788ull;
    images.planes.push_back({9, 64, 48, 0x17, 0, 1, 12288});
    images.planes.push_back({16, 32, 24, 0x17, 0, 1, 4096});
    const MetaRecord record = encode_vulkan_images(images);
    EXPECT_EQ(record.name, "G2gVulkanImages");
    EXPECT_EQ(record.payload.size(), 44u + 2 * 32u);
    g2g::Result<VulkanImages> back = decode_vulkan_images(record);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_TRUE(back->identity == images.identity);
    EXPECT_EQ(back->frame, images.frame);
    EXPECT_TRUE(back->planes == images.planes);

    MetaRecord later = record;
    later.version = 2;
    EXPECT_EQ(decode_vulkan_images(later).error().message(),
              "a G2gVulkanImages record of version 2 (this g2g reads 1)");
    MetaRecord cut = record;
    cut.payload.resize(40);
    EXPECT_EQ(decode_vulkan_images(cut).error().message(),
              "a G2gVulkanImages record of 40 bytes, shorter than its fixed 44");
    MetaRecord longer = record;
    longer.payload.push_back(0);
    EXPECT_EQ(decode_vulkan_images(longer).error().message(),
              "a G2gVulkanImages record of 109 bytes for 2 planes (108)");
    VulkanImages none = images;
    none.planes.clear();
    EXPECT_EQ(decode_vulkan_images(encode_vulkan_images(none)).error().message(),
              "a G2gVulkanImages record of 0 planes (1 to 4)");
    VulkanImages five = images;
    five.planes.resize(5);
    EXPECT_EQ(decode_vulkan_images(encode_vulkan_images(five)).error().message(),
              "a G2gVulkanImages record of 5 planes (1 to 4)");
}

// The G2gVulkanVideoProfile record: a decoder's profile caps come back as they were sent; text that
// cannot be caps is refused before GStreamer parses it.
TEST(IpcVulkanRecord, AVideoProfileTravelsAsItsCapsAndOnlyAsPrintableText)
{
    const std::string caps = "video/x-h264, profile=(string)high, interlace-mode=(string)progressive, "
                             "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8";
    const MetaRecord record = encode_video_profile(caps);
    EXPECT_EQ(record.name, "G2gVulkanVideoProfile");
    g2g::Result<std::string> back = decode_video_profile(record);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(*back, caps);

    MetaRecord later = record;
    later.version = 2;
    EXPECT_EQ(decode_video_profile(later).error().message(),
              "a G2gVulkanVideoProfile record of version 2 (this g2g reads 1)");
    EXPECT_EQ(decode_video_profile(encode_video_profile("")).error().message(),
              "a G2gVulkanVideoProfile record of 0 bytes (1 to 1024)");
    EXPECT_EQ(decode_video_profile(encode_video_profile(std::string(1025, 'a'))).error().message(),
              "a G2gVulkanVideoProfile record of 1025 bytes (1 to 1024)");
    EXPECT_EQ(decode_video_profile(encode_video_profile(std::string("video/x-h264\0, profile=high", 28)))
                  .error()
                  .message(),
              "a G2gVulkanVideoProfile record holds the byte 0: caps are printable text");
    EXPECT_EQ(decode_video_profile(encode_video_profile("video/x-h264,\nprofile=high")).error().message(),
              "a G2gVulkanVideoProfile record holds the byte 10: caps are printable text");
}

// The G2gCudaIpc record and CUDA frames' messages: handles come back as they were sent; a record
// that cannot be what it claims, and CUDA handles with descriptors, are refused.
TEST(IpcCudaRecord, TravelsWholeAndRefusesWhatItCannotBe)
{
    g2g::cuda::IpcHandle handle;
    for (std::size_t i = 0; i < handle.handle.size(); ++i)
        handle.handle[i] = std::uint8_t(i * 3);
    handle.offset = 512;
    handle.size = 3110400;
    const MetaRecord record = encode_cuda_handles({handle});
    EXPECT_EQ(record.name, "G2gCudaIpc");
    EXPECT_EQ(record.payload.size(), 80u);
    g2g::Result<std::vector<g2g::cuda::IpcHandle>> back = decode_cuda_handles(record);
    ASSERT_TRUE(back) << back.error().message();
    ASSERT_EQ(back->size(), 1u);
    EXPECT_TRUE((*back)[0] == handle);

    MetaRecord later = record;
    later.version = 2;
    EXPECT_EQ(decode_cuda_handles(later).error().message(),
              "a G2gCudaIpc record of version 2 (this g2g reads 1)");
    MetaRecord cut = record;
    cut.payload.resize(79);
    EXPECT_EQ(decode_cuda_handles(cut).error().message(),
              "a G2gCudaIpc record of 79 bytes, not whole 80-byte handles");
    EXPECT_EQ(decode_cuda_handles(encode_cuda_handles({})).error().message(),
              "a G2gCudaIpc record of 0 handles (1 to 16)");
    EXPECT_EQ(decode_cuda_handles(encode_cuda_handles(std::vector<g2g::cuda::IpcHandle>(17, handle)))
                  .error()
                  .message(),
              "a G2gCudaIpc record of 17 handles (1 to 16)");

    NewBuffer message;
    message.id = 42;
    message.kind = MemoryKind::CudaIpc;
    message.memories.push_back({handle.size, 0});
    message.metas.push_back(record);
    const std::vector<std::uint8_t> payload = encode(message);
    g2g::Result<NewBuffer> decoded = decode_new_buffer(payload, 0);
    ASSERT_TRUE(decoded) << decoded.error().message();
    EXPECT_EQ(decoded->kind, MemoryKind::CudaIpc);
    EXPECT_EQ(decode_new_buffer(payload, 1).error().message(),
              "NEW_BUFFER 42 of CUDA IPC handles came with 1 file descriptor: it carries none");
}
