// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/frame-view.h>

#include <algorithm>
#include <optional>
#include <string>

#include "frame-view-private.h"
#include "layout-check.h"
#include "view-backend.h"

namespace g2g {
namespace {

Error invalid(std::string message)
{
    return Error(ErrorCode::InvalidArgument, std::move(message));
}

} // namespace

namespace detail {

guint component_of_plane(const GstVideoFormatInfo *finfo, guint p)
{
    for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++c) {
        if (GST_VIDEO_FORMAT_INFO_PLANE(finfo, c) == p)
            return c;
    }
    return 0;
}

guint plane_rows(const GstVideoInfo &info, guint p)
{
    return GST_VIDEO_INFO_COMP_HEIGHT(&info, component_of_plane(info.finfo, p));
}

std::uint64_t plane_row_bytes(const GstVideoInfo &info, guint p)
{
    if (is_packed_422(GST_VIDEO_INFO_FORMAT(&info)))
        return (static_cast<std::uint64_t>(GST_VIDEO_INFO_WIDTH(&info)) + 1) / 2 * 4;
    const guint c = component_of_plane(info.finfo, p);
    return static_cast<std::uint64_t>(GST_VIDEO_INFO_COMP_WIDTH(&info, c)) *
           GST_VIDEO_FORMAT_INFO_PSTRIDE(info.finfo, c);
}

} // namespace detail

bool FrameView::supports_format(GstVideoFormat format)
{
    return std::find(std::begin(detail::kViewFormats), std::end(detail::kViewFormats), format) !=
           std::end(detail::kViewFormats);
}

Result<FrameView> FrameView::of_frame(GstBuffer *buffer, const GstVideoInfo &info)
{
    const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
    if (!supports_format(format))
        return invalid(std::string("a frame view cannot describe format ") +
                       gst_video_format_to_string(format));
    if (!buffer)
        return invalid("a frame view needs a buffer");

    // The memory layout: the buffer's GstVideoMeta when it has one (its size is the whole
    // buffer's; caps then describe the crop meta's rectangle), else the caps' own.
    const GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
    GstVideoInfo layout = info;
    if (meta) {
        if (meta->format != format)
            return invalid("the buffer's video meta says " +
                           std::string(gst_video_format_to_string(meta->format)) + " but the caps say " +
                           gst_video_format_to_string(format));
        gst_video_info_set_format(&layout, format, meta->width, meta->height);
    }

    FrameView view;
    view.info_ = layout;
    view.n_planes_ = GST_VIDEO_INFO_N_PLANES(&layout);
    const GstVideoFormatInfo *finfo = layout.finfo;
    const bool packed422 = detail::is_packed_422(format);

    // Device memory may know its own layout, which then comes before any video meta: a CUDA
    // memory's pitch is the driver's choice, not the caps' default stride, and a Vulkan image's
    // texels are addressed only as its backend lays them out.
    const detail::ViewBackend *backend = detail::view_backend_of(buffer);
    const std::optional<GstVideoInfo> device_layout =
        backend ? backend->memory_layout(buffer, format) : std::optional<GstVideoInfo>{};
    gsize offsets[GST_VIDEO_MAX_PLANES];
    gint strides[GST_VIDEO_MAX_PLANES];
    for (unsigned p = 0; p < view.n_planes_; ++p) {
        const bool from_meta = meta && !device_layout;
        const GstVideoInfo &own = device_layout ? *device_layout : layout;
        offsets[p] = from_meta ? meta->offset[p] : GST_VIDEO_INFO_PLANE_OFFSET(&own, p);
        strides[p] = from_meta ? meta->stride[p] : GST_VIDEO_INFO_PLANE_STRIDE(&own, p);
    }

    for (unsigned p = 0; p < view.n_planes_; ++p) {
        const guint c = detail::component_of_plane(finfo, p);
        const guint rows = detail::plane_rows(layout, p);
        const std::uint64_t row_bytes = detail::plane_row_bytes(layout, p);
        // Rows closer than their own length overlap: reading them would mix rows. A negative stride
        // (rows running bottom-up from the offset) is not a layout this reads either. Both are
        // refused rather than misread.
        if (rows > 1 && strides[p] < 0)
            return invalid("plane " + std::to_string(p) + "'s stride " + std::to_string(strides[p]) +
                           " is negative");
        if (rows > 1 && static_cast<std::uint64_t>(strides[p]) < row_bytes)
            return invalid("plane " + std::to_string(p) + "'s stride " + std::to_string(strides[p]) +
                           " is shorter than its " + std::to_string(row_bytes) + "-byte rows");
        // A video meta's offset is any gsize: its end is computed without wrapping past 2^64.
        const std::optional<std::uint64_t> end =
            detail::plane_end(offsets[p], static_cast<std::uint64_t>(strides[p] > 0 ? strides[p] : 0),
                              rows ? rows : 1, row_bytes);
        guint idx = 0;
        guint length = 0;
        gsize skip = 0;
        if (!end || *end > gst_buffer_get_size(buffer) ||
            !gst_buffer_find_memory(buffer, offsets[p], *end - offsets[p], &idx, &length, &skip))
            return invalid("plane " + std::to_string(p) + " (" + detail::byte_range_text(offsets[p], end) +
                           ") lies outside the " + std::to_string(gst_buffer_get_size(buffer)) +
                           "-byte buffer");
        if (length != 1)
            return invalid("plane " + std::to_string(p) + " straddles two memories of the buffer");

        PlaneView &plane = view.planes_[p];
        plane.memory_index = idx;
        plane.element_size = packed422 ? 4 : GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c);
        plane.grid.origin = static_cast<std::int64_t>(skip);
        plane.grid.col = plane.element_size;
        plane.grid.row = strides[p];
        plane.grid.width =
            packed422 ? (GST_VIDEO_INFO_WIDTH(&layout) + 1) / 2 : GST_VIDEO_INFO_COMP_WIDTH(&layout, c);
        plane.grid.height = rows;
        view.sub_[p] = packed422 ? std::pair<guint, guint>{1, 0}
                                 : std::pair<guint, guint>{GST_VIDEO_FORMAT_INFO_W_SUB(finfo, c),
                                                           GST_VIDEO_FORMAT_INFO_H_SUB(finfo, c)};
    }
    view.source_layout_ = layout;
    for (unsigned p = 0; p < view.n_planes_; ++p) {
        view.source_layout_.offset[p] = offsets[p];
        view.source_layout_.stride[p] = strides[p];
    }
    view.source_width_ = static_cast<std::uint32_t>(GST_VIDEO_INFO_WIDTH(&layout));
    view.source_height_ = static_cast<std::uint32_t>(GST_VIDEO_INFO_HEIGHT(&layout));
    view.pixels_ = {{0, 0}, {1, 0}, {0, 1}, view.source_width_, view.source_height_};
    view.source_plane0_ = view.planes_[0];

    if (const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(buffer)) {
        if (crop->width && crop->height) {
            Result<void> cropped = view.crop(crop->x, crop->y, crop->width, crop->height);
            if (!cropped)
                return cropped.error();
        }
    }
    view.update_info();
    Result<void> inside = view.check_bounds(buffer);
    if (!inside)
        return inside.error();
    return view;
}

bool FrameView::keeps_strides(GstVideoFormat format, GstVideoOrientationMethod method, std::uint32_t crop_x)
{
    if (!detail::is_packed_422(format))
        return true;
    // A packed 4:2:2 macropixel holds two pixels side by side: only vertical moves keep it whole,
    // and a crop must not start in the middle of one.
    const bool whole_macropixels =
        method == GST_VIDEO_ORIENTATION_VERT || method == GST_VIDEO_ORIENTATION_IDENTITY ||
        method == GST_VIDEO_ORIENTATION_AUTO || method == GST_VIDEO_ORIENTATION_CUSTOM;
    return whole_macropixels && (crop_x & 1) == 0;
}

void FrameView::orient(GstVideoOrientationMethod method)
{
    const bool transposes = orientation_transposes(method);
    for (unsigned p = 0; p < n_planes_; ++p) {
        planes_[p].grid.orient(method);
        if (transposes)
            std::swap(sub_[p].first, sub_[p].second);
    }
    pixels_.orient(method);
    if (!keeps_strides(format(), method, 0))
        strided_ = false;
    update_info();
}

Result<void> FrameView::crop(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h)
{
    if (w == 0 || h == 0)
        return invalid("a crop must leave at least one pixel (asked for " + std::to_string(w) + "x" +
                       std::to_string(h) + ")");
    if (static_cast<std::uint64_t>(x) + w > width() || static_cast<std::uint64_t>(y) + h > height())
        return invalid("crop " + std::to_string(w) + "x" + std::to_string(h) + "+" + std::to_string(x) + "+" +
                       std::to_string(y) + " does not fit in a " + std::to_string(width()) + "x" +
                       std::to_string(height()) + " frame");
    for (unsigned p = 0; p < n_planes_; ++p) {
        const auto [ws, hs] = sub_[p];
        planes_[p].grid.crop(x >> ws, y >> hs, GST_VIDEO_SUB_SCALE(ws, w), GST_VIDEO_SUB_SCALE(hs, h));
    }
    if (!keeps_strides(format(), GST_VIDEO_ORIENTATION_IDENTITY, x))
        strided_ = false;
    pixels_.crop(x, y, w, h);
    update_info();
    return {};
}

void FrameView::update_info()
{
    GstVideoInfo dense;
    gst_video_info_set_format(&dense, format(), pixels_.width, pixels_.height);
    info_ = dense;
}

Result<void> FrameView::check_bounds(GstBuffer *buffer) const
{
    const guint n_memory = gst_buffer_n_memory(buffer);
    auto inside = [&](const PlaneView &plane, unsigned p) -> Result<void> {
        if (plane.memory_index >= n_memory)
            return invalid("plane " + std::to_string(p) + " refers to memory " +
                           std::to_string(plane.memory_index) + " of a buffer with " +
                           std::to_string(n_memory));
        const gsize size = gst_buffer_peek_memory(buffer, plane.memory_index)->size;
        const auto &g = plane.grid;
        const std::int64_t corners[] = {g.at(0, 0), g.at(g.width - 1, 0), g.at(0, g.height - 1),
                                        g.at(g.width - 1, g.height - 1)};
        const std::int64_t lowest = *std::min_element(std::begin(corners), std::end(corners));
        const std::int64_t highest =
            *std::max_element(std::begin(corners), std::end(corners)) + plane.element_size;
        if (g.width == 0 || g.height == 0 || lowest < 0 || highest > static_cast<std::int64_t>(size))
            return invalid("plane " + std::to_string(p) + " of the view would read bytes " +
                           std::to_string(lowest) + ".." + std::to_string(highest) + " of a " +
                           std::to_string(size) + "-byte memory");
        return {};
    };
    if (strided_) {
        for (unsigned p = 0; p < n_planes_; ++p) {
            Result<void> ok = inside(planes_[p], p);
            if (!ok)
                return ok;
        }
        return {};
    }
    // The packed 4:2:2 path reads the source pixels the pixel map reaches: a rectangle (the map is
    // affine, its corners bound it), read as whole macropixels of the untouched source plane. Only
    // those must be inside the memory, not the whole source plane: a crop meta may keep a frame's
    // pixels inside a buffer shorter than the frame, and a rotation must not refuse that view.
    const auto &px = pixels_;
    std::int64_t x0 = source_width_, x1 = -1, y0 = source_height_, y1 = -1;
    for (std::int64_t cx : {std::int64_t{0}, std::int64_t{px.width} - 1}) {
        for (std::int64_t cy : {std::int64_t{0}, std::int64_t{px.height} - 1}) {
            const PixelStep at = px.at(cx, cy);
            if (at.x < 0 || at.y < 0 || at.x >= source_width_ || at.y >= source_height_)
                return invalid("the view would read pixel outside the source frame");
            x0 = std::min(x0, at.x);
            x1 = std::max(x1, at.x);
            y0 = std::min(y0, at.y);
            y1 = std::max(y1, at.y);
        }
    }
    PlaneView read = source_plane0_;
    read.grid.crop(static_cast<std::uint32_t>(x0 / 2), static_cast<std::uint32_t>(y0),
                   static_cast<std::uint32_t>(x1 / 2 - x0 / 2 + 1), static_cast<std::uint32_t>(y1 - y0 + 1));
    return inside(read, 0);
}

} // namespace g2g
