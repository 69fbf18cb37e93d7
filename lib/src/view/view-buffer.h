// SPDX-License-Identifier: LGPL-2.1-or-later
// The buffer a view rides on: the C API's g2g_buffer_make_view and g2gview make it the same way.
#pragma once

#include <g2g/gst-ref.h>

namespace g2g::detail {

// A new buffer over `input`'s memories (refcounts only, zero bytes, NO_SHARE pool memory too),
// its metadata copied, holding `input` as parent so that a pool does not recycle those bytes
// while the view lives, and recycles them (not discards) once it is gone.
BufferRef buffer_over_memories(GstBuffer *input);

} // namespace g2g::detail
