// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: g2gtee's stats property (see tee-stats.h).
#include "tee-stats.h"

namespace g2g::test {
namespace {

// `read` sees the stats structure, which is freed after.
template <typename Read> guint64 with_stats(GstElement *tee, Read read)
{
    GstStructure *stats = nullptr;
    g_object_get(tee, "stats", &stats, nullptr);
    guint64 value = 0;
    if (stats)
        value = read(stats);
    if (stats)
        gst_structure_free(stats);
    return value;
}

} // namespace

guint64 tee_stat(GstElement *tee, const char *field)
{
    return with_stats(tee, [&](const GstStructure *stats) {
        guint64 value = 0;
        gst_structure_get_uint64(stats, field, &value);
        return value;
    });
}

guint64 tee_conversions(GstElement *tee, const char *pair)
{
    return with_stats(tee, [&](const GstStructure *stats) {
        guint64 count = 0;
        if (const GValue *pairs = gst_structure_get_value(stats, "conversions-by-pair"))
            gst_structure_get_uint64(gst_value_get_structure(pairs), pair, &count);
        return count;
    });
}

guint64 tee_shares(GstElement *tee, const char *domain)
{
    return with_stats(tee, [&](const GstStructure *stats) {
        guint64 count = 0;
        if (const GValue *domains = gst_structure_get_value(stats, "shares-by-domain"))
            gst_structure_get_uint64(gst_value_get_structure(domains), domain, &count);
        return count;
    });
}

std::string tee_converter(GstElement *tee, const char *pair)
{
    std::string converter;
    GstStructure *stats = nullptr;
    g_object_get(tee, "stats", &stats, nullptr);
    if (!stats)
        return converter;
    if (const GValue *pairs = gst_structure_get_value(stats, "converters-by-pair")) {
        if (const char *name = gst_structure_get_string(gst_value_get_structure(pairs), pair))
            converter = name;
    }
    gst_structure_free(stats);
    return converter;
}

} // namespace g2g::test
