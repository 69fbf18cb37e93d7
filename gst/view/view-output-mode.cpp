// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-output-mode.h"

#include <g2g/frame-view.h>

#include "common/allocation.h"

namespace g2g::element {

const char *output_mode_name(OutputMode mode)
{
    switch (mode) {
    case OutputMode::Passthrough:
        return "passthrough";
    case OutputMode::CropMeta:
        return "crop-meta";
    case OutputMode::View:
        return "view";
    case OutputMode::PackedThroughDense:
        return "packed-through-dense";
    case OutputMode::Dense:
        return "dense";
    }
    return "?";
}

OutputMode output_mode_for_caps(const Geometry &g, GstVideoFormat format, bool in_view, bool out_view)
{
    if (g.is_identity() && in_view == out_view)
        return OutputMode::Passthrough;
    if (!out_view)
        return OutputMode::Dense;
    // The rule FrameView::crop and FrameView::orient apply: the crop first (its left edge), then
    // the orientation.
    return FrameView::keeps_strides(format, g.method, g.left) ? OutputMode::View
                                                              : OutputMode::PackedThroughDense;
}

OutputMode output_mode_for_allocation(OutputMode mode, const Geometry &g, bool in_view, GstQuery *query)
{
    if (mode != OutputMode::Dense && mode != OutputMode::CropMeta)
        return mode;
    // GStreamer's Vulkan elements ignore GstVideoCropMeta (they read whole images), whatever the
    // query says: a VulkanImage crop is written out.
    const bool downstream_crops =
        domain_of_allocation(query) != MemoryDomainKind::VulkanTexture &&
        gst_query_find_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr) &&
        gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    return downstream_crops && !in_view && g.is_pure_crop() ? OutputMode::CropMeta : OutputMode::Dense;
}

} // namespace g2g::element
