// SPDX-License-Identifier: LGPL-2.1-or-later
// Which elements run upstream of an element in its own streaming thread.
#pragma once

#include <gst/gst.h>

namespace g2g::element {

// True when an element made by factory `factory` feeds `element` in the streaming thread that
// calls it: walking upstream from its sink pad through elements of one sink pad (transforms, a
// tee), out of a bin whose private pad feeds it (g2gtee's conversions), and stopping at a
// source pad that runs a task of its own (a queue: beyond it is another thread).
bool runs_upstream_in_thread(GstElement *element, const char *factory);

} // namespace g2g::element
