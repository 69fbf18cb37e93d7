// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24 and later free a buffer's memories before its metas (gstbuffer.c,
// _gst_buffer_free): a buffer over its parent's memories already gives them back first.
#include "compat/buffer-free-compat.h"

namespace g2g::compat {

void free_memories_before_parent(GstBuffer *)
{
}

} // namespace g2g::compat
