// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: frames of g2g's DMA-BUF pool (see dmabuf-pool-frames.h).
#include "dmabuf-pool-frames.h"

#include "buffers.h"

#include <g2g/dmabuf.h>

#include <gtest/gtest.h>

#include <algorithm>

namespace g2g::test {

Ref<GstBufferPool> dmabuf_pool(const GstVideoInfo &info, guint min_buffers, guint max_buffers)
{
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    Ref<GstBufferPool> pool =
        Ref<GstBufferPool>::adopt(dmabuf::pool_new(caps.get(), min_buffers, max_buffers));
    EXPECT_TRUE(pool) << "no DMA-BUF pool for " << GST_VIDEO_INFO_NAME(&info);
    if (pool && !gst_buffer_pool_set_active(pool.get(), TRUE)) {
        ADD_FAILURE() << "the DMA-BUF pool did not start";
        pool.reset();
    }
    return pool;
}

BufferRef dmabuf_pool_frame(GstBufferPool *pool, GstBuffer *content, GstClockTime timeout)
{
    BufferRef frame;
    const gint64 deadline = g_get_monotonic_time() + static_cast<gint64>(timeout / GST_USECOND);
    for (;;) {
        const GstFlowReturn got = try_acquire(pool, frame);
        if (got != GST_FLOW_EOS || g_get_monotonic_time() > deadline)
            break;
        g_usleep(200); // every frame is out: downstream gives one back as it finishes with it
    }
    if (!frame) {
        ADD_FAILURE() << "no frame of the DMA-BUF pool came back";
        return frame;
    }
    GstMapInfo map;
    if (!gst_buffer_map(frame.get(), &map, GST_MAP_WRITE)) {
        ADD_FAILURE() << "a frame of the DMA-BUF pool does not map for writing";
        return {};
    }
    gst_buffer_extract(content, 0, map.data, std::min(map.size, gst_buffer_get_size(content)));
    gst_buffer_unmap(frame.get(), &map);
    return frame;
}

} // namespace g2g::test
