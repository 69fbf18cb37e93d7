// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-wire.h"

#include <algorithm>
#include <cstring>

#include "ipc-bytes.h"

namespace g2g::ipc {

namespace {

Error refused(std::string what)
{
    return Error(ErrorCode::InvalidArgument, std::move(what));
}

std::string count(std::size_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// One meta record from `reader` (its own length first), checked against what is left.
Result<MetaRecord> read_meta(Reader &reader, std::size_t index)
{
    const std::string which = "meta record " + std::to_string(index);
    const std::size_t start = reader.at();
    std::uint32_t total = 0, name_len = 0;
    if (!reader.le(total) || !reader.le(name_len))
        return refused(which + " is cut off inside its 8-byte header");
    // The record: its header, the name and its NUL, the version byte, then its payload.
    const std::uint64_t fixed = 8 + std::uint64_t(name_len) + 2;
    if (total < fixed)
        return refused(which + " says it is " + std::to_string(total) + " bytes, fewer than its " +
                       std::to_string(fixed) + "-byte header and name");
    if (total - 8 > reader.left())
        return refused(which + " says it is " + std::to_string(total) + " bytes, past the message's end (" +
                       std::to_string(reader.left() + 8) + " bytes left)");
    const auto name = reader.take(name_len + 1);
    if (name[name_len] != 0 || std::memchr(name.data(), 0, name_len))
        return refused(which + "'s name is not one NUL-terminated string of " + std::to_string(name_len) +
                       " bytes");
    MetaRecord record;
    record.name.assign(reinterpret_cast<const char *>(name.data()), name_len);
    reader.le(record.version);
    const auto payload = reader.take(total - (reader.at() - start));
    record.payload.assign(payload.begin(), payload.end());
    return record;
}

// g2g's files record (version 0, little-endian): u8 memories, u8 forgotten numbers, then per
// memory {u64 number, u8 attached}, then each forgotten u64.
MetaRecord encode_files(const std::vector<FileRef> &files, const std::vector<std::uint64_t> &forget)
{
    MetaRecord record{kFilesRecordName, 0, {}};
    std::vector<std::uint8_t> &out = record.payload;
    put_le(out, static_cast<std::uint8_t>(files.size()));
    put_le(out, static_cast<std::uint8_t>(forget.size()));
    for (const FileRef &file : files) {
        put_le(out, file.number);
        put_le(out, static_cast<std::uint8_t>(file.attached ? 1 : 0));
    }
    for (std::uint64_t number : forget)
        put_le(out, number);
    return record;
}

Result<void> decode_files(const MetaRecord &record, NewBuffer &frame)
{
    const std::string which = "NEW_BUFFER " + std::to_string(frame.id) + "'s files record";
    if (record.version != 0)
        return refused(which + " is of version " + std::to_string(record.version) + ", not 0");
    Reader reader(record.payload);
    std::uint8_t n_files = 0, n_forget = 0;
    if (!reader.le(n_files) || !reader.le(n_forget))
        return refused(which + " is cut off before its counts");
    const std::size_t expected = 2 + std::size_t(n_files) * 9 + std::size_t(n_forget) * 8;
    if (record.payload.size() != expected)
        return refused(which + " of " + count(n_files, "file", "files") + " and " +
                       count(n_forget, "forgotten number", "forgotten numbers") + " is " +
                       std::to_string(record.payload.size()) + " bytes, not " + std::to_string(expected));
    if (n_files == 0 || n_files != frame.memories.size())
        return refused(which + " names " + count(n_files, "file", "files") + " for " +
                       count(frame.memories.size(), "memory", "memories"));
    if (n_forget > kMaxNamedFiles)
        return refused(which + " forgets " + std::to_string(n_forget) +
                       " numbers, more than a consumer keeps (" + std::to_string(kMaxNamedFiles) + ")");
    for (unsigned i = 0; i < n_files; ++i) {
        FileRef file;
        std::uint8_t attached = 0;
        reader.le(file.number);
        reader.le(attached);
        if (file.number == 0 || attached > 1)
            return refused(which + " names memory " + std::to_string(i) + "'s file " +
                           std::to_string(file.number) +
                           (attached > 1 ? " attached " + std::to_string(attached) : "") +
                           ": files are numbered from 1, attached 0 or 1");
        file.attached = attached != 0;
        frame.files.push_back(file);
    }
    for (unsigned i = 0; i < n_forget; ++i) {
        std::uint64_t number = 0;
        reader.le(number);
        if (number == 0)
            return refused(which + " forgets file 0: files are numbered from 1");
        frame.forget.push_back(number);
    }
    return {};
}

void put_record(std::vector<std::uint8_t> &out, const MetaRecord &meta)
{
    put_le(out, static_cast<std::uint32_t>(8 + meta.name.size() + 2 + meta.payload.size()));
    put_le(out, static_cast<std::uint32_t>(meta.name.size()));
    out.insert(out.end(), meta.name.begin(), meta.name.end());
    out.push_back(0);
    out.push_back(meta.version);
    out.insert(out.end(), meta.payload.begin(), meta.payload.end());
}

// Where NEW_BUFFER's u16 count of meta records is.
constexpr std::size_t kMetaCountAt = 54;

} // namespace

std::vector<std::uint8_t> encode_header(Header header)
{
    std::vector<std::uint8_t> out;
    put_host(out, header.type);
    put_host(out, header.payload_size);
    return out;
}

Result<Header> decode_header(std::span<const std::uint8_t> bytes)
{
    Reader reader(bytes);
    Header header;
    if (!reader.host(header.type) || !reader.host(header.payload_size))
        return refused("a message header of " + std::to_string(bytes.size()) + " bytes, not " +
                       std::to_string(kHeaderSize));
    if (header.payload_size >= kMaxPayload)
        return refused("a message of type " + std::to_string(header.type) + " says its payload is " +
                       std::to_string(header.payload_size) + " bytes, more than any message carries (" +
                       std::to_string(kMaxPayload - 1) + ")");
    return header;
}

std::vector<std::uint8_t> encode(const NewBuffer &frame)
{
    std::vector<std::uint8_t> out;
    for (std::uint64_t v : {frame.id, frame.pts, frame.dts, frame.duration, frame.offset, frame.offset_end})
        put_host(out, v);
    put_host(out, frame.flags);
    put_host(out, static_cast<std::uint8_t>(frame.kind));
    put_host(out, static_cast<std::uint8_t>(frame.memories.size()));
    const bool files = !frame.files.empty() || !frame.forget.empty();
    put_host(out, static_cast<std::uint16_t>(frame.metas.size() + (files ? 1 : 0)));
    for (const WireMemory &memory : frame.memories) {
        put_host(out, memory.size);
        put_host(out, memory.offset);
    }
    for (const MetaRecord &meta : frame.metas)
        put_record(out, meta);
    if (files)
        put_record(out, encode_files(frame.files, frame.forget));
    return out;
}

std::vector<std::uint8_t> with_files(std::span<const std::uint8_t> encoded, const std::vector<FileRef> &files,
                                     const std::vector<std::uint64_t> &forget)
{
    std::vector<std::uint8_t> out(encoded.begin(), encoded.end());
    if (out.size() < kNewBufferFixed)
        return out; // no NEW_BUFFER of encode()'s: nothing to count a record in
    std::uint16_t metas = 0;
    std::memcpy(&metas, out.data() + kMetaCountAt, sizeof metas);
    ++metas;
    std::memcpy(out.data() + kMetaCountAt, &metas, sizeof metas);
    put_record(out, encode_files(files, forget));
    return out;
}

Result<NewBuffer> decode_new_buffer(std::span<const std::uint8_t> payload, std::size_t fds)
{
    Reader reader(payload);
    NewBuffer frame;
    std::uint8_t kind = 0, n_memory = 0;
    std::uint16_t n_meta = 0;
    if (payload.size() < kNewBufferFixed)
        return refused("a NEW_BUFFER message of " + std::to_string(payload.size()) +
                       " bytes, shorter than its fixed " + std::to_string(kNewBufferFixed));
    for (std::uint64_t *v :
         {&frame.id, &frame.pts, &frame.dts, &frame.duration, &frame.offset, &frame.offset_end})
        reader.host(*v);
    reader.host(frame.flags);
    reader.host(kind);
    reader.host(n_memory);
    reader.host(n_meta);
    reader.take(kNewBufferFixed - reader.at()); // unixfd's struct padding
    if (kind > static_cast<std::uint8_t>(MemoryKind::CudaIpc))
        return refused("NEW_BUFFER " + std::to_string(frame.id) + " has memory of type " +
                       std::to_string(kind) +
                       ", neither fd (0), DMA-BUF (1), nor g2g's Vulkan image (2) or CUDA IPC handle (3)");
    frame.kind = static_cast<MemoryKind>(kind);
    if (n_memory > kMaxMemories)
        return refused("NEW_BUFFER " + std::to_string(frame.id) + " declares " + std::to_string(n_memory) +
                       " memories, more than a buffer holds (" + std::to_string(kMaxMemories) + ")");
    if (frame.kind == MemoryKind::CudaIpc && fds != 0)
        return refused("NEW_BUFFER " + std::to_string(frame.id) + " of CUDA IPC handles came with " +
                       count(fds, "file descriptor", "file descriptors") + ": it carries none");
    if (!reader.has(std::size_t(n_memory) * 16))
        return refused("NEW_BUFFER " + std::to_string(frame.id) + " declares " +
                       count(n_memory, "memory", "memories") + " but its message ends after " +
                       std::to_string(reader.left() / 16));
    for (unsigned i = 0; i < n_memory; ++i) {
        WireMemory memory;
        reader.host(memory.size);
        reader.host(memory.offset);
        if (memory.offset > UINT64_MAX - memory.size)
            return refused("NEW_BUFFER " + std::to_string(frame.id) + "'s memory " + std::to_string(i) +
                           " ends past 2^64 (" + std::to_string(memory.size) + " bytes from " +
                           std::to_string(memory.offset) + ")");
        frame.memories.push_back(memory);
    }
    for (unsigned i = 0; i < n_meta; ++i) {
        Result<MetaRecord> meta = read_meta(reader, i);
        if (!meta)
            return refused("NEW_BUFFER " + std::to_string(frame.id) + ": " + meta.error().message());
        if (!frame.files.empty())
            return refused("NEW_BUFFER " + std::to_string(frame.id) +
                           " has a meta record after its files record (g2g's, last)");
        if (meta->name != kFilesRecordName) {
            frame.metas.push_back(std::move(*meta));
            continue;
        }
        if (frame.kind != MemoryKind::Fd && frame.kind != MemoryKind::DmaBuf)
            return refused("NEW_BUFFER " + std::to_string(frame.id) +
                           " numbers the files of memory that is neither fd nor DMA-BUF memory");
        if (Result<void> files = decode_files(*meta, frame); !files)
            return files.error();
    }
    if (reader.left() != 0)
        return refused("NEW_BUFFER " + std::to_string(frame.id) + " has " + std::to_string(reader.left()) +
                       " bytes after its last meta record");
    // The descriptors: one per memory, or one per file the files record says came with it.
    const std::size_t attached =
        frame.files.empty()
            ? std::size_t(n_memory)
            : static_cast<std::size_t>(std::count_if(frame.files.begin(), frame.files.end(),
                                                     [](const FileRef &file) { return file.attached; }));
    if (frame.kind != MemoryKind::CudaIpc && fds != attached)
        return refused("NEW_BUFFER " + std::to_string(frame.id) + " came with " +
                       count(fds, "file descriptor", "file descriptors") + " for " +
                       (frame.files.empty() ? count(n_memory, "memory", "memories")
                                            : count(attached, "attached file", "attached files")));
    return frame;
}

std::vector<std::uint8_t> encode_release(std::uint64_t id)
{
    std::vector<std::uint8_t> out;
    put_host(out, id);
    return out;
}

Result<std::uint64_t> decode_release(std::span<const std::uint8_t> payload)
{
    Reader reader(payload);
    std::uint64_t id = 0;
    if (payload.size() != sizeof id || !reader.host(id))
        return refused("a RELEASE_BUFFER message of " + std::to_string(payload.size()) + " bytes, not 8");
    return id;
}

std::vector<std::uint8_t> encode_caps(const std::string &caps)
{
    std::vector<std::uint8_t> out(caps.begin(), caps.end());
    out.push_back(0);
    return out;
}

Result<std::string> decode_caps(std::span<const std::uint8_t> payload)
{
    if (payload.empty() || payload.back() != 0)
        return refused("a CAPS message of " + std::to_string(payload.size()) +
                       " bytes without its closing NUL");
    if (std::memchr(payload.data(), 0, payload.size() - 1))
        return refused("a CAPS message with a NUL inside its text");
    return std::string(reinterpret_cast<const char *>(payload.data()), payload.size() - 1);
}

MetaRecord encode_video_meta(const WireVideoMeta &meta)
{
    MetaRecord record{kVideoMetaName, 0, {}};
    std::vector<std::uint8_t> &out = record.payload;
    put_le(out, meta.flags);
    put_le(out, meta.format);
    put_le(out, meta.width);
    put_le(out, meta.height);
    put_le(out, meta.n_planes);
    for (std::uint32_t p = 0; p < meta.n_planes && p < 4; ++p)
        put_le(out, meta.offset[p]);
    for (std::uint32_t p = 0; p < meta.n_planes && p < 4; ++p)
        put_le(out, meta.stride[p]);
    for (std::uint32_t v : {meta.padding_top, meta.padding_bottom, meta.padding_left, meta.padding_right})
        put_le(out, v);
    for (std::uint32_t p = 0; p < meta.n_planes && p < 4; ++p)
        put_le(out, meta.stride_align[p]);
    return record;
}

Result<WireVideoMeta> decode_video_meta(const MetaRecord &record)
{
    if (record.version != 0)
        return refused("a GstVideoMeta record of version " + std::to_string(record.version) + ", not 0");
    Reader reader(record.payload);
    WireVideoMeta meta;
    if (!reader.le(meta.flags) || !reader.le(meta.format) || !reader.le(meta.width) ||
        !reader.le(meta.height) || !reader.le(meta.n_planes))
        return refused("a GstVideoMeta record of " + std::to_string(record.payload.size()) +
                       " bytes is cut off before its plane count");
    if (meta.n_planes == 0 || meta.n_planes > 4)
        return refused("a GstVideoMeta record of " + std::to_string(meta.n_planes) + " planes (1 to 4)");
    const std::size_t expected = 20 + std::size_t(meta.n_planes) * (8 + 4 + 4) + 16;
    if (record.payload.size() != expected)
        return refused("a GstVideoMeta record of " + count(meta.n_planes, "plane", "planes") + " is " +
                       std::to_string(record.payload.size()) + " bytes, not " + std::to_string(expected));
    for (std::uint32_t p = 0; p < meta.n_planes; ++p)
        reader.le(meta.offset[p]);
    for (std::uint32_t p = 0; p < meta.n_planes; ++p)
        reader.le(meta.stride[p]);
    for (std::uint32_t *v :
         {&meta.padding_top, &meta.padding_bottom, &meta.padding_left, &meta.padding_right})
        reader.le(*v);
    for (std::uint32_t p = 0; p < meta.n_planes; ++p)
        reader.le(meta.stride_align[p]);
    return meta;
}

} // namespace g2g::ipc
