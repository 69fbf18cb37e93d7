// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gtee: fan-out that shares each frame with every branch by reference count, each branch in
// the memory domain it negotiated (one conversion per frame per target domain).
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define G2G_TYPE_TEE (g2g_tee_get_type())
G_DECLARE_FINAL_TYPE(G2gTee, g2g_tee, G2G, TEE, GstBin)

G_END_DECLS
