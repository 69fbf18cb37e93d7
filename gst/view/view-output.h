// SPDX-License-Identifier: LGPL-2.1-or-later
// What g2gview and g2gmaterialize share on the output side of a GstBaseTransform.
//
// gst/view/ holds the view elements:
//   g2gview, g2gmaterialize   the elements (each file opens with what it does and a gst-launch line)
//   view-geometry             g2gview's settings and the geometry they ask for; caps mapped through it
//   view-output-mode          g2gview's OutputMode, decided at negotiation
//   view-buffers              the output buffers of each mode (a view, a crop meta, a materialized frame)
//   view-caps                 pad templates from the view backends; the view feature on and off
//   view-handles              the platform-handle kinds: views only, those their payload carries
//   view-output               transform_size, allocation pools, the dense write (this header)
//   view-threads              n-threads, and the threads a stream's dense writes are split across
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <g2g/frame-view.h>

#include "view-threads.h"

namespace g2g::element {

// transform_size: one frame of the other caps, whatever the buffer holds (a view's buffer
// carries the memory it reads, not a frame of its caps' size).
gboolean frame_size_of_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps, gsize size,
                            GstCaps *othercaps, gsize *othersize);

// get_unit_size: one frame of `caps` (what transform_size answers, for GstBaseTransform's users that
// ask the unit instead, as videofilter's elements answer it).
gboolean frame_size_of(GstBaseTransform *trans, GstCaps *caps, gsize *size);

// Metas that describe the input's geometry (video, crop, view, the parent a view holds): the
// view elements make the output's own instead of copying these.
bool describes_geometry(GType api);

// decide_allocation for dense system-memory output: towards a peer that reads GstVideoMeta and
// offers no pool of its own, a video pool whose rows all start on 64-byte lines (strides padded
// to whole lines, memory aligned to a line), so that transposed frames leave through whole-line
// streaming stores with no re-alignment (a 4K NV12 rotation into 2160-byte rows takes 1.5x
// longer). Keeps downstream's allocator. Returns false otherwise, the query untouched but,
// where the pool was refused, for its parameters' alignment.
bool decide_line_aligned_pool(GstQuery *query);

// Where decide_line_aligned_pool does not apply (a peer that reads no GstVideoMeta, or one with a
// pool of its own): the query's first allocation parameters ask for memory aligned to a 64-byte
// line, so the first row of every plane starts on one whatever malloc hands out (the streamed
// rows need 32-byte aligned rows; without this a 4K NV12 flip ran 1x or 2x memcpy's time by the
// luck of the heap's layout). GstBaseTransform's decide_allocation then configures its pool with
// them.
void ask_line_aligned_memory(GstQuery *query);

// transform_meta of the elements that make their output's geometry (g2gview, g2gmaterialize,
// g2gconvert; each a direct GstBaseTransform): video, crop and view metas describe the input's and
// are dropped, the rest go as GstBaseTransform decides.
gboolean transform_meta_but_geometry(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
                                     GstBuffer *inbuf);
// GST_FLOW_OK when `view` is a frame of `info`'s format and size; else an element error on
// `element` ("the frame's view is ... but the caps say ...") and its flow return.
GstFlowReturn check_view_fits(GstElement *element, const FrameView &view, const GstVideoInfo *info);
// Materializes `view` of `input` into `output` laid out as `info`, by the backend of the output's
// domain (a CUDA kernel for CUDA frames, the CPU otherwise: on `threads`' pool); a failure is an
// element error on `element`.
GstFlowReturn write_dense(GstElement *element, const FrameView &view, GstBuffer *input,
                          const GstVideoInfo *info, GstBuffer *output, StreamThreads &threads);

} // namespace g2g::element
