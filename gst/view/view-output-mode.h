// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview's output mode: what it hands downstream, decided at negotiation (set_caps, then
// decide_allocation) so that the per-frame path switches on one value.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "view-geometry.h"

namespace g2g::element {

enum class OutputMode {
    // Identity geometry, the same caps feature both ways: the input buffer itself.
    Passthrough,
    // A pure crop of a dense frame towards a peer that reads GstVideoCropMeta and GstVideoMeta:
    // the input frame with a crop meta, as videocrop does, instead of a copy.
    CropMeta,
    // A stride view (meta:G2gTensorView) over the input's memories: zero bytes copied.
    View,
    // View caps out, but the composed view has no stride form (packed 4:2:2 YUY2/UYVY/YVYU
    // under a horizontal flip, a rotation or an odd left crop): materialized once, and the
    // identity view of that dense frame handed out.
    PackedThroughDense,
    // Dense caps out: the frame written once, into a buffer of the negotiated pool.
    Dense,
};

// For the log.
const char *output_mode_name(OutputMode mode);

// set_caps: the mode the caps and the geometry decide. Never CropMeta: that needs downstream's
// ALLOCATION answer (output_mode_for_allocation).
OutputMode output_mode_for_caps(const Geometry &geometry, GstVideoFormat format, bool in_view, bool out_view);

// decide_allocation: Dense becomes CropMeta when the input is dense, the geometry a pure crop
// and downstream takes GstVideoCropMeta and GstVideoMeta, in any memory but VulkanImage (and
// CropMeta Dense again when a new answer says otherwise); every other mode stays.
OutputMode output_mode_for_allocation(OutputMode mode, const Geometry &geometry, bool in_view,
                                      GstQuery *query);

} // namespace g2g::element
