// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-caps.h"

#include <g2g/dmabuf.h>
#include <g2g/domain-set.h>
#include <g2g/gst-ref.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include <g2g-internal/plugin-interface.h>

namespace g2g::tee {
namespace {

using K = MemoryDomainKind;

// True when every element of the gst-launch chain `description` ("glupload ! gldownload") exists.
bool has_elements(std::string_view description)
{
    while (!description.empty()) {
        const std::size_t bang = description.find(" ! ");
        const std::string factory(description.substr(0, bang));
        if (!Ref<GstObject>::adopt(GST_OBJECT(gst_element_factory_find(factory.c_str()))))
            return false;
        description = bang == std::string_view::npos ? std::string_view{} : description.substr(bang + 3);
    }
    return true;
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
    return detail::domain_of(features);
}

std::optional<K> domain_of(const GstCaps *caps)
{
    return detail::domain_of(caps);
}

bool converts_to_system(K from)
{
    // Looked up once per kind: caps queries ask this for every structure of every branch.
    static const std::array<bool, kMemoryDomainKindCount> converts = [] {
        std::array<bool, kMemoryDomainKindCount> made{};
        for (const detail::DomainInfo &row : detail::domain_table()) {
            // A DMABuf that maps is relabelled (read in place); others need their elements here.
            made[static_cast<std::size_t>(row.kind)] =
                row.kind != K::System && (row.host_read == detail::HostRead::WhenMappable ||
                                          (!row.to_system.empty() && has_elements(row.to_system)));
        }
        return made;
    }();
    return converts[static_cast<std::size_t>(from)];
}

bool converts_on_device(K from, K to)
{
    // Looked up once per pair, as converts_to_system: caps queries ask it for every structure.
    static const auto converts = [] {
        std::array<std::array<bool, kMemoryDomainKindCount>, kMemoryDomainKindCount> made{};
        for (const detail::DomainInfo &row : detail::domain_table()) {
            for (const detail::DeviceRoute &route : row.device_routes)
                made[static_cast<std::size_t>(row.kind)][static_cast<std::size_t>(route.to)] =
                    route.built() && has_elements(route.converter);
        }
        return made;
    }();
    return converts[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
}

CapsRef in_domain(const GstCaps *caps, K kind)
{
    const CapsRef source =
        kind == K::DmaBuf ? CapsRef::adopt(gst_caps_copy(caps)) : dmabuf::caps_from_dma_drm(caps);
    const std::string features(caps_feature(kind));
    CapsRef result = CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(source.get()); ++i)
        gst_caps_append_structure_full(result.get(),
                                       gst_structure_copy(gst_caps_get_structure(source.get(), i)),
                                       gst_caps_features_from_string(features.c_str()));
    return kind == K::DmaBuf ? dmabuf::caps_with_dma_drm(result.get()) : result;
}

CapsRef restated(const GstCaps *caps)
{
    if (gst_caps_is_any(caps) || gst_caps_get_size(caps) != 1 || domain_of(caps) != K::DmaBuf)
        return {};
    // The caps and, after them, their twin if they have one.
    const CapsRef both = dmabuf::caps_with_dma_drm(caps);
    if (gst_caps_get_size(both.get()) < 2)
        return {};
    return CapsRef::adopt(gst_caps_copy_nth(both.get(), 1));
}

CapsRef feedable(const GstCaps *peer_caps)
{
    CapsRef result = CapsRef::adopt(gst_caps_copy(peer_caps));
    if (gst_caps_is_any(result.get()))
        return result;
    CapsRef converted = CapsRef::adopt(gst_caps_new_empty());
    for (K from : kAllMemoryDomainKinds) {
        for (guint i = 0; i < gst_caps_get_size(peer_caps); ++i) {
            const std::optional<K> to = domain_of(gst_caps_get_features(peer_caps, i));
            if (!to || *to == from ||
                !(*to == K::System ? converts_to_system(from) : converts_on_device(from, *to)))
                continue;
            gst_caps_append_structure_full(
                converted.get(), gst_structure_copy(gst_caps_get_structure(peer_caps, i)),
                gst_caps_features_from_string(std::string(caps_feature(from)).c_str()));
        }
    }
    merge(result, std::move(converted));
    // Upstream may say DMABuf frames in either form: g2gtee restates them (BranchRoute::Restated).
    return dmabuf::caps_with_dma_drm(result.get());
}

CapsRef producible(const GstCaps *upstream_caps)
{
    if (gst_caps_is_any(upstream_caps))
        return CapsRef::adopt(gst_caps_copy(upstream_caps));
    // A branch may take upstream's DMABuf frames in either form: g2gtee restates them.
    CapsRef result = dmabuf::caps_with_dma_drm(upstream_caps);
    CapsRef converted = CapsRef::adopt(gst_caps_new_empty());
    for (guint i = 0; i < gst_caps_get_size(upstream_caps); ++i) {
        const std::optional<K> kind = domain_of(gst_caps_get_features(upstream_caps, i));
        if (!kind)
            continue;
        const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(upstream_caps, i));
        // in_domain: a relabelled DMA_DRM structure is a system one in 1.22's form.
        if (*kind != K::System && converts_to_system(*kind))
            gst_caps_append(converted.get(), in_domain(one.get(), K::System).release());
        for (K to : kAllMemoryDomainKinds) {
            if (to != *kind && converts_on_device(*kind, to))
                gst_caps_append(converted.get(), in_domain(one.get(), to).release());
        }
    }
    merge(result, std::move(converted));
    return result;
}

CapsRef ordered_for_upstream(const GstCaps *caps, const GstCaps *direct)
{
    if (gst_caps_is_any(caps))
        return CapsRef::adopt(gst_caps_copy(caps));
    struct Ranked {
        int rank;
        guint index;
    };
    std::vector<Ranked> ranked;
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const CapsRef one = CapsRef::adopt(gst_caps_copy_nth(caps, i));
        const std::optional<K> kind = domain_of(gst_caps_get_features(caps, i));
        int rank = kind ? preference_rank(*kind) : 0;
        if (!gst_caps_can_intersect(one.get(), direct))
            rank += static_cast<int>(kMemoryDomainKindCount) + 1;
        ranked.push_back({rank, i});
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Ranked &a, const Ranked &b) { return a.rank < b.rank; });
    CapsRef result = CapsRef::adopt(gst_caps_new_empty());
    for (const Ranked &r : ranked)
        merge(result, CapsRef::adopt(gst_caps_copy_nth(caps, r.index)));
    return result;
}

CapsRef linkable(const GstCaps *upstream_caps)
{
    CapsRef result = producible(upstream_caps);
    if (gst_caps_is_any(result.get()) || gst_caps_is_empty(upstream_caps))
        return result;
    DomainSet reached;
    for (guint i = 0; i < gst_caps_get_size(result.get()); ++i) {
        if (const std::optional<K> kind = domain_of(gst_caps_get_features(result.get(), i)))
            reached.insert(*kind);
    }
    CapsRef refused = CapsRef::adopt(gst_caps_new_empty());
    for (K kind : kAllMemoryDomainKinds) {
        if (!reached.contains(kind))
            merge(refused, in_domain(upstream_caps, kind));
    }
    merge(result, std::move(refused));
    return result;
}

} // namespace g2g::tee
