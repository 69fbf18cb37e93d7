// SPDX-License-Identifier: LGPL-2.1-or-later
#include "core/caps-video-info.h"

#include <string>

#include "compat/dma-drm-compat.h"

namespace g2g::detail {
namespace {

std::string caps_text(const GstCaps *caps)
{
    gchar *text = gst_caps_to_string(caps);
    std::string copy = text;
    g_free(text);
    return copy;
}

} // namespace

Result<GstVideoInfo> video_info_of_caps(std::string_view caller, const GstCaps *caps)
{
    const std::string who(caller);
    if (!caps)
        return Error(ErrorCode::InvalidArgument, who + " needs raw video caps, got none");
    // gst_video_info_from_caps asserts fixed caps (a GStreamer-CRITICAL): ask first.
    if (!gst_caps_is_fixed(caps))
        return Error(ErrorCode::InvalidArgument,
                     who + " needs fixed raw video caps (one structure, one value per field), got caps " +
                         caps_text(caps));
    GstVideoInfo info;
    if (!compat::video_info_from_caps(&info, caps))
        return Error(ErrorCode::InvalidArgument, who + " needs raw video caps, got caps " + caps_text(caps));
    if (GST_VIDEO_INFO_WIDTH(&info) <= 0 || GST_VIDEO_INFO_HEIGHT(&info) <= 0)
        return Error(ErrorCode::InvalidArgument,
                     who + ": the caps give a frame of width " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) +
                         " and height " + std::to_string(GST_VIDEO_INFO_HEIGHT(&info)) +
                         ", which has no pixels: " + caps_text(caps));
    return info;
}

} // namespace g2g::detail
