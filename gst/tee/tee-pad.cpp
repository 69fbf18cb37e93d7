// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee's src pad subclass: per-branch state lives in the pad (as libcamera's GstLibcameraPad
// keeps its stream), so adding or releasing a branch is adding or releasing a pad.
#include "tee-pad.h"

G_DEFINE_TYPE(G2gTeeSrcPad, g2g_tee_src_pad, GST_TYPE_PAD)

namespace {

gboolean activate_mode(GstPad *, GstObject *, GstPadMode mode, gboolean)
{
    // Push mode only: pull-mode=single is not implemented.
    return mode == GST_PAD_MODE_PUSH;
}

} // namespace

namespace g2g::tee {

void forget_route(G2gTeeSrcPad *pad)
{
    pad->route = BranchRoute::Unresolved;
    pad->converter = nullptr;
    pad->gap_sent = false;
}

} // namespace g2g::tee

static void g2g_tee_src_pad_class_init(G2gTeeSrcPadClass *)
{
}

static void g2g_tee_src_pad_init(G2gTeeSrcPad *self)
{
    g2g::tee::forget_route(self);
    gst_pad_set_activatemode_function(GST_PAD(self), activate_mode);
}
