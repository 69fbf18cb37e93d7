// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA-BUF frames: their layout (DRM format and planes), frames over an application's fds, and
// system frames exported into g2g's DMA-BUFs (a view by its materialize; any other frame by
// dmabuf-region and dmabuf-copy).
#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "dmabuf-copy.h"
#include "dmabuf-memory.h"
#include "dmabuf-region.h"
#include "view/layout-check.h"

namespace g2g::dmabuf {
namespace {

Error invalid(std::string message)
{
    return Error(ErrorCode::InvalidArgument, std::move(message));
}

std::string hex(std::uint64_t value)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
    return text;
}

// The fewest bytes a row of plane `plane` of a `width`-pixel frame holds: its widest component.
gsize row_bytes(const GstVideoFormatInfo *finfo, guint plane, guint width)
{
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(finfo, plane, components);
    gsize widest = 0;
    for (gint component : components) {
        if (component < 0)
            break;
        widest =
            std::max(widest, static_cast<gsize>(GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(finfo, component, width)) *
                                 static_cast<gsize>(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, component)));
    }
    return widest;
}

guint plane_height(const GstVideoFormatInfo *finfo, guint plane, guint height)
{
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(finfo, plane, components);
    return static_cast<guint>(GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(finfo, components[0], height));
}

// The checks wrap() makes of each plane against its fd.
Result<gsize> checked_fd_size(const FrameLayout &layout, const GstVideoFormatInfo *finfo, guint p)
{
    const Plane &plane = layout.planes[p];
    const gssize size = detail::fd_size(plane.fd);
    const std::string which = "plane " + std::to_string(p) + "'s fd " + std::to_string(plane.fd);
    if (size < 0)
        return invalid(which + " is not an open DMA-BUF with a size");
    if (plane.stride <= 0)
        return invalid("plane " + std::to_string(p) + "'s stride is " + std::to_string(plane.stride) +
                       ": a DMA-BUF plane's rows go down");
    // Where the plane ends, computed without wrapping past 2^64 (an offset near G_MAXSIZE would
    // otherwise end "inside" any fd). A tiled plane's extent is its modifier's business: its
    // first byte.
    std::optional<std::uint64_t> end = g2g::detail::plane_end(plane.offset, 0, 1, 1);
    if (layout.format.linear()) {
        const gsize row = row_bytes(finfo, p, layout.width);
        if (static_cast<gsize>(plane.stride) < row)
            return invalid("plane " + std::to_string(p) + "'s stride " + std::to_string(plane.stride) +
                           " is below its row of " + std::to_string(row) + " bytes");
        end = g2g::detail::plane_end(plane.offset, static_cast<std::uint64_t>(plane.stride),
                                     plane_height(finfo, p, layout.height), row);
    }
    if (plane.offset >= static_cast<gsize>(size))
        return invalid("plane " + std::to_string(p) + " starts at byte " + std::to_string(plane.offset) +
                       " but " + which + " holds " + std::to_string(size) + " bytes");
    if (!end || *end > static_cast<std::uint64_t>(size))
        return invalid("plane " + std::to_string(p) + " ends at byte " +
                       (end ? std::to_string(*end) : std::string("past 2^64")) + " but " + which + " holds " +
                       std::to_string(size) + " bytes");
    return static_cast<gsize>(size);
}

// A frame of g2g's allocator laid out as `dense`, with its DRM format recorded and a GstVideoMeta.
Result<BufferRef> new_frame(const GstVideoInfo &dense, std::uint32_t fourcc)
{
    GstMemory *memory = gst_allocator_alloc(allocator(), GST_VIDEO_INFO_SIZE(&dense), nullptr);
    if (!memory)
        return Error(ErrorCode::MapFailed, "g2g's DMA-BUF allocator could not allocate " +
                                               std::to_string(GST_VIDEO_INFO_SIZE(&dense)) + " bytes (" +
                                               std::string(backend_name(backend())) + ")");
    detail::record_format(memory, {fourcc, kModifierLinear});
    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(frame.get(), memory);
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&dense),
                                   GST_VIDEO_INFO_WIDTH(&dense), GST_VIDEO_INFO_HEIGHT(&dense),
                                   GST_VIDEO_INFO_N_PLANES(&dense), const_cast<gsize *>(dense.offset),
                                   const_cast<gint *>(dense.stride));
    return frame;
}

// A frame of `pool` (pool_new's, active) for the dense frame `dense`; `dense` takes the planes of
// the pool frame's GstVideoMeta. Refused when the pool holds frames of another format or size.
Result<BufferRef> frame_of_pool(GstBufferPool *pool, GstVideoInfo &dense)
{
    BufferRef frame;
    if (gst_buffer_pool_acquire_buffer(pool, frame.out(), nullptr) != GST_FLOW_OK)
        return Error(ErrorCode::MapFailed, "the DMA-BUF pool gave no frame (inactive or flushing)");
    const GstVideoMeta *meta = gst_buffer_get_video_meta(frame.get());
    if (!meta || meta->format != GST_VIDEO_INFO_FORMAT(&dense) ||
        meta->width != static_cast<guint>(GST_VIDEO_INFO_WIDTH(&dense)) ||
        meta->height != static_cast<guint>(GST_VIDEO_INFO_HEIGHT(&dense)))
        return invalid("the DMA-BUF pool's frames are not " +
                       std::string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&dense))) + " " +
                       std::to_string(GST_VIDEO_INFO_WIDTH(&dense)) + "x" +
                       std::to_string(GST_VIDEO_INFO_HEIGHT(&dense)));
    for (guint p = 0; p < meta->n_planes; ++p) {
        dense.offset[p] = meta->offset[p];
        dense.stride[p] = meta->stride[p];
    }
    return frame;
}

} // namespace

Result<FrameLayout> layout_of(GstBuffer *frame, const GstVideoInfo *info)
{
    if (!frame || gst_buffer_n_memory(frame) == 0)
        return invalid("an empty buffer has no DMA-BUF layout");
    for (guint i = 0; i < gst_buffer_n_memory(frame); ++i) {
        if (!gst_is_dmabuf_memory(gst_buffer_peek_memory(frame, i)))
            return invalid("memory " + std::to_string(i) + " of the frame is " +
                           (gst_buffer_peek_memory(frame, i)->allocator
                                ? std::string(gst_buffer_peek_memory(frame, i)->allocator->mem_type)
                                : std::string("of no allocator")) +
                           " memory, not a DMA-BUF");
    }
    const GstVideoMeta *meta = gst_buffer_get_video_meta(frame);
    if (!meta && !info)
        return invalid(
            "the DMA-BUF frame has no GstVideoMeta and no video info was given: its planes are unknown");
    const GstVideoFormat format = meta ? meta->format : GST_VIDEO_INFO_FORMAT(info);
    FrameLayout layout;
    layout.width = meta ? meta->width : static_cast<guint>(GST_VIDEO_INFO_WIDTH(info));
    layout.height = meta ? meta->height : static_cast<guint>(GST_VIDEO_INFO_HEIGHT(info));
    if (std::optional<DrmFormat> recorded = detail::recorded_format(gst_buffer_peek_memory(frame, 0)))
        layout.format = *recorded;
    else
        layout.format = {drm_fourcc_of(format), kModifierLinear};
    if (!layout.format.fourcc)
        return invalid(std::string("GStreamer's format ") + gst_video_format_to_string(format) +
                       " has no DRM fourcc");
    const guint n_planes = meta ? meta->n_planes : GST_VIDEO_INFO_N_PLANES(info);
    for (guint p = 0; p < n_planes; ++p) {
        const gsize offset = meta ? meta->offset[p] : GST_VIDEO_INFO_PLANE_OFFSET(info, p);
        guint index = 0;
        guint length = 0;
        gsize skip = 0;
        if (!gst_buffer_find_memory(frame, offset, 1, &index, &length, &skip))
            return invalid("plane " + std::to_string(p) + " starts at byte " + std::to_string(offset) +
                           ", past the frame's memory");
        GstMemory *memory = gst_buffer_peek_memory(frame, index);
        layout.planes.push_back({gst_dmabuf_memory_get_fd(memory), memory->offset + skip,
                                 meta ? meta->stride[p] : GST_VIDEO_INFO_PLANE_STRIDE(info, p)});
    }
    return layout;
}

bool is_mappable(GstBuffer *frame)
{
    for (guint i = 0; frame && i < gst_buffer_n_memory(frame); ++i) {
        if (GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(frame, i), GST_MEMORY_FLAG_NOT_MAPPABLE))
            return false;
    }
    return frame != nullptr;
}

Result<BufferRef> wrap(const FrameLayout &layout)
{
    const GstVideoFormat format = video_format_of(layout.format.fourcc);
    if (format == GST_VIDEO_FORMAT_UNKNOWN)
        return invalid("the DRM fourcc '" + DrmFormat{layout.format.fourcc}.to_string() +
                       "' has no GStreamer video format");
    if (layout.format.modifier == kModifierInvalid)
        return invalid("the modifier is DRM_FORMAT_MOD_INVALID, which names no layout: ask the producer "
                       "for the frame's real modifier");
    if (!modifier_known(layout.format.modifier))
        return invalid("the DRM format modifier " + hex(layout.format.modifier) + " is of vendor " +
                       hex(layout.format.modifier >> 56) + ", which drm_fourcc.h does not know");
    if (layout.width == 0 || layout.height == 0)
        return invalid("a DMA-BUF frame of " + std::to_string(layout.width) + "x" +
                       std::to_string(layout.height) + " pixels has no pixels");
    const GstVideoFormatInfo *finfo = gst_video_format_get_info(format);
    if (layout.planes.size() != GST_VIDEO_FORMAT_INFO_N_PLANES(finfo))
        return invalid(std::string(gst_video_format_to_string(format)) + " has " +
                       std::to_string(GST_VIDEO_FORMAT_INFO_N_PLANES(finfo)) + " planes, the layout gives " +
                       std::to_string(layout.planes.size()));
    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    std::vector<int> fds;      // the caller's fd of each memory, in buffer order
    std::vector<gsize> starts; // where each memory starts in the buffer
    gsize offsets[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    gsize buffer_size = 0;
    for (guint p = 0; p < layout.planes.size(); ++p) {
        const Plane &plane = layout.planes[p];
        Result<gsize> size = checked_fd_size(layout, finfo, p);
        if (!size)
            return size.error();
        auto known = std::find(fds.begin(), fds.end(), plane.fd);
        if (known == fds.end()) {
            const int own = dup(plane.fd);
            GstMemory *memory =
                own < 0 ? nullptr : detail::wrap_fd(own, *size, layout.format, layout.format.linear());
            if (!memory) {
                if (own >= 0)
                    close(own);
                return Error(ErrorCode::MapFailed, "could not wrap plane " + std::to_string(p) + "'s fd " +
                                                       std::to_string(plane.fd));
            }
            gst_buffer_append_memory(frame.get(), memory);
            fds.push_back(plane.fd);
            starts.push_back(buffer_size);
            buffer_size += *size;
            known = fds.end() - 1;
        }
        offsets[p] = starts[static_cast<std::size_t>(known - fds.begin())] + plane.offset;
        strides[p] = plane.stride;
    }
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, format, layout.width,
                                   layout.height, static_cast<guint>(layout.planes.size()), offsets, strides);
    return frame;
}

Result<BufferRef> export_frame(GstBuffer *frame, const GstVideoInfo &info, GstBufferPool *pool,
                               std::string_view caller)
{
    if (!frame)
        return invalid("no frame to export");
    const std::uint32_t fourcc = drm_fourcc_of(GST_VIDEO_INFO_FORMAT(&info));
    if (!fourcc)
        return invalid(std::string("GStreamer's format ") +
                       gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)) +
                       " has no DRM fourcc to export it with");
    const FrameView *view = tensor_view_of(frame);
    // A view (meta:G2gTensorView) is written densely by this one copy, by its own materialize.
    // Any other frame is copied plane by plane, the region of it its caps describe: a frame view
    // describes only some of the formats with a DRM fourcc, and reads a crop meta as a view's crop.
    std::optional<detail::Region> region;
    GstVideoInfo dense = info;
    if (view) {
        dense = view->info();
    } else {
        if (Result<void> readable = g2g::detail::check_host_readable(caller, frame); !readable)
            return readable.error();
        Result<detail::Region> read = detail::region_of(caller, frame, info);
        if (!read)
            return read.error();
        region = *read;
        // The caps' frame in the format's own offsets and strides, whatever `info` says of them.
        GstVideoAlignment none;
        gst_video_alignment_reset(&none);
        gst_video_info_align(&dense, &none);
    }
    Result<BufferRef> made = pool ? frame_of_pool(pool, dense) : new_frame(dense, fourcc);
    if (!made)
        return made.error();
    BufferRef exported = std::move(*made);
    if (view) {
        if (Result<void> written = view->materialize_to(frame, exported.get(), dense); !written)
            return written.error();
    } else if (Result<void> copied = detail::copy_region(caller, frame, info, *region, exported.get());
               !copied) {
        return copied.error();
    }
    gst_buffer_copy_into(exported.get(), frame,
                         static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, -1);
    if (region && region->crop_travels) {
        const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(frame);
        GstVideoCropMeta *copied = gst_buffer_add_video_crop_meta(exported.get());
        copied->x = crop->x;
        copied->y = crop->y;
        copied->width = crop->width;
        copied->height = crop->height;
    }
    return exported;
}

} // namespace g2g::dmabuf
