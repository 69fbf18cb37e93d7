// SPDX-License-Identifier: LGPL-2.1-or-later
// Whether upstream's pool recycles its frames: a pool hands out the same GstBuffer again, its qdata
// kept, where a pool that discarded a frame allocates a new one. Header-only.
#pragma once

#include <gst/gst.h>

#include <atomic>

#include "pipeline.h"

namespace g2g::test {

struct PoolRecycling {
    std::atomic<int> fresh{0}, recycled{0};

    // A run_pipeline tap: counts each frame entering the element named "tap".
    BufferTap tap()
    {
        return [this](GstBuffer *buffer) {
            static const GQuark seen = g_quark_from_static_string("g2g-test-pool-recycling");
            GstMiniObject *object = GST_MINI_OBJECT_CAST(buffer);
            if (gst_mini_object_get_qdata(object, seen)) {
                ++recycled;
                return;
            }
            gst_mini_object_set_qdata(object, seen, GINT_TO_POINTER(1), nullptr);
            ++fresh;
        };
    }
};

} // namespace g2g::test
