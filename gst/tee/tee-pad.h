// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's request src pads (src_%u): the tee's branch list is its pads; how each is fed is the
// plan's (tee-plan.h), not the pad's.
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define G2G_TYPE_TEE_SRC_PAD (g2g_tee_src_pad_get_type())
G_DECLARE_FINAL_TYPE(G2gTeeSrcPad, g2g_tee_src_pad, G2G, TEE_SRC_PAD, GstPad)

G_END_DECLS

struct _G2gTeeSrcPad {
    GstPad parent;
    guint index; // the N of src_N (set once, when the pad is made)
};

namespace g2g::tee {

// The branch of one of the tee's src pads. Unchecked: every src pad the tee makes is a
// G2gTeeSrcPad.
inline G2gTeeSrcPad *branch_of(GstPad *pad)
{
    return reinterpret_cast<G2gTeeSrcPad *>(pad);
}

} // namespace g2g::tee
