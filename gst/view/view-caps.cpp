// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-caps.h"

#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <algorithm>
#include <string>

#include <g2g-internal/plugin-interface.h>

namespace g2g::caps {

GstCaps *domain_caps(MemoryDomainKind kind, const std::string &formats, bool views, bool dense)
{
    std::string text;
    const std::string memory(memory_caps_feature(kind));
    auto add = [&](const std::string &features) {
        text += (text.empty() ? "" : "; ") + std::string("video/x-raw(") + features + "), format=(string)" +
                formats + ", width=(int)[ 1, max ], height=(int)[ 1, max ], framerate=(fraction)[ 0, max ]";
    };
    if (views)
        add(memory + ", " G2G_CAPS_FEATURE_META_TENSOR_VIEW);
    if (dense)
        add(memory);
    return gst_caps_from_string(text.c_str());
}

GstCaps *template_caps(bool views, bool dense)
{
    GstCaps *caps = gst_caps_new_empty();
    for (MemoryDomainKind kind : detail::view_domains())
        caps = gst_caps_merge(
            caps, domain_caps(kind, detail::format_list(*detail::view_backend(kind)), views, dense));
    return caps;
}

bool has_view_feature(GstCapsFeatures *features)
{
    return features && !gst_caps_features_is_any(features) &&
           gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW);
}

namespace {

// The memory feature a structure keeps across the view elements: a view never changes where
// the bytes are. A domain views do not live in reads as system memory (the templates refuse it).
const char *memory_of(GstCapsFeatures *features)
{
    static const std::vector<MemoryDomainKind> domains = detail::view_domains();
    const std::optional<MemoryDomainKind> kind = detail::domain_of(features);
    if (kind && std::find(domains.begin(), domains.end(), *kind) != domains.end())
        return memory_caps_feature(*kind).data(); // a literal of the domain table
    return GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY;
}

} // namespace

GstCaps *with_and_without_view(GstCaps *caps)
{
    GstCaps *views = gst_caps_new_empty();
    GstCaps *dense = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        GstStructure *s = gst_caps_get_structure(caps, i);
        const char *memory = memory_of(gst_caps_get_features(caps, i));
        gst_caps_append_structure_full(
            views, gst_structure_copy(s),
            gst_caps_features_new(memory, G2G_CAPS_FEATURE_META_TENSOR_VIEW, nullptr));
        gst_caps_append_structure_full(dense, gst_structure_copy(s), gst_caps_features_new_single(memory));
    }
    return gst_caps_merge(views, dense);
}

GstCaps *without_view(GstCaps *caps)
{
    GstCaps *dense = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); ++i)
        gst_caps_append_structure_full(
            dense, gst_structure_copy(gst_caps_get_structure(caps, i)),
            gst_caps_features_new_single(memory_of(gst_caps_get_features(caps, i))));
    return gst_caps_simplify(dense);
}

GstCaps *moved_to(GstCaps *caps, MemoryDomainKind from, MemoryDomainKind to)
{
    GstCaps *moved = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        GstCapsFeatures *features = gst_caps_get_features(caps, i);
        std::optional<MemoryDomainKind> kind = detail::domain_of(features);
        if (kind == MemoryDomainKind::SystemView)
            kind = MemoryDomainKind::System; // the memory under the view
        if (kind != from)
            continue;
        gst_caps_append_structure_full(moved, gst_structure_copy(gst_caps_get_structure(caps, i)),
                                       gst_caps_features_new_single(memory_caps_feature(to).data()));
    }
    return gst_caps_simplify(moved);
}

bool peer_names_view(GstPad *pad)
{
    const CapsRef peer = CapsRef::adopt(gst_pad_peer_query_caps(pad, nullptr));
    if (!peer || gst_caps_is_any(peer.get()))
        return false;
    for (guint i = 0; i < gst_caps_get_size(peer.get()); ++i) {
        if (has_view_feature(gst_caps_get_features(peer.get(), i)))
            return true;
    }
    return false;
}

void keep_structures(GstCaps *caps, bool keep_views)
{
    for (guint i = gst_caps_get_size(caps); i-- > 0;) {
        if (has_view_feature(gst_caps_get_features(caps, i)) != keep_views)
            gst_caps_remove_structure(caps, i);
    }
}

} // namespace g2g::caps
