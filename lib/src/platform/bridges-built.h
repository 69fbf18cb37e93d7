// SPDX-License-Identifier: LGPL-2.1-or-later
// Which bridges between two platforms this build has (platform.h has the map): what g2gconvert and
// g2gtee ask before they offer a conversion (g2g-internal/plugin-interface.h).
#pragma once

namespace g2g::platform {

namespace cuda_vulkan {
// True in a build with the bridge (the cuda and the vulkan feature): g2gconvert converts between
// CUDA and Vulkan.
bool built();
} // namespace cuda_vulkan

namespace cuda_dmabuf {
// True in a build with the cuda and the dmabuf feature: CUDA frames can be exported as DMA-BUFs
// (g2gconvert's memory:DMABuf output).
bool built();
} // namespace cuda_dmabuf

} // namespace g2g::platform
