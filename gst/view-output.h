// What g2gview and g2gmaterialize share on the output side of a GstBaseTransform.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <g2g/frame-view.h>

namespace g2g::element {

// transform_size: one frame of the other caps, whatever the buffer holds (a view's buffer
// carries the memory it reads, not a frame of its caps' size).
gboolean frame_size_of_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps, gsize size,
                            GstCaps *othercaps, gsize *othersize);

// Metas that describe the input's geometry (video, crop, view, the parent a view holds): the
// view elements make the output's own instead of copying these.
bool describes_geometry(GType api);

// Materializes `view` of `input` into `output` laid out as `info`; a failure is an element
// error on `element`.
GstFlowReturn write_dense(GstElement *element, const FrameView &view, GstBuffer *input, GstVideoInfo *info,
                          GstBuffer *output);

} // namespace g2g::element
