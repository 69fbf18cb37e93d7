// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's request src pads (src_%u), each carrying its branch: the route negotiation decided
// for it, so the tee's branch list is its pads and nothing else.
#pragma once

#include <gst/gst.h>

namespace g2g::tee {

class Converter;

// How a branch is fed.
enum class BranchRoute {
    Unresolved, // not decided yet (a new or unlinked pad): fed the frame as it is before caps, as
                // tee does; after them nothing while unlinked, and decided before it is fed once
                // linked (tee-snapshot.h)
    Direct,     // takes the upstream domain: the shared frame
    Restated,   // takes upstream's DMABuf frames in the other caps form (GStreamer 1.22's format=NV12
                // for 1.24's DMA_DRM drm-format=NV12, or the reverse): the shared frame, its caps
                // restated
    Relabelled, // takes system memory, frames are mappable DMABuf: the shared frame, read in place
    Converted,  // takes a domain a Converter produces: the converter's shared output
    Dropped,    // nothing reaches its domain and fan-out-policy is drop-branch
};

} // namespace g2g::tee

G_BEGIN_DECLS

#define G2G_TYPE_TEE_SRC_PAD (g2g_tee_src_pad_get_type())
G_DECLARE_FINAL_TYPE(G2gTeeSrcPad, g2g_tee_src_pad, G2G, TEE_SRC_PAD, GstPad)

G_END_DECLS

// The branch's fields are guarded by the tee's object lock, not the pad's own: route decisions
// and snapshots read and write every branch together. The streaming thread reads them only
// through a RouteSnapshot (tee-snapshot.h).
struct _G2gTeeSrcPad {
    GstPad parent;
    guint index; // the N of src_N (set once, when the pad is made)
    g2g::tee::BranchRoute route;
    g2g::tee::Converter *converter; // for BranchRoute::Converted; owned by TeeState::converters
    bool gap_sent;                  // for BranchRoute::Dropped: its sink was given a gap to preroll on
};

namespace g2g::tee {

// The branch of one of the tee's src pads. Unchecked: every src pad the tee makes is a
// G2gTeeSrcPad, and the per-frame path reads each one.
inline G2gTeeSrcPad *branch_of(GstPad *pad)
{
    return reinterpret_cast<G2gTeeSrcPad *>(pad);
}

// Back to no route (a new pad, or a stream that ended with its conversions).
void forget_route(G2gTeeSrcPad *pad);

} // namespace g2g::tee
