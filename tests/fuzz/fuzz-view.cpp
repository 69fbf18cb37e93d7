// SPDX-License-Identifier: LGPL-2.1-or-later
// Fuzz target: frame views of random frames. The input chooses a format (mostly one a view can
// describe, sometimes any raw format), a size from 1x1 up, a memory layout (the caps' own, or a
// GstVideoMeta with its own size, strides and offsets), a buffer size and how its bytes are split
// into memories, a GstVideoCropMeta, then a chain of orientations and crops.
//
// Oracle: a view is either refused with an error, or it materializes to exactly what a plain
// per-element reference written here computes (each output element traced back through the
// chain, with each plane's own geometry, to the source byte it copies), and neither the view nor
// the reference reads outside the memory that holds the plane. Every memory is an exact-size
// allocation, so any read past it is an AddressSanitizer report. A frame laid out as its caps
// say (or a video meta that fits its memory) must not be refused.
#include <g2g/frame-view.h>

#include <gst/video/video.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz-input.h"
#include "fuzz-main.h"
#include "view/frame-view-private.h"

namespace {

using g2g::FrameView;
using g2g::fuzz::FuzzInput;

[[noreturn]] void fail(const std::string &what, const std::string &steps)
{
    std::fprintf(stderr, "fuzz-view: %s\n  frame and steps: %s\n", what.c_str(), steps.c_str());
    std::abort();
}

std::uint8_t pattern_byte(std::uint32_t seed, std::size_t index)
{
    std::uint64_t z = (static_cast<std::uint64_t>(seed) << 32) + index + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<std::uint8_t>(z ^ (z >> 31));
}

// One step of the chain, with what the reference needs to trace a coordinate back through it.
struct Step {
    bool is_crop = false;
    GstVideoOrientationMethod method = GST_VIDEO_ORIENTATION_IDENTITY;
    std::uint32_t x = 0, y = 0, w = 0, h = 0; // the crop, in pixels
};

// A plane's geometry before a step: its size in elements and its subsampling along x and y.
struct PlaneDims {
    std::int64_t w = 0, h = 0;
    unsigned ws = 0, hs = 0;
};

bool transposes(GstVideoOrientationMethod m)
{
    return m == GST_VIDEO_ORIENTATION_90R || m == GST_VIDEO_ORIENTATION_90L ||
           m == GST_VIDEO_ORIENTATION_UL_LR || m == GST_VIDEO_ORIENTATION_UR_LL;
}

PlaneDims after(const PlaneDims &d, const Step &s)
{
    PlaneDims out = d;
    if (s.is_crop) {
        out.w = GST_VIDEO_SUB_SCALE(d.ws, s.w);
        out.h = GST_VIDEO_SUB_SCALE(d.hs, s.h);
    } else if (transposes(s.method)) {
        std::swap(out.w, out.h);
        std::swap(out.ws, out.hs);
    }
    return out;
}

// Where element (x, y) after step `s` was before it (plane size before the step: d).
void trace_back(const Step &s, const PlaneDims &d, std::int64_t &x, std::int64_t &y)
{
    if (s.is_crop) {
        x += s.x >> d.ws;
        y += s.y >> d.hs;
        return;
    }
    const std::int64_t W = d.w, H = d.h, ox = x, oy = y;
    switch (s.method) {
    case GST_VIDEO_ORIENTATION_90R:
        x = oy;
        y = H - 1 - ox;
        break;
    case GST_VIDEO_ORIENTATION_90L:
        x = W - 1 - oy;
        y = ox;
        break;
    case GST_VIDEO_ORIENTATION_180:
        x = W - 1 - ox;
        y = H - 1 - oy;
        break;
    case GST_VIDEO_ORIENTATION_HORIZ:
        x = W - 1 - ox;
        break;
    case GST_VIDEO_ORIENTATION_VERT:
        y = H - 1 - oy;
        break;
    case GST_VIDEO_ORIENTATION_UL_LR:
        x = oy;
        y = ox;
        break;
    case GST_VIDEO_ORIENTATION_UR_LL:
        x = W - 1 - oy;
        y = H - 1 - ox;
        break;
    default:
        break;
    }
}

// A plane's geometry before each step (dims[i] is before steps[i]; dims.back() is the result).
std::vector<PlaneDims> dims_through(PlaneDims source, const std::vector<Step> &steps)
{
    std::vector<PlaneDims> dims{source};
    for (const Step &s : steps)
        dims.push_back(after(dims.back(), s));
    return dims;
}

void trace_to_source(const std::vector<Step> &steps, const std::vector<PlaneDims> &dims, std::int64_t &x,
                     std::int64_t &y)
{
    for (std::size_t i = steps.size(); i-- > 0;)
        trace_back(steps[i], dims[i], x, y);
}

// The source frame: its bytes (all memories, in order), where each memory starts, and the
// layout of each plane in it.
struct Source {
    std::vector<std::uint8_t> bytes;
    std::vector<std::size_t> memory_starts; // plus the end, as the last entry
    gsize offset[GST_VIDEO_MAX_PLANES] = {};
    gint stride[GST_VIDEO_MAX_PLANES] = {};
    GstVideoInfo layout{}; // format and size of the memory's frame (the video meta's when it has one)

    // The memory holding byte `at`, or -1.
    int memory_of(std::int64_t at) const
    {
        for (std::size_t m = 0; m + 1 < memory_starts.size(); ++m) {
            if (at >= static_cast<std::int64_t>(memory_starts[m]) &&
                at < static_cast<std::int64_t>(memory_starts[m + 1]))
                return static_cast<int>(m);
        }
        return -1;
    }
    // True when bytes [at, at + n) are in memory m.
    bool inside(int m, std::int64_t at, std::int64_t n) const
    {
        return m >= 0 && at >= static_cast<std::int64_t>(memory_starts[m]) &&
               at + n <= static_cast<std::int64_t>(memory_starts[m + 1]);
    }
};

guint first_component(const GstVideoFormatInfo *finfo, guint p)
{
    for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++c) {
        if (GST_VIDEO_FORMAT_INFO_PLANE(finfo, c) == p)
            return c;
    }
    return 0;
}

// Bytes a plane's rows span from its offset: what a view of the whole frame reads.
std::int64_t plane_row_bytes(const GstVideoInfo &layout, guint p)
{
    const GstVideoFormatInfo *finfo = layout.finfo;
    if (g2g::detail::is_packed_422(GST_VIDEO_INFO_FORMAT(&layout)))
        return (GST_VIDEO_INFO_WIDTH(&layout) + 1) / 2 * 4;
    const guint c = first_component(finfo, p);
    return static_cast<std::int64_t>(GST_VIDEO_INFO_COMP_WIDTH(&layout, c)) *
           GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c);
}

guint plane_rows(const GstVideoInfo &layout, guint p)
{
    return GST_VIDEO_INFO_COMP_HEIGHT(&layout, first_component(layout.finfo, p));
}

// True when every row of every plane lies in one memory and rows do not overlap (a stride at least
// a row long, as FrameView::of_frame requires of a plane of several rows): a frame that must be
// accepted.
bool fits_its_memory(const Source &src)
{
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&src.layout); ++p) {
        const bool several_rows = plane_rows(src.layout, p) > 1;
        if (several_rows &&
            (src.stride[p] < 0 || src.stride[p] < static_cast<std::int64_t>(plane_row_bytes(src.layout, p))))
            return false;
        const std::int64_t start = static_cast<std::int64_t>(src.offset[p]);
        const int m = src.memory_of(start);
        const std::int64_t span = static_cast<std::int64_t>(src.stride[p]) * (plane_rows(src.layout, p) - 1) +
                                  plane_row_bytes(src.layout, p);
        if (start < 0 || !src.inside(m, start, span))
            return false;
    }
    return true;
}

// The reference for a planar, semi-planar or packed (not 4:2:2) format: each plane of the
// dense output, element by element, traced back to its source element.
void check_planes(const FrameView &view, const Source &src, const std::vector<Step> &steps, const guint8 *out,
                  const GstVideoInfo &out_info, const std::string &what)
{
    const GstVideoFormatInfo *finfo = src.layout.finfo;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&src.layout); ++p) {
        const guint c = first_component(finfo, p);
        const std::int64_t e = GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c);
        const PlaneDims source{GST_VIDEO_INFO_COMP_WIDTH(&src.layout, c),
                               GST_VIDEO_INFO_COMP_HEIGHT(&src.layout, c),
                               GST_VIDEO_FORMAT_INFO_W_SUB(finfo, c), GST_VIDEO_FORMAT_INFO_H_SUB(finfo, c)};
        const std::vector<PlaneDims> dims = dims_through(source, steps);
        const PlaneDims &result = dims.back();
        if (result.w != GST_VIDEO_INFO_COMP_WIDTH(&out_info, c) ||
            result.h != GST_VIDEO_INFO_COMP_HEIGHT(&out_info, c))
            fail("plane " + std::to_string(p) + " of the view is " +
                     std::to_string(GST_VIDEO_INFO_COMP_WIDTH(&out_info, c)) + "x" +
                     std::to_string(GST_VIDEO_INFO_COMP_HEIGHT(&out_info, c)) + ", the reference's " +
                     std::to_string(result.w) + "x" + std::to_string(result.h),
                 what);
        const std::int64_t start = static_cast<std::int64_t>(src.offset[p]);
        const int memory = src.memory_of(start);
        for (std::int64_t y = 0; y < result.h; ++y) {
            for (std::int64_t x = 0; x < result.w; ++x) {
                std::int64_t sx = x, sy = y;
                trace_to_source(steps, dims, sx, sy);
                const std::int64_t at = start + sy * src.stride[p] + sx * e;
                if (!src.inside(memory, at, e))
                    fail("the view was accepted but plane " + std::to_string(p) + " element " +
                             std::to_string(x) + "," + std::to_string(y) + " reads bytes " +
                             std::to_string(at) + ".." + std::to_string(at + e) + " outside its memory",
                         what);
                const guint8 *got = out + GST_VIDEO_INFO_PLANE_OFFSET(&out_info, p) +
                                    y * GST_VIDEO_INFO_PLANE_STRIDE(&out_info, p) + x * e;
                if (std::memcmp(got, &src.bytes[at], e) != 0)
                    fail("plane " + std::to_string(p) + " element " + std::to_string(x) + "," +
                             std::to_string(y) + " differs from source element " + std::to_string(sx) + "," +
                             std::to_string(sy),
                         what);
            }
        }
    }
    (void)view;
}

// The reference for packed 4:2:2 (YUY2, UYVY, YVYU): each pixel's luma from its source pixel;
// each macropixel's chroma from the source macropixel of its even pixel, averaged with its odd
// pixel's when the two come from different source rows (a transposing chain), as videoflip does.
// The luma slot of an odd-width row's padding pixel is not compared (its content is not settled).
void check_packed_422(const Source &src, const std::vector<Step> &steps, const guint8 *out,
                      const GstVideoInfo &out_info, const std::string &what)
{
    const GstVideoFormatInfo *finfo = src.layout.finfo;
    const unsigned y_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 0);
    const unsigned u_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 1);
    const unsigned v_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 2);
    const PlaneDims source{GST_VIDEO_INFO_WIDTH(&src.layout), GST_VIDEO_INFO_HEIGHT(&src.layout), 0, 0};
    const std::vector<PlaneDims> dims = dims_through(source, steps);
    const PlaneDims &result = dims.back();
    if (result.w != GST_VIDEO_INFO_WIDTH(&out_info) || result.h != GST_VIDEO_INFO_HEIGHT(&out_info))
        fail("the view is " + std::to_string(GST_VIDEO_INFO_WIDTH(&out_info)) + "x" +
                 std::to_string(GST_VIDEO_INFO_HEIGHT(&out_info)) + ", the reference's " +
                 std::to_string(result.w) + "x" + std::to_string(result.h),
             what);
    const std::int64_t start = static_cast<std::int64_t>(src.offset[0]);
    const int memory = src.memory_of(start);
    auto source_pixel = [&](std::int64_t x, std::int64_t y) {
        trace_to_source(steps, dims, x, y);
        const std::int64_t macropixel = start + y * src.stride[0] + (x & ~std::int64_t{1}) * 2;
        if (!src.inside(memory, macropixel, 4))
            fail("the view was accepted but source pixel " + std::to_string(x) + "," + std::to_string(y) +
                     " lies outside its memory",
                 what);
        return std::pair{y, macropixel};
    };
    const gint out_stride = GST_VIDEO_INFO_PLANE_STRIDE(&out_info, 0);
    for (std::int64_t y = 0; y < result.h; ++y) {
        const guint8 *row = out + GST_VIDEO_INFO_PLANE_OFFSET(&out_info, 0) + y * out_stride;
        for (std::int64_t x = 0; x < result.w; x += 2) {
            const auto [row0, m0] = source_pixel(x, y);
            std::int64_t sx = x, sy = y;
            trace_to_source(steps, dims, sx, sy);
            const std::uint8_t luma0 = src.bytes[start + sy * src.stride[0] + sx * 2 + y_off];
            unsigned u = src.bytes[m0 + u_off], v = src.bytes[m0 + v_off];
            const bool pair = x + 1 < result.w;
            if (pair) {
                const auto [row1, m1] = source_pixel(x + 1, y);
                if (row1 != row0) {
                    u = (u + src.bytes[m1 + u_off]) >> 1;
                    v = (v + src.bytes[m1 + v_off]) >> 1;
                }
                std::int64_t tx = x + 1, ty = y;
                trace_to_source(steps, dims, tx, ty);
                const std::uint8_t luma1 = src.bytes[start + ty * src.stride[0] + tx * 2 + y_off];
                if (row[x * 2 + y_off + 2] != luma1)
                    fail("the luma of pixel " + std::to_string(x + 1) + "," + std::to_string(y) + " differs",
                         what);
            }
            const guint8 *o = row + x * 2;
            if (o[y_off] != luma0 || o[u_off] != u || o[v_off] != v)
                fail("macropixel of pixel " + std::to_string(x) + "," + std::to_string(y) +
                         " differs from source pixel " + std::to_string(sx) + "," + std::to_string(sy),
                     what);
        }
    }
}

void check_materialized(const FrameView &view, const Source &src, const std::vector<Step> &steps,
                        const guint8 *out, const GstVideoInfo &out_info, const std::string &what)
{
    if (g2g::detail::is_packed_422(GST_VIDEO_INFO_FORMAT(&src.layout)))
        check_packed_422(src, steps, out, out_info, what);
    else
        check_planes(view, src, steps, out, out_info, what);
}

const char *method_name(GstVideoOrientationMethod m)
{
    static const char *names[] = {"identity", "90r",   "180",   "90l",  "horiz",
                                  "vert",     "ul-lr", "ur-ll", "auto", "custom"};
    return static_cast<unsigned>(m) < std::size(names) ? names[m] : "?";
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    g2g::fuzz::init_gstreamer(argc, argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const g2g::fuzz::FatalWarnings fatal;
    FuzzInput in(data, size);

    // The format: one a view describes, or (one input in eight) any raw format, to be refused.
    GstVideoFormat format;
    if ((in.byte() & 7) == 7) {
        guint n_raw = 0;
        const GstVideoFormat *raw = gst_video_formats_raw(&n_raw);
        format = raw[in.range(0, n_raw - 1)];
    } else {
        format = in.pick(g2g::detail::kViewFormats);
    }
    // Mostly small frames (fast, and every edge case lives there), sometimes up to 300 pixels.
    const bool large = (in.byte() & 15) == 15;
    const int width = static_cast<int>(in.range(1, large ? 300 : 40));
    const int height = static_cast<int>(in.range(1, large ? 300 : 40));
    GstVideoInfo info;
    if (!gst_video_info_set_format(&info, format, width, height))
        return 0;
    std::string what = std::string(gst_video_format_to_string(format)) + " " + std::to_string(width) + "x" +
                       std::to_string(height);

    // The memory layout: the caps' own, or a GstVideoMeta's (its own size, strides, offsets).
    Source src;
    src.layout = info;
    const bool with_meta = in.flag();
    GstVideoFormat meta_format = format;
    if (with_meta) {
        if ((in.byte() & 15) == 15)
            meta_format = in.pick(g2g::detail::kViewFormats);
        const int mw = in.flag() ? width : static_cast<int>(in.range(1, 48));
        const int mh = in.flag() ? height : static_cast<int>(in.range(1, 48));
        if (!gst_video_info_set_format(&src.layout, format, mw, mh))
            return 0;
        what += " meta " + std::string(gst_video_format_to_string(meta_format)) + " " + std::to_string(mw) +
                "x" + std::to_string(mh);
    }
    const guint n_planes = GST_VIDEO_INFO_N_PLANES(&src.layout);
    std::int64_t end = 0;
    for (guint p = 0; p < n_planes; ++p) {
        std::int64_t offset = static_cast<std::int64_t>(GST_VIDEO_INFO_PLANE_OFFSET(&src.layout, p));
        std::int64_t stride = GST_VIDEO_INFO_PLANE_STRIDE(&src.layout, p);
        if (with_meta) {
            switch (in.range(0, 3)) {
            case 0: // the default layout
                break;
            case 1: // padded rows, planes moved
                stride += in.range(0, 70);
                offset += in.range(0, 200);
                break;
            default: // anything, including rows that overlap and planes outside the buffer
                stride = in.range(-80, 400);
                offset = in.range(-8, 4000);
                break;
            }
        }
        src.offset[p] = static_cast<gsize>(offset);
        src.stride[p] = static_cast<gint>(stride);
        what += " plane" + std::to_string(p) + "@" + std::to_string(offset) + "/" + std::to_string(stride);
        if (stride >= 0)
            end = std::max(end, offset + stride * (plane_rows(src.layout, p) - 1) +
                                    plane_row_bytes(src.layout, p));
    }
    // The buffer: the size the layout needs, or a little more or less; in one to three memories.
    // (Formats a view does not describe only need to be refused: their size is not the point,
    // and some, tiled ones, say sizes in the megabytes.)
    std::int64_t buffer_size = std::max<std::int64_t>(end, GST_VIDEO_INFO_SIZE(&info));
    if (!FrameView::supports_format(format))
        buffer_size = std::min<std::int64_t>(buffer_size, 4096);
    if (in.flag())
        buffer_size = std::max<std::int64_t>(0, buffer_size + in.range(-40, 40));
    const int n_memories = static_cast<int>(in.range(1, 3));
    std::vector<std::size_t> cuts{0};
    for (int m = 1; m < n_memories; ++m)
        cuts.push_back(static_cast<std::size_t>(in.range(0, buffer_size)));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(static_cast<std::size_t>(buffer_size));
    src.memory_starts = cuts;
    const std::uint32_t seed = in.byte();
    src.bytes.resize(static_cast<std::size_t>(buffer_size));
    for (std::size_t i = 0; i < src.bytes.size(); ++i)
        src.bytes[i] = pattern_byte(seed, i);
    what += " buffer " + std::to_string(buffer_size);

    g2g::BufferRef buffer = g2g::BufferRef::adopt(gst_buffer_new());
    for (std::size_t m = 0; m + 1 < cuts.size(); ++m) {
        const std::size_t n = cuts[m + 1] - cuts[m];
        if (n == 0)
            continue;
        what += " mem" + std::to_string(cuts[m]) + "+" + std::to_string(n);
        // Exactly n bytes: one past them is an AddressSanitizer report.
        auto *bytes = static_cast<guint8 *>(g_malloc(n));
        std::memcpy(bytes, &src.bytes[cuts[m]], n);
        gst_buffer_append_memory(buffer.get(), gst_memory_new_wrapped(static_cast<GstMemoryFlags>(0), bytes,
                                                                      n, 0, n, bytes, g_free));
    }
    // Memories of zero bytes are left out: the starts that remain.
    {
        std::vector<std::size_t> starts{0};
        for (std::size_t m = 0; m + 1 < cuts.size(); ++m) {
            if (cuts[m + 1] != cuts[m])
                starts.push_back(cuts[m + 1]);
        }
        src.memory_starts = starts;
    }
    if (with_meta) {
        gst_buffer_add_video_meta_full(buffer.get(), GST_VIDEO_FRAME_FLAG_NONE, meta_format,
                                       GST_VIDEO_INFO_WIDTH(&src.layout), GST_VIDEO_INFO_HEIGHT(&src.layout),
                                       n_planes, src.offset, src.stride);
    }

    std::vector<Step> steps;
    bool crop_meta_fits = true;
    if ((in.byte() & 3) == 3) {
        Step crop{true,
                  GST_VIDEO_ORIENTATION_IDENTITY,
                  static_cast<std::uint32_t>(in.range(0, 50)),
                  static_cast<std::uint32_t>(in.range(0, 50)),
                  static_cast<std::uint32_t>(in.range(0, 50)),
                  static_cast<std::uint32_t>(in.range(0, 50))};
        GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta(buffer.get());
        meta->x = crop.x;
        meta->y = crop.y;
        meta->width = crop.w;
        meta->height = crop.h;
        what += " cropmeta " + std::to_string(crop.w) + "x" + std::to_string(crop.h) + "+" +
                std::to_string(crop.x) + "+" + std::to_string(crop.y);
        if (crop.w && crop.h) {
            crop_meta_fits =
                crop.x + crop.w <= static_cast<std::uint32_t>(GST_VIDEO_INFO_WIDTH(&src.layout)) &&
                crop.y + crop.h <= static_cast<std::uint32_t>(GST_VIDEO_INFO_HEIGHT(&src.layout));
            steps.push_back(crop);
        }
    }

    g2g::Result<FrameView> made = FrameView::of_frame(buffer.get(), info);
    const bool must_refuse = !FrameView::supports_format(format) || meta_format != format;
    const bool must_accept = !must_refuse && crop_meta_fits && fits_its_memory(src);
    if (!made) {
        if (made.error().message().empty())
            fail("the view was refused without a reason", what);
        if (must_accept)
            fail("a frame that fits its memory was refused: " + made.error().message(), what);
        return 0;
    }
    if (must_refuse)
        fail("the view of an unsupported frame was accepted", what);
    FrameView view = std::move(made.value());

    // The chain: orientations (every method, auto and custom included) and crops (in or out of
    // the current frame).
    std::uint32_t w = static_cast<std::uint32_t>(GST_VIDEO_INFO_WIDTH(&src.layout)),
                  h = static_cast<std::uint32_t>(GST_VIDEO_INFO_HEIGHT(&src.layout));
    if (!steps.empty()) {
        w = steps[0].w;
        h = steps[0].h;
    }
    const int n_steps = static_cast<int>(in.range(0, 8));
    for (int i = 0; i < n_steps; ++i) {
        Step step;
        if (in.range(0, 2) != 0) {
            step.method = static_cast<GstVideoOrientationMethod>(in.range(0, 9));
            view.orient(step.method);
            what += std::string(" ") + method_name(step.method);
            // auto and custom change nothing.
            if (transposes(step.method))
                std::swap(w, h);
        } else {
            step.is_crop = true;
            const bool inside = in.range(0, 7) != 0;
            if (inside) {
                step.w = static_cast<std::uint32_t>(in.range(1, w));
                step.h = static_cast<std::uint32_t>(in.range(1, h));
                step.x = static_cast<std::uint32_t>(in.range(0, w - step.w));
                step.y = static_cast<std::uint32_t>(in.range(0, h - step.h));
            } else {
                step.x = static_cast<std::uint32_t>(in.range(0, 320));
                step.y = static_cast<std::uint32_t>(in.range(0, 320));
                step.w = static_cast<std::uint32_t>(in.range(0, 320));
                step.h = static_cast<std::uint32_t>(in.range(0, 320));
            }
            what += " crop " + std::to_string(step.w) + "x" + std::to_string(step.h) + "+" +
                    std::to_string(step.x) + "+" + std::to_string(step.y);
            const bool fits = step.w && step.h && std::uint64_t{step.x} + step.w <= w &&
                              std::uint64_t{step.y} + step.h <= h;
            g2g::Result<void> cropped = view.crop(step.x, step.y, step.w, step.h);
            if (cropped.ok() != fits)
                fail(std::string("a crop that ") + (fits ? "fits was refused" : "does not fit was accepted"),
                     what);
            if (!fits) {
                if (cropped.error().message().empty())
                    fail("a crop was refused without a reason", what);
                continue;
            }
            w = step.w;
            h = step.h;
        }
        steps.push_back(step);
    }
    if (view.width() != w || view.height() != h)
        fail("the view is " + std::to_string(view.width()) + "x" + std::to_string(view.height()) +
                 ", the chain's " + std::to_string(w) + "x" + std::to_string(h),
             what);

    // Into a new buffer.
    g2g::Result<g2g::BufferRef> dense = view.materialize(buffer.get());
    if (!dense)
        fail("materialize of an accepted view failed: " + dense.error().message(), what);
    {
        GstMapInfo map;
        if (!gst_buffer_map(dense->get(), &map, GST_MAP_READ))
            fail("cannot map the materialized frame", what);
        check_materialized(view, src, steps, map.data, view.info(), what);
        gst_buffer_unmap(dense->get(), &map);
    }

    // Into caller rows with strides of their own (each plane its own exact-size allocation).
    if (in.flag()) {
        GstVideoInfo caller = view.info();
        guint8 *dst[GST_VIDEO_MAX_PLANES] = {};
        gint strides[GST_VIDEO_MAX_PLANES] = {};
        gsize offset = 0;
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&caller); ++p) {
            const gint stride = GST_VIDEO_INFO_PLANE_STRIDE(&caller, p) + static_cast<gint>(in.range(0, 67));
            const guint rows = plane_rows(caller, p);
            caller.stride[p] = stride;
            caller.offset[p] = offset;
            offset += static_cast<gsize>(stride) * rows;
            strides[p] = stride;
        }
        // One allocation of exactly the frame's size, planes at their offsets: a write past the
        // last row of the last plane is an AddressSanitizer report.
        auto *exact = static_cast<guint8 *>(g_malloc(offset ? offset : 1));
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&caller); ++p)
            dst[p] = exact + caller.offset[p];
        g2g::Result<void> written = view.materialize_into(buffer.get(), dst, strides);
        if (!written)
            fail("materialize_into of an accepted view failed: " + written.error().message(), what);
        check_materialized(view, src, steps, exact, caller, what + " (caller strides)");
        g_free(exact);
    }
    return 0;
}
