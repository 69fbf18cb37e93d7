// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-stats.h"

#include "tee-private.h"

#include <string>
#include <utility>

namespace g2g::tee {
namespace {

guint64 conversions_of(const TeeCounters &counters)
{
    guint64 conversions = 0;
    for (const auto &[pair, count] : counters.conversions)
        conversions += count;
    return conversions;
}

// The numbers both forms start with.
GstStructure *totals_of(const TeeCounters &counters)
{
    return gst_structure_new(
        "g2gtee-stats", "frames", G_TYPE_UINT64, counters.frames, "shares", G_TYPE_UINT64, counters.shares,
        "copies", G_TYPE_UINT64, counters.copies, "bytes-copied", G_TYPE_UINT64, counters.bytes_copied,
        "conversions", G_TYPE_UINT64, conversions_of(counters), "bytes-converted", G_TYPE_UINT64,
        counters.bytes_converted, "host-round-trips", G_TYPE_UINT64, counters.host_round_trips, nullptr);
}

} // namespace

GstStructure *stats_of(const TeeCounters &counters)
{
    GstStructure *pairs = gst_structure_new_empty("conversions");
    for (const auto &[pair, count] : counters.conversions)
        gst_structure_set(pairs, pair.c_str(), G_TYPE_UINT64, count, nullptr);
    GstStructure *by_domain = gst_structure_new_empty("shares");
    for (MemoryDomainKind kind : kAllMemoryDomainKinds) {
        if (const guint64 shares = counters.shares_by_domain[static_cast<std::size_t>(kind)])
            gst_structure_set(by_domain, std::string(name(kind)).c_str(), G_TYPE_UINT64, shares, nullptr);
    }
    GstStructure *elements = gst_structure_new_empty("converters");
    for (const auto &[pair, description] : counters.converters)
        gst_structure_set(elements, pair.c_str(), G_TYPE_STRING, description.c_str(), nullptr);
    GstStructure *stats = totals_of(counters);
    for (auto [field, structure] :
         {std::pair{"shares-by-domain", by_domain}, std::pair{"conversions-by-pair", pairs},
          std::pair{"converters-by-pair", elements}}) {
        GValue value = G_VALUE_INIT;
        g_value_init(&value, GST_TYPE_STRUCTURE);
        g_value_take_boxed(&value, structure);
        gst_structure_take_value(stats, field, &value);
    }
    return stats;
}

GstStructure *stats_message_of(const TeeCounters &counters)
{
    // A nested structure prints as one escaped string (every comma and equals sign behind a
    // backslash); flat fields read as they are.
    GstStructure *stats = totals_of(counters);
    for (MemoryDomainKind kind : kAllMemoryDomainKinds) {
        if (const guint64 shares = counters.shares_by_domain[static_cast<std::size_t>(kind)])
            gst_structure_set(stats, ("shares." + std::string(name(kind))).c_str(), G_TYPE_UINT64, shares,
                              nullptr);
    }
    for (const auto &[pair, count] : counters.conversions)
        gst_structure_set(stats, ("conversions." + pair).c_str(), G_TYPE_UINT64, count, nullptr);
    for (const auto &[pair, description] : counters.converters)
        gst_structure_set(stats, ("converter." + pair).c_str(), G_TYPE_STRING, description.c_str(), nullptr);
    return stats;
}

} // namespace g2g::tee
