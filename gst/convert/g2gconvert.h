// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gconvert: CUDA frames to VulkanImage frames and back on the GPU, and CUDA frames as DMA-BUFs of
// their own memory; never through host memory.
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define G2G_TYPE_CONVERT (g2g_convert_get_type())
G_DECLARE_FINAL_TYPE(G2gConvert, g2g_convert, G2G, CONVERT, GstBaseTransform)

// Registers g2gconvert where this build has one of its directions: the CUDA-Vulkan bridge (cuda
// and vulkan) or CUDA frames as DMA-BUFs (cuda and dmabuf). no-convert.cpp otherwise registers
// nothing and says yes.
gboolean g2g_convert_register(GstPlugin *plugin);

G_END_DECLS
