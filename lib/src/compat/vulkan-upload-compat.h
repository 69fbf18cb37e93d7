// SPDX-License-Identifier: LGPL-2.1-or-later
// What GStreamer's vulkanupload (and its mirror vulkandownload) does to the frames it carries, per
// GStreamer version, where g2g and its tests must know it (compat.h has the map). Built with the
// vulkan feature; meson picks vulkan-upload-compat-1.22.cpp or vulkan-upload-compat-1.24.cpp.
#pragma once

#include <gst/video/video.h>

namespace g2g::compat {

// Whether vulkanupload copies each plane into its image with a row length of the plane's width
// (VkBufferImageCopy.bufferRowLength = GST_VIDEO_INFO_COMP_WIDTH) from a staging buffer laid out
// with GStreamer's default, padded strides, so that an 8-bit plane whose width is not a multiple of
// 4 arrives with each row shifted by the padding of the rows above it; vulkandownload then makes
// the same mistake backwards (rows packed at the start of each plane's memory, though its
// GstVideoMeta says the padded strides). docs/design-notes.md has it.
bool vulkanupload_shears_padded_planes();

// Whether vulkanupload gives the buffer it copies from (upstream's, or its own staging copy) back
// to its pool right after submitting the copy, before the copy has run: the next frame may be
// written into it first, unless something in the upload's streaming thread waits for the GPU before
// the next frame is filled (vulkandownload does, every frame).
bool vulkanupload_races_staging();

// Whether vulkanupload makes its image pool once for its lifetime (the first caps' size, the first
// run's device) instead of at each negotiation: after a restart its frames are images of the first
// run's device, and after a renegotiation to a smaller size they are images of the first size.
bool vulkanupload_keeps_image_pool();

// Whether vulkanupload writes into the pool its downstream offers, where that pool is a
// GstVulkanImageBufferPool (so g2gipcsink's pool of exportable images receives its frames).
bool vulkanupload_takes_downstream_pool();

// Why vulkanupload cannot make VulkanImage frames of `format` on this version, as its source says,
// or nullptr where it can. Tests skip a format that vulkanupload then does fail to make, naming this.
const char *vulkanupload_lacks_format(GstVideoFormat format);

} // namespace g2g::compat
