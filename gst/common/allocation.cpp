// SPDX-License-Identifier: LGPL-2.1-or-later
#include "allocation.h"

#include <g2g/gst-ref.h>

#include <g2g-internal/plugin-interface.h>

namespace g2g::element {

std::optional<MemoryDomainKind> domain_of_allocation(GstQuery *query)
{
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    return detail::domain_of(caps);
}

void set_first_allocation_pool(GstQuery *query, GstBufferPool *pool, guint size, guint min, guint max)
{
    if (gst_query_get_n_allocation_pools(query) > 0)
        gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
    else
        gst_query_add_allocation_pool(query, pool, size, min, max);
}

gboolean peer_allocation_in(GstPad *pad, GstCaps *caps, GstQuery *query)
{
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, nullptr, &need_pool);
    const Ref<GstQuery> asked = Ref<GstQuery>::adopt(gst_query_new_allocation(caps, need_pool));
    if (!gst_pad_peer_query(pad, asked.get()))
        return FALSE;
    for (guint i = 0; i < gst_query_get_n_allocation_params(asked.get()); ++i) {
        Ref<GstAllocator> allocator;
        GstAllocationParams params;
        gst_query_parse_nth_allocation_param(asked.get(), i, allocator.out(), &params);
        gst_query_add_allocation_param(query, allocator.get(), &params);
    }
    for (guint i = 0; i < gst_query_get_n_allocation_pools(asked.get()); ++i) {
        Ref<GstBufferPool> pool;
        guint size = 0, min = 0, max = 0;
        gst_query_parse_nth_allocation_pool(asked.get(), i, pool.out(), &size, &min, &max);
        gst_query_add_allocation_pool(query, pool.get(), size, min, max);
    }
    for (guint i = 0; i < gst_query_get_n_allocation_metas(asked.get()); ++i) {
        const GstStructure *params = nullptr;
        const GType api = gst_query_parse_nth_allocation_meta(asked.get(), i, &params);
        gst_query_add_allocation_meta(query, api, params);
    }
    return TRUE;
}

} // namespace g2g::element
