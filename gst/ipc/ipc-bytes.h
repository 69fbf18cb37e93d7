// SPDX-License-Identifier: LGPL-2.1-or-later
// The bytes of ipc's messages: written in the host's order (unixfd's header and NEW_BUFFER fields)
// or little-endian (meta records, gst_meta_serialize's choice), and read back front to back by a
// reader that never reads past what arrived.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace g2g::ipc {

// Appends `value`'s bytes: in the host's order (unixfd's header and NEW_BUFFER fields), or
// little-endian (the meta records, gst_meta_serialize's choice).
template <typename T> void put_host(std::vector<std::uint8_t> &out, T value)
{
    const auto *bytes = reinterpret_cast<const std::uint8_t *>(&value);
    out.insert(out.end(), bytes, bytes + sizeof value);
}

template <typename T> void put_le(std::vector<std::uint8_t> &out, T value)
{
    for (std::size_t i = 0; i < sizeof value; ++i)
        out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(value) >> (8 * i)));
}

// Reads what a peer sent, front to back; a read past the end fails (and every later one).
class Reader {
public:
    explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

    template <typename T> bool host(T &value)
    {
        if (!has(sizeof value))
            return false;
        std::memcpy(&value, bytes_.data() + at_, sizeof value);
        at_ += sizeof value;
        return true;
    }
    template <typename T> bool le(T &value)
    {
        if (!has(sizeof value))
            return false;
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < sizeof value; ++i)
            v |= std::uint64_t(bytes_[at_ + i]) << (8 * i);
        value = static_cast<T>(v);
        at_ += sizeof value;
        return true;
    }
    bool has(std::size_t n) const { return n <= bytes_.size() - at_; }
    std::span<const std::uint8_t> take(std::size_t n)
    {
        const auto part = bytes_.subspan(at_, n);
        at_ += n;
        return part;
    }
    std::size_t left() const { return bytes_.size() - at_; }
    std::size_t at() const { return at_; }

private:
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

} // namespace g2g::ipc
