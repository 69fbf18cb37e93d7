// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22 has no DMA_DRM caps (they came in 1.24: GstVideoInfoDmaDrm): gst_video_info_from_caps
// fails on format=DMA_DRM, so g2g restates them in 1.22's form and reads that
// (compat/dma-drm-compat.h).
#include "compat/dma-drm-compat.h"

#include <g2g/dmabuf.h>

namespace g2g::compat {

bool video_info_from_caps(GstVideoInfo *info, const GstCaps *caps)
{
    const CapsRef plain = dmabuf::caps_from_dma_drm(caps);
    return plain && gst_caps_is_fixed(plain.get()) && gst_video_info_from_caps(info, plain.get());
}

GstCaps *gstreamer_dma_drm_caps(const GstVideoInfo &)
{
    return nullptr;
}

} // namespace g2g::compat
