// SPDX-License-Identifier: LGPL-2.1-or-later
#include "property-text.h"

#include <gst/gst.h>

#include <algorithm>
#include <string>
#include <vector>

namespace g2g::docs {

namespace {

// The flags a reader acts on. GLib's bookkeeping flags (static strings, explicit notify) and
// GStreamer's documentation hints are left out: they say nothing about the element's behaviour
// and some differ between versions.
std::string flags_text(const GParamSpec *pspec)
{
    std::vector<std::string> words;
    const GParamFlags f = pspec->flags;
    if (f & G_PARAM_READABLE)
        words.emplace_back("readable");
    if (f & G_PARAM_WRITABLE)
        words.emplace_back("writable");
    if (f & G_PARAM_CONSTRUCT_ONLY)
        words.emplace_back("construct-only");
    else if (f & G_PARAM_CONSTRUCT)
        words.emplace_back("construct");
    if (f & GST_PARAM_CONTROLLABLE)
        words.emplace_back("controllable");
    if (f & G_PARAM_DEPRECATED)
        words.emplace_back("deprecated");
    if ((f & G_PARAM_WRITABLE) && !(f & G_PARAM_CONSTRUCT_ONLY)) {
        if (f & GST_PARAM_MUTABLE_PLAYING)
            words.emplace_back("changeable in NULL, READY, PAUSED or PLAYING state");
        else if (f & GST_PARAM_MUTABLE_PAUSED)
            words.emplace_back("changeable only in NULL, READY or PAUSED state");
        else if (f & GST_PARAM_MUTABLE_READY)
            words.emplace_back("changeable only in NULL or READY state");
        else
            words.emplace_back("changeable only in NULL or READY state");
    }
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i)
        text += (i ? ", " : "") + words[i];
    return text;
}

template <typename Spec, typename T> std::string range_text(const GParamSpec *pspec, const char *type)
{
    const auto *s = reinterpret_cast<const Spec *>(pspec);
    return std::string(type) + ", " + std::to_string(static_cast<T>(s->minimum)) + " to " +
           std::to_string(static_cast<T>(s->maximum));
}

std::string double_text(double v)
{
    g_autofree char *text = g_strdup_printf("%.17g", v);
    return text;
}

// "type, range" of `pspec`.
std::string type_text(const GParamSpec *pspec)
{
    const GType t = G_PARAM_SPEC_VALUE_TYPE(pspec);
    if (G_IS_PARAM_SPEC_INT(pspec))
        return range_text<GParamSpecInt, gint>(pspec, "int");
    if (G_IS_PARAM_SPEC_UINT(pspec))
        return range_text<GParamSpecUInt, guint>(pspec, "uint");
    if (G_IS_PARAM_SPEC_INT64(pspec))
        return range_text<GParamSpecInt64, gint64>(pspec, "int64");
    if (G_IS_PARAM_SPEC_UINT64(pspec))
        return range_text<GParamSpecUInt64, guint64>(pspec, "uint64");
    if (G_IS_PARAM_SPEC_LONG(pspec))
        return range_text<GParamSpecLong, glong>(pspec, "long");
    if (G_IS_PARAM_SPEC_ULONG(pspec))
        return range_text<GParamSpecULong, gulong>(pspec, "ulong");
    if (G_IS_PARAM_SPEC_DOUBLE(pspec)) {
        const auto *s = G_PARAM_SPEC_DOUBLE(pspec);
        return "double, " + double_text(s->minimum) + " to " + double_text(s->maximum);
    }
    if (G_IS_PARAM_SPEC_FLOAT(pspec)) {
        const auto *s = G_PARAM_SPEC_FLOAT(pspec);
        return "float, " + double_text(s->minimum) + " to " + double_text(s->maximum);
    }
    if (G_IS_PARAM_SPEC_ENUM(pspec))
        return std::string("enum ") + g_type_name(t);
    if (G_IS_PARAM_SPEC_FLAGS(pspec))
        return std::string("flags ") + g_type_name(t);
    if (G_IS_PARAM_SPEC_BOOLEAN(pspec))
        return "boolean";
    if (G_IS_PARAM_SPEC_STRING(pspec))
        return "string";
    return g_type_name(t);
}

std::string default_text(const GParamSpec *pspec)
{
    const GValue *v = g_param_spec_get_default_value(const_cast<GParamSpec *>(pspec));
    if (G_IS_PARAM_SPEC_ENUM(pspec)) {
        g_autoptr(GEnumClass) klass = G_ENUM_CLASS(g_type_class_ref(G_VALUE_TYPE(v)));
        const GEnumValue *e = g_enum_get_value(klass, g_value_get_enum(v));
        return e ? std::string("`") + e->value_nick + "`" : std::to_string(g_value_get_enum(v));
    }
    if (G_IS_PARAM_SPEC_FLAGS(pspec)) {
        g_autoptr(GFlagsClass) klass = G_FLAGS_CLASS(g_type_class_ref(G_VALUE_TYPE(v)));
        guint left = g_value_get_flags(v);
        if (left == 0)
            return "none (0)";
        std::string text;
        for (guint i = 0; i < klass->n_values; ++i) {
            const GFlagsValue &f = klass->values[i];
            if (f.value && (left & f.value) == f.value) {
                text += (text.empty() ? "" : "+") + std::string(f.value_nick);
                left &= ~f.value;
            }
        }
        return "`" + text + "`";
    }
    if (G_VALUE_HOLDS_STRING(v)) {
        const char *s = g_value_get_string(v);
        return s ? "`\"" + std::string(s) + "\"`" : "null";
    }
    if (G_VALUE_HOLDS_BOOLEAN(v))
        return g_value_get_boolean(v) ? "true" : "false";
    if (G_VALUE_HOLDS_DOUBLE(v))
        return double_text(g_value_get_double(v));
    if (G_VALUE_HOLDS_FLOAT(v))
        return double_text(g_value_get_float(v));
    const GType fundamental = G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v));
    if (fundamental >= G_TYPE_CHAR && fundamental <= G_TYPE_UINT64) {
        g_autofree char *text = g_strdup_value_contents(v);
        return text;
    }
    return "";
}

// Every value of an enum or flags type: nick, number and GLib value name (a description for some).
std::string values_text(const GParamSpec *pspec)
{
    std::string text = "\n| nick | value | name |\n|---|---|---|\n";
    const GType t = G_PARAM_SPEC_VALUE_TYPE(pspec);
    if (G_IS_PARAM_SPEC_ENUM(pspec)) {
        g_autoptr(GEnumClass) klass = G_ENUM_CLASS(g_type_class_ref(t));
        for (guint i = 0; i < klass->n_values; ++i)
            text += "| `" + std::string(klass->values[i].value_nick) + "` | " +
                    std::to_string(klass->values[i].value) + " | " + klass->values[i].value_name + " |\n";
    } else {
        g_autoptr(GFlagsClass) klass = G_FLAGS_CLASS(g_type_class_ref(t));
        for (guint i = 0; i < klass->n_values; ++i) {
            g_autofree char *hex = g_strdup_printf("0x%08x", klass->values[i].value);
            text += "| `" + std::string(klass->values[i].value_nick) + "` | " + hex + " | " +
                    klass->values[i].value_name + " |\n";
        }
    }
    return text;
}

} // namespace

std::string properties_markdown(GType type)
{
    g_autoptr(GTypeClass) klass = static_cast<GTypeClass *>(g_type_class_ref(type));
    guint n = 0;
    g_autofree GParamSpec **specs = g_object_class_list_properties(G_OBJECT_CLASS(klass), &n);
    std::vector<GParamSpec *> own;
    for (guint i = 0; i < n; ++i) {
        // The type's own, and those of an interface it implements (GLib lists an overridden
        // interface property, video-direction, as the interface's).
        const GType owner = specs[i]->owner_type;
        if (owner == type || (G_TYPE_IS_INTERFACE(owner) && g_type_is_a(type, owner)))
            own.push_back(specs[i]);
    }
    if (own.empty())
        return "\nNone.\n";
    std::sort(own.begin(), own.end(), [](GParamSpec *a, GParamSpec *b) {
        return std::string(g_param_spec_get_name(a)) < g_param_spec_get_name(b);
    });
    std::string text;
    for (GParamSpec *listed : own) {
        GParamSpec *redirect = g_param_spec_get_redirect_target(listed);
        GParamSpec *pspec = redirect ? redirect : listed;
        const GType owner = pspec->owner_type;
        const char *blurb = g_param_spec_get_blurb(pspec);
        text += "\n### `" + std::string(g_param_spec_get_name(listed)) + "`\n\n";
        text += std::string(blurb ? blurb : "") + "\n\n";
        if (G_TYPE_IS_INTERFACE(owner))
            text += "- from the interface `" + std::string(g_type_name(owner)) + "`\n";
        text += "- type: " + type_text(pspec) + "\n";
        const std::string def = default_text(pspec);
        if (!def.empty())
            text += "- default: " + def + "\n";
        text += "- flags: " + flags_text(pspec) + "\n";
        if (G_IS_PARAM_SPEC_ENUM(pspec) || G_IS_PARAM_SPEC_FLAGS(pspec))
            text += values_text(pspec);
    }
    return text;
}

std::string signals_markdown(GType type, const std::string &instance_name, bool actions)
{
    guint n = 0;
    g_autofree guint *ids = g_signal_list_ids(type, &n);
    std::vector<std::string> entries;
    for (guint i = 0; i < n; ++i) {
        GSignalQuery q;
        g_signal_query(ids[i], &q);
        if (static_cast<bool>(q.signal_flags & G_SIGNAL_ACTION) != actions)
            continue;
        std::string entry = "\n### `" + std::string(q.signal_name) + "`\n\n```c\n" +
                            g_type_name(q.return_type & ~G_SIGNAL_TYPE_STATIC_SCOPE) + " " + "callback (" +
                            g_type_name(type) + " *" + instance_name;
        for (guint p = 0; p < q.n_params; ++p)
            entry += ", " + std::string(g_type_name(q.param_types[p] & ~G_SIGNAL_TYPE_STATIC_SCOPE)) +
                     " arg" + std::to_string(p);
        entry += ", gpointer user_data);\n```\n";
        entries.push_back(entry);
    }
    std::sort(entries.begin(), entries.end());
    if (entries.empty())
        return "\nNone.\n";
    std::string text;
    for (const std::string &e : entries)
        text += e;
    return text;
}

} // namespace g2g::docs
