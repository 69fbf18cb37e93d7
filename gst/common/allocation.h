// SPDX-License-Identifier: LGPL-2.1-or-later
// ALLOCATION query helpers the elements share.
#pragma once

#include <gst/gst.h>

#include <optional>

#include <g2g/memory-domain-kind.h>

namespace g2g::element {

// The memory domain the caps of the ALLOCATION `query` select (nullopt: none, ANY or unknown).
std::optional<MemoryDomainKind> allocation_domain(GstQuery *query);

// Makes `pool` the query's first allocation pool (replacing downstream's entry, if any).
void set_first_allocation_pool(GstQuery *query, GstBufferPool *pool, guint size, guint min, guint max);

} // namespace g2g::element
