// SPDX-License-Identifier: LGPL-2.1-or-later
// A view across processes (issue 33): a frame's view travels as a meta record of g2g's own in
// NEW_BUFFER's list (unixfdsrc skips a record whose name it does not know), beside the GstVideoMeta
// record that lays out the memory it reads. The record holds which source pixel each view pixel
// is (FrameView::pixels()); the consumer rebuilds the view with FrameView's own operations on the
// frame it received (its identity view, a crop, an orientation), so a view that crossed passes
// exactly the checks of one made in the consumer's process, the C API's layout check among them.
#pragma once

#include <gst/video/video.h>

#include <g2g/error.h>
#include <g2g/frame-view.h>

#include "ipc-wire.h"

namespace g2g::ipc {

inline constexpr const char *kViewRecordName = "G2gTensorView";
inline constexpr std::uint8_t kViewRecordVersion = 1;

MetaRecord encode_view(const FrameView &view);

// The GstVideoMeta record of a frame laid out as `layout` (FrameView::source_layout(): the memory
// a view reads), and that layout put back on a buffer of the memories that crossed, as the
// GstVideoMeta decode_view's FrameView::of_frame reads.
WireVideoMeta video_meta_of(const GstVideoInfo &layout);
void add_video_meta(GstBuffer *frame, const WireVideoMeta &meta);

// A view record read: its format and which source pixel each view pixel is.
struct ViewRecord {
    GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
    Grid<PixelStep> pixels;
};

// `record` read, for a stream of caps `stream`, before any memory is looked at. Refused: another
// version or length, another format than the stream's, a view of another size than the stream's
// caps say (downstream reads the caps' size), steps that are not a crop and one of videoflip's
// orientations.
Result<ViewRecord> read_view(const MetaRecord &record, const GstVideoInfo &stream);

// The view `record` says over `frame` (memories as they arrived, laid out by their GstVideoMeta
// or, for device memory, as its view backend lays it out; `source_info` the frame the view reads,
// where no GstVideoMeta says its size). Refused: a rectangle outside the frame, and what FrameView
// refuses (a view outside the memory that came).
Result<FrameView> view_over(const ViewRecord &record, GstBuffer *frame, const GstVideoInfo &source_info);

// read_view, then view_over.
Result<FrameView> decode_view(const MetaRecord &record, GstBuffer *frame, const GstVideoInfo &source_info,
                              const GstVideoInfo &stream);

} // namespace g2g::ipc
