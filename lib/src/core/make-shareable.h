// SPDX-License-Identifier: LGPL-2.1-or-later
// How make_shareable re-wraps host memory (the domain table's System and SystemView rows).
#pragma once

#include <gst/gst.h>

namespace g2g::detail {

// The same bytes behind a plain, shareable, read-only wrapper that keeps `frame` (and so its
// pool slot) and a read mapping of `memory` alive; nullptr when `memory` does not map.
GstMemory *share_host_mapping(GstBuffer *frame, GstMemory *memory);

// Copies each meta of `source` tagged "memory" (GstVideoMeta, G2gTensorViewMeta) to `dest`, whose
// memories hold the same bytes at the same offsets.
void copy_memory_metas(GstBuffer *source, GstBuffer *dest);

} // namespace g2g::detail
