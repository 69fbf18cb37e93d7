// SPDX-License-Identifier: LGPL-2.1-or-later
#include "element-error.h"

#include <string>

namespace g2g::element {

GstFlowReturn post_error(GstElement *element, GQuark domain, gint code, std::string_view message,
                         std::string_view debug, std::source_location where)
{
    const std::string text(message);
    GST_WARNING_OBJECT(element, "error: %s", text.c_str());
    gst_element_message_full(element, GST_MESSAGE_ERROR, domain, code, g_strdup(text.c_str()),
                             debug.empty() ? nullptr : g_strndup(debug.data(), debug.size()),
                             where.file_name(), where.function_name(), static_cast<gint>(where.line()));
    return GST_FLOW_ERROR;
}

} // namespace g2g::element
