// SPDX-License-Identifier: LGPL-2.1-or-later
// How make_shareable re-wraps host memory (the domain table's System and SystemView rows).
#pragma once

#include <gst/gst.h>

namespace g2g::detail {

// The same bytes behind a plain, shareable, read-only wrapper that keeps `frame` (and so its
// pool slot) and a read mapping of `memory` alive; nullptr when `memory` does not map.
GstMemory *share_host_mapping(GstBuffer *frame, GstMemory *memory);

} // namespace g2g::detail
