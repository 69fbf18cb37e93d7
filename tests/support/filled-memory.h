// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: output memory that starts out holding a known byte, so that a byte an element
// leaves unwritten shows up instead of passing by luck (fresh malloc memory is often zero, and a
// pool's reused buffer holds an earlier frame).
#pragma once

#include <gst/gst.h>

#include <g2g/gst-ref.h>

namespace g2g::test {

// An allocator whose memories (system memory) are filled with `fill` when allocated: propose it
// downstream of an element (run_chain's `allocator`) and its output buffers start as garbage.
Ref<GstAllocator> filled_allocator(guint8 fill);

} // namespace g2g::test
