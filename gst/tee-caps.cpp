#include "tee-caps.h"

#include <g2g/domain-set.h>
#include <g2g/tensor-view-meta.h>

#include <algorithm>
#include <string>
#include <vector>

namespace g2g::tee {
namespace {

using K = MemoryDomainKind;

bool has_element(const char *factory)
{
    GstElementFactory *found = gst_element_factory_find(factory);
    if (found)
        gst_object_unref(found);
    return found != nullptr;
}

// Position in DomainSet's GPU-first order (0 = best).
int preference_rank(K kind)
{
    static const std::vector<K> order = DomainSet::all().by_preference();
    return static_cast<int>(std::find(order.begin(), order.end(), kind) - order.begin());
}

} // namespace

std::optional<K> domain_of(const GstCapsFeatures *features)
{
    if (!features)
        return K::System;
    if (gst_caps_features_is_any(features))
        return std::nullopt;
    std::optional<K> memory;
    for (guint i = 0; i < gst_caps_features_get_size(features); ++i) {
        const gchar *feature = gst_caps_features_get_nth(features, i);
        if (!g_str_has_prefix(feature, "memory:"))
            continue;
        memory.reset();
        for (K kind : kAllMemoryDomainKinds) {
            if (kind != K::SystemView && memory_caps_feature(kind) == feature)
                memory = kind;
        }
        if (!memory)
            return std::nullopt;
    }
    const K kind = memory.value_or(K::System);
    if (kind == K::System && gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW))
        return K::SystemView;
    return kind;
}

std::optional<K> domain_of(const GstCaps *caps)
{
    if (!caps || gst_caps_is_any(caps) || gst_caps_is_empty(caps))
        return std::nullopt;
    return domain_of(gst_caps_get_features(caps, 0));
}

bool converts_to_system(K from)
{
    switch (from) {
    case K::SystemView:
    case K::DmaBuf:
        return true;
    // Looked up once: caps queries ask this for every structure of every branch.
    case K::VulkanTexture: {
        static const bool present = has_element("vulkandownload");
        return present;
    }
    case K::Cuda: {
        static const bool present = has_element("cudadownload");
        return present;
    }
    default:
        return false;
    }
}

GstCaps *in_domain(const GstCaps *caps, K kind)
{
    const std::string features(caps_feature(kind));
    GstCaps *result = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); ++i)
        gst_caps_append_structure_full(result, gst_structure_copy(gst_caps_get_structure(caps, i)),
                                       gst_caps_features_from_string(features.c_str()));
    return result;
}

GstCaps *feedable(const GstCaps *peer_caps)
{
    GstCaps *result = gst_caps_copy(peer_caps);
    if (gst_caps_is_any(result))
        return result;
    GstCaps *converted = gst_caps_new_empty();
    for (K from : kAllMemoryDomainKinds) {
        if (!converts_to_system(from))
            continue;
        for (guint i = 0; i < gst_caps_get_size(peer_caps); ++i) {
            if (domain_of(gst_caps_get_features(peer_caps, i)) != K::System)
                continue;
            gst_caps_append_structure_full(
                converted, gst_structure_copy(gst_caps_get_structure(peer_caps, i)),
                gst_caps_features_from_string(std::string(caps_feature(from)).c_str()));
        }
    }
    return gst_caps_merge(result, converted);
}

GstCaps *producible(const GstCaps *upstream_caps)
{
    GstCaps *result = gst_caps_copy(upstream_caps);
    if (gst_caps_is_any(result))
        return result;
    GstCaps *converted = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(upstream_caps); ++i) {
        const std::optional<K> kind = domain_of(gst_caps_get_features(upstream_caps, i));
        if (kind && *kind != K::System && converts_to_system(*kind))
            gst_caps_append_structure_full(
                converted, gst_structure_copy(gst_caps_get_structure(upstream_caps, i)),
                gst_caps_features_new_single(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY));
    }
    return gst_caps_merge(result, converted);
}

GstCaps *ordered_for_upstream(const GstCaps *caps, const GstCaps *direct)
{
    if (gst_caps_is_any(caps))
        return gst_caps_copy(caps);
    struct Ranked {
        int rank;
        guint index;
    };
    std::vector<Ranked> ranked;
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        GstCaps *one = gst_caps_copy_nth(caps, i);
        const std::optional<K> kind = domain_of(gst_caps_get_features(caps, i));
        int rank = kind ? preference_rank(*kind) : 0;
        if (!gst_caps_can_intersect(one, direct))
            rank += static_cast<int>(kMemoryDomainKindCount) + 1;
        gst_caps_unref(one);
        ranked.push_back({rank, i});
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Ranked &a, const Ranked &b) { return a.rank < b.rank; });
    GstCaps *result = gst_caps_new_empty();
    for (const Ranked &r : ranked)
        result = gst_caps_merge(result, gst_caps_copy_nth(caps, r.index));
    return result;
}

} // namespace g2g::tee
