// SPDX-License-Identifier: LGPL-2.1-or-later
// In-register transpose rounds shared by the AVX2 kernels (transpose.cpp) and the AVX-512 ones
// (transpose-avx512.cpp). The vector type and its unpacks come as a traits type whose functions
// carry their instruction set's target attribute; the rounds are always inlined into the
// kernels, which carry it too.
#pragma once

namespace g2g::detail {

// (Always inlined, only ever inside a function of the vectors' target: the vector-ABI warning
// about an out-of-line form does not apply. The unpacks take and give their vectors by reference:
// these templates carry no target attribute, and clang refuses a call that passes a vector wider
// than 128 bits by value from a function without that vector's target, inlined or not.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// In-register transposes of N vectors of N elements. Each round interleaves vector k with
// vector k + N/2 (U::lo and U::hi, the unpacks of one element size); log2(N) rounds rotate the
// (row, column) index bits by half their width: a transpose. The unpacks work per 128-bit lane,
// so 256- and 512-bit vectors transpose two and four N x N blocks at once.
template <unsigned N, typename V, typename U> [[gnu::always_inline]] inline void transpose_rounds(V r[N])
{
    constexpr unsigned rounds = N == 16 ? 4 : N == 8 ? 3 : 2;
#pragma GCC unroll 4
    for (unsigned round = 0; round < rounds; ++round) {
        V n[N];
#pragma GCC unroll 8
        for (unsigned k = 0; k < N / 2; ++k) {
            U::lo(r[k], r[k + N / 2], n[2 * k]);
            U::hi(r[k], r[k + N / 2], n[2 * k + 1]);
        }
#pragma GCC unroll 16
        for (unsigned k = 0; k < N; ++k)
            r[k] = n[k];
    }
}

// The first two rounds of transposing N (8 or 16) vectors of 4-byte elements, per 128-bit
// lane: dwords of vectors 2k and 2k + 1 interleaved (U::lo32, U::hi32), then qwords of 4k and
// 4k + 2, 4k + 1 and 4k + 3 (U::lo64, U::hi64). Lane l of out[4k + m] then holds elements
// 4k .. 4k + 3 of column 4l + m: what is left is to move whole lanes.
template <unsigned N, typename V, typename U>
[[gnu::always_inline]] inline void dword_qword_rounds(const V r[N], V out[N])
{
    V t[N];
#pragma GCC unroll 8
    for (unsigned k = 0; k < N / 2; ++k) {
        U::lo32(r[2 * k], r[2 * k + 1], t[2 * k]);
        U::hi32(r[2 * k], r[2 * k + 1], t[2 * k + 1]);
    }
#pragma GCC unroll 4
    for (unsigned k = 0; k < N / 4; ++k) {
        U::lo64(t[4 * k], t[4 * k + 2], out[4 * k]);
        U::hi64(t[4 * k], t[4 * k + 2], out[4 * k + 1]);
        U::lo64(t[4 * k + 1], t[4 * k + 3], out[4 * k + 2]);
        U::hi64(t[4 * k + 1], t[4 * k + 3], out[4 * k + 3]);
    }
}

#pragma GCC diagnostic pop

} // namespace g2g::detail
