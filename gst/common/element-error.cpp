// SPDX-License-Identifier: LGPL-2.1-or-later
#include "element-error.h"

#include <string>

namespace g2g::element {

namespace {

// gst_element_message_full takes the texts (transfer full): copies of ours.
void post(GstElement *element, GstMessageType type, GQuark domain, gint code, std::string_view message,
          std::string_view debug, const SourcePlace &where)
{
    const std::string text(message);
    GST_WARNING_OBJECT(element, "%s: %s", type == GST_MESSAGE_ERROR ? "error" : "warning", text.c_str());
    gst_element_message_full(element, type, domain, code, g_strdup(text.c_str()),
                             debug.empty() ? nullptr : g_strndup(debug.data(), debug.size()),
                             where.file_name(), where.function_name(), static_cast<gint>(where.line()));
}

} // namespace

GstFlowReturn post_error(GstElement *element, GQuark domain, gint code, std::string_view message,
                         std::string_view debug, SourcePlace where)
{
    post(element, GST_MESSAGE_ERROR, domain, code, message, debug, where);
    return GST_FLOW_ERROR;
}

void post_warning(GstElement *element, GQuark domain, gint code, std::string_view message, SourcePlace where)
{
    post(element, GST_MESSAGE_WARNING, domain, code, message, {}, where);
}

} // namespace g2g::element
