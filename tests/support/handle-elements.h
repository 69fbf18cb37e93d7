// SPDX-License-Identifier: LGPL-2.1-or-later
// Two test-only elements for frames of the platform-handle kinds, registered by the test programs
// (register_handle_elements), so that each kind's caps feature negotiates between a producer and
// a consumer through g2g's elements as a platform's decoder and sink would:
//
//   g2gtesthandlesrc kind=d3d11-texture format=NV12 width=64 height=48 num-buffers=4 !
//       g2gtee name=t  t. ! queue ! g2gtesthandlesink kind=d3d11-texture  t. ! ...
//
// g2gtesthandlesrc (GstPushSrc) produces video/x-raw(<the kind's caps feature>) of its format and
// size, each frame one handle memory (handles::wrap) over a platform object of its own, held by a
// LedgerKeepAlive (handle-ledger.h): the ledger says how many were made, which are still alive and
// how often each was released. `frame-kind` makes it lie: caps of `kind`, frames of another.
//
// g2gtesthandlesink (GstBaseSink) takes only its kind's caps feature (with meta:G2gTensorView as
// well when `views` is set). For each frame it recovers the payload by its type
// (handles::payload_of<T>, and nothing by any other type), the keep-alive by its type
// (KeepAlive::as<LedgerKeepAlive>), and checks the handle is that keep-alive's live object and the
// sizes are the caps'; a view (G2gTensorView meta) it checks and records. A frame of another kind
// is an element error naming what came. `hold` keeps every frame until release_held() or stop;
// `require-system` asks the frame for its system bytes as a CPU reader would (C++ and C API) and
// posts the refusal as its element error.
#pragma once

#include <gst/gst.h>

#include <g2g/frame-view.h>
#include <g2g/memory-domain-kind.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "handle-ledger.h"

namespace g2g::test {

// Registers both elements, once per process (after gst_init).
void register_handle_elements();

// The platform objects a g2gtesthandlesrc made (kept alive by its frames past the element).
std::shared_ptr<HandleLedger> handle_ledger(GstElement *src);

// A view as a g2gtesthandlesink read it from the frame's G2gTensorView meta.
struct ViewSeen {
    guint width = 0; // the view's size (the caps')
    guint height = 0;
    Grid<PixelStep> pixels; // which source pixel each view pixel is
    PlaneView plane0;       // the bytes plane 0 of the view reads (a buffer's offset and strides)
};

// One frame a g2gtesthandlesink took.
struct FrameSeen {
    MemoryDomainKind kind{};
    const void *handle = nullptr;      // the payload's texture, pixel buffer, video frame or buffer
    const GstMemory *memory = nullptr; // which GstMemory carried it (for identity only: not held)
    std::size_t object = 0;            // its object's index in the producer's ledger
    gsize size = 0;                    // the memory's size
    GstClockTime pts = GST_CLOCK_TIME_NONE;
    std::optional<ViewSeen> view;
};

// What a g2gtesthandlesink took, in order, and its refusals of system reads (require-system: the
// texts of require_system_slice, require_system_bytes and g2g_buffer_require_system_bytes).
std::vector<FrameSeen> frames_seen(GstElement *sink);
std::vector<std::string> system_refusals(GstElement *sink);

// The frames a sink with hold=true keeps, and dropping them.
std::size_t held_frames(GstElement *sink);
void release_held(GstElement *sink);

} // namespace g2g::test

extern "C" {
GType g2g_test_handle_src_get_type(void);
GType g2g_test_handle_sink_get_type(void);
}
