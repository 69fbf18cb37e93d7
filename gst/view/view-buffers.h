// SPDX-License-Identifier: LGPL-2.1-or-later
// The frames g2gview makes per buffer, one per output mode: the input with a crop meta
// (CropMeta), a buffer over the input's memories (View, PackedThroughDense), the composed view,
// and a view materialized into its output (PackedThroughDense).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>

#include "view-geometry.h"

namespace g2g::element {

// A metadata copy of `input` (its memories shared) whose GstVideoCropMeta keeps the crop of
// `geometry` on top of any it had; with `describe_layout`, a GstVideoMeta laid out as `in_info` is
// added if it had none, for the crop meta to have a frame to crop (memory g2gview has no view of,
// a DMABuf say, is described by its own caps and metas instead). `out_info` gives the size kept.
BufferRef crop_meta_buffer(GstBuffer *input, const GstVideoInfo &in_info, const Geometry &geometry,
                           const GstVideoInfo &out_info, bool describe_layout);

// The view `geometry` makes of `input`: composed on the view the input carries (a chain of
// g2gview is one view), else on the frame `in_info` lays out.
Result<FrameView> compose_view(GstBuffer *input, const GstVideoInfo &in_info, const Geometry &geometry);

// `view` of `input` materialized once (on `workers`' threads when given); `output` then holds the
// dense frame's memory and its identity view.
Result<void> attach_materialized(GstBuffer *output, const FrameView &view, GstBuffer *input,
                                 const WorkerPool *workers);

} // namespace g2g::element
