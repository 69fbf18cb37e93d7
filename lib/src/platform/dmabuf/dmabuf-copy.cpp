// SPDX-License-Identifier: LGPL-2.1-or-later
// A frame's region copied into a DMA-BUF, plane by plane (see dmabuf-copy.h).
#include "dmabuf-copy.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "view/layout-check.h"

namespace g2g::dmabuf::detail {
namespace {

Error invalid(std::string_view caller, const std::string &message)
{
    return g2g::detail::for_caller(caller, Error(ErrorCode::InvalidArgument, message));
}

// A GstVideoFrame mapped for as long as it lives.
class MappedFrame {
public:
    MappedFrame(const GstVideoInfo &info, GstBuffer *buffer, GstMapFlags flags)
        : mapped_(gst_video_frame_map(&frame_, &info, buffer, flags))
    {
    }
    ~MappedFrame()
    {
        if (mapped_)
            gst_video_frame_unmap(&frame_);
    }
    MappedFrame(const MappedFrame &) = delete;
    MappedFrame &operator=(const MappedFrame &) = delete;

    bool mapped() const { return mapped_; }
    GstVideoFrame &frame() { return frame_; }

private:
    GstVideoFrame frame_{};
    bool mapped_;
};

// The bytes and rows of plane `p` of a `width` x `height` frame: its widest component's (the
// chroma of packed 4:2:2 covers the last macropixel of an odd width, which the luma alone does not).
struct PlaneExtent {
    gsize row_bytes = 0;
    guint rows = 0;
};

PlaneExtent plane_extent(const GstVideoFormatInfo *finfo, guint p, guint width, guint height)
{
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(finfo, p, components);
    PlaneExtent extent;
    for (gint c : components) {
        if (c < 0)
            break;
        extent.row_bytes = std::max(extent.row_bytes,
                                    static_cast<gsize>(GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(finfo, c, width)) *
                                        static_cast<gsize>(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c)));
        extent.rows =
            std::max(extent.rows, static_cast<guint>(GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(finfo, c, height)));
    }
    return extent;
}

// Where the region's first row of plane `p` starts, in bytes from the plane's start. Each plane
// starts on its own first whole sample at or before the region's origin, as videocrop crops: a
// subsampled plane at x >> w_sub (floor), and a plane that packs samples of different widths
// (YUY2's luma with its 4:2:2 chroma) on its coarsest one, the whole macropixel.
gsize region_start(const GstVideoFormatInfo *finfo, guint p, gint stride, const Region &region)
{
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(finfo, p, components);
    guint w_sub = 0;
    guint h_sub = 0;
    for (gint c : components) {
        if (c < 0)
            break;
        w_sub = std::max(w_sub, GST_VIDEO_FORMAT_INFO_W_SUB(finfo, c));
        h_sub = std::max(h_sub, GST_VIDEO_FORMAT_INFO_H_SUB(finfo, c));
    }
    const gint c = components[0];
    const gsize column =
        static_cast<gsize>(region.x >> w_sub << w_sub >> GST_VIDEO_FORMAT_INFO_W_SUB(finfo, c));
    const gsize row = static_cast<gsize>(region.y >> h_sub);
    return row * static_cast<gsize>(stride) +
           column * static_cast<gsize>(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c));
}

} // namespace

Result<void> copy_region(std::string_view caller, GstBuffer *frame, const GstVideoInfo &caps,
                         const Region &region, GstBuffer *target)
{
    const GstVideoFormatInfo *finfo = caps.finfo;
    const guint width = GST_VIDEO_INFO_WIDTH(&caps);
    const guint height = GST_VIDEO_INFO_HEIGHT(&caps);
    // Without a video meta the caps' layout is the frame's: its bytes must hold it (what
    // gst_video_frame_map checks, here in words).
    if (!gst_buffer_get_video_meta(frame) && gst_buffer_get_size(frame) < GST_VIDEO_INFO_SIZE(&caps))
        return invalid(caller,
                       "the frame's " + std::to_string(gst_buffer_get_size(frame)) + " bytes hold no " +
                           gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&caps)) + " " +
                           std::to_string(width) + "x" + std::to_string(height) + " frame of its caps (" +
                           std::to_string(GST_VIDEO_INFO_SIZE(&caps)) + " bytes)");
    MappedFrame in(caps, frame, GST_MAP_READ);
    if (!in.mapped())
        return invalid(caller, "the frame does not map for reading as its caps or its GstVideoMeta say");
    MappedFrame out(caps, target, GST_MAP_WRITE);
    if (!out.mapped())
        return g2g::detail::for_caller(
            caller, Error(ErrorCode::MapFailed, "the DMA-BUF frame of the copy does not map for writing"));
    // Every plane is checked before any is written: a refused frame leaves the target untouched.
    const guint8 *sources[GST_VIDEO_MAX_PLANES] = {};
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&caps); ++p) {
        const PlaneExtent extent = plane_extent(finfo, p, width, height);
        const gint in_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&in.frame(), p);
        // The frame's rows as its video meta places them: inside the memory it maps, and apart (a
        // stride shorter than a row would read rows that overlap).
        sources[p] = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&in.frame(), p)) +
                     region_start(finfo, p, in_stride, region);
        // Mapped per plane through a video meta; as one mapping of the whole buffer without.
        const GstMapInfo &memory = gst_buffer_get_video_meta(frame) ? in.frame().map[p] : in.frame().map[0];
        const guint8 *memory_end = memory.data + memory.size;
        if (extent.rows > 1 && (in_stride < 0 || static_cast<gsize>(in_stride) < extent.row_bytes))
            return invalid(caller, "plane " + std::to_string(p) + " of the frame has stride " +
                                       std::to_string(in_stride) + ", shorter than its " +
                                       std::to_string(extent.row_bytes) + "-byte rows");
        const gsize span = static_cast<gsize>(in_stride) * (extent.rows - 1) + extent.row_bytes;
        if (sources[p] < memory.data || sources[p] > memory_end ||
            span > static_cast<gsize>(memory_end - sources[p]))
            return invalid(caller, "plane " + std::to_string(p) + " of the frame (" +
                                       std::to_string(extent.rows) + " rows of " +
                                       std::to_string(extent.row_bytes) + " bytes, stride " +
                                       std::to_string(in_stride) + ") reaches past the " +
                                       std::to_string(memory.size) + " bytes of its memory");
    }
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&caps); ++p) {
        const PlaneExtent extent = plane_extent(finfo, p, width, height);
        const gint in_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&in.frame(), p);
        const gint out_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&out.frame(), p);
        auto *target_rows = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&out.frame(), p));
        for (guint row = 0; row < extent.rows; ++row)
            std::memcpy(target_rows + static_cast<gsize>(out_stride) * row,
                        sources[p] + static_cast<gsize>(in_stride) * row, extent.row_bytes);
    }
    return {};
}

} // namespace g2g::dmabuf::detail
