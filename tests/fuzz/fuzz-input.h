// SPDX-License-Identifier: LGPL-2.1-or-later
// The fuzz targets' reader of their input bytes (in the manner of LLVM's FuzzedDataProvider, which
// gcc builds do not have): small integers in a range, choices from a list, and strings, taken
// from the front of the input so that a mutation of one byte changes one decision. Once the
// input is used up every read answers the range's lowest value, so short inputs stay meaningful.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace g2g::fuzz {

class FuzzInput {
public:
    FuzzInput(const std::uint8_t *data, std::size_t size) : data_(data), size_(size) {}

    bool empty() const { return size_ == 0; }
    std::size_t remaining() const { return size_; }

    std::uint8_t byte()
    {
        if (size_ == 0)
            return 0;
        --size_;
        return *data_++;
    }

    // An integer in [low, high], from as few bytes as the range needs (little-endian).
    std::int64_t range(std::int64_t low, std::int64_t high)
    {
        const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
        std::uint64_t value = 0;
        for (std::uint64_t seen = 0; seen < span && size_ > 0; seen = (seen << 8) | 0xff)
            value = (value << 8) | byte();
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) +
                                         (span == UINT64_MAX ? value : value % (span + 1)));
    }

    bool flag() { return byte() & 1; }

    // One of the entries of `items`.
    template <typename T, std::size_t N> const T &pick(const T (&items)[N]) { return items[range(0, N - 1)]; }

    // A string of at most `max` bytes: a length byte, then that many bytes.
    std::string string(std::size_t max)
    {
        const std::size_t length = static_cast<std::size_t>(range(0, static_cast<std::int64_t>(max)));
        return bytes(length);
    }

    // The rest of the input as a string.
    std::string rest() { return bytes(size_); }

private:
    std::string bytes(std::size_t length)
    {
        if (length > size_)
            length = size_;
        std::string out(reinterpret_cast<const char *>(data_), length);
        data_ += length;
        size_ -= length;
        return out;
    }

    const std::uint8_t *data_;
    std::size_t size_;
};

} // namespace g2g::fuzz
