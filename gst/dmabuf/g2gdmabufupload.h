// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gdmabufupload: system frames into DMA-BUFs (g2g's allocator), written there by their producer.
//
// gst/dmabuf/ holds it:
//   g2gdmabufupload  the element: caps, the pool it offers upstream, DMA-BUF frames passed on, other
//                    frames copied by g2g::dmabuf::export_frame (lib/src/platform/dmabuf/: which
//                    region the caps describe, dmabuf-region; its copy plane by plane, dmabuf-copy)
//   no-dmabufupload  what a build without the dmabuf feature registers (nothing)
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define G2G_TYPE_DMABUF_UPLOAD (g2g_dmabuf_upload_get_type())
G_DECLARE_FINAL_TYPE(G2gDmaBufUpload, g2g_dmabuf_upload, G2G, DMABUF_UPLOAD, GstBaseTransform)

// Registers g2gdmabufupload where this build has the dmabuf feature (no-dmabufupload.cpp
// otherwise registers nothing and says yes).
gboolean g2g_dmabuf_upload_register(GstPlugin *plugin);

G_END_DECLS
