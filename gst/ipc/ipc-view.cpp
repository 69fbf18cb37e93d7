// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-view.h"

#include "ipc-bytes.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace g2g::ipc {

namespace {

Error refused(const std::string &what)
{
    return Error(ErrorCode::InvalidArgument, "a G2gTensorView record " + what);
}

// The record's payload: the view's format, width and height (u32), then its pixel grid's origin,
// column step and row step (x, y as i64), little-endian.
constexpr std::size_t kPayload = 3 * 4 + 6 * 8;

bool unit_axis_step(PixelStep step)
{
    return (step.x == 0) != (step.y == 0) && std::max(std::abs(step.x), std::abs(step.y)) == 1;
}

} // namespace

MetaRecord encode_view(const FrameView &view)
{
    MetaRecord record{kViewRecordName, kViewRecordVersion, {}};
    const Grid<PixelStep> &pixels = view.pixels();
    put_le(record.payload, static_cast<std::uint32_t>(view.format()));
    put_le(record.payload, pixels.width);
    put_le(record.payload, pixels.height);
    for (std::int64_t v :
         {pixels.origin.x, pixels.origin.y, pixels.col.x, pixels.col.y, pixels.row.x, pixels.row.y})
        put_le(record.payload, v);
    return record;
}

WireVideoMeta video_meta_of(const GstVideoInfo &layout)
{
    WireVideoMeta meta;
    meta.format = GST_VIDEO_INFO_FORMAT(&layout);
    meta.width = static_cast<std::uint32_t>(GST_VIDEO_INFO_WIDTH(&layout));
    meta.height = static_cast<std::uint32_t>(GST_VIDEO_INFO_HEIGHT(&layout));
    meta.n_planes = GST_VIDEO_INFO_N_PLANES(&layout);
    for (unsigned p = 0; p < meta.n_planes; ++p) {
        meta.offset[p] = GST_VIDEO_INFO_PLANE_OFFSET(&layout, p);
        meta.stride[p] = GST_VIDEO_INFO_PLANE_STRIDE(&layout, p);
    }
    return meta;
}

void add_video_meta(GstBuffer *frame, const WireVideoMeta &meta)
{
    gsize offsets[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    for (unsigned p = 0; p < meta.n_planes && p < 4; ++p) {
        offsets[p] = static_cast<gsize>(meta.offset[p]);
        strides[p] = meta.stride[p];
    }
    gst_buffer_add_video_meta_full(frame, static_cast<GstVideoFrameFlags>(meta.flags),
                                   static_cast<GstVideoFormat>(meta.format), meta.width, meta.height,
                                   meta.n_planes, offsets, strides);
}

Result<ViewRecord> read_view(const MetaRecord &record, const GstVideoInfo &stream)
{
    if (record.version != kViewRecordVersion)
        return refused("of version " + std::to_string(record.version) + ", not " +
                       std::to_string(kViewRecordVersion));
    if (record.payload.size() != kPayload)
        return refused("of " + std::to_string(record.payload.size()) + " bytes, not " +
                       std::to_string(kPayload));
    Reader reader(record.payload);
    std::uint32_t format_value = 0;
    ViewRecord read;
    Grid<PixelStep> &wanted = read.pixels;
    reader.le(format_value); // the length was checked: every read below is inside the payload
    reader.le(wanted.width);
    reader.le(wanted.height);
    for (std::int64_t *field :
         {&wanted.origin.x, &wanted.origin.y, &wanted.col.x, &wanted.col.y, &wanted.row.x, &wanted.row.y})
        reader.le(*field);
    read.format = static_cast<GstVideoFormat>(format_value);
    if (read.format != GST_VIDEO_INFO_FORMAT(&stream))
        return refused("of format " + std::to_string(read.format) + " over a frame of " +
                       gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&stream)));
    if (wanted.width == 0 || wanted.height == 0)
        return refused("of " + std::to_string(wanted.width) + "x" + std::to_string(wanted.height) +
                       " pixels");
    if (wanted.width != std::uint32_t(GST_VIDEO_INFO_WIDTH(&stream)) ||
        wanted.height != std::uint32_t(GST_VIDEO_INFO_HEIGHT(&stream)))
        return refused("of " + std::to_string(wanted.width) + "x" + std::to_string(wanted.height) +
                       " pixels in a stream of " + std::to_string(GST_VIDEO_INFO_WIDTH(&stream)) + "x" +
                       std::to_string(GST_VIDEO_INFO_HEIGHT(&stream)));
    if (!unit_axis_step(wanted.col) || !unit_axis_step(wanted.row) ||
        (wanted.col.x == 0) == (wanted.row.x == 0))
        return refused("whose steps are not a crop and an orientation (a column step of (" +
                       std::to_string(wanted.col.x) + ", " + std::to_string(wanted.col.y) +
                       "), a row step of (" + std::to_string(wanted.row.x) + ", " +
                       std::to_string(wanted.row.y) + "))");
    return read;
}

Result<FrameView> view_over(const ViewRecord &record, GstBuffer *frame, const GstVideoInfo &source_info)
{
    const Grid<PixelStep> &wanted = record.pixels;
    Result<FrameView> identity = FrameView::of_frame(frame, source_info);
    if (!identity)
        return identity.error();
    // The source rectangle the view covers: its corners' bounds (the steps are unit, so no
    // product overflows once the origin is inside the frame: the memory's frame, as its
    // GstVideoMeta gives it).
    const std::int64_t source_w = identity->width(), source_h = identity->height();
    if (wanted.origin.x < 0 || wanted.origin.y < 0 || wanted.origin.x >= source_w ||
        wanted.origin.y >= source_h)
        return refused("starting at pixel (" + std::to_string(wanted.origin.x) + ", " +
                       std::to_string(wanted.origin.y) + "), outside the " + std::to_string(source_w) + "x" +
                       std::to_string(source_h) + " frame");
    const PixelStep far = wanted.at(wanted.width - 1, wanted.height - 1);
    const std::int64_t left = std::min(wanted.origin.x, far.x), top = std::min(wanted.origin.y, far.y);
    const std::int64_t right = std::max(wanted.origin.x, far.x), bottom = std::max(wanted.origin.y, far.y);
    if (left < 0 || top < 0 || right >= source_w || bottom >= source_h)
        return refused("of " + std::to_string(wanted.width) + "x" + std::to_string(wanted.height) +
                       " pixels from (" + std::to_string(wanted.origin.x) + ", " +
                       std::to_string(wanted.origin.y) + ") reaching outside the " +
                       std::to_string(source_w) + "x" + std::to_string(source_h) + " frame");
    Result<void> cropped = identity->crop(static_cast<std::uint32_t>(left), static_cast<std::uint32_t>(top),
                                          static_cast<std::uint32_t>(right - left + 1),
                                          static_cast<std::uint32_t>(bottom - top + 1));
    if (!cropped)
        return cropped.error();
    for (int method = GST_VIDEO_ORIENTATION_IDENTITY; method <= GST_VIDEO_ORIENTATION_UR_LL; ++method) {
        FrameView view = *identity;
        view.orient(static_cast<GstVideoOrientationMethod>(method));
        const Grid<PixelStep> &got = view.pixels();
        if (got.origin == wanted.origin && got.col == wanted.col && got.row == wanted.row &&
            got.width == wanted.width && got.height == wanted.height) {
            if (Result<void> inside = view.check_bounds(frame); !inside)
                return inside.error();
            return view;
        }
    }
    return refused("whose grid no orientation of its rectangle makes");
}

Result<FrameView> decode_view(const MetaRecord &record, GstBuffer *frame, const GstVideoInfo &source_info,
                              const GstVideoInfo &stream)
{
    Result<ViewRecord> read = read_view(record, stream);
    if (!read)
        return read.error();
    return view_over(*read, frame, source_info);
}

} // namespace g2g::ipc
