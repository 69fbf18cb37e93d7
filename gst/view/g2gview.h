// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview: flip, rotate, transpose and crop as a stride view, zero bytes copied.
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define G2G_TYPE_VIEW (g2g_view_get_type())
G_DECLARE_FINAL_TYPE(G2gView, g2g_view, G2G, VIEW, GstBaseTransform)

G_END_DECLS
