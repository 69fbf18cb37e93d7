// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/classify.h>
#include <g2g/tensor-view-meta.h>

#include <string>

#include "core/caps-domain.h"
#include "core/domain-table.h"

namespace g2g {
namespace {

std::string describe(GstMemory *memory)
{
    const char *type = memory->allocator ? memory->allocator->mem_type : nullptr;
    std::string text = "memory type '";
    text += type ? type : "(none)";
    text += "'";
    if (memory->allocator) {
        text += " from allocator ";
        text += G_OBJECT_TYPE_NAME(memory->allocator);
    }
    return text;
}

// The kind a view over frames of `kind` is (SystemView over System), or `kind` itself where the
// table has none (a device frame keeps its domain: the view travels with it as meta).
MemoryDomainKind viewed_as(MemoryDomainKind kind)
{
    for (const detail::DomainInfo &row : detail::domain_table()) {
        if (row.views == kind)
            return row.kind;
    }
    return kind;
}

} // namespace

Result<MemoryDomainKind> classify_memory(GstMemory *memory)
{
    if (!memory)
        return Error(ErrorCode::InvalidArgument, "classify_memory: no memory");
    // Type names first, for every row (a string compare each), then the SDKs' own checks.
    for (const detail::DomainInfo &row : detail::domain_table()) {
        for (std::string_view type : row.memory_types) {
            if (gst_memory_is_type(memory, type.data()))
                return row.kind;
        }
    }
    for (const detail::DomainInfo &row : detail::domain_table()) {
        if (row.recognises && row.recognises(memory))
            return row.kind;
    }
    return Error(ErrorCode::UnknownMemory,
                 "unknown " + describe(memory) + ": g2g does not know which domain it lives in");
}

Result<MemoryDomainKind> classify_buffer(GstBuffer *buffer)
{
    if (!buffer)
        return Error(ErrorCode::InvalidArgument, "classify_buffer: no buffer");
    const guint n = gst_buffer_n_memory(buffer);
    if (n == 0)
        return MemoryDomainKind::System;

    Result<MemoryDomainKind> first = classify_memory(gst_buffer_peek_memory(buffer, 0));
    if (!first)
        return first;
    for (guint i = 1; i < n; ++i) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, i);
        Result<MemoryDomainKind> other = classify_memory(memory);
        if (!other)
            return other;
        if (*other != *first)
            return Error(ErrorCode::UnknownMemory, "buffer mixes " + std::string(name(*first)) + " and " +
                                                       std::string(name(*other)) + " memory (memory " +
                                                       std::to_string(i) + ", " + describe(memory) +
                                                       "): a frame lives in one domain");
    }
    // Bytes read through a view are the view kind over them.
    return tensor_view_of(buffer) ? viewed_as(*first) : *first;
}

namespace detail {

std::optional<MemoryDomainKind> domain_of(const GstCapsFeatures *features)
{
    if (!features)
        return MemoryDomainKind::System;
    if (gst_caps_features_is_any(features))
        return std::nullopt;
    std::optional<MemoryDomainKind> memory;
    for (guint i = 0; i < gst_caps_features_get_size(features); ++i) {
        const gchar *feature = gst_caps_features_get_nth(features, i);
        if (!g_str_has_prefix(feature, "memory:"))
            continue;
        memory.reset();
        for (const DomainInfo &row : domain_table()) {
            if (!row.views && row.memory_caps_feature == feature)
                memory = row.kind;
        }
        if (!memory)
            return std::nullopt;
    }
    const MemoryDomainKind kind = memory.value_or(MemoryDomainKind::System);
    return gst_caps_features_contains(features, G2G_CAPS_FEATURE_META_TENSOR_VIEW) ? viewed_as(kind) : kind;
}

std::optional<MemoryDomainKind> domain_of(const GstCaps *caps)
{
    if (!caps || gst_caps_is_any(caps) || gst_caps_is_empty(caps))
        return std::nullopt;
    return domain_of(gst_caps_get_features(caps, 0));
}

} // namespace detail

} // namespace g2g
