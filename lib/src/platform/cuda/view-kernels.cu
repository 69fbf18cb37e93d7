// SPDX-License-Identifier: LGPL-2.1-or-later
// Materializing a strided view of a plane on the GPU: one output element per (x, y) read from
// src + origin + x * col + y * row. Three shapes of view, each with its kernel:
//  - rows kept (col = +-element): each thread moves four elements of a row, with vector loads
//    and stores where the addresses allow, reversing them for a horizontal flip;
//  - rows and columns swapped (row = +-element): a 32x32 tile goes through shared memory so
//    that both the reads (down the source rows) and the writes are coalesced;
//  - anything else (3-byte pixels): one element per thread, byte by byte.
// The host code (cuda-materialize.cpp) loads these from the fatbin nvcc builds at build time.
#include <stdint.h>

// Must match cuda-materialize.cpp's PlaneCopy.
struct PlaneCopy {
    long long origin;     // byte offset in src of output element (0, 0)
    long long col;        // bytes from output element x to x + 1
    long long row;        // bytes from output row y to y + 1
    long long dst_offset; // byte offset of the plane in dst
    long long dst_stride; // bytes per output row
    unsigned int width;   // output elements per row
    unsigned int height;  // output rows
    unsigned int element; // bytes per element (the fallback kernel's unit)
};

namespace {

// Where output element (x, y) is read from in src, and where it goes in dst.
__device__ const uint8_t *source_of(const uint8_t *src, const PlaneCopy &p, unsigned int x, unsigned int y)
{
    return src + p.origin + static_cast<long long>(x) * p.col + static_cast<long long>(y) * p.row;
}
__device__ uint8_t *destination_of(uint8_t *dst, const PlaneCopy &p, unsigned int x, unsigned int y,
                                   unsigned int element_bytes)
{
    return dst + p.dst_offset + static_cast<long long>(y) * p.dst_stride +
           static_cast<long long>(x) * element_bytes;
}

// Four elements of T moved as one vector where possible.
template <typename T> struct Quad;
template <> struct Quad<uint8_t> {
    using V = uint32_t;
    static __device__ V reverse(V v) { return __byte_perm(v, 0, 0x0123); }
};
template <> struct Quad<uint16_t> {
    using V = uint2;
    static __device__ V reverse(V v)
    {
        return make_uint2(__byte_perm(v.y, 0, 0x1032), __byte_perm(v.x, 0, 0x1032));
    }
};
template <> struct Quad<uint32_t> {
    using V = uint4;
    static __device__ V reverse(V v) { return make_uint4(v.w, v.z, v.y, v.x); }
};

template <typename T> __device__ void copy_rows(const uint8_t *src, uint8_t *dst, const PlaneCopy &p)
{
    using V = typename Quad<T>::V;
    const unsigned int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y >= p.height || x >= p.width)
        return;
    const uint8_t *from = source_of(src, p, x, y);
    uint8_t *to = destination_of(dst, p, x, y, sizeof(T));
    const bool forward = p.col > 0;
    // The four source elements are contiguous: from .. from+3 forward, from-3 .. from reversed.
    const uint8_t *first = forward ? from : from - 3 * sizeof(T);
    if (x + 4 <= p.width && reinterpret_cast<uintptr_t>(first) % sizeof(V) == 0 &&
        reinterpret_cast<uintptr_t>(to) % sizeof(V) == 0) {
        V v = *reinterpret_cast<const V *>(first);
        *reinterpret_cast<V *>(to) = forward ? v : Quad<T>::reverse(v);
        return;
    }
    for (unsigned int i = 0; i < 4 && x + i < p.width; ++i)
        reinterpret_cast<T *>(to)[i] = *reinterpret_cast<const T *>(from + static_cast<long long>(i) * p.col);
}

constexpr int kTile = 32;
constexpr int kTileRows = 8;

template <typename T> __device__ void copy_transposed(const uint8_t *src, uint8_t *dst, const PlaneCopy &p)
{
    __shared__ T tile[kTile][kTile + 1];
    const unsigned int x0 = blockIdx.x * kTile;
    const unsigned int y0 = blockIdx.y * kTile;
    // Read: consecutive threads take consecutive output rows, which are consecutive source
    // elements (row = +-element).
    {
        const unsigned int y = y0 + threadIdx.x;
        for (int j = threadIdx.y; j < kTile; j += kTileRows) {
            const unsigned int x = x0 + j;
            if (x < p.width && y < p.height)
                tile[j][threadIdx.x] = *reinterpret_cast<const T *>(source_of(src, p, x, y));
        }
    }
    __syncthreads();
    // Write: consecutive threads take consecutive output columns.
    {
        const unsigned int x = x0 + threadIdx.x;
        for (int j = threadIdx.y; j < kTile; j += kTileRows) {
            const unsigned int y = y0 + j;
            if (x < p.width && y < p.height)
                *reinterpret_cast<T *>(destination_of(dst, p, x, y, sizeof(T))) = tile[threadIdx.x][j];
        }
    }
}

} // namespace

extern "C" {

// The entry points the library looks up by name (cuda-view.cpp): g2g_rows_E and
// g2g_transposed_E for E-byte elements, unmangled.
#define G2G_PLANE_KERNEL(name, walk, T)                                                                      \
    __global__ void name(const uint8_t *src, uint8_t *dst, PlaneCopy p)                                      \
    {                                                                                                        \
        walk<T>(src, dst, p);                                                                                \
    }
G2G_PLANE_KERNEL(g2g_rows_1, copy_rows, uint8_t)
G2G_PLANE_KERNEL(g2g_rows_2, copy_rows, uint16_t)
G2G_PLANE_KERNEL(g2g_rows_4, copy_rows, uint32_t)
G2G_PLANE_KERNEL(g2g_transposed_1, copy_transposed, uint8_t)
G2G_PLANE_KERNEL(g2g_transposed_2, copy_transposed, uint16_t)
G2G_PLANE_KERNEL(g2g_transposed_4, copy_transposed, uint32_t)
#undef G2G_PLANE_KERNEL

// Any element size, any steps: one element per thread, byte by byte.
__global__ void g2g_gather(const uint8_t *src, uint8_t *dst, PlaneCopy p)
{
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height)
        return;
    const uint8_t *from = source_of(src, p, x, y);
    uint8_t *to = destination_of(dst, p, x, y, p.element);
    for (unsigned int i = 0; i < p.element; ++i)
        to[i] = from[i];
}

} // extern "C"
