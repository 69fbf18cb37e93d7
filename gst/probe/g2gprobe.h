// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe: a pass-through that tells which memory domain each frame lives in.
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define G2G_TYPE_PROBE (g2g_probe_get_type())
G_DECLARE_FINAL_TYPE(G2gProbe, g2g_probe, G2G, PROBE, GstBaseTransform)

G_END_DECLS
