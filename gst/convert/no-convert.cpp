// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without the CUDA-Vulkan bridge (no cuda or no vulkan feature): no g2gconvert.
#include "g2gconvert.h"

gboolean g2g_convert_register(GstPlugin *)
{
    return TRUE;
}
