// SPDX-License-Identifier: LGPL-2.1-or-later
// ALLOCATION query helpers the elements share.
#pragma once

#include <gst/gst.h>

#include <optional>

#include <g2g/memory-domain-kind.h>

namespace g2g::element {

// The memory domain the caps of the ALLOCATION `query` select (nullopt: none, ANY or unknown).
std::optional<MemoryDomainKind> domain_of_allocation(GstQuery *query);

// Makes `pool` the query's first allocation pool (replacing downstream's entry, if any).
void set_first_allocation_pool(GstQuery *query, GstBufferPool *pool, guint size, guint min, guint max);

// Asks `pad`'s peer the ALLOCATION `query` in `caps` instead of the query's own (a passthrough
// whose two sides say the same frames in different caps: DMABuf caps restated between GStreamer
// 1.22's form and 1.24's DMA_DRM), and adds its answer (params, pools, metas) to `query`. FALSE
// when the peer does not answer.
gboolean peer_allocation_in(GstPad *pad, GstCaps *caps, GstQuery *query);

} // namespace g2g::element
