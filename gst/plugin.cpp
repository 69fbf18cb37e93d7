// SPDX-License-Identifier: LGPL-2.1-or-later
// The g2g GStreamer plugin: registers every element this host supports.
#include <gst/gst.h>

#include "g2g-config.h"
#include "g2g-docs-config.h"
#include "g2gconvert.h"
#include "g2gdmabufupload.h"
#include "g2gipcsink.h"
#include "g2gipcsrc.h"
#include "g2gmaterialize.h"
#include "g2gprobe.h"
#include "g2gtee.h"
#include "g2gview.h"

static gboolean plugin_init(GstPlugin *plugin)
{
    gboolean ok = TRUE;
    ok &= gst_element_register(plugin, "g2gprobe", GST_RANK_NONE, G2G_TYPE_PROBE);
    ok &= gst_element_register(plugin, "g2gview", GST_RANK_NONE, G2G_TYPE_VIEW);
    ok &= gst_element_register(plugin, "g2gmaterialize", GST_RANK_NONE, G2G_TYPE_MATERIALIZE);
    ok &= gst_element_register(plugin, "g2gtee", GST_RANK_NONE, G2G_TYPE_TEE);
    ok &= g2g_convert_register(plugin);
    ok &= g2g_dmabuf_upload_register(plugin);
    ok &= gst_element_register(plugin, "g2gipcsink", GST_RANK_NONE, G2G_TYPE_IPC_SINK);
    ok &= gst_element_register(plugin, "g2gipcsrc", GST_RANK_NONE, G2G_TYPE_IPC_SRC);
    return ok;
}

#define PACKAGE G2G_PACKAGE
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, g2g,
                  "Explicit, negotiable, zero-copy memory domains: probe, fan-out and stride views",
                  plugin_init, G2G_VERSION, "LGPL", "g2g", G2G_PACKAGE_ORIGIN)
