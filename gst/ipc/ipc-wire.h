// SPDX-License-Identifier: LGPL-2.1-or-later
// The messages g2gipcsink and g2gipcsrc exchange, in the wire format of GStreamer's unixfdsink and
// unixfdsrc (gst-plugins-bad 1.24 on, unchanged to 1.28): on a stream socket, an 8-byte header
// {u32 type, u32 payload size} in the host's byte order, then the payload; a NEW_BUFFER's file
// descriptors travel with its header, one per memory. unixfdsrc ignores types it does not know,
// which leaves room for g2g's own (issue 33). The decoders here are the one check of what a peer
// sent: every length, count and offset is checked against the bytes and descriptors that came,
// before anything is built from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <g2g/error.h>

namespace g2g::ipc {

// unixfd's message types (gstunixfd.h's CommandType).
enum class MessageType : std::uint32_t {
    NewBuffer = 0,     // producer to consumer: a frame (its fds with the header)
    ReleaseBuffer = 1, // consumer to producer: the frame of that id is let go of
    Caps = 2,          // producer to consumer: gst_caps_to_string() and its NUL
    Eos = 3,           // producer to consumer: no payload
};

constexpr std::size_t kHeaderSize = 8;
// A payload this long or longer is refused unread: no frame's description comes near it.
constexpr std::uint32_t kMaxPayload = 1u << 20;
// unixfd's n_memory is a u8; GStreamer's buffers hold at most 16 memories.
constexpr std::size_t kMaxMemories = 16;

struct Header {
    std::uint32_t type = 0;
    std::uint32_t payload_size = 0;
};

std::vector<std::uint8_t> encode_header(Header header);
// The header of a message; refused where the payload size is past kMaxPayload.
Result<Header> decode_header(std::span<const std::uint8_t> bytes);

// How the consumer wraps each fd: GstFdAllocator memory or GstDmaBufAllocator memory (unixfd's), or
// g2g's own: an opaque fd of a Vulkan allocation, one per plane, imported as the image a
// G2gVulkanImages record describes (ipc-vulkan-record.h), or CUDA memory opened by the IPC
// handles of a G2gCudaIpc record, with no descriptor (ipc-cuda-record.h). unixfdsrc is never sent
// either.
enum class MemoryKind : std::uint8_t { Fd = 0, DmaBuf = 1, VulkanImage = 2, CudaIpc = 3 };

// One memory of a frame: `size` bytes from `offset` in its fd.
struct WireMemory {
    std::uint64_t size = 0;
    std::uint64_t offset = 0;
};

// A serialized meta (gst_meta_serialize's record): its GType name, its version, its payload.
struct MetaRecord {
    std::string name;
    std::uint8_t version = 0;
    std::vector<std::uint8_t> payload;
};

// A memory's file, named by the number its producer gave it: g2g's way for a consumer that said
// HELLO (issue 33). The producer sends each file's descriptor once (`attached`: it came with this
// message); later frames name the number alone, so the consumer maps each file once and a frame
// costs neither side a descriptor passed, installed and closed. unixfd's peers get a descriptor
// for every memory of every frame.
struct FileRef {
    std::uint64_t number = 0; // 1 on; never reused by a producer
    bool attached = false;
};

struct NewBuffer {
    std::uint64_t id = 0;
    std::uint64_t pts = UINT64_MAX, dts = UINT64_MAX, duration = UINT64_MAX;
    std::uint64_t offset = UINT64_MAX, offset_end = UINT64_MAX;
    std::uint32_t flags = 0;
    MemoryKind kind = MemoryKind::Fd;
    std::vector<WireMemory> memories;
    std::vector<MetaRecord> metas;
    // g2g's files record (kFilesRecordName), one per memory, or none (a descriptor per memory);
    // `forget`: numbers the consumer lets go of before this frame's are looked at.
    std::vector<FileRef> files;
    std::vector<std::uint64_t> forget;
};

inline constexpr const char *kFilesRecordName = "G2gFiles";
// How many numbered files a consumer keeps at most: the producer tells it to forget the one it
// named least recently before it sends one more (more than any pool holds).
constexpr std::size_t kMaxNamedFiles = 32;

// NEW_BUFFER's payload: 56 fixed bytes, 16 per memory, then the meta records (g2g's files record
// last, where there is one).
constexpr std::size_t kNewBufferFixed = 56;

std::vector<std::uint8_t> encode(const NewBuffer &frame);
// `encoded`, the payload of a NEW_BUFFER without files, with g2g's files record appended: what
// encode() makes of the same message with `files` and `forget`, the rest not encoded again (one
// producer frame, a payload for each consumer that said HELLO).
std::vector<std::uint8_t> with_files(std::span<const std::uint8_t> encoded, const std::vector<FileRef> &files,
                                     const std::vector<std::uint64_t> &forget);
// A NEW_BUFFER payload that came with `fds` descriptors. Refused: a payload shorter than what it
// declares, a memory kind neither unixfd nor g2g has, a descriptor count other than the memories'
// (none for CUDA IPC handles; the attached files' where a files record names them), a memory whose
// end is past 2^64, a meta record that ends past the payload or names itself without its NUL,
// bytes after the last record, a files record of another length than its memories and numbers
// make, of no file, of a number 0, not last, or beside memory that is not fd memory.
Result<NewBuffer> decode_new_buffer(std::span<const std::uint8_t> payload, std::size_t fds);

std::vector<std::uint8_t> encode_release(std::uint64_t id);
Result<std::uint64_t> decode_release(std::span<const std::uint8_t> payload);

std::vector<std::uint8_t> encode_caps(const std::string &caps);
// The caps text; refused without its NUL or with a NUL inside.
Result<std::string> decode_caps(std::span<const std::uint8_t> payload);

// GstVideoMeta's serialized payload (version 0, little-endian, as gstvideometa.c writes it from
// 1.24 on; written here for 1.22 too): flags, format, size, planes' offsets (from the buffer's
// start) and strides, padding and stride alignments.
struct WireVideoMeta {
    std::int32_t flags = 0;
    std::int32_t format = 0;
    std::uint32_t width = 0, height = 0;
    std::uint32_t n_planes = 0;
    std::uint64_t offset[4] = {};
    std::int32_t stride[4] = {};
    std::uint32_t padding_top = 0, padding_bottom = 0, padding_left = 0, padding_right = 0;
    std::uint32_t stride_align[4] = {};
};

inline constexpr const char *kVideoMetaName = "GstVideoMeta";
MetaRecord encode_video_meta(const WireVideoMeta &meta);
// Refused: a version other than 0, more than 4 planes, a payload of another length than its planes
// make.
Result<WireVideoMeta> decode_video_meta(const MetaRecord &record);

} // namespace g2g::ipc
