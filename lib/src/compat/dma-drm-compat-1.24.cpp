// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24 and later read DMA_DRM caps themselves (gst_video_info_dma_drm_from_caps and
// gst_video_info_dma_drm_to_video_info, gst-libs/gst/video/video-info-dma.c): g2g reads them so
// (compat/dma-drm-compat.h). GStreamer's fourcc table grew after 1.24.0 (R8, R16, XR15, P016 and
// AB30 came in 1.26 and 1.28); a format it lacks is read through g2g's own table, which has all of
// 1.22's formats.
#include "compat/dma-drm-compat.h"

#include <gst/video/video-info-dma.h>

#include <g2g/dmabuf.h>

namespace g2g::compat {

bool video_info_from_caps(GstVideoInfo *info, const GstCaps *caps)
{
    if (!caps || !gst_caps_is_fixed(caps))
        return false;
    if (!gst_video_is_dma_drm_caps(caps))
        return gst_video_info_from_caps(info, caps);
    const std::optional<dmabuf::DrmFormat> format = dmabuf::drm_format_of(gst_caps_get_structure(caps, 0));
    if (!format || !format->linear())
        return false;
    GstVideoInfoDmaDrm drm;
    if (!gst_video_info_dma_drm_from_caps(&drm, caps))
        return false;
    if (gst_video_info_dma_drm_to_video_info(&drm, info))
        return true;
    // A fourcc this GStreamer has no format for, which g2g's table has.
    const CapsRef plain = dmabuf::caps_from_dma_drm(caps);
    return plain && gst_caps_is_fixed(plain.get()) && gst_video_info_from_caps(info, plain.get());
}

GstCaps *gstreamer_dma_drm_caps(const GstVideoInfo &info)
{
    GstVideoInfoDmaDrm drm;
    if (!gst_video_info_dma_drm_from_video_info(&drm, &info, 0 /* DRM_FORMAT_MOD_LINEAR */))
        return nullptr;
    return gst_video_info_dma_drm_to_caps(&drm);
}

} // namespace g2g::compat
