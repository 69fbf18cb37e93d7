// SPDX-License-Identifier: LGPL-2.1-or-later
// The order in which a freed GstBuffer gives back its memories and its metas (compat.h has the
// map); meson picks buffer-free-compat-1.22.cpp or buffer-free-compat-1.24.cpp.
#pragma once

#include <gst/gst.h>

namespace g2g::compat {

// Makes `buffer`, which shares its memories with the parent its GstParentBufferMeta holds, give
// those memories back before it lets go of the parent, so that the parent's pool finds them
// exclusive again and recycles the parent instead of discarding it. `buffer` is one just made and
// held by its maker alone.
void free_memories_before_parent(GstBuffer *buffer);

} // namespace g2g::compat
