// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without CUDA, or with CUDA but neither Vulkan nor DMA-BUF support: no g2gconvert.
#include "g2gconvert.h"

gboolean g2g_convert_register(GstPlugin *)
{
    return TRUE;
}
