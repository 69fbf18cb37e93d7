// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview's plan: everything one negotiation decided, made by pure functions of what the settings
// ask (GeometryRequest), the caps and downstream's answers, and swapped into the element whole.
// The per-frame path reads only the plan; a refusal is these functions' result, which the element
// posts in one place.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <optional>
#include <string>

#include <g2g/error.h>

#include "view-geometry.h"
#include "view-output-mode.h"

namespace g2g::element {

struct ViewPlan {
    Geometry geometry; // the request resolved for the stream's sizes (automatic sides included)
    GstVideoInfo in_info{};
    GstVideoInfo out_info{};
    bool in_view = false;  // the input carries meta:G2gTensorView
    bool out_view = false; // the output does
    OutputMode mode = OutputMode::Passthrough;
    bool vulkan = false;  // VulkanImage frames: the device's shader writes dense output
    bool host_in = false; // system-memory caps in (System or SystemView)
    // Memory g2gview has no view of (DMABuf, GL, NVMM...): passed through under the identity, or
    // cropped by a GstVideoCropMeta for a consumer that reads one; nothing else.
    bool opaque = false;
};

// True when `features` select memory g2gview has no view of: neither a view domain's nor a
// platform-handle kind's (ANY is not a memory).
bool is_opaque_memory(const GstCapsFeatures *features);

// Why frames of `in_caps` (fixed sink caps) cannot pass `view` (whose src pad is `src`) under
// `request`, whatever the output: a crop that leaves no pixel, a platform-handle kind's frame
// that can leave neither as a view nor as itself, an orientation of memory g2gview has no view
// of. nullopt when they can.
std::optional<std::string> refusal_of_input(GstElement *view, GstPad *src, const GeometryRequest &request,
                                            GstCaps *in_caps);

// The plan for `in_caps` -> `out_caps` (fixed) under `request`, or why there is none. The output
// mode is the caps' (output_mode_for_caps); plan_for_allocation refines it.
Result<ViewPlan> plan_for_caps(GstElement *view, GstPad *src, const GeometryRequest &request,
                               GstCaps *in_caps, GstCaps *out_caps);

// `plan` refined by downstream's ALLOCATION answer (output_mode_for_allocation): a pure crop
// becomes a GstVideoCropMeta where downstream reads one. A crop of memory g2gview has no view of
// is refused where downstream reads no GstVideoCropMeta.
Result<ViewPlan> plan_for_allocation(GstElement *view, const ViewPlan &plan, GstQuery *query);

} // namespace g2g::element
