// SPDX-License-Identifier: LGPL-2.1-or-later
#include "page-writer.h"

#include "caps-groups.h"
#include "property-text.h"

#include <g2g/gst-ref.h>

#include <sstream>
#include <string>
#include <vector>

namespace g2g::docs {

namespace {

constexpr const char *kSectionMark = "<!-- section: ";

const char *rank_name(guint rank)
{
    switch (rank) {
    case GST_RANK_NONE:
        return "none";
    case GST_RANK_MARGINAL:
        return "marginal";
    case GST_RANK_SECONDARY:
        return "secondary";
    case GST_RANK_PRIMARY:
        return "primary";
    default:
        return "other";
    }
}

const char *presence_name(GstPadPresence presence)
{
    switch (presence) {
    case GST_PAD_ALWAYS:
        return "always";
    case GST_PAD_SOMETIMES:
        return "sometimes";
    default:
        return "request";
    }
}

// The documentation URI as the page writes it: relative to the doc-url option (its default, the
// installed pages, is a path of this machine). Anything else is written as it is, and the check
// shows it as a difference.
std::string doc_uri_text(const char *uri, const std::string &element)
{
    const std::string page = element + ".md";
    const std::string u = uri ? uri : "";
    if (u.size() > page.size() && u.compare(u.size() - page.size(), page.size(), page) == 0)
        return "`<doc-url>" + page +
               "` (doc-url: a meson option; by default this page where `meson install` puts it)";
    return u.empty() ? "none" : "`" + u + "`";
}

std::string hierarchy_text(GType type)
{
    std::string text;
    std::string indent;
    std::vector<GType> chain;
    for (GType t = type; t; t = g_type_parent(t))
        chain.insert(chain.begin(), t);
    for (GType t : chain) {
        text += indent + g_type_name(t) + "\n";
        indent = indent.empty() ? "  +-- " : "      " + indent;
    }
    return "```text\n" + text + "```\n";
}

std::string interfaces_text(GType type)
{
    guint n = 0;
    g_autofree GType *ifaces = g_type_interfaces(type, &n);
    if (n == 0)
        return "None.\n";
    std::string text;
    for (guint i = 0; i < n; ++i)
        text += "- `" + std::string(g_type_name(ifaces[i])) + "`\n";
    return text;
}

std::string pad_templates_text(GstElementClass *klass, const HandWritten &hand)
{
    std::string text = hand.pad_templates.empty() ? "" : "\n" + hand.pad_templates + "\n";
    // In the order the element added them.
    GList *templates = g_list_copy(gst_element_class_get_pad_template_list(klass));
    for (GList *l = templates; l; l = l->next) {
        GstPadTemplate *templ = GST_PAD_TEMPLATE(l->data);
        GType pad_type = G_TYPE_NONE;
        g_object_get(templ, "gtype", &pad_type, nullptr);
        text += "\n### " + std::string(GST_PAD_TEMPLATE_NAME_TEMPLATE(templ)) + "\n\n";
        text +=
            "- direction: " + std::string(GST_PAD_TEMPLATE_DIRECTION(templ) == GST_PAD_SRC ? "src" : "sink") +
            "\n- presence: " + presence_name(GST_PAD_TEMPLATE_PRESENCE(templ)) + "\n";
        if (pad_type != G_TYPE_NONE && pad_type != GST_TYPE_PAD)
            text += "- pad type: `" + std::string(g_type_name(pad_type)) + "` (its properties below)\n";
        const CapsRef caps = CapsRef::adopt(gst_pad_template_get_caps(templ));
        const bool plain = gst_caps_is_any(caps.get()) || gst_caps_is_empty(caps.get());
        text += "- caps:" + std::string(plain ? " " : "\n") + caps_markdown(caps.get());
    }
    // The pads' own properties (a request pad's, such as a tee's src pads).
    for (GList *l = templates; l; l = l->next) {
        GType pad_type = G_TYPE_NONE;
        g_object_get(l->data, "gtype", &pad_type, nullptr);
        if (pad_type != G_TYPE_NONE && pad_type != GST_TYPE_PAD)
            text += "\n### Properties of `" + std::string(g_type_name(pad_type)) + "`\n" +
                    properties_markdown(pad_type);
    }
    g_list_free(templates);
    return text;
}

} // namespace

HandWritten parse_hand_written(const std::string &source)
{
    HandWritten hand;
    std::istringstream in(source);
    std::string line;
    std::string *into = nullptr;
    while (std::getline(in, line)) {
        if (line.rfind(kSectionMark, 0) == 0) {
            const std::string name = line.substr(std::string(kSectionMark).size());
            into = name.rfind("pad-templates", 0) == 0 ? &hand.pad_templates
                   : name.rfind("examples", 0) == 0    ? &hand.examples
                                                       : nullptr;
            continue;
        }
        if (into)
            *into += line + "\n";
    }
    // Trimmed of the blank lines around a section, so that the page's own spacing is the same.
    for (std::string *s : {&hand.pad_templates, &hand.examples}) {
        s->erase(0, s->find_first_not_of('\n') == std::string::npos ? s->size() : s->find_first_not_of('\n'));
        while (!s->empty() && s->back() == '\n')
            s->pop_back();
    }
    return hand;
}

std::string element_page(GstElementFactory *factory, const HandWritten &hand,
                         const std::string &registered_in, const std::string &hand_written_path)
{
    const std::string name = GST_OBJECT_NAME(factory);
    const GType type = gst_element_factory_get_element_type(factory);
    g_autoptr(GTypeClass) klass = static_cast<GTypeClass *>(g_type_class_ref(type));
    const auto meta = [&](const char *key) {
        const char *v = gst_element_factory_get_metadata(factory, key);
        return std::string(v ? v : "");
    };
    g_autoptr(GstPlugin) plugin = gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(factory));

    std::string page =
        "<!-- SPDX-License-Identifier: LGPL-2.1-or-later -->\n"
        "<!-- Generated from the plugin's registry entry by tests/docs/element-pages.cpp, with the\n"
        "     hand-written parts of " +
        hand_written_path + ": do not edit. Regenerate: ninja -C build element-pages -->\n";
    page += "# " + name + "\n\n" + meta(GST_ELEMENT_METADATA_DESCRIPTION) + "\n\n";
    page += "| | |\n|---|---|\n";
    page += "| Long name | " + meta(GST_ELEMENT_METADATA_LONGNAME) + " |\n";
    page += "| Klass | " + meta(GST_ELEMENT_METADATA_KLASS) + " |\n";
    const guint rank = gst_plugin_feature_get_rank(GST_PLUGIN_FEATURE(factory));
    page += "| Rank | " + std::string(rank_name(rank)) + " (" + std::to_string(rank) + ") |\n";
    page += "| Author | " + meta(GST_ELEMENT_METADATA_AUTHOR) + " |\n";
    page += "| Documentation | " +
            doc_uri_text(gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_DOC_URI), name) +
            " |\n";
    page += "| Plugin | `" + std::string(gst_plugin_get_name(plugin)) +
            "`: " + gst_plugin_get_description(plugin) + " |\n";
    page += "| License | " + std::string(gst_plugin_get_license(plugin)) + " |\n";
    page += "| Source module, package | " + std::string(gst_plugin_get_source(plugin)) + ", " +
            gst_plugin_get_package(plugin) + " |\n";
    page += "| Origin | the package-origin meson option (by default the installed element pages) |\n";
    page += "| Registered | " + registered_in + " |\n";

    page += "\n## Hierarchy\n\n" + hierarchy_text(type);
    page += "\n## Implemented interfaces\n\n" + interfaces_text(type);
    page += "\n## Pad templates\n" + pad_templates_text(GST_ELEMENT_CLASS(klass), hand);
    page += "\n## Properties\n" + properties_markdown(type);
    page += "\n## Signals\n" + signals_markdown(type, name, false);
    page += "\n## Action signals\n" + signals_markdown(type, name, true);
    page += "\n## Examples\n\n" + (hand.examples.empty() ? std::string("None yet.") : hand.examples) + "\n";
    return page;
}

} // namespace g2g::docs
