// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for buffers and pools (see buffers.h).
#include "buffers.h"

#include <gtest/gtest.h>

namespace g2g::test {

const guint8 *data_of(GstBuffer *buffer)
{
    GstMapInfo map;
    EXPECT_TRUE(gst_buffer_map(buffer, &map, GST_MAP_READ));
    const guint8 *data = map.data;
    gst_buffer_unmap(buffer, &map);
    return data;
}

Ref<GstBufferPool> no_share_pool(guint size)
{
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(gst_buffer_pool_new());
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, nullptr, size, 1, 1);
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    params.flags = GST_MEMORY_FLAG_NO_SHARE;
    gst_buffer_pool_config_set_allocator(config, nullptr, &params);
    EXPECT_TRUE(gst_buffer_pool_set_config(pool.get(), config));
    EXPECT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));
    return pool;
}

GstFlowReturn try_acquire(GstBufferPool *pool, BufferRef &out)
{
    GstBufferPoolAcquireParams params{};
    params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    return gst_buffer_pool_acquire_buffer(pool, out.out(), &params);
}

} // namespace g2g::test
