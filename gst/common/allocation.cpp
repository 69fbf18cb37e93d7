// SPDX-License-Identifier: LGPL-2.1-or-later
#include "allocation.h"

#include "core/caps-domain.h"

namespace g2g::element {

std::optional<MemoryDomainKind> allocation_domain(GstQuery *query)
{
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    return detail::kind_of_caps(caps);
}

void set_first_allocation_pool(GstQuery *query, GstBufferPool *pool, guint size, guint min, guint max)
{
    if (gst_query_get_n_allocation_pools(query) > 0)
        gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
    else
        gst_query_add_allocation_pool(query, pool, size, min, max);
}

} // namespace g2g::element
