// SPDX-License-Identifier: LGPL-2.1-or-later
// The region of a frame its caps describe (see dmabuf-region.h).
#include "dmabuf-region.h"

#include <string>

#include "view/layout-check.h"

namespace g2g::dmabuf::detail {
namespace {

Error invalid(std::string_view caller, const std::string &message)
{
    return g2g::detail::for_caller(caller, Error(ErrorCode::InvalidArgument, message));
}

std::string size_text(guint width, guint height)
{
    return std::to_string(width) + "x" + std::to_string(height);
}

std::string caps_text(const GstVideoInfo &caps)
{
    return std::string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&caps))) + " " +
           size_text(GST_VIDEO_INFO_WIDTH(&caps), GST_VIDEO_INFO_HEIGHT(&caps));
}

} // namespace

Result<Region> region_of(std::string_view caller, GstBuffer *frame, const GstVideoInfo &caps)
{
    const guint width = GST_VIDEO_INFO_WIDTH(&caps);
    const guint height = GST_VIDEO_INFO_HEIGHT(&caps);
    guint frame_width = width;
    guint frame_height = height;
    if (const GstVideoMeta *meta = gst_buffer_get_video_meta(frame)) {
        const std::string said = "the frame's GstVideoMeta says " +
                                 std::string(gst_video_format_to_string(meta->format)) + " " +
                                 size_text(meta->width, meta->height);
        if (meta->format != GST_VIDEO_INFO_FORMAT(&caps) || meta->n_planes != GST_VIDEO_INFO_N_PLANES(&caps))
            return invalid(caller, said + " in " + std::to_string(meta->n_planes) +
                                       " planes but its caps say " + caps_text(caps) + " in " +
                                       std::to_string(GST_VIDEO_INFO_N_PLANES(&caps)) +
                                       ": the producer's video meta or its caps are wrong");
        // gst_video_frame_map refuses the same: the meta's planes cannot hold the caps' frame.
        if (meta->width < width || meta->height < height)
            return invalid(caller,
                           said + ", smaller than its caps' " + caps_text(caps) +
                               ": a video meta smaller than the caps cannot hold the caps' frame (the "
                               "producer's video meta or its caps are wrong)");
        frame_width = meta->width;
        frame_height = meta->height;
    }
    const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(frame);
    if (!crop)
        return Region{};
    const std::string crop_said = "the frame's GstVideoCropMeta (x=" + std::to_string(crop->x) +
                                  " y=" + std::to_string(crop->y) + " " +
                                  size_text(crop->width, crop->height) + ")";
    if (frame_width == width && frame_height == height) {
        // The caps' frame is the whole frame: the crop marks a rectangle inside it, for a consumer
        // that reads crop metas.
        if (static_cast<guint64>(crop->x) + crop->width > width ||
            static_cast<guint64>(crop->y) + crop->height > height)
            return invalid(caller, crop_said + " reaches past the " + caps_text(caps) +
                                       " frame its caps and video meta describe");
        return Region{0, 0, true};
    }
    // videocrop's form (and a decoder's): the video meta is the whole frame, the caps the cropped
    // one, which starts at the crop's x and y. Its copy is the caps' frame, dense: nothing left to crop.
    const guint x = crop->x;
    const guint y = crop->y;
    if (static_cast<guint64>(x) + width > frame_width || static_cast<guint64>(y) + height > frame_height)
        return invalid(caller,
                       crop_said + " puts the caps' " + caps_text(caps) + " frame past the " +
                           size_text(frame_width, frame_height) +
                           " frame of its GstVideoMeta: the producer's crop meta or its caps are wrong");
    return Region{x, y, false};
}

} // namespace g2g::dmabuf::detail
