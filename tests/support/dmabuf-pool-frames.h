// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: frames of g2g's DMA-BUF pool (g2g::dmabuf::pool_new) holding the bytes a test
// chose, as a capture or decoder stack would hand them out.
#pragma once

#include <gst/video/video.h>

#include <g2g/gst-ref.h>

namespace g2g::test {

// An active pool of g2g's DMA-BUF allocator for frames of `info`; empty (and a test failure) when
// it cannot be made or started.
Ref<GstBufferPool> dmabuf_pool(const GstVideoInfo &info, guint min_buffers = 0, guint max_buffers = 0);

// A frame of the active `pool` holding the bytes of `content`, which is laid out as the pool's
// frames are (GstVideoInfo's default offsets and strides). When all are out it waits, at most
// `timeout`, for one to come back (a pipeline that stopped on an error returns none): empty then.
BufferRef dmabuf_pool_frame(GstBufferPool *pool, GstBuffer *content, GstClockTime timeout = 20 * GST_SECOND);

} // namespace g2g::test
