// SPDX-License-Identifier: LGPL-2.1-or-later
// One frame and the memory domain it lives in: the seed's MemoryDomain over a GstBuffer.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include <g2g/error.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

namespace g2g {

// CPU-readable bytes of a frame, mapped for as long as this object lives. Either borrowed
// (a read mapping of the frame's own memory, zero bytes copied) or owned (the one dense copy
// a strided SystemView pays when a consumer needs contiguous bytes).
class SystemBytes {
public:
    SystemBytes(SystemBytes &&other) noexcept;
    SystemBytes &operator=(SystemBytes &&other) noexcept;
    SystemBytes(const SystemBytes &) = delete;
    SystemBytes &operator=(const SystemBytes &) = delete;
    ~SystemBytes();

    const std::uint8_t *data() const { return map_.data; }
    std::size_t size() const { return map_.size; }
    std::span<const std::uint8_t> span() const { return {map_.data, map_.size}; }
    // True when the bytes are the frame's own memory; false when they were materialized.
    bool borrowed() const { return borrowed_; }
    // The buffer whose memory is mapped (the frame itself when borrowed()).
    GstBuffer *buffer() const { return buffer_.get(); }

    // Maps buffer for reading; borrowed says whether buffer is the frame itself.
    static std::optional<SystemBytes> map(BufferRef buffer, bool borrowed);

private:
    SystemBytes(BufferRef buffer, const GstMapInfo &map, bool borrowed);
    void unmap();

    BufferRef buffer_;
    GstMapInfo map_ = GST_MAP_INFO_INIT;
    bool borrowed_ = true;
};

// Writable bytes of a frame this holder owns alone (see MemoryDomain::as_mut_system_slice).
class WritableSystemBytes {
public:
    WritableSystemBytes(WritableSystemBytes &&other) noexcept;
    WritableSystemBytes &operator=(WritableSystemBytes &&other) = delete;
    WritableSystemBytes(const WritableSystemBytes &) = delete;
    WritableSystemBytes &operator=(const WritableSystemBytes &) = delete;
    ~WritableSystemBytes();

    std::uint8_t *data() const { return map_.data; }
    std::size_t size() const { return map_.size; }
    std::span<std::uint8_t> span() const { return {map_.data, map_.size}; }

private:
    friend class MemoryDomain;
    WritableSystemBytes(GstBuffer *buffer, const GstMapInfo &map) : buffer_(buffer), map_(map) {}
    GstBuffer *buffer_; // borrowed from the MemoryDomain, which outlives this mapping
    GstMapInfo map_;
};

// True when no memory of `buffer` is flagged GST_MEMORY_FLAG_NO_SHARE: copies of it then share
// its bytes by reference count (what MemoryDomain::make_shareable establishes).
bool buffer_is_shareable(GstBuffer *buffer);

class MemoryDomain {
public:
    // Classifies buffer and takes a new reference to it. Unknown memory is an error.
    static Result<MemoryDomain> from_buffer(GstBuffer *buffer);
    // As from_buffer, taking over the caller's reference (also on failure).
    static Result<MemoryDomain> adopt(GstBuffer *buffer);

    MemoryDomainKind kind() const { return kind_; }
    // The frame (borrowed; valid while this MemoryDomain lives).
    GstBuffer *buffer() const { return buffer_.get(); }
    // A new reference to the frame, e.g. to push it.
    BufferRef buffer_ref() const { return buffer_; }

    // The frame's bytes for an element that reads host memory, or a loud failure naming the
    // element (category), the domain that turned up and the converter to insert. The failure
    // is also logged against log_object (the element) when given. A SystemView is refused:
    // its bytes are strided (use require_system_bytes).
    Result<SystemBytes> require_system_slice(std::string_view category,
                                             GstObject *log_object = nullptr) const;

    // As require_system_slice, but a SystemView is accepted too: it is materialized into a
    // dense buffer (the one copy a strided chain pays); a System frame is borrowed.
    Result<SystemBytes> require_system_bytes(std::string_view category,
                                             GstObject *log_object = nullptr) const;

    // The bytes when the frame lives in host memory, else nullopt (no error, no log).
    std::optional<SystemBytes> as_system_slice() const;

    // A second handle to this frame's memory for a fan-out branch: a reference-count bump for
    // every domain, zero bytes copied. Shares are read-only: see as_mut_system_slice.
    MemoryDomain share() const { return MemoryDomain(buffer_, kind_); }

    // Prepares the frame once so that every later share, and every copy a branch makes of its
    // share's GstBuffer (gst_buffer_make_writable to set a timestamp, gst_buffer_copy), shares
    // the memory by reference count: memory flagged GST_MEMORY_FLAG_NO_SHARE (what pools of
    // v4l2, capture and hardware elements hand out), which gst_buffer_copy would deep-copy, is
    // re-wrapped zero-copy. The pool still gets its buffer back when the last share dies.
    // No-op for frames without such memory.
    void make_shareable();

    // True when no memory of the frame is flagged NO_SHARE (what make_shareable establishes
    // for host and DMABuf memory).
    bool is_shareable() const;

    // Copy-on-write access for a holder that writes: the frame becomes this holder's own
    // (the GstBuffer is copied when shared, and each memory that another holder can see is
    // copied on mapping), so no other share ever sees the write. Host domains only.
    Result<WritableSystemBytes> as_mut_system_slice(std::string_view category,
                                                    GstObject *log_object = nullptr);

private:
    MemoryDomain(BufferRef buffer, MemoryDomainKind kind) : buffer_(std::move(buffer)), kind_(kind) {}

    BufferRef buffer_;
    MemoryDomainKind kind_;
};

} // namespace g2g
