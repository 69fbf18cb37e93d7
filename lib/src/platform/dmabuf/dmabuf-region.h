// SPDX-License-Identifier: LGPL-2.1-or-later
// export_frame's reading of a frame it copies: which region of the frame its caps describe, read
// from the frame's GstVideoMeta and GstVideoCropMeta as GStreamer's own elements read them
// (dmabuf-memory.h maps the folder).
#pragma once

#include <gst/video/video.h>

#include <string_view>

#include <g2g/error.h>

namespace g2g::dmabuf::detail {

// Where the caps' frame lies in a frame, and what becomes of its crop meta.
struct Region {
    guint x = 0; // the caps' frame's first column and row in the frame's planes, in pixels
    guint y = 0;
    // The frame's GstVideoCropMeta marks a rectangle inside the caps' frame: it goes on with the
    // copy, unchanged (the copy has the caps' frame at the same coordinates), as a queue or a tee
    // would hand it on.
    bool crop_travels = false;
};

// The region of `frame` (laid out as `caps`, or as its GstVideoMeta says) that a copy of the caps'
// frame reads:
// - a GstVideoMeta of the caps' size, or none: the whole frame; a crop meta travels with the copy;
// - a GstVideoMeta larger than the caps (a decoder's coded size, videocrop's whole frame under its
//   crop meta): the caps' width and height from the crop meta's x and y (as videocrop copies a
//   frame with a crop meta), or from the top left without one (as gst_video_frame_map reads it);
//   the crop meta is then spent;
// - a GstVideoMeta smaller than the caps, of another format or plane count, or a crop meta that
//   reaches past the frame: refused, in words that name the meta and the caps. `caller` (the
//   function the application called, or the element's name) opens the text, as layout-check's do.
Result<Region> region_of(std::string_view caller, GstBuffer *frame, const GstVideoInfo &caps);

} // namespace g2g::dmabuf::detail
