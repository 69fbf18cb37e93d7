// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA_DRM caps, GStreamer 1.24's form (`video/x-raw(memory:DMABuf), format=DMA_DRM,
// drm-format=NV12[:0x<modifier>]`), and GStreamer 1.22's form of the same frames (`format=NV12`),
// structure by structure: 1.22 cannot parse the first (gst_video_info_from_caps fails on
// format=DMA_DRM), 1.24 elements may offer only it.
#include <g2g/dmabuf.h>

#include <gst/allocators/allocators.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace g2g::dmabuf {
namespace {

constexpr const char *kDmaDrm = "DMA_DRM";

bool is_dmabuf(const GstCapsFeatures *features)
{
    // ANY features "contain" every feature; they do not say memory:DMABuf.
    return features && !gst_caps_features_is_any(features) &&
           gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_DMABUF);
}

// GStreamer 1.24's test (gst_video_is_dma_drm_caps): the format is the string DMA_DRM. A format
// list that names DMA_DRM among others is not DMA_DRM caps there either.
bool is_dma_drm(const GstStructure *structure)
{
    return g_strcmp0(gst_structure_get_string(structure, "format"), kDmaDrm) == 0;
}

// `value` (a string, or a list of strings) mapped entry by entry into `out`: entries `map` has no
// answer for are left out, as are repeats; a single answer is a plain string, several a list.
// False (and `out` unset) where no entry is left, or `value` is neither.
template <typename Map> bool map_strings(const GValue *value, GValue *out, Map map)
{
    std::vector<std::string> mapped;
    const auto add = [&](const GValue *entry) {
        if (!G_VALUE_HOLDS_STRING(entry) || !g_value_get_string(entry))
            return;
        std::optional<std::string> one = map(g_value_get_string(entry));
        if (one && std::find(mapped.begin(), mapped.end(), *one) == mapped.end())
            mapped.push_back(std::move(*one));
    };
    if (GST_VALUE_HOLDS_LIST(value)) {
        for (guint i = 0; i < gst_value_list_get_size(value); ++i)
            add(gst_value_list_get_value(value, i));
    } else {
        add(value);
    }
    if (mapped.empty())
        return false;
    if (mapped.size() == 1) {
        g_value_init(out, G_TYPE_STRING);
        g_value_set_string(out, mapped.front().c_str());
        return true;
    }
    g_value_init(out, GST_TYPE_LIST);
    for (const std::string &text : mapped) {
        GValue entry = G_VALUE_INIT;
        g_value_init(&entry, G_TYPE_STRING);
        g_value_set_string(&entry, text.c_str());
        gst_value_list_append_and_take_value(out, &entry);
    }
    return true;
}

// The 1.22 video format of one drm-format string: only a linear layout of a fourcc GStreamer has
// a format for. 1.22 has no format for tiled or compressed layouts (1.24 says those only as
// DMA_DRM), and a frame in one is no frame of the linear format.
std::optional<std::string> video_format_of_drm(const char *text)
{
    const std::optional<DrmFormat> format = DrmFormat::parse(text);
    if (!format || !format->linear())
        return std::nullopt;
    const GstVideoFormat video = video_format_of(format->fourcc);
    if (video == GST_VIDEO_FORMAT_UNKNOWN)
        return std::nullopt;
    return std::string(gst_video_format_to_string(video));
}

// The drm-format string of one 1.22 format name (linear), where DRM has the fourcc.
std::optional<std::string> drm_of_video_format(const char *name)
{
    const std::uint32_t fourcc = drm_fourcc_of(gst_video_format_from_string(name));
    if (fourcc == 0)
        return std::nullopt;
    return DrmFormat{fourcc, kModifierLinear}.to_string();
}

// The 1.22 form of a DMA_DRM structure, or nullptr where 1.22 cannot say any of it. Without a
// drm-format (1.24's templates: any DRM format) it is any format.
GstStructure *to_1_22(const GstStructure *structure, const GstCapsFeatures *features)
{
    // 1.24 knows DMA_DRM in memory:DMABuf only: elsewhere it is no format at all.
    if (!is_dmabuf(features))
        return nullptr;
    GstStructure *form = gst_structure_copy(structure);
    gst_structure_remove_field(form, "drm-format");
    const GValue *drm = gst_structure_get_value(structure, "drm-format");
    if (!drm) {
        gst_structure_remove_field(form, "format");
        return form;
    }
    GValue formats = G_VALUE_INIT;
    if (!map_strings(drm, &formats, video_format_of_drm)) {
        gst_structure_free(form);
        return nullptr;
    }
    gst_structure_take_value(form, "format", &formats);
    return form;
}

// The DMA_DRM form of a 1.22 memory:DMABuf structure (linear), or nullptr where DRM has none of
// its formats. Without a format (any format) it is DMA_DRM of any drm-format.
GstStructure *to_dma_drm(const GstStructure *structure)
{
    GstStructure *form = gst_structure_copy(structure);
    const GValue *format = gst_structure_get_value(structure, "format");
    if (format) {
        GValue drm = G_VALUE_INIT;
        if (!map_strings(format, &drm, drm_of_video_format)) {
            gst_structure_free(form);
            return nullptr;
        }
        gst_structure_take_value(form, "drm-format", &drm);
    }
    gst_structure_set(form, "format", G_TYPE_STRING, kDmaDrm, nullptr);
    return form;
}

} // namespace

CapsRef caps_from_dma_drm(const GstCaps *caps)
{
    if (gst_caps_is_any(caps))
        return CapsRef::adopt(gst_caps_new_any());
    CapsRef result = CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *structure = gst_caps_get_structure(caps, i);
        const GstCapsFeatures *features = gst_caps_get_features(caps, i);
        if (!is_dma_drm(structure)) {
            gst_caps_append_structure_full(result.get(), gst_structure_copy(structure),
                                           features ? gst_caps_features_copy(features) : nullptr);
            continue;
        }
        // Merged: its 1.22 form may already be there ([NV12; DMA_DRM NV12], both forms).
        if (GstStructure *form = to_1_22(structure, features))
            result.reset(
                gst_caps_merge_structure_full(result.release(), form, gst_caps_features_copy(features)));
    }
    return result;
}

CapsRef caps_with_dma_drm(const GstCaps *caps)
{
    if (gst_caps_is_any(caps))
        return CapsRef::adopt(gst_caps_new_any());
    CapsRef result = CapsRef::adopt(gst_caps_new_empty());
    std::vector<guint> twins; // where in `result` the twins went
    const auto twin_says = [&](const GstStructure *structure, const GstCapsFeatures *features) {
        return std::any_of(twins.begin(), twins.end(), [&](guint at) {
            return gst_caps_features_is_equal(features, gst_caps_get_features(result.get(), at)) &&
                   gst_structure_is_subset(structure, gst_caps_get_structure(result.get(), at));
        });
    };
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure *structure = gst_caps_get_structure(caps, i);
        const GstCapsFeatures *features = gst_caps_get_features(caps, i);
        if (!is_dmabuf(features)) {
            gst_caps_append_structure_full(result.get(), gst_structure_copy(structure),
                                           features ? gst_caps_features_copy(features) : nullptr);
            continue;
        }
        // Caps in both forms already (a second pass) have each structure's twin after it.
        if (!twin_says(structure, features))
            gst_caps_append_structure_full(result.get(), gst_structure_copy(structure),
                                           gst_caps_features_copy(features));
        // Right after it, so the caps' order of preference stays; merged, so a twin the caps say
        // already (format=DMA_DRM is one of the formats of a structure with no format) is not
        // added again.
        GstStructure *twin = is_dma_drm(structure) ? to_1_22(structure, features) : to_dma_drm(structure);
        if (!twin)
            continue;
        const guint before = gst_caps_get_size(result.get());
        result.reset(gst_caps_merge_structure_full(result.release(), twin, gst_caps_features_copy(features)));
        if (gst_caps_get_size(result.get()) > before)
            twins.push_back(before);
    }
    return result;
}

std::optional<DrmFormat> drm_format_of(const GstStructure *structure)
{
    const gchar *format = structure ? gst_structure_get_string(structure, "format") : nullptr;
    if (!format)
        return std::nullopt;
    if (g_strcmp0(format, kDmaDrm) != 0) {
        const std::uint32_t fourcc = drm_fourcc_of(gst_video_format_from_string(format));
        return fourcc ? std::optional<DrmFormat>(DrmFormat{fourcc, kModifierLinear}) : std::nullopt;
    }
    const gchar *drm = gst_structure_get_string(structure, "drm-format");
    std::optional<DrmFormat> parsed = drm ? DrmFormat::parse(drm) : std::nullopt;
    // 1.24 refuses DRM_FORMAT_MOD_INVALID in caps too (gst_video_info_dma_drm_from_caps).
    if (parsed && parsed->modifier == kModifierInvalid)
        return std::nullopt;
    return parsed;
}

} // namespace g2g::dmabuf
