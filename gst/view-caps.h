// Caps arithmetic shared by the view elements.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "g2g-config.h"

namespace g2g::caps {

// The formats g2gview and g2gmaterialize take (FrameView::supports_format), as a caps list.
#define G2G_VIEW_FORMATS                                                                                     \
    "{ GRAY8, GRAY16_LE, GRAY16_BE, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, AYUV, NV12, "  \
    "NV21, "                                                                                                 \
    "I420, YV12, Y444, I420_10LE, P010_10LE, YUY2, UYVY, YVYU }"

#define G2G_VIEW_FEATURES GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY ", meta:G2gTensorView"

// CUDA device memory (GstCudaMemory): views of it stay in device memory.
#define G2G_CAPS_FEATURE_MEMORY_CUDA "memory:CUDAMemory"
#define G2G_CUDA_VIEW_FEATURES G2G_CAPS_FEATURE_MEMORY_CUDA ", meta:G2gTensorView"
// The formats whose views of CUDA memory a kernel materializes (every strided one: packed 4:2:2
// turned sideways has no stride form).
#define G2G_CUDA_FORMATS                                                                                     \
    "{ GRAY8, GRAY16_LE, GRAY16_BE, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, AYUV, NV12, "  \
    "NV21, I420, YV12, Y444, I420_10LE, P010_10LE }"

// The CUDA halves of the view elements' templates, empty in a build without CUDA.
#if G2G_HAVE_CUDA
#define G2G_CUDA_VIEW_CAPS ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES(G2G_CUDA_VIEW_FEATURES, G2G_CUDA_FORMATS)
#define G2G_CUDA_DENSE_CAPS                                                                                  \
    ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES(G2G_CAPS_FEATURE_MEMORY_CUDA, G2G_CUDA_FORMATS)
#else
#define G2G_CUDA_VIEW_CAPS ""
#define G2G_CUDA_DENSE_CAPS ""
#endif

// True when the structure's features carry meta:G2gTensorView.
bool has_view_feature(GstCapsFeatures *features);

// True when the structure's features say CUDA device memory.
bool is_device_memory(GstCapsFeatures *features);

// Every structure twice, in its own memory (system or CUDA): with the view feature and without
// it (view first).
GstCaps *with_and_without_view(GstCaps *caps);

// The same caps without the view feature, each structure in its own memory.
GstCaps *without_view(GstCaps *caps);

// True when the peer of `pad` explicitly names meta:G2gTensorView (ANY caps do not count).
bool peer_names_view(GstPad *pad);

// Keeps only the structures of `caps` (writable) with (keep_views) or without the view feature.
void keep_structures(GstCaps *caps, bool keep_views);

} // namespace g2g::caps
