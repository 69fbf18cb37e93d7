// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's counters as the application reads them: the stats property (nested structures per
// domain and per pair), and the element message posted at EOS (the same counters, flat, so that
// gst-launch-1.0 -m prints them on one readable line).
#pragma once

#include <gst/gst.h>

namespace g2g::tee {

struct TeeCounters;

// The stats property: frames, shares, copies, bytes-copied, conversions, bytes-converted,
// host-round-trips, and the structures shares-by-domain, conversions-by-pair, converters-by-pair.
GstStructure *stats_of(const TeeCounters &counters);

// The EOS message's structure, "g2gtee-stats": the stats property's numbers, then each nested
// field flattened into one field per entry, "shares.System", "conversions.VulkanTexture-to-System"
// (frames) and "converter.VulkanTexture-to-System" (the element chain), as gst-launch-1.0 -m prints:
//   g2gtee-stats, frames=(guint64)10, shares=(guint64)20, ..., shares.System=(guint64)20, ...
GstStructure *stats_message_of(const TeeCounters &counters);

} // namespace g2g::tee
