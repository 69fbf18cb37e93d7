// SPDX-License-Identifier: LGPL-2.1-or-later
// Caps arithmetic shared by the view elements (g2gview, g2gmaterialize).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <g2g/memory-domain-kind.h>

#include <string>

namespace g2g::caps {

// The caps of a view element's pad, from the view backends this build has: for each domain a
// view can live in (system memory; CUDA memory with the cuda feature) the formats its backend
// materializes, with the view feature (`views`) and without it (`dense`), view first.
GstCaps *template_caps(bool views, bool dense);
// The same for one domain's memory and the formats `formats` ("{ RGBA, NV12 }").
GstCaps *domain_caps(MemoryDomainKind kind, const std::string &formats, bool views, bool dense);

// True when the structure's features carry meta:G2gTensorView.
bool has_view_feature(GstCapsFeatures *features);

// Every structure twice, in its own memory (system or CUDA): with the view feature and without
// it (view first).
GstCaps *with_and_without_view(GstCaps *caps);

// The same caps without the view feature, each structure in its own memory.
GstCaps *without_view(GstCaps *caps);

// The structures of `caps` whose memory is `from`'s (views of it too), as dense frames in `to`'s
// memory: the other side of a download (VulkanTexture to System) or of its reverse.
GstCaps *moved_to(GstCaps *caps, MemoryDomainKind from, MemoryDomainKind to);

// True when the peer of `pad` explicitly names meta:G2gTensorView (ANY caps do not count).
bool peer_names_view(GstPad *pad);

// Keeps only the structures of `caps` (writable) with (keep_views) or without the view feature.
void keep_structures(GstCaps *caps, bool keep_views);

} // namespace g2g::caps
