// SPDX-License-Identifier: LGPL-2.1-or-later
// A set of memory domain kinds: what an element accepts, what a stream may carry.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <g2g/memory-domain-kind.h>

namespace g2g {

class DomainSet {
public:
    constexpr DomainSet() = default;
    constexpr DomainSet(std::initializer_list<MemoryDomainKind> kinds)
    {
        for (MemoryDomainKind kind : kinds)
            bits_ |= bit(kind);
    }

    static constexpr DomainSet from_bits(std::uint32_t bits) { return DomainSet(bits & kAllBits); }
    static constexpr DomainSet all() { return DomainSet(kAllBits); }
    static constexpr DomainSet none() { return DomainSet(); }

    constexpr std::uint32_t bits() const { return bits_; }
    constexpr bool empty() const { return bits_ == 0; }
    constexpr std::size_t size() const { return static_cast<std::size_t>(__builtin_popcount(bits_)); }
    constexpr bool contains(MemoryDomainKind kind) const { return (bits_ & bit(kind)) != 0; }

    constexpr DomainSet &insert(MemoryDomainKind kind)
    {
        bits_ |= bit(kind);
        return *this;
    }
    constexpr DomainSet &erase(MemoryDomainKind kind)
    {
        bits_ &= ~bit(kind);
        return *this;
    }

    constexpr DomainSet intersect(DomainSet other) const { return DomainSet(bits_ & other.bits_); }
    constexpr DomainSet unite(DomainSet other) const { return DomainSet(bits_ | other.bits_); }
    constexpr DomainSet without(DomainSet other) const { return DomainSet(bits_ & ~other.bits_); }
    constexpr DomainSet operator&(DomainSet other) const { return intersect(other); }
    constexpr DomainSet operator|(DomainSet other) const { return unite(other); }
    constexpr bool operator==(const DomainSet &) const = default;

    // The best member in GPU-first order: Cuda, D3D11Texture, CvPixelBuffer, VulkanTexture,
    // WgpuTexture, WgpuBuffer, WebGPUExternalTexture, WebGPUBuffer, DmaBuf, SystemView,
    // System. Empty set: nullopt.
    std::optional<MemoryDomainKind> preferred() const;

    // Members, best first (the order preferred() uses).
    std::vector<MemoryDomainKind> by_preference() const;

    // "Cuda+System", or "(none)".
    std::string to_string() const;

    // Iteration in kind order (MemoryDomainKind's numeric order).
    class Iterator {
    public:
        using value_type = MemoryDomainKind;
        using difference_type = std::ptrdiff_t;
        constexpr Iterator() = default;
        constexpr Iterator(std::uint32_t remaining) : remaining_(remaining) {}
        constexpr MemoryDomainKind operator*() const
        {
            return static_cast<MemoryDomainKind>(__builtin_ctz(remaining_));
        }
        constexpr Iterator &operator++()
        {
            remaining_ &= remaining_ - 1;
            return *this;
        }
        constexpr Iterator operator++(int)
        {
            Iterator before = *this;
            ++*this;
            return before;
        }
        constexpr bool operator==(const Iterator &) const = default;

    private:
        std::uint32_t remaining_ = 0;
    };
    constexpr Iterator begin() const { return Iterator(bits_); }
    constexpr Iterator end() const { return Iterator(0); }

private:
    static constexpr std::uint32_t kAllBits = (1u << kMemoryDomainKindCount) - 1;
    constexpr explicit DomainSet(std::uint32_t bits) : bits_(bits) {}
    static constexpr std::uint32_t bit(MemoryDomainKind kind) { return 1u << static_cast<unsigned>(kind); }

    std::uint32_t bits_ = 0;
};

} // namespace g2g
