// SPDX-License-Identifier: LGPL-2.1-or-later
#include "caps-groups.h"

#include "feature-markers.h"

#include <cctype>
#include <string>
#include <vector>

namespace g2g::docs {

namespace {

constexpr const char *kViewMeta = "meta:G2gTensorView";

// One group of a page's caps: its heading and the build feature its memory needs ("" for none).
struct Group {
    const char *heading;
    const char *feature;
};

// The group of a structure, by its memory feature. The platform-handle kinds share one group: an
// element treats them alike (views composed, nothing written).
Group group_of(const std::string &memory)
{
    if (memory == "ANY")
        return {"Any memory", ""};
    if (memory == GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY)
        return {"System memory", ""};
    if (memory == "memory:CUDAMemory")
        return {"CUDA memory (GstCudaMemory)", "cuda"};
    if (memory == "memory:VulkanImage")
        return {"Vulkan images (GstVulkanImageMemory)", "vulkan"};
    if (memory == "memory:DMABuf")
        return {"DMA-BUF (GstDmaBufMemory)", "dmabuf"};
    return {"Platform-handle kinds (g2g's handle memories)", ""};
}

// A string field's value as written in caps: plain when it is a word, else serialized (quoted,
// escaped) so that a DRM fourcc such as "R8  " keeps its spaces visibly.
std::string string_text(const GValue *value)
{
    const char *s = g_value_get_string(value);
    bool word = s && *s;
    for (const char *c = s; word && *c; ++c)
        word = std::isalnum(static_cast<unsigned char>(*c)) || *c == '_';
    if (word)
        return s;
    g_autofree char *text = gst_value_serialize(value);
    return text ? text : "";
}

std::string value_text(const GValue *value)
{
    if (G_VALUE_HOLDS_STRING(value))
        return string_text(value);
    if (GST_VALUE_HOLDS_LIST(value)) {
        std::string text;
        for (guint i = 0; i < gst_value_list_get_size(value); ++i)
            text += (i ? ", " : "") + value_text(gst_value_list_get_value(value, i));
        return text;
    }
    g_autofree char *text = gst_value_serialize(value);
    return text ? text : "";
}

std::string fields_text(const GstStructure *s)
{
    std::string text;
    for (int i = 0; i < gst_structure_n_fields(s); ++i) {
        const char *name = gst_structure_nth_field_name(s, i);
        text += "  - " + std::string(name) + ": " + value_text(gst_structure_get_value(s, name)) + "\n";
    }
    return text;
}

// The features of a structure split into its memory and whether it carries the view meta.
struct Features {
    std::string memory;
    std::string written; // as caps write them, system memory included
};

Features features_of(const GstCaps *caps, guint i)
{
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    if (!f || gst_caps_features_is_any(f)) {
        const bool any = f && gst_caps_features_is_any(f);
        return {any ? "ANY" : GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY,
                any ? "ANY" : GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY};
    }
    Features out;
    for (guint j = 0; j < gst_caps_features_get_size(f); ++j) {
        const std::string one = gst_caps_features_get_nth(f, j);
        out.written += (j ? ", " : "") + one;
        if (one != kViewMeta && out.memory.empty())
            out.memory = one;
    }
    if (out.memory.empty())
        out.memory = GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY;
    return out;
}

struct Entry {
    std::vector<std::string> caps_names; // `video/x-raw(features)`, one per structure merged here
    std::string fields;
};

struct GroupEntries {
    Group group;
    std::vector<Entry> entries;
};

} // namespace

std::string caps_markdown(const GstCaps *caps)
{
    if (gst_caps_is_any(caps))
        return "ANY\n";
    if (gst_caps_is_empty(caps))
        return "EMPTY\n";
    std::vector<GroupEntries> groups; // in the order their first structure comes in
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *s = gst_caps_get_structure(caps, i);
        const Features f = features_of(caps, i);
        const Group group = group_of(f.memory);
        GroupEntries *into = nullptr;
        for (GroupEntries &g : groups) {
            if (std::string(g.group.heading) == group.heading)
                into = &g;
        }
        if (!into)
            into = &groups.emplace_back(GroupEntries{group, {}});
        const std::string name = "`" + std::string(gst_structure_get_name(s)) + "(" + f.written + ")`";
        const std::string fields = fields_text(s);
        Entry *same = nullptr;
        for (Entry &e : into->entries) {
            if (e.fields == fields)
                same = &e;
        }
        if (same)
            same->caps_names.push_back(name);
        else
            into->entries.push_back(Entry{{name}, fields});
    }
    std::string text;
    for (const GroupEntries &g : groups) {
        const std::string feature = g.group.feature;
        if (!feature.empty())
            text += feature_begin(feature);
        text += "\n#### " + std::string(g.group.heading) +
                (feature.empty() ? "" : " — builds with the " + feature + " feature") + "\n\n";
        for (const Entry &e : g.entries) {
            text += "- ";
            for (std::size_t i = 0; i < e.caps_names.size(); ++i)
                text += (i ? ", " : "") + e.caps_names[i];
            text += "\n" + e.fields;
        }
        if (!feature.empty())
            text += "\n" + feature_end(feature);
    }
    return text;
}

} // namespace g2g::docs
