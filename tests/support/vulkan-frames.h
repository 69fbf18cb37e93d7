// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for frames that went through GStreamer's vulkanupload and vulkandownload: the
// bytes they store and hand out, so a frame can be compared with a peer's.
//
// GStreamer 1.22 to 1.26 (compat::vulkanupload_shears_padded_planes) copy each plane between a
// buffer and its image with VkBufferImageCopy.bufferRowLength = the plane's width (vkupload.c,
// vkdownload.c: GST_VIDEO_INFO_COMP_WIDTH), whatever the stride of the buffer's layout:
//  - vulkanupload's image row y holds the bytes [y * row, (y + 1) * row) of the plane as laid out
//    in its Vulkan buffer pool (GStreamer's default strides, rows rounded up to 4 bytes), row =
//    width * texel size: where the stride is larger than the row, the image is the plane sheared;
//  - vulkandownload writes the image's rows packed, row after row, at the start of each plane's
//    memory (one memory per plane), though its GstVideoMeta says the default strides.
// Frames whose planes' default strides are their rows (4-byte pixels at any width, 8-bit planes of
// widths that are multiples of 4; I420 and YV12 of 8; one row) pass both unchanged. Elsewhere the
// images also hold the source buffer's row padding, whatever that memory held: those bytes are
// marked unknown, and a peer that only moves samples (videoflip, videocrop on these formats) moves
// the marks with them. Where a version copies rows faithfully, the images hold the sent frame and
// vulkandownload's frame is read as its GstVideoMeta says.
#pragma once

#include <gst/video/video.h>

#include <g2g/gst-ref.h>

#include <set>
#include <string>

namespace g2g::test {

// Whether this GStreamer's vulkanupload and vulkandownload shear padded planes as above.
bool vulkan_copies_shear_padded_planes();

struct StoredFrame {
    BufferRef frame; // the bytes the images hold, in the sent frame's default layout
    BufferRef known; // the same layout: 0xFF where a byte is the sent frame's, 0 where it is padding
};

// The frame vulkanupload's images hold for the system frame `frame` (laid out as `info`, or its
// GstVideoMeta).
StoredFrame as_vulkanupload_stores(const GstVideoInfo &info, GstBuffer *frame);

// "" when every visible byte of `want` that `known` marks (0xFF; both laid out as `want_info`)
// equals the byte of `got` (laid out as `got_info`) at the same place; else where they first differ.
std::string compare_known_bytes(const GstVideoInfo &want_info, GstBuffer *want, GstBuffer *known,
                                const GstVideoInfo &got_info, GstBuffer *got);

// The frame vulkandownload's output `buffer` holds (one memory per plane, each plane's rows packed),
// as a new frame in `info`'s default layout; nullptr when `buffer` has not one memory per plane.
BufferRef from_vulkandownload(const GstVideoInfo &info, GstBuffer *buffer);

// The formats `factory`'s sink pad template offers under memory:VulkanImage.
std::set<std::string> vulkan_image_formats(const char *factory);

} // namespace g2g::test
