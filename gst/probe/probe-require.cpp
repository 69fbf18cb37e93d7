// SPDX-License-Identifier: LGPL-2.1-or-later
#include "probe-require.h"

#include <g2g/g2g.h>
#include <g2g/memory-domain-kind.h>

#include <cstdlib>

#define GST_CAT_DEFAULT g2g_probe_debug

namespace g2g::probe {
namespace {

// The one alias: GStreamer calls its Vulkan image elements vulkan* (vulkanupload, vulkansink).
constexpr std::string_view kVulkanAlias = "vulkan";

// A name as compared: lower case, without '-' and '_' ("DmaBuf", "dma-buf", "DMA_BUF": "dmabuf").
std::string folded(std::string_view name)
{
    std::string out;
    for (char c : name) {
        if (c != '-' && c != '_')
            out += g_ascii_tolower(c);
    }
    return out;
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && g_ascii_isspace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && g_ascii_isspace(text.back()))
        text.remove_suffix(1);
    return text;
}

std::optional<MemoryDomainKind> kind_named(std::string_view token)
{
    const std::string key = folded(token);
    if (key == kVulkanAlias)
        return MemoryDomainKind::VulkanTexture;
    for (MemoryDomainKind kind : kAllMemoryDomainKinds) {
        // Every nick folds to its kind's name ("system-view", "SystemView"), so both are one key.
        if (key == folded(name(kind)) || key == folded(nick(kind)))
            return kind;
    }
    // The flags' value names, as GStreamer's flags parsing also takes them.
    GFlagsClass *flags = G_FLAGS_CLASS(g_type_class_ref(G2G_TYPE_MEMORY_DOMAIN_KINDS));
    const GFlagsValue *value = g_flags_get_value_by_name(flags, std::string(token).c_str());
    g_type_class_unref(flags);
    if (value)
        return static_cast<MemoryDomainKind>(g_bit_nth_lsf(value->value, -1));
    return std::nullopt;
}

// GStreamer's numeric form of flags (what its serializer writes for none: "0").
std::optional<DomainSet> bits_of(std::string_view text)
{
    const std::string digits(text);
    gchar *end = nullptr;
    const guint64 bits = g_ascii_strtoull(digits.c_str(), &end, 0);
    if (digits.empty() || !g_ascii_isdigit(digits.front()) || *end != '\0' ||
        bits != DomainSet::from_bits(static_cast<std::uint32_t>(bits)).bits())
        return std::nullopt;
    return DomainSet::from_bits(static_cast<std::uint32_t>(bits));
}

gint compare(const GValue *a, const GValue *b)
{
    const guint x = g_value_get_flags(a);
    const guint y = g_value_get_flags(b);
    return x < y ? GST_VALUE_LESS_THAN : x > y ? GST_VALUE_GREATER_THAN : GST_VALUE_EQUAL;
}

gchar *serialize(const GValue *value)
{
    const DomainSet set = DomainSet::from_bits(g_value_get_flags(value));
    if (set.empty())
        return g_strdup("0"); // as GStreamer writes flags without a value for none
    std::string text;
    for (MemoryDomainKind kind : kAllMemoryDomainKinds) {
        if (set.contains(kind))
            text += (text.empty() ? "" : "+") + std::string(nick(kind));
    }
    return g_strdup(text.c_str());
}

gboolean deserialize(GValue *dest, const gchar *text)
{
    const std::optional<DomainSet> set = parse_require(text);
    if (!set) {
        GST_WARNING("\"%s\" names no set of memory domains: use %s, joined by '+'", text,
                    accepted_require_names().c_str());
        return FALSE;
    }
    g_value_set_flags(dest, set->bits());
    return TRUE;
}

} // namespace

std::optional<DomainSet> parse_require(std::string_view text)
{
    text = trimmed(text);
    if (text.empty())
        return DomainSet{}; // as GStreamer reads "" for flags: none
    if (const std::optional<DomainSet> bits = bits_of(text))
        return bits;
    DomainSet set;
    while (true) {
        const std::size_t end = text.find_first_of("+|");
        // An empty name ("system+") is skipped, as GStreamer's flags parsing skips it.
        if (const std::string_view token = trimmed(text.substr(0, end)); !token.empty()) {
            const std::optional<MemoryDomainKind> kind = kind_named(token);
            if (!kind)
                return std::nullopt;
            set.insert(*kind);
        }
        if (end == std::string_view::npos)
            return set;
        text.remove_prefix(end + 1);
    }
}

std::string accepted_require_names()
{
    std::string names;
    for (MemoryDomainKind kind : kAllMemoryDomainKinds)
        names += std::string(name(kind)) + " (" + std::string(nick(kind)) + "), ";
    return names + "or " + std::string(kVulkanAlias) + " for VulkanTexture, in any case";
}

void register_require_parser()
{
    // gst_value_register keeps a pointer to the table: static.
    static GstValueTable table = [] {
        GstValueTable made{};
        made.type = G2G_TYPE_MEMORY_DOMAIN_KINDS;
        made.compare = compare;
        made.serialize = serialize;
        made.deserialize = deserialize;
        return made;
    }();
    gst_value_register(&table);
}

} // namespace g2g::probe
