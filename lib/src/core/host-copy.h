// SPDX-License-Identifier: LGPL-2.1-or-later
// A device frame that came under system-memory caps, read once through its mapping (the domain
// table's maps_under_system_caps): what a host reader of such caps is handed by GStreamer's own
// download elements when they pass their input through.
#pragma once

#include <g2g/error.h>
#include <g2g/gst-ref.h>

namespace g2g::detail {

// `frame` copied into system memory through its memories' mappings, when its memory is of a kind
// whose row says maps_under_system_caps (GstCudaMemory: mapping it downloads it); its flags,
// timestamps and metas kept, the GstVideoMeta among them (the bytes keep their offsets). An empty
// reference when `frame` is no such frame: host memory already, or memory no mapping reads (whose
// refusal is the reader's). An error naming the memory when a mapping fails.
Result<BufferRef> host_copy_of(GstBuffer *frame);

} // namespace g2g::detail
