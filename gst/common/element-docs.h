// SPDX-License-Identifier: LGPL-2.1-or-later
// An element's metadata in GStreamer's form: long name, klass, a one-line description and the
// documentation URI of its page (<doc-url><element>.md: docs/elements/, installed by default).
#pragma once

#include <gst/gst.h>

#include "g2g-docs-config.h"

namespace g2g::element {

// `description` is one line, as gst-inspect-1.0 lists it beside the others; the page says the rest.
inline void set_metadata(GstElementClass *klass, const char *element, const char *longname,
                         const char *klass_name, const char *description)
{
    gst_element_class_set_static_metadata(klass, longname, klass_name, description, "g2g developers");
    g_autofree char *uri = g_strconcat(G2G_DOC_URL, element, ".md", nullptr);
    gst_element_class_add_metadata(klass, GST_ELEMENT_METADATA_DOC_URI, uri);
}

} // namespace g2g::element
