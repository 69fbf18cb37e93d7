// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsrc: a consumer's end of g2gipcsink (g2gipcsink.h maps the folder).
#pragma once

#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define G2G_TYPE_IPC_SRC (g2g_ipc_src_get_type())
G_DECLARE_FINAL_TYPE(G2gIpcSrc, g2g_ipc_src, G2G, IPC_SRC, GstPushSrc)

G_END_DECLS
