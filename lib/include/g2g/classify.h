// SPDX-License-Identifier: LGPL-2.1-or-later
// Which memory domain a GStreamer buffer's bytes live in, for any buffer, above all those
// GStreamer's own elements make (videotestsrc, vulkanupload, cudaupload, nvh264dec, ...).
#pragma once

#include <gst/gst.h>

#include <g2g/error.h>
#include <g2g/memory-domain-kind.h>

namespace g2g {

// The domain of one GstMemory, judged by its allocator's memory type: sysmem and plain fd
// memory are System, GstDmaBufMemory is DmaBuf, GstVulkanImageMemory is VulkanTexture,
// GstCudaMemory is Cuda, g2g's platform-handle memories (g2g/platform-handles.h) are their own kinds.
// Anything else is an UnknownMemory error that quotes the memory type and allocator, never a guess.
Result<MemoryDomainKind> classify_memory(GstMemory *memory);

// The domain of a whole frame. A buffer carrying a G2gTensorView meta over host memory is a
// SystemView. All memories of a buffer must agree; a mixed buffer is an UnknownMemory error
// naming both. A buffer without memory is System (there are no bytes to live elsewhere).
Result<MemoryDomainKind> classify_buffer(GstBuffer *buffer);

} // namespace g2g
