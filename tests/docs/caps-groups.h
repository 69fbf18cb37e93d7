// SPDX-License-Identifier: LGPL-2.1-or-later
// A pad template's caps as an element page lists them: grouped by where the bytes live (system
// memory, CUDA, Vulkan, DMA-BUF, the platform-handle kinds, any memory), each group's structures
// with the same fields merged into one entry that names every feature set they come in.
#pragma once

#include <gst/gst.h>

#include <string>

namespace g2g::docs {

// The Markdown of `caps`: a heading per group, an entry per distinct set of fields. Groups whose
// memory only builds with an optional feature (CUDAMemory: cuda, VulkanImage: vulkan, DMABuf:
// dmabuf) are wrapped in feature markers (feature-markers.h) so that a build without the feature
// can check the rest of the page.
std::string caps_markdown(const GstCaps *caps);

} // namespace g2g::docs
