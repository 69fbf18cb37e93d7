// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gmaterialize: a frame view in, the dense frame out (one copy); dense frames pass untouched.
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define G2G_TYPE_MATERIALIZE (g2g_materialize_get_type())
G_DECLARE_FINAL_TYPE(G2gMaterialize, g2g_materialize, G2G, MATERIALIZE, GstBaseTransform)

G_END_DECLS
