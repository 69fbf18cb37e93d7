// SPDX-License-Identifier: LGPL-2.1-or-later
// G2gTensorViewMeta: a frame view riding on a buffer whose memory it reads. A buffer with this
// meta travels only in caps carrying the meta:G2gTensorView feature, so nothing that does not
// know views ever reads one as dense bytes.
#pragma once

#include <gst/gst.h>

#include <string_view>

#include <g2g/error.h>
#include <g2g/frame-view.h>

G_BEGIN_DECLS

typedef struct _G2gTensorViewMeta G2gTensorViewMeta;

#define G2G_CAPS_FEATURE_META_TENSOR_VIEW "meta:G2gTensorView"

GType g2g_tensor_view_meta_api_get_type(void);
#define G2G_TENSOR_VIEW_META_API_TYPE (g2g_tensor_view_meta_api_get_type())
const GstMetaInfo *g2g_tensor_view_meta_get_info(void);

G_END_DECLS

namespace g2g {

// The view a buffer carries, or nullptr.
const FrameView *tensor_view_of(GstBuffer *buffer);

// The view a frame that arrived in view caps (meta:G2gTensorView) carries. Refused, naming `reader`,
// where it carries none: an element upstream dropped its G2gTensorViewMeta (unixfdsink, a process
// boundary, any element that does not declare meta:G2gTensorView), so its bytes are the source
// frame's, laid out as nothing the caps say; a frame in view caps always carries its view, an
// identity one included (g2gview attaches it).
Result<const FrameView *> view_of_view_caps_frame(GstBuffer *buffer, std::string_view reader);

// The view a frame reads as: the one `buffer` carries, else its identity view as `info` (its caps)
// lays it out. Refused when that view's format or size is not `info`'s (caps that do not describe
// the buffer), and as FrameView::of_frame refuses.
Result<FrameView> view_of_frame(GstBuffer *buffer, const GstVideoInfo &info);

// Puts `view` on a writable buffer (replacing a view it had). The buffer's GstVideoMeta and
// GstVideoCropMeta are removed: they describe the memory, the view describes the frame.
void attach_tensor_view(GstBuffer *buffer, FrameView view);

} // namespace g2g
