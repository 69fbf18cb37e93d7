// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA_DRM caps read into a GstVideoInfo, the same on every version (compat.h has the map). Built
// in every build (without the dmabuf feature DMA_DRM caps read as none); meson picks
// dma-drm-compat-1.22.cpp or dma-drm-compat-1.24.cpp.
#pragma once

#include <gst/video/video.h>

namespace g2g::compat {

// The video info of fixed raw video caps: memory:DMABuf caps in either form (1.22's `format=NV12`
// or DMA_DRM of a linear drm-format whose fourcc has a video format), and caps of any other memory.
// 1.24 reads DMA_DRM caps itself (GstVideoInfoDmaDrm); 1.22 has no DMA_DRM, so g2g restates them
// in 1.22's form first (g2g::dmabuf::caps_from_dma_drm). A drm-format is checked with g2g's parser
// on every version (dmabuf::DrmFormat::parse): GStreamer 1.24's reads text with junk after its
// modifier, or a modifier past 64 bits, as some other modifier.
bool video_info_from_caps(GstVideoInfo *info, const GstCaps *caps);

// The caps GStreamer's own DMA_DRM writer (gst_video_info_dma_drm_to_caps, 1.24) gives a linear
// frame of `info`'s format and size; nullptr on 1.22, which has none, and where GStreamer's table
// has no fourcc for the format. For tests that feed g2g the caps 1.24's elements write.
GstCaps *gstreamer_dma_drm_caps(const GstVideoInfo &info);

} // namespace g2g::compat
