// SPDX-License-Identifier: LGPL-2.1-or-later
// ALLOCATION over several branches, as tee aggregates it, for g2gtee's sink pad (the branches
// fed the frame as it is, and the conversions) and for a conversion's output (its branches).
#pragma once

#include "tee-plan.h"

#include <gst/gst.h>

#include <span>

namespace g2g::tee {

// Answers `query` with what `pads`' peers agree on: the largest alignment, prefix and padding;
// the metas every peer takes with the same parameters; one pool entry without a pool object (one
// pool cannot serve every branch) of the largest size, the largest minimum plus one for the
// buffer the fan-out holds while pushing, and no maximum. A peer that fails the query fails it;
// an unlinked pad fails it too unless `allow_not_linked`. Each peer is asked with the query's caps,
// or with `caps_of` the caps of the same index where there are those (a branch whose caps differ
// from upstream's: relabelled, restated).
gboolean aggregate_allocation(GstObject *owner, std::span<const PadRef> pads, bool allow_not_linked,
                              GstQuery *query, std::span<const CapsRef> caps_of = {});

} // namespace g2g::tee
