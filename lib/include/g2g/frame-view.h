// SPDX-License-Identifier: LGPL-2.1-or-later
// Frame views: flip, rotate, transpose and crop as per-plane strides over the same memory.
//
// A view is one tensor view per plane (element size, shape, byte strides that may be negative,
// byte offset into the plane's memory). Every orientation and crop composes in O(1) and copies
// nothing; materialize() writes the dense frame once, into a new buffer or into caller memory.
//
// Reading a view without materializing (a stride-aware consumer):
//
//   const g2g::PlaneView &luma = view.plane(0);
//   const guint8 *base = mapped_memory(luma.memory_index);     // e.g. gst_memory_map()
//   for (guint32 y = 0; y < luma.grid.height; ++y)
//       for (guint32 x = 0; x < luma.grid.width; ++x)
//           use(base + luma.grid.at(x, y), luma.element_size);  // element (x, y) of the view
#pragma once

#include <gst/video/video.h>

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include <g2g/error.h>
#include <g2g/gst-ref.h>
#include <g2g/worker-pool.h>

namespace g2g {

// A point or step in pixel coordinates.
struct PixelStep {
    std::int64_t x = 0;
    std::int64_t y = 0;
    constexpr PixelStep operator+(PixelStep o) const { return {x + o.x, y + o.y}; }
    constexpr PixelStep operator-() const { return {-x, -y}; }
    constexpr PixelStep operator*(std::int64_t k) const { return {x * k, y * k}; }
    constexpr bool operator==(const PixelStep &) const = default;
};

// An affine walk over a 2-D grid: element (x, y) of the result sits at origin + x*col + y*row.
// Step is a byte offset (std::int64_t) for plane memory, or a PixelStep for pixel coordinates.
template <typename Step> struct Grid {
    Step origin{};
    Step col{};
    Step row{};
    std::uint32_t width = 0;
    std::uint32_t height = 0;

    constexpr Step at(std::int64_t x, std::int64_t y) const { return origin + col * x + row * y; }

    constexpr void flip_h()
    {
        origin = at(width - 1, 0);
        col = -col;
    }
    constexpr void flip_v()
    {
        origin = at(0, height - 1);
        row = -row;
    }
    constexpr void transpose()
    {
        std::swap(col, row);
        std::swap(width, height);
    }
    constexpr void crop(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h)
    {
        origin = at(x, y);
        width = w;
        height = h;
    }
    // The orientation methods of videoflip (out(x, y) = in(f(x, y)) for the same f).
    constexpr void orient(GstVideoOrientationMethod method)
    {
        switch (method) {
        case GST_VIDEO_ORIENTATION_90R:
            transpose();
            flip_h();
            break;
        case GST_VIDEO_ORIENTATION_90L:
            transpose();
            flip_v();
            break;
        case GST_VIDEO_ORIENTATION_180:
            flip_h();
            flip_v();
            break;
        case GST_VIDEO_ORIENTATION_HORIZ:
            flip_h();
            break;
        case GST_VIDEO_ORIENTATION_VERT:
            flip_v();
            break;
        case GST_VIDEO_ORIENTATION_UL_LR:
            transpose();
            break;
        case GST_VIDEO_ORIENTATION_UR_LL:
            transpose();
            flip_h();
            flip_v();
            break;
        default:
            break;
        }
    }
};

// True for the methods that swap width and height.
constexpr bool orientation_transposes(GstVideoOrientationMethod method)
{
    return method == GST_VIDEO_ORIENTATION_90R || method == GST_VIDEO_ORIENTATION_90L ||
           method == GST_VIDEO_ORIENTATION_UL_LR || method == GST_VIDEO_ORIENTATION_UR_LL;
}

// One plane of a view: `grid` walks byte offsets into memory `memory_index` of the buffer.
struct PlaneView {
    Grid<std::int64_t> grid;
    std::uint32_t element_size = 0; // bytes: a pixel, or a chroma pair (NV12), or a macropixel (YUY2)
    std::uint32_t memory_index = 0; // which GstMemory of the buffer holds this plane
};

class FrameView {
public:
    // Formats a view can describe (GRAY8/16, the 8-bit RGB family, NV12/NV21, I420/YV12, Y444,
    // AYUV, I420_10LE, P010_10LE, YUY2/UYVY/YVYU, ...).
    static bool supports_format(GstVideoFormat format);

    // The identity view of `buffer` laid out as `info` says, or as its GstVideoMeta says when it
    // has one. A GstVideoCropMeta on the buffer is applied. Fails for formats a view cannot
    // describe, planes that straddle memories, or geometry outside the memory.
    static Result<FrameView> of_frame(GstBuffer *buffer, const GstVideoInfo &info);

    GstVideoFormat format() const { return GST_VIDEO_INFO_FORMAT(&info_); }
    std::uint32_t width() const { return static_cast<std::uint32_t>(GST_VIDEO_INFO_WIDTH(&info_)); }
    std::uint32_t height() const { return static_cast<std::uint32_t>(GST_VIDEO_INFO_HEIGHT(&info_)); }
    // The view's geometry as a dense frame: format, width, height and the strides materialize()
    // writes with.
    const GstVideoInfo &info() const { return info_; }
    unsigned n_planes() const { return n_planes_; }
    const PlaneView &plane(unsigned index) const { return planes_[index]; }
    // Which pixel of the source frame each view pixel is: view pixel (x, y) is source pixel
    // pixels().at(x, y). What a consumer that samples the frame itself applies (a GPU reading a
    // texture handle, whose memory has no byte layout to stride through).
    const Grid<PixelStep> &pixels() const { return pixels_; }
    // How the frame this view reads lies in its buffer: its format, width and height, and each
    // plane's offset (from the buffer's start) and stride, as of_frame found them (the buffer's
    // GstVideoMeta, or its caps, or the device memory's own). The same through every crop and
    // orientation: with pixels(), what another process needs to make this view again over the
    // same memory (gst/ipc/ipc-view).
    const GstVideoInfo &source_layout() const { return source_layout_; }

    // False when some plane cannot be expressed with strides (packed 4:2:2 once a horizontal flip,
    // a rotation or an odd left crop touched it): such a view can only be materialized.
    bool strided() const { return strided_; }

    // Whether a strided view of `format` stays strided under `method` and a crop whose left edge
    // is column `crop_x` (what strided() will say, known before any frame).
    static bool keeps_strides(GstVideoFormat format, GstVideoOrientationMethod method, std::uint32_t crop_x);

    // Composes an orientation (videoflip's methods; identity, auto and custom change nothing).
    void orient(GstVideoOrientationMethod method);

    // Keeps the w x h rectangle at (x, y) of the current view; an empty or outside rectangle fails.
    Result<void> crop(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h);

    // Checks every plane stays inside its memory in `buffer` (done by of_frame and after each
    // change; exposed for views that arrive in metas).
    Result<void> check_bounds(GstBuffer *buffer) const;

    // The dense frame in one pass, written to caller planes with caller strides (an app's tensor:
    // rotate + crop + copy-out is one copy). dst and dst_stride hold one entry per plane. Refused
    // before a byte is written: a NULL plane, a stride shorter than the plane's row (rows that would
    // overlap), a source the CPU cannot read (a device frame: the error names the download to
    // insert), a view outside `source`'s memory.
    Result<void> materialize_into(GstBuffer *source, guint8 *const dst[], const gint dst_stride[]) const;

    // The same, split into row bands across `workers`' threads (g2g/worker-pool.h): the bytes
    // written are exactly the one-thread call's. Frames too small to be worth a thread's wake-up
    // (under 1 MiB) are written by the calling thread alone.
    Result<void> materialize_into(GstBuffer *source, guint8 *const dst[], const gint dst_stride[],
                                  const WorkerPool &workers) const;

    // The same with `n_threads` threads, as the view elements' n-threads property: 1 the calling
    // thread alone, 0 one per processor, n at most n (WorkerPool::threads_for), on threads the library
    // starts at the first such call and keeps for the process (one per processor).
    Result<void> materialize_into(GstBuffer *source, guint8 *const dst[], const gint dst_stride[],
                                  unsigned n_threads) const;

    // The dense frame as a new buffer laid out as info(), timestamps and flags copied from source.
    Result<BufferRef> materialize(GstBuffer *source) const;
    // The same, split across `workers`' threads.
    Result<BufferRef> materialize(GstBuffer *source, const WorkerPool &workers) const;

    // The dense frame written into `destination`, a frame laid out as `layout` in any domain a
    // view can be materialized in (system memory by the CPU; CUDA memory by a kernel on its
    // device, never through the host). The destination's domain picks the backend; memory of a
    // type g2g does not know is written through a mapping.
    Result<void> materialize_to(GstBuffer *source, GstBuffer *destination, const GstVideoInfo &layout) const;
    // The same, the CPU's writes split across `workers`' threads (a device backend's kernel or
    // shader does not use them).
    Result<void> materialize_to(GstBuffer *source, GstBuffer *destination, const GstVideoInfo &layout,
                                const WorkerPool &workers) const;

private:
    FrameView() = default;
    void update_info();
    // materialize_into's work: in at most `bands` bands on `workers` (nullptr: this thread alone),
    // after the layout checks every entry point shares, refusing in `caller`'s name.
    Result<void> write_planes(std::string_view caller, GstBuffer *source, guint8 *const dst[],
                              const gint dst_stride[], const WorkerPool *workers, unsigned bands) const;
    Result<BufferRef> dense_buffer(GstBuffer *source, const WorkerPool *workers) const;

    GstVideoInfo info_{};
    GstVideoInfo source_layout_{};
    std::array<PlaneView, GST_VIDEO_MAX_PLANES> planes_{};
    unsigned n_planes_ = 0;
    bool strided_ = true;
    // Source-pixel coordinates of each view pixel, and the untouched source plane 0: what the
    // packed 4:2:2 path materializes from.
    Grid<PixelStep> pixels_{};
    PlaneView source_plane0_{};
    std::uint32_t source_width_ = 0;
    std::uint32_t source_height_ = 0;
    // Chroma subsampling of each plane, in view axes (swapped by transposes).
    std::array<std::pair<guint, guint>, GST_VIDEO_MAX_PLANES> sub_{};
};

} // namespace g2g
