// SPDX-License-Identifier: LGPL-2.1-or-later
// Fuzz target: the layouts applications hand g2g's entry points (issue #29, "safe at every
// boundary"). The input builds either
//  - a frame (a view format from 1x1 up) laid out as its caps say, by a GstVideoMeta of its own
//    offsets (up to G_MAXSIZE) and strides (negative, zero, short), or carried as a view
//    (g2gview's G2gTensorView meta) over memory of any size; caps for it (its own, a width of 0,
//    ANY, EMPTY, not fixed, view caps); and destination planes (NULL, strides short, zero or
//    negative, sizes short), then calls g2g_frame_new with the plane accessors,
//    g2g_frame_materialize_into and g2g_buffer_materialize_into; or
//  - a DMA-BUF layout (a memfd of any size, offsets up to G_MAXSIZE, any stride, linear or tiled)
//    for g2g_dmabuf_wrap, and reads what it accepts through g2g_frame_new.
//
// Oracle: every memory and destination is an exact-size allocation (AddressSanitizer reports a
// byte past it), GLib criticals abort (fuzz-main.h), and
//  - a destination that cannot hold its plane (NULL, a stride shorter than a row, a size short of
//    its rows) is refused, by both materialize calls;
//  - g2g_frame_new and g2g_buffer_materialize_into refuse the same source with the same text
//    after their names, and the frame API and the buffer API refuse the same destination so;
//  - a frame laid out as its caps say, or a view over the memory it was made of, is accepted;
//  - an accepted DMA-BUF plane starts inside its fd and ends inside it (linear), in exact
//    arithmetic.
#include <g2g/dmabuf.h>
#include <g2g/frame-view.h>
#include <g2g/g2g.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "fuzz-input.h"
#include "fuzz-main.h"
#include "view/frame-view-private.h"

namespace {

using g2g::BufferRef;
using g2g::CapsRef;
using g2g::FrameView;
using g2g::fuzz::FuzzInput;

[[noreturn]] void fail(const std::string &what, const std::string &input)
{
    std::fprintf(stderr, "fuzz-layout: %s\n  input: %s\n", what.c_str(), input.c_str());
    std::abort();
}

// The GError's text ("" for none), the error cleared.
std::string taken(GError *&error)
{
    std::string message = error ? error->message : "";
    g_clear_error(&error);
    return message;
}

// What a refusal says after the name of the function that gave it: "g2g_frame_new: plane 0 ..."
// and "g2g_frame_new reads system memory ..." compare with the same of another function.
std::string after_caller(const std::string &message, const std::string &caller)
{
    if (message.compare(0, caller.size(), caller) != 0)
        return "(not opened by " + caller + ") " + message;
    return message.substr(caller.size());
}

// Bytes allocated exactly: one past them is an AddressSanitizer report.
struct Exact {
    explicit Exact(gsize n) : data(n ? static_cast<guint8 *>(g_malloc(n)) : nullptr), size(n) {}
    ~Exact() { g_free(data); }
    Exact(const Exact &) = delete;
    Exact &operator=(const Exact &) = delete;
    guint8 *data;
    gsize size;
};

// A buffer of `size` pattern bytes, cut into `memories` exact-size memories at `cut`.
BufferRef pattern_buffer(gsize size, bool two_memories, gsize cut)
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    const gsize cuts[] = {0, two_memories ? std::min(cut, size) : size, size};
    for (int m = 0; m < 2; ++m) {
        const gsize n = cuts[m + 1] - cuts[m];
        if (n == 0)
            continue;
        auto *bytes = static_cast<guint8 *>(g_malloc(n));
        for (gsize i = 0; i < n; ++i)
            bytes[i] = static_cast<guint8>((cuts[m] + i) * 131 + 7);
        gst_buffer_append_memory(buffer.get(), gst_memory_new_wrapped(static_cast<GstMemoryFlags>(0), bytes,
                                                                      n, 0, n, bytes, g_free));
    }
    return buffer;
}

// Reads every byte of every element of every plane of `frame` (what NumPy or a DLPack consumer
// would read).
void read_planes(G2gFrame *frame, const std::string &what)
{
    volatile guint8 sink = 0;
    for (guint p = 0; p < g2g_frame_get_n_planes(frame); ++p) {
        G2gPlaneLayout layout;
        GError *error = nullptr;
        if (!g2g_frame_get_plane(frame, p, &layout, &error)) {
            const std::string message = taken(error);
            if (g2g_frame_is_strided(frame))
                fail("plane " + std::to_string(p) + " of a strided frame was refused: " + message, what);
            continue;
        }
        const auto *base = reinterpret_cast<const guint8 *>(layout.data);
        const guint element = layout.components * layout.component_size;
        for (guint r = 0; r < layout.rows; ++r) {
            for (guint c = 0; c < layout.columns; ++c) {
                const guint8 *at = base + static_cast<std::int64_t>(r) * layout.row_stride +
                                   static_cast<std::int64_t>(c) * layout.column_stride;
                sink = sink ^ at[0] ^ at[element - 1];
            }
        }
    }
    (void)sink;
}

// One caller destination plane.
struct Destination {
    bool null = false;
    gint stride = 0;
    gsize size = 0; // what the frame API is told; the buffer API is given `needed` bytes or a guess
    std::uint64_t rows = 0, row_bytes = 0, needed = 0;
    bool stride_fits() const
    {
        return !null && stride > 0 && static_cast<std::uint64_t>(stride) >= row_bytes;
    }
};

void frame_part(FuzzInput &in)
{
    const GstVideoFormat format = in.pick(g2g::detail::kViewFormats);
    const int width = static_cast<int>(in.range(1, 24));
    const int height = static_cast<int>(in.range(1, 24));
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, width, height);
    std::string what = std::string(gst_video_format_to_string(format)) + " " + std::to_string(width) + "x" +
                       std::to_string(height);

    // The source: 0 and 3 the caps' layout, 1 a video meta of its own, 2 a view over other memory.
    const int source_kind = static_cast<int>(in.range(0, 3));
    const guint n_planes = GST_VIDEO_INFO_N_PLANES(&info);
    BufferRef buffer;
    GstVideoInfo frame_info = info; // what the caps describe: the view's for a view
    bool must_accept = false;
    if (source_kind == 2) {
        const auto method = static_cast<GstVideoOrientationMethod>(in.range(0, 7));
        const gsize made_size = GST_VIDEO_INFO_SIZE(&info);
        const gsize size = in.flag() ? made_size : static_cast<gsize>(in.range(0, made_size + 64));
        BufferRef made = pattern_buffer(made_size, false, 0);
        g2g::Result<FrameView> view = FrameView::of_frame(made.get(), info);
        if (!view)
            fail("the view of a dense frame was refused: " + view.error().message(), what);
        view->orient(method);
        frame_info = view->info();
        buffer = pattern_buffer(size, false, 0);
        g2g::attach_tensor_view(buffer.get(), std::move(*view));
        must_accept = size >= made_size;
        what +=
            " view " + std::to_string(static_cast<int>(method)) + " over " + std::to_string(size) + " bytes";
    } else {
        gsize offsets[GST_VIDEO_MAX_PLANES] = {};
        gint strides[GST_VIDEO_MAX_PLANES] = {};
        std::uint64_t end = GST_VIDEO_INFO_SIZE(&info);
        for (guint p = 0; p < n_planes; ++p) {
            offsets[p] = GST_VIDEO_INFO_PLANE_OFFSET(&info, p);
            strides[p] = GST_VIDEO_INFO_PLANE_STRIDE(&info, p);
            if (source_kind != 1)
                continue;
            switch (in.range(0, 3)) {
            case 0:
                break;
            case 1:
                offsets[p] += static_cast<gsize>(in.range(0, 200));
                break;
            case 2:
                offsets[p] = static_cast<gsize>(in.range(0, 3000));
                break;
            default:
                offsets[p] = G_MAXSIZE - static_cast<gsize>(in.range(0, 4000));
                break;
            }
            strides[p] = in.flag() ? strides[p] + static_cast<gint>(in.range(0, 40))
                                   : static_cast<gint>(in.range(-80, 400));
            if (offsets[p] < 8192 && strides[p] > 0)
                end = std::max<std::uint64_t>(end, offsets[p] + static_cast<std::uint64_t>(strides[p]) *
                                                                    g2g::detail::plane_rows(info, p));
            what += " plane" + std::to_string(p) + "@" + std::to_string(offsets[p]) + "/" +
                    std::to_string(strides[p]);
        }
        const std::int64_t delta = in.flag() ? in.range(-40, 40) : 0;
        const gsize size =
            static_cast<gsize>(std::max<std::int64_t>(0, static_cast<std::int64_t>(end) + delta));
        const bool two = in.flag();
        buffer = pattern_buffer(size, two, static_cast<gsize>(in.range(0, size)));
        if (source_kind == 1)
            gst_buffer_add_video_meta_full(buffer.get(), GST_VIDEO_FRAME_FLAG_NONE, format, width, height,
                                           n_planes, offsets, strides);
        must_accept = source_kind != 1 && delta >= 0 && !two;
        what += " buffer " + std::to_string(size) + (two ? " in two memories" : "");
    }

    // The caps: 0 to 3 the frame's own (view caps for a view, when asked), then a width of 0,
    // ANY, EMPTY, and a format list.
    const int caps_kind = static_cast<int>(in.range(0, 7));
    CapsRef caps;
    const bool own_caps = caps_kind <= 3;
    if (own_caps) {
        caps = CapsRef::adopt(gst_video_info_to_caps(&frame_info));
        if (source_kind == 2 && in.flag())
            gst_caps_set_features(caps.get(), 0,
                                  gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY,
                                                        G2G_CAPS_FEATURE_META_TENSOR_VIEW, nullptr));
    } else if (caps_kind == 4) {
        caps = CapsRef::adopt(gst_video_info_to_caps(&frame_info));
        gst_caps_set_simple(caps.get(), "width", G_TYPE_INT, 0, nullptr);
    } else if (caps_kind == 5) {
        caps = CapsRef::adopt(gst_caps_new_any());
    } else if (caps_kind == 6) {
        caps = CapsRef::adopt(gst_caps_new_empty());
    } else {
        caps = CapsRef::adopt(gst_caps_from_string("video/x-raw,format={RGBA,NV12},width=16,height=8"));
    }
    what += " caps " + std::to_string(caps_kind);

    // The destinations, one per plane of the frame the caps describe.
    const guint dst_planes = GST_VIDEO_INFO_N_PLANES(&frame_info);
    std::vector<Destination> destinations(dst_planes);
    bool strides_fit = true, sizes_fit = true;
    for (guint p = 0; p < dst_planes; ++p) {
        Destination &d = destinations[p];
        d.rows = g2g::detail::plane_rows(frame_info, p);
        d.row_bytes = g2g::detail::plane_row_bytes(frame_info, p);
        const int kind = static_cast<int>(in.range(0, 7));
        d.null = kind == 0;
        d.stride = kind == 1 ? static_cast<gint>(in.range(-70, static_cast<std::int64_t>(d.row_bytes) + 8))
                             : static_cast<gint>(d.row_bytes + in.range(0, 40));
        d.needed = d.stride > 0 ? (d.rows - 1) * static_cast<std::uint64_t>(d.stride) + d.row_bytes : 0;
        d.size = in.flag() ? d.needed : d.needed - std::min<std::uint64_t>(d.needed, in.range(1, 64));
        strides_fit = strides_fit && d.stride_fits();
        sizes_fit = sizes_fit && d.size >= d.needed;
        what += " dst" + std::to_string(p) + (d.null ? " NULL" : "") + "/" + std::to_string(d.stride) + "/" +
                std::to_string(d.size);
    }

    // g2g_frame_new, and its planes read as a consumer reads them.
    GError *error = nullptr;
    G2gFrame *frame = g2g_frame_new(buffer.get(), caps.get(), &error);
    const std::string frame_refusal = taken(error);
    if (!frame && frame_refusal.empty())
        fail("g2g_frame_new refused without a reason", what);
    if (!frame && own_caps && must_accept)
        fail("a frame laid out as its caps say was refused: " + frame_refusal, what);
    if (frame && !own_caps)
        fail("g2g_frame_new accepted caps that are not the frame's", what);

    // g2g_frame_materialize_into: each destination exactly its size.
    std::string frame_write_refusal;
    if (frame) {
        read_planes(frame, what);
        std::vector<std::unique_ptr<Exact>> held;
        std::vector<guintptr> dst(dst_planes);
        std::vector<gint> strides(dst_planes);
        std::vector<gsize> sizes(dst_planes);
        for (guint p = 0; p < dst_planes; ++p) {
            held.push_back(std::make_unique<Exact>(destinations[p].size));
            dst[p] = destinations[p].null || !held.back()->data
                         ? 0
                         : reinterpret_cast<guintptr>(held.back()->data);
            strides[p] = destinations[p].stride;
            sizes[p] = destinations[p].size;
            destinations[p].null = destinations[p].null || !held.back()->data;
        }
        const gboolean written =
            g2g_frame_materialize_into(frame, dst.data(), strides.data(), sizes.data(), dst_planes,
                                       static_cast<guint>(in.range(0, 2)), &error);
        frame_write_refusal = taken(error);
        bool fits = sizes_fit;
        for (const Destination &d : destinations)
            fits = fits && d.stride_fits();
        if (written && !fits)
            fail("g2g_frame_materialize_into wrote into destinations that cannot hold the frame", what);
        if (!written && fits)
            fail("g2g_frame_materialize_into refused destinations that hold the frame: " +
                     frame_write_refusal,
                 what);
        g2g_frame_unref(frame);
    }

    // g2g_buffer_materialize_into: a destination that fits is exactly its rows; one whose stride
    // does not gets what a careless caller would allocate (stride x rows), so that a write the check
    // let through is a report.
    {
        std::vector<std::unique_ptr<Exact>> held;
        std::vector<guint8 *> dst(GST_VIDEO_MAX_PLANES, nullptr);
        std::vector<gint> strides(GST_VIDEO_MAX_PLANES, 0);
        bool fits = true;
        for (guint p = 0; p < dst_planes; ++p) {
            const Destination &d = destinations[p];
            const gsize bytes =
                d.stride_fits() ? d.needed : std::max<gsize>(1, std::max(d.stride, 0) * d.rows);
            held.push_back(std::make_unique<Exact>(bytes));
            dst[p] = destinations[p].null ? nullptr : held.back()->data;
            strides[p] = d.stride;
            fits = fits && d.stride_fits();
        }
        const gboolean written =
            g2g_buffer_materialize_into(buffer.get(), &frame_info, dst.data(), strides.data(), 1, &error);
        const std::string refusal = taken(error);
        if (written && !fits)
            fail("g2g_buffer_materialize_into wrote into destinations whose rows overlap or are NULL", what);
        if (own_caps) {
            if (!frame) {
                // The source is refused by both, in the same words.
                if (written)
                    fail("g2g_buffer_materialize_into wrote a frame g2g_frame_new refused: " + frame_refusal,
                         what);
                if (after_caller(refusal, "g2g_buffer_materialize_into") !=
                    after_caller(frame_refusal, "g2g_frame_new"))
                    fail("the two APIs refuse the same source differently: '" + frame_refusal + "' and '" +
                             refusal + "'",
                         what);
            } else if (!written && fits) {
                fail("g2g_buffer_materialize_into refused a frame g2g_frame_new took, into destinations that "
                     "fit: " +
                         refusal,
                     what);
            } else if (!written && sizes_fit &&
                       after_caller(refusal, "g2g_buffer_materialize_into") !=
                           after_caller(frame_write_refusal, "g2g_frame_materialize_into")) {
                fail("the two APIs refuse the same destination differently: '" + frame_write_refusal +
                         "' and '" + refusal + "'",
                     what);
            }
        }
    }
}

// Bytes of an fd of `size` (a memfd: what g2g's allocator hands out where no DMA-BUF heap is).
int memfd_of(gsize size)
{
    const int fd = memfd_create("fuzz-layout", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0)
        std::abort();
    return fd;
}

void dmabuf_part(FuzzInput &in)
{
    const GstVideoFormat format = in.pick(g2g::detail::kViewFormats);
    const guint width = static_cast<guint>(in.range(1, 40));
    const guint height = static_cast<guint>(in.range(1, 40));
    const bool tiled = (in.byte() & 7) == 7;
    const gsize fd_size = static_cast<gsize>(in.range(1, 16384));
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, static_cast<gint>(width), static_cast<gint>(height));
    guint n_planes = GST_VIDEO_INFO_N_PLANES(&info);
    if ((in.byte() & 15) == 15)
        n_planes = static_cast<guint>(in.range(0, 5));
    const int fd = memfd_of(fd_size);
    std::string what = std::string(gst_video_format_to_string(format)) + " " + std::to_string(width) + "x" +
                       std::to_string(height) + (tiled ? " tiled" : "") + " fd of " + std::to_string(fd_size);
    G2gDmaBufPlane planes[GST_VIDEO_MAX_PLANES + 1] = {};
    for (guint p = 0; p < std::min<guint>(n_planes, GST_VIDEO_MAX_PLANES + 1); ++p) {
        const guint q = std::min<guint>(p, GST_VIDEO_INFO_N_PLANES(&info) - 1);
        planes[p].fd = (in.byte() & 15) == 15 ? -1 : fd;
        switch (in.range(0, 3)) {
        case 1:
            planes[p].offset = static_cast<guint64>(in.range(0, 16384));
            break;
        case 2:
            planes[p].offset = G_MAXSIZE - static_cast<guint64>(in.range(0, 70000));
            break;
        default:
            planes[p].offset = GST_VIDEO_INFO_PLANE_OFFSET(&info, q);
            break;
        }
        planes[p].stride =
            in.flag() ? GST_VIDEO_INFO_PLANE_STRIDE(&info, q) : static_cast<gint>(in.range(-10, 400));
        what += " plane" + std::to_string(p) + "@" + std::to_string(planes[p].offset) + "/" +
                std::to_string(planes[p].stride) + (planes[p].fd < 0 ? " fd -1" : "");
    }
    GError *error = nullptr;
    GstBuffer *wrapped = g2g_dmabuf_wrap(g2g::dmabuf::drm_fourcc_of(format),
                                         tiled ? 0x0100000000000001ULL : G2G_DRM_FORMAT_MOD_LINEAR, width,
                                         height, n_planes, n_planes ? planes : nullptr, &error);
    BufferRef frame = BufferRef::adopt(wrapped);
    const std::string refusal = taken(error);
    if (!frame) {
        if (refusal.empty())
            fail("g2g_dmabuf_wrap refused without a reason", what);
        if (refusal.find("18446744") != std::string::npos && refusal.find("past 2^64") == std::string::npos &&
            refusal.find("starts at byte") == std::string::npos)
            fail("a refusal prints a wrapped byte range: " + refusal, what);
        close(fd);
        return;
    }
    // Accepted: every plane inside its fd, in exact arithmetic (unsigned __int128 cannot wrap here).
    for (guint p = 0; p < n_planes; ++p) {
        const unsigned __int128 rows = g2g::detail::plane_rows(info, p);
        const unsigned __int128 last =
            static_cast<unsigned __int128>(planes[p].offset) +
            (tiled ? 0 : static_cast<unsigned __int128>(planes[p].stride) * (rows - 1));
        if (planes[p].offset >= fd_size || last >= fd_size)
            fail("g2g_dmabuf_wrap accepted plane " + std::to_string(p) + " outside its fd", what);
    }
    if (!tiled) {
        const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
        G2gFrame *read = g2g_frame_new(frame.get(), caps.get(), &error);
        const std::string frame_refusal = taken(error);
        if (read) {
            read_planes(read, what);
            g2g_frame_unref(read);
        } else if (frame_refusal.empty()) {
            fail("g2g_frame_new refused a wrapped frame without a reason", what);
        }
    }
    close(fd);
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
    if (in.range(0, 3) == 3)
        dmabuf_part(in);
    else
        frame_part(in);
    return 0;
}
