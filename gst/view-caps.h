// Caps arithmetic shared by the view elements.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

namespace g2g::caps {

// The formats g2gview and g2gmaterialize take (FrameView::supports_format), as a caps list.
#define G2G_VIEW_FORMATS                                                                                     \
    "{ GRAY8, GRAY16_LE, GRAY16_BE, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, AYUV, NV12, "  \
    "NV21, "                                                                                                 \
    "I420, YV12, Y444, I420_10LE, P010_10LE, YUY2, UYVY, YVYU }"

#define G2G_VIEW_FEATURES GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY ", meta:G2gTensorView"

// True when the structure's features carry meta:G2gTensorView.
bool has_view_feature(GstCapsFeatures *features);

// Every structure twice: with the view feature and without it (view first).
GstCaps *with_and_without_view(GstCaps *caps);

// The same caps with every structure's features set to plain system memory.
GstCaps *without_view(GstCaps *caps);

// True when the peer of `pad` explicitly names meta:G2gTensorView (ANY caps do not count).
bool peer_names_view(GstPad *pad);

// Keeps only the structures of `caps` (writable) with (keep_views) or without the view feature.
void keep_structures(GstCaps *caps, bool keep_views);

} // namespace g2g::caps
