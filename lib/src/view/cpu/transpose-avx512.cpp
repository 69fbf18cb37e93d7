// SPDX-License-Identifier: LGPL-2.1-or-later
// Transposed walks with AVX-512 (F, BW, VBMI): every view row is written one whole 64-byte line
// at a time, and large frames are streamed past the caches with full-line non-temporal stores.
//
// Why this shape: a transpose has no store locality (each output line belongs to another row),
// so with ordinary stores every line of the output is first read from memory (read for
// ownership) at an address no prefetcher can guess. A full-line non-temporal store skips that
// read; a partial one would cost a read-modify-write in memory instead. So each tile is the
// 64 bytes of one output line across a band of view rows. When all rows share their alignment
// (a stride that is a multiple of 64), a shorter first tile puts every later piece on a line;
// otherwise (e.g. 2160-byte NV12 rows) each row is re-aligned through a carry: the line
// straddling two tiles is written once, when its second half is known.
#include "transpose-private.h"

// GCC 12's AVX-512 intrinsics build their "undefined" operands by self-initialisation, which
// its own -Wmaybe-uninitialized then reports inside the headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "register-transpose-private.h"
#include "simd-private.h"

#define G2G_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))

namespace g2g::detail {
namespace {

constexpr unsigned kLine = 64;
// View rows per band: the tile's source rows are read in runs of kBand elements, and the
// band's carries stay in L2 (kBand x 64 bytes). A tile has 64 / E source rows, each a stream
// to prefetch. 2048 elements (32 lines of a 1-byte row), one tile a step, against 512 crossed
// two tiles a step: RGBA rotations 1.1-1.2x faster on the H200's Intel host (bench-view); NV12
// rotations there 1.03-1.05x and on the development VM up to 1.17x faster in same-process
// comparisons of the kernels, though within that VM's noise (either way) in as many others.
constexpr std::uint32_t kBand = 2048;
// Runs: the tiles a step crosses before the next step. One at ordinary strides: with 2048-row
// bands, two tiles a step (twice the streams) are slower, as are longer runs. Rows a multiple
// of 1024 bytes apart are the exception: their lines all fall on a few cache sets and memory
// banks, and one or two lines per row per visit crawl. Such rows share their offset into a line
// (no carries), and runs of tiles transposed first and then written row by row, a few lines in
// a row each, cut bench-view's NV12 90r into 2048-byte rows from 2.2 ms to about 1 ms; row by
// row is slower at other strides. Four tiles a run in 2048-row bands, against eight in 512-row
// bands (same-process comparisons of 90r of 3840x2048 / 4096x2048 NV12, frames cached or from a
// pool): 1.03-1.12x / 1.14-1.18x faster on the H200's Intel host, 0.95-1.13x / 1.05-1.2x on the
// development VM. Two tiles a run are faster still on the Intel host (1.2-1.35x) but up to 1.4x
// slower on the VM; eight in 2048-row bands gain only on the VM.
constexpr unsigned kRun = 1;
constexpr unsigned kLongRun = 4;
constexpr std::int64_t kSetAliasingStride = 1024;

// out[l] = lane l of a, b, c and d.
G2G_AVX512 __attribute__((always_inline)) inline void lanes4x4(__m512i a, __m512i b, __m512i c, __m512i d,
                                                               __m512i out[4])
{
    const __m512i ab_low = _mm512_shuffle_i32x4(a, b, 0x44), ab_high = _mm512_shuffle_i32x4(a, b, 0xEE);
    const __m512i cd_low = _mm512_shuffle_i32x4(c, d, 0x44), cd_high = _mm512_shuffle_i32x4(c, d, 0xEE);
    out[0] = _mm512_shuffle_i32x4(ab_low, cd_low, 0x88);
    out[1] = _mm512_shuffle_i32x4(ab_low, cd_low, 0xDD);
    out[2] = _mm512_shuffle_i32x4(ab_high, cd_high, 0x88);
    out[3] = _mm512_shuffle_i32x4(ab_high, cd_high, 0xDD);
}

// The unpacks of 512-bit vectors of E-byte elements: lo and hi (E = 1, 2); for the rounds of
// 4-byte elements, dwords and qwords (lo32 ... hi64).
template <unsigned E> struct Unpack512 {
    G2G_AVX512 static void lo(const __m512i &a, const __m512i &b, __m512i &out)
    {
        if constexpr (E == 1)
            out = _mm512_unpacklo_epi8(a, b);
        else
            out = _mm512_unpacklo_epi16(a, b);
    }
    G2G_AVX512 static void hi(const __m512i &a, const __m512i &b, __m512i &out)
    {
        if constexpr (E == 1)
            out = _mm512_unpackhi_epi8(a, b);
        else
            out = _mm512_unpackhi_epi16(a, b);
    }
    G2G_AVX512 static void lo32(const __m512i &a, const __m512i &b, __m512i &out)
    {
        out = _mm512_unpacklo_epi32(a, b);
    }
    G2G_AVX512 static void hi32(const __m512i &a, const __m512i &b, __m512i &out)
    {
        out = _mm512_unpackhi_epi32(a, b);
    }
    G2G_AVX512 static void lo64(const __m512i &a, const __m512i &b, __m512i &out)
    {
        out = _mm512_unpacklo_epi64(a, b);
    }
    G2G_AVX512 static void hi64(const __m512i &a, const __m512i &b, __m512i &out)
    {
        out = _mm512_unpackhi_epi64(a, b);
    }
};

// 16 x 16 elements of 4 bytes: unpacks within 128-bit lanes, then whole lanes moved.
G2G_AVX512 __attribute__((always_inline)) inline void transpose16x16_u32(__m512i r[16])
{
    __m512i u[16];
    dword_qword_rounds<16, __m512i, Unpack512<4>>(r, u);
#pragma GCC unroll 4
    for (int m = 0; m < 4; ++m) {
        __m512i column[4];
        lanes4x4(u[m], u[4 + m], u[8 + m], u[12 + m], column);
#pragma GCC unroll 4
        for (int l = 0; l < 4; ++l)
            r[4 * l + m] = column[l];
    }
}

// Four N x N blocks (N = 16 / E) per vector, each transposed within its 128-bit lane; E = 1 or 2.
// Bytes too by unpacks alone: on the development VM's Zen 5 in-lane unpacks issue four a cycle,
// the qword shifts that swapped bytes within qwords before only two (NV12 rotations 1.04x faster
// in same-process comparisons; with each group's rows kept in registers, see tiles(), 1.07-1.12x
// faster than before both, and 1.0-1.06x on the H200's Intel host).
template <unsigned E>
G2G_AVX512 __attribute__((always_inline)) inline void transpose_in_lanes(__m512i r[16 / E])
{
    transpose_rounds<16 / E, __m512i, Unpack512<E>>(r);
}

// The 64 bytes at p, with a prefetch of the line two steps further (steps walk every source
// row upwards, see tiles()).
G2G_AVX512 __attribute__((always_inline)) inline __m512i load_ahead(const std::uint8_t *p)
{
    _mm_prefetch(reinterpret_cast<const char *>(p + 2 * kLine), _MM_HINT_T0);
    return _mm512_loadu_si512(p);
}

// The first `bytes` bytes of a 64-byte vector, as a byte mask.
inline __mmask64 first_bytes(unsigned bytes)
{
    return bytes >= kLine ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1;
}

// The vpermt2b indices that join a row's carry and its next piece into the line at the piece's
// address p - m (m = p % 64): byte i of the line is byte i + 64 - m of [carry | piece]. A table
// (4 KiB, in L1 while a transpose runs) because m changes from row to row at most strides, and
// one load costs less than building the indices per piece (a broadcast and an add): NV12
// rotations 1.05-1.08x faster in same-process comparisons on the development VM.
struct LineJoin {
    alignas(64) std::uint8_t from[kLine][kLine];
    constexpr LineJoin() : from{}
    {
        for (unsigned m = 0; m < kLine; ++m)
            for (unsigned i = 0; i < kLine; ++i)
                from[m][i] = static_cast<std::uint8_t>(i + kLine - m);
    }
};
constexpr LineJoin kLineJoin{};

// Writes view rows one 64-byte piece at a time, left to right within a band.
// Cached: plain stores. Streamed: whole aligned lines only, through the row's carry (the
// previous piece), as described at the top of this file.
template <bool Stream> struct RowWriter {
    alignas(64) std::uint8_t carry[Stream ? kBand : 1][kLine];

    // The first `bytes` bytes of `piece` go to p, the row's bytes from x * E; `first`: the
    // band's first piece of the row. Only the row's last piece may be short.
    G2G_AVX512 __attribute__((always_inline)) void put(std::uint32_t band_row, std::uint8_t *p, __m512i piece,
                                                       bool first, unsigned bytes)
    {
        if (bytes < kLine) {
            if (!first)
                finish(band_row, p);
            _mm512_mask_storeu_epi8(p, first_bytes(bytes), piece);
            return;
        }
        if constexpr (!Stream) {
            _mm512_storeu_si512(p, piece);
        } else {
            const unsigned m = reinterpret_cast<std::uintptr_t>(p) % kLine;
            if (m == 0) {
                _mm512_stream_si512(reinterpret_cast<__m512i *>(p), piece);
                return;
            }
            void *slot = carry[band_row];
            if (first) {
                // The line's head belongs to bytes before the row: a plain store of our part.
                _mm512_mask_storeu_epi8(p, ~0ull >> m, piece);
            } else {
                // [carry's last m bytes | piece's first 64 - m bytes] is the whole line at p - m.
                const __m512i from = _mm512_load_si512(kLineJoin.from[m]);
                const __m512i line = _mm512_permutex2var_epi8(_mm512_load_si512(slot), from, piece);
                _mm512_stream_si512(reinterpret_cast<__m512i *>(p - m), line);
            }
            _mm512_store_si512(slot, piece);
        }
    }

    // After the last whole piece of a row, which ended at `end`: the carried tail of the line
    // that straddles `end` (the rest of that line is the row's end or beyond it).
    G2G_AVX512 __attribute__((always_inline)) void finish(std::uint32_t band_row, std::uint8_t *end)
    {
        if constexpr (Stream) {
            const unsigned m = reinterpret_cast<std::uintptr_t>(end) % kLine;
            if (m != 0)
                _mm512_mask_storeu_epi8(end - kLine, ~0ull << (kLine - m),
                                        _mm512_load_si512(carry[band_row]));
        }
    }
};

// A transpose's carries and held tiles. Not zeroed: every carry and held tile is written before
// it is read.
template <unsigned E, bool Stream> struct Workspace {
    RowWriter<Stream> writer;
    // Row by row: the run's transposed tiles (E < 4: groups as in tiles(); E = 4: the pieces).
    alignas(64) __m512i held[kLongRun][4][E == 4 ? 4 : 16 / E];
};

// This thread's workspace, allocated at its first transpose and kept: a streaming thread
// transposes a plane per frame for as long as its pipeline runs, and the carries of a band
// (kBand lines, 128 KiB) are more than a small thread stack should hold.
template <unsigned E, bool Stream> Workspace<E, Stream> &thread_workspace()
{
    thread_local const std::unique_ptr<Workspace<E, Stream>> workspace =
        std::make_unique_for_overwrite<Workspace<E, Stream>>();
    return *workspace;
}

// Whether whole steps of 1- and 2-byte elements place their 128-bit lanes at load time
// (lane_placed_step) rather than transposing them in registers: NV12 rotations 1.05-1.1x faster
// that way on the H200's Intel host (Xeon), 1.05x slower on the development VM's AMD EPYC (Zen
// 5), in same-process comparisons of the kernels. So only on Intel's CPUs, unless
// G2G_TRANSPOSE_LANES says "load" or "registers" (how the tests cover both on any machine).
inline bool places_lanes_at_load()
{
    static const bool at_load = [] {
        const char *choice = std::getenv("G2G_TRANSPOSE_LANES");
        if (choice && std::string_view(choice) == "load")
            return true;
        if (choice && std::string_view(choice) == "registers")
            return false;
        return __builtin_cpu_is("intel") != 0;
    }();
    return at_load;
}

// A whole step of 1- or 2-byte elements (N = 16 / E source rows per lane) from the tile's source
// row `src` on (rows `col` bytes apart), its lanes placed at load time: lane g of x[i] is the 16
// bytes at 16 s of source row i + N g (a masked broadcast is a load and a blend, no shuffle), and
// an in-lane N x N transpose then leaves N whole pieces, put(position, piece): no lane
// transposes, no round trip of groups through memory.
template <unsigned E, typename Put>
G2G_AVX512 __attribute__((always_inline)) inline void lane_placed_step(const std::uint8_t *src,
                                                                       std::int64_t col, Put &put)
{
    constexpr unsigned N = 16 / E;
#pragma GCC unroll 16
    for (unsigned i = 0; i < 4 * N; ++i)
        _mm_prefetch(reinterpret_cast<const char *>(src + i * col + 2 * kLine), _MM_HINT_T0);
#pragma GCC unroll 1
    for (unsigned s = 0; s < 4; ++s) {
        __m512i x[N];
        const std::uint8_t *row = src + 16 * s;
#pragma GCC unroll 16
        for (unsigned i = 0; i < N; ++i, row += col) {
            auto lane = [&](unsigned g) {
                return _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + g * N * col));
            };
            const __m512i v = _mm512_mask_broadcast_i32x4(
                _mm512_mask_broadcast_i32x4(_mm512_broadcast_i32x4(lane(0)), 0x00F0, lane(1)), 0x0F00,
                lane(2));
            x[i] = _mm512_mask_broadcast_i32x4(v, 0xF000, lane(3));
        }
        transpose_in_lanes<E>(x);
#pragma GCC unroll 16
        for (unsigned j = 0; j < N; ++j)
            put(N * s + j, x[j]);
    }
}

// View rows to take as a first, short band so that every later step's 64-byte loads start on
// a source line (a load across two lines costs two): possible when all source rows share their
// alignment, i.e. the source stride is a multiple of 64 (4K and most decoder strides).
template <unsigned E> std::uint32_t aligning_lead(const std::uint8_t *base, const Grid<std::int64_t> &g)
{
    if (g.col % kLine != 0)
        return 0;
    const auto first = reinterpret_cast<std::uintptr_t>(base + g.at(0, 0));
    // Ascending, the next step must start on a line; descending, the current one must end there.
    const unsigned misaligned = g.row < 0 ? (first + E) % kLine : (kLine - first % kLine) % kLine;
    return misaligned % E == 0 ? std::min<std::uint32_t>(misaligned / E, g.height) : 0;
}

// Columns to take off the first tile so that every later tile's pieces start on an output
// line: possible when all output rows share their alignment (a stride that is a multiple of
// 64, e.g. a 4K RGBA rotation's 8640 bytes). The rows then need no carry.
template <unsigned E> std::uint32_t aligning_shift(const std::uint8_t *dst, std::int64_t dst_stride)
{
    const unsigned misaligned = reinterpret_cast<std::uintptr_t>(dst) % kLine;
    return dst_stride % kLine == 0 && misaligned % E == 0 ? misaligned / E : 0;
}

// Tiles of kBand view rows x 64 bytes (one output line of each row), crossed in runs (see kRun).
// A step reads 64 bytes down each of the tile's source rows (the view's columns: `col` bytes
// apart) and yields the pieces of R view rows; the steps of a run's tiles alternate. Loads are
// in memory order: element p of a load is view row y0 + p, or y0 + R - 1 - p when the view
// walks the source backwards (Descending), and the transposed rows are then written in reverse
// order instead of shuffling each load back; such a view also takes a band's steps last to
// first, so that every source row is read upwards.
template <unsigned E, bool Stream, bool Descending>
G2G_AVX512 void tiles(const std::uint8_t *base, const Grid<std::int64_t> &g, std::uint8_t *dst,
                      std::int64_t dst_stride)
{
    constexpr std::uint32_t C = kLine / E;               // view columns per tile
    constexpr std::uint32_t R = E == 4 ? 16 : kLine / E; // view rows per step
    constexpr std::uint32_t N = 16 / E;                  // source rows per group (E < 4)
    const std::int64_t col = g.col;
    Workspace<E, Stream> &workspace = thread_workspace<E, Stream>();
    RowWriter<Stream> &writer = workspace.writer;
    auto &held = workspace.held;
    // E < 4: the transposed groups, whole; a view row's piece is one lane of four of them.
    alignas(64) __m512i groups[4][N];
    // (Row by row only where the rows' shared offset is one the first tile takes off: no carries,
    // which would be reloaded right after they are stored.)
    const bool row_by_row =
        dst_stride % kSetAliasingStride == 0 && reinterpret_cast<std::uintptr_t>(dst) % E == 0;
    const unsigned run_length = row_by_row ? kLongRun : kRun;
    const std::uint32_t lead = aligning_lead<E>(base, g);
    const bool lanes_at_load = places_lanes_at_load();
    const std::uint32_t first_tile = C - aligning_shift<E>(dst, dst_stride);
    // Writes the held tiles [starts[0], starts[count]) of the step at y0 (in the band from ty), row
    // by row.
    auto write_row_by_row = [&](std::uint32_t ty, std::uint32_t y0, unsigned rows,
                                const std::uint32_t *starts, unsigned count) G2G_AVX512 {
        auto put = [&](unsigned k, unsigned position, __m512i piece) G2G_AVX512 {
            const unsigned v = Descending ? R - 1 - position : position;
            if (v < rows)
                writer.put(y0 + v - ty, dst + (y0 + v) * dst_stride + starts[k] * E, piece, starts[k] == 0,
                           (starts[k + 1] - starts[k]) * E);
        };
        if constexpr (E == 4) {
            for (unsigned p = 0; p < 16; ++p)
                for (unsigned k = 0; k < count; ++k)
                    put(k, p, held[k][p / 4][p % 4]);
            return;
        }
        for (unsigned j = 0; j < N; ++j) {
            __m512i piece[kLongRun][4];
            for (unsigned k = 0; k < count; ++k)
                lanes4x4(held[k][0][j], held[k][1][j], held[k][2][j], held[k][3][j], piece[k]);
            for (unsigned l = 0; l < 4; ++l)
                for (unsigned k = 0; k < count; ++k)
                    put(k, N * l + j, piece[k][l]);
        }
    };
    for (std::uint32_t ty = 0, band_end = 0; ty < g.height; ty = band_end) {
        band_end = std::min(g.height, ty == 0 && lead ? lead : ty + kBand);
        for (std::uint32_t run_x = 0, run_end = 0; run_x < g.width; run_x = run_end) {
            // The run's tiles: [starts[k], starts[k + 1]).
            std::uint32_t starts[kLongRun + 1] = {run_x};
            unsigned count = 0;
            for (; count < run_length && starts[count] < g.width; ++count)
                starts[count + 1] = std::min(g.width, starts[count] == 0 ? first_tile : starts[count] + C);
            run_end = starts[count];
            // Steps in the order that walks the source upwards: a view walking it backwards
            // (Descending) takes its steps last to first. Descending streams are prefetched
            // worse: NV12 90l 1.1x and, from a frame pool, 1.2x faster this way on the H200's
            // Intel host than stepping down the band (no change on the development VM).
            const std::uint32_t steps = (band_end - ty + R - 1) / R;
            for (std::uint32_t s = 0; s < steps; ++s) {
                const std::uint32_t y0 = ty + (Descending ? steps - 1 - s : s) * R;
                const unsigned rows = std::min(R, band_end - y0);
                for (unsigned k = 0; k < count; ++k) {
                    const std::uint32_t tx = starts[k], cols = starts[k + 1] - tx;
                    // Source row tx (its step's lowest address), and view row y0 of the output.
                    const std::uint8_t *src = base + g.at(tx, Descending ? y0 + R - 1 : y0);
                    std::uint8_t *out = dst + y0 * dst_stride + tx * E;
                    const bool first = tx == 0;
                    // Whole: every load and piece complete (all but the edges), with no test inside.
                    // Held: the tile is kept in `held` for row by row instead of written.
                    auto step = [&]<bool Whole, bool Held>() G2G_AVX512 {
                        const __mmask64 valid = Whole        ? ~__mmask64{0}
                                                : Descending ? ~0ull << (kLine - rows * E)
                                                             : first_bytes(rows * E);
                        auto load = [&](unsigned i) G2G_AVX512 {
                            const std::uint8_t *p = src + i * col;
                            if constexpr (Whole)
                                return load_ahead(p);
                            return i < cols ? _mm512_maskz_loadu_epi8(valid, p) : _mm512_setzero_si512();
                        };
                        auto put = [&](unsigned position, __m512i piece) G2G_AVX512 {
                            const unsigned v = Descending ? R - 1 - position : position;
                            if (Whole || v < rows)
                                writer.put(y0 + v - ty, out + v * dst_stride, piece, first,
                                           Whole ? kLine : cols * E);
                        };
                        if constexpr (E == 4) {
                            __m512i r[16];
#pragma GCC unroll 16
                            for (unsigned i = 0; i < 16; ++i)
                                r[i] = load(i);
                            transpose16x16_u32(r);
#pragma GCC unroll 16
                            for (unsigned p = 0; p < 16; ++p) {
                                if constexpr (Held)
                                    held[k][p / 4][p % 4] = r[p];
                                else
                                    put(p, r[p]);
                            }
                        } else {
                            if constexpr (Whole && !Held) {
                                if (lanes_at_load) {
                                    lane_placed_step<E>(src, col, put);
                                    return;
                                }
                            }
                            // Four groups of N whole source rows (edges, held tiles, and whole steps
                            // elsewhere); lane l of tile[group][j] is position N l + j.
                            auto &tile = Held ? held[k] : groups;
#pragma GCC unroll 4
                            for (unsigned group = 0; group < 4; ++group) {
                                // A local array the compiler keeps in registers, stored once when
                                // transposed (loaded into `tile` itself, each row is stored twice).
                                __m512i r[N];
#pragma GCC unroll 16
                                for (unsigned i = 0; i < N; ++i)
                                    r[i] = load(N * group + i);
                                transpose_in_lanes<E>(r);
#pragma GCC unroll 16
                                for (unsigned i = 0; i < N; ++i)
                                    tile[group][i] = r[i];
                            }
                            if constexpr (Held)
                                return;
                                // A 4 x 4 transpose of 128-bit lanes over the groups: four positions' pieces.
#pragma GCC unroll 2
                            for (unsigned j = 0; j < N; ++j) {
                                __m512i piece[4];
                                lanes4x4(groups[0][j], groups[1][j], groups[2][j], groups[3][j], piece);
#pragma GCC unroll 4
                                for (unsigned l = 0; l < 4; ++l)
                                    put(N * l + j, piece[l]);
                            }
                        }
                    };
                    const bool whole = cols == C && rows == R;
                    if (row_by_row && whole)
                        step.template operator()<true, true>();
                    else if (row_by_row)
                        step.template operator()<false, true>();
                    else if (whole)
                        step.template operator()<true, false>();
                    else
                        step.template operator()<false, false>();
                }
                if (row_by_row)
                    write_row_by_row(ty, y0, rows, starts, count);
            }
        }
        if (g.width < first_tile || (g.width - first_tile) % C == 0) {
            for (std::uint32_t y = ty; y < band_end; ++y)
                writer.finish(y - ty, dst + y * dst_stride + g.width * E);
        }
    }
    if constexpr (Stream)
        _mm_sfence();
}

} // namespace

template <unsigned E>
void transpose_avx512(const std::uint8_t *base, const Grid<std::int64_t> &grid, std::uint8_t *dst,
                      std::int64_t dst_stride, bool stream)
{
    const bool descending = grid.row < 0;
    if (stream && descending)
        tiles<E, true, true>(base, grid, dst, dst_stride);
    else if (stream)
        tiles<E, true, false>(base, grid, dst, dst_stride);
    else if (descending)
        tiles<E, false, true>(base, grid, dst, dst_stride);
    else
        tiles<E, false, false>(base, grid, dst, dst_stride);
}

template void transpose_avx512<1>(const std::uint8_t *, const Grid<std::int64_t> &, std::uint8_t *,
                                  std::int64_t, bool);
template void transpose_avx512<2>(const std::uint8_t *, const Grid<std::int64_t> &, std::uint8_t *,
                                  std::int64_t, bool);
template void transpose_avx512<4>(const std::uint8_t *, const Grid<std::int64_t> &, std::uint8_t *,
                                  std::int64_t, bool);

} // namespace g2g::detail
