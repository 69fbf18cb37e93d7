// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview and the platform-handle kinds (D3D11Texture, CvPixelBuffer, WebGPUBuffer,
// WebGPUExternalTexture, WgpuTexture, WgpuBuffer): nothing writes their memory, so a crop or an
// orientation of such a frame leaves only as a view (meta:G2gTensorView on the same handle
// memory), to a consumer that reads the view, and only one the payload can carry (the domain
// table's handle_views: textures take crops and orientations, buffers crops). Everything else is
// refused, saying why, when the caps come or the settings change.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>

#include <g2g/memory-domain-kind.h>

#include "view-geometry.h"

namespace g2g::element {

// The pad template caps of the handle kinds: each kind's memory with the view feature and
// without it, in every format a view describes.
GstCaps *handle_template_caps();

// The handle kind whose memory `features` select (with or without the view feature); nullopt for
// every other memory and for ANY.
std::optional<MemoryDomainKind> handle_domain_of(const GstCapsFeatures *features);

// Appends to `caps` the forms that a structure `mapped` of handle kind `kind` takes on the other
// side of g2gview (`forward`: sink to src), `source_is_view` saying whether the structure it was
// mapped from carries the view feature: a view out of anything; a dense frame out only of a dense
// one under the identity (the same buffer, passed through). The src side also says the dense form
// of a crop or orientation, so that a consumer that reads no view links and hears why.
void append_handle_forms(GstCaps *caps, const GstStructure *mapped, MemoryDomainKind kind,
                         bool source_is_view, bool forward, const Geometry &geometry);

// Why g2gview (`view`, whose src pad is `src`) cannot hand frames of `caps` (its sink caps, fixed)
// on under `geometry`; nullopt when it can, or when the caps are of no handle kind.
std::optional<std::string> handle_refusal(GstElement *view, GstPad *src, GstCaps *caps,
                                          const Geometry &geometry);

} // namespace g2g::element
