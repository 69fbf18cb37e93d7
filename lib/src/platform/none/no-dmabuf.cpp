// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without the dmabuf feature: DMABuf frames are still recognised (by memory type name),
// but their NO_SHARE memory stays as it is.
#include "platform/platform.h"

namespace g2g::platform::dmabuf {

GstMemory *share_fd(GstBuffer *, GstMemory *)
{
    return nullptr;
}

} // namespace g2g::platform::dmabuf

// ---- DMA_DRM caps (dma-drm-caps.cpp in a build with the feature) ----
// Without drm_fourcc.h there is no fourcc to pair with a video format: DMA_DRM structures are
// not understood (1.22 cannot say them, so they are dropped) and none are made.
#include <g2g/dmabuf.h>

namespace g2g::dmabuf {

CapsRef caps_from_dma_drm(const GstCaps *caps)
{
    CapsRef result = CapsRef::adopt(gst_caps_copy(caps));
    if (gst_caps_is_any(result.get()))
        return result;
    for (guint i = gst_caps_get_size(result.get()); i-- > 0;) {
        if (g_strcmp0(gst_structure_get_string(gst_caps_get_structure(result.get(), i), "format"),
                      "DMA_DRM") == 0)
            gst_caps_remove_structure(result.get(), i);
    }
    return result;
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
