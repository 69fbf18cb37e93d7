// SPDX-License-Identifier: LGPL-2.1-or-later
// TEMPORARY: caps pass through unchanged until the DMA_DRM caps work (another branch) lands here.
#include <g2g/dmabuf.h>

namespace g2g::dmabuf {

CapsRef caps_from_dma_drm(const GstCaps *caps)
{
    return CapsRef::adopt(gst_caps_copy(caps));
}

CapsRef caps_with_dma_drm(const GstCaps *caps)
{
    return CapsRef::adopt(gst_caps_copy(caps));
}

std::optional<DrmFormat> drm_format_of(const GstStructure *)
{
    return std::nullopt;
}

} // namespace g2g::dmabuf
