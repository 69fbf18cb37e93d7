// SPDX-License-Identifier: LGPL-2.1-or-later
// share / make_shareable / copy-on-write / pool return, asserted with pointers and refcounts.
#include <g2g/memory-domain.h>
#include <g2g/tensor-view-meta.h>

#include "buffers.h"
#include "g2g-config.h"
#include "memfd-dmabuf.h"

#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstring>

using g2g::BufferRef;
using g2g::MemoryDomain;
using g2g::Ref;
using K = g2g::MemoryDomainKind;
using g2g::test::data_of;
using g2g::test::memfd_dmabuf;
using g2g::test::no_share_pool;
using g2g::test::try_acquire;

namespace {

MemoryDomain adopted(GstBuffer *buffer)
{
    auto domain = MemoryDomain::adopt(buffer);
    EXPECT_TRUE(domain.ok());
    return std::move(domain.value());
}

void fill(GstBuffer *buffer, guint8 value)
{
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(buffer, &map, GST_MAP_WRITE));
    std::memset(map.data, value, map.size);
    gst_buffer_unmap(buffer, &map);
}

} // namespace

TEST(Share, IsARefcountBumpOfTheSameFrame)
{
    MemoryDomain frame = adopted(gst_buffer_new_allocate(nullptr, 1024, nullptr));
    GstMemory *memory = gst_buffer_peek_memory(frame.buffer(), 0);
    const gint memory_refs = GST_MINI_OBJECT_REFCOUNT_VALUE(memory);
    EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(frame.buffer()), 1);
    {
        MemoryDomain a = frame.share();
        MemoryDomain b = frame.share();
        EXPECT_EQ(a.buffer(), frame.buffer());
        EXPECT_EQ(b.buffer(), frame.buffer());
        EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(frame.buffer()), 3);
        EXPECT_EQ(a.kind(), K::System);
        EXPECT_EQ(data_of(a.buffer()), data_of(frame.buffer()));
        EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(memory), memory_refs); // nothing copied or re-wrapped
    }
    EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(frame.buffer()), 1);
}

TEST(Share, NoShareMemoryWouldBeDeepCopiedByGstBufferCopy)
{
    Ref<GstBufferPool> pool = no_share_pool(4096);
    BufferRef pooled;
    ASSERT_EQ(try_acquire(pool.get(), pooled), GST_FLOW_OK);
    ASSERT_TRUE(GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(pooled.get(), 0), GST_MEMORY_FLAG_NO_SHARE));
    MemoryDomain frame = adopted(pooled.release());
    EXPECT_FALSE(frame.is_shareable());
    // What a branch's gst_buffer_make_writable() would do without make_shareable: copy bytes.
    BufferRef copy = BufferRef::adopt(gst_buffer_copy(frame.buffer()));
    EXPECT_NE(data_of(copy.get()), data_of(frame.buffer()));
}

TEST(Share, MakeShareableRewrapsNoShareMemoryZeroCopyAndThePoolGetsItsBufferBack)
{
    Ref<GstBufferPool> pool = no_share_pool(4096);
    BufferRef pooled;
    ASSERT_EQ(try_acquire(pool.get(), pooled), GST_FLOW_OK);
    fill(pooled.get(), 0x5a);
    GstBuffer *pooled_buffer = pooled.get();
    const guint8 *pooled_bytes = data_of(pooled_buffer);
    GST_BUFFER_PTS(pooled_buffer) = 42 * GST_MSECOND;

    {
        MemoryDomain frame = adopted(pooled.release());
        frame.make_shareable();
        EXPECT_TRUE(frame.is_shareable());
        EXPECT_NE(frame.buffer(), pooled_buffer);                    // a new GstBuffer ...
        EXPECT_EQ(data_of(frame.buffer()), pooled_bytes);            // ... over the same bytes
        EXPECT_EQ(GST_BUFFER_PTS(frame.buffer()), 42 * GST_MSECOND); // timestamps and metas travel

        MemoryDomain branch = frame.share();
        EXPECT_EQ(branch.buffer(), frame.buffer());
        // A branch that copies its GstBuffer (to set a timestamp) now shares the bytes too.
        BufferRef copy = BufferRef::adopt(gst_buffer_copy(branch.buffer()));
        EXPECT_EQ(data_of(copy.get()), pooled_bytes);

        // The pool's only buffer is still in use by the shares: none to hand out.
        BufferRef none;
        EXPECT_EQ(try_acquire(pool.get(), none), GST_FLOW_EOS);
    }
    // Last share gone: the pool got its buffer back, the same one, with the same bytes.
    BufferRef again;
    ASSERT_EQ(try_acquire(pool.get(), again), GST_FLOW_OK);
    EXPECT_EQ(again.get(), pooled_buffer);
    EXPECT_EQ(data_of(again.get()), pooled_bytes);
    again.reset();
    EXPECT_TRUE(gst_buffer_pool_set_active(pool.get(), FALSE));
}

// The metas that describe the memory (GstVideoMeta's planes, a view) travel with the re-wrapped
// memory: gst_buffer_copy_into leaves them out of a copy without the memories, and a v4l2 frame's
// padded strides were then read as GStreamer's default ones.
TEST(Share, MakeShareableKeepsTheMetasThatDescribeTheMemory)
{
    Ref<GstBufferPool> pool = no_share_pool(4096);
    BufferRef pooled;
    ASSERT_EQ(try_acquire(pool.get(), pooled), GST_FLOW_OK);
    gsize offsets[GST_VIDEO_MAX_PLANES] = {64, 64 + 48 * 16};
    gint strides[GST_VIDEO_MAX_PLANES] = {48, 48};
    gst_buffer_add_video_meta_full(pooled.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 33, 16, 2,
                                   offsets, strides);
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 33, 16);
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(pooled.get(), info);
    ASSERT_TRUE(view.ok()) << view.error().message();
    view->orient(GST_VIDEO_ORIENTATION_90R);
    BufferRef viewed = BufferRef::adopt(gst_buffer_copy(pooled.get())); // NO_SHARE: a deep copy, its own meta
    g2g::attach_tensor_view(viewed.get(), *view);

    MemoryDomain frame = adopted(pooled.release());
    frame.make_shareable();
    ASSERT_TRUE(frame.is_shareable());
    const GstVideoMeta *meta = gst_buffer_get_video_meta(frame.buffer());
    ASSERT_NE(meta, nullptr) << "make_shareable dropped the frame's GstVideoMeta";
    EXPECT_EQ(meta->buffer, frame.buffer());
    EXPECT_EQ(meta->offset[1], offsets[1]);
    EXPECT_EQ(meta->stride[0], 48);
    EXPECT_EQ(meta->width, 33u);

    GST_MINI_OBJECT_FLAG_SET(gst_buffer_peek_memory(viewed.get(), 0), GST_MEMORY_FLAG_NO_SHARE);
    MemoryDomain view_frame = adopted(viewed.release());
    ASSERT_EQ(view_frame.kind(), K::SystemView);
    view_frame.make_shareable();
    const g2g::FrameView *kept = g2g::tensor_view_of(view_frame.buffer());
    ASSERT_NE(kept, nullptr) << "make_shareable dropped the frame's view";
    EXPECT_EQ(kept->width(), 16u);
    EXPECT_EQ(kept->plane(1).grid.origin, view->plane(1).grid.origin);
}

TEST(Share, MakeShareableIsANoOpForShareableFrames)
{
    MemoryDomain frame = adopted(gst_buffer_new_allocate(nullptr, 64, nullptr));
    GstBuffer *before = frame.buffer();
    frame.make_shareable();
    EXPECT_EQ(frame.buffer(), before);
}

TEST(Share, AWriterGetsItsOwnCopyAndOtherSharesNeverSeeTheWrite)
{
    BufferRef source = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 256, nullptr));
    fill(source.get(), 7);
    MemoryDomain frame = adopted(source.release());
    MemoryDomain reader = frame.share();
    MemoryDomain writer = frame.share();
    const guint8 *original = data_of(frame.buffer());

    {
        auto bytes = writer.as_mut_system_slice("writer");
        ASSERT_TRUE(bytes.ok()) << bytes.error().message();
        EXPECT_NE(bytes->data(), original); // copied on write
        std::memset(bytes->data(), 9, bytes->size());
    }
    EXPECT_NE(writer.buffer(), frame.buffer());
    auto seen = reader.require_system_slice("reader");
    ASSERT_TRUE(seen.ok());
    EXPECT_EQ(seen->data(), original);
    EXPECT_EQ(seen->data()[0], 7);
    EXPECT_EQ(seen->data()[255], 7);
    auto written = writer.require_system_slice("writer");
    EXPECT_EQ(written->data()[0], 9);
}

TEST(Share, WritesOnMakeShareablePoolMemoryNeverReachThePool)
{
    Ref<GstBufferPool> pool = no_share_pool(4096);
    BufferRef pooled;
    ASSERT_EQ(try_acquire(pool.get(), pooled), GST_FLOW_OK);
    fill(pooled.get(), 1);
    const guint8 *pooled_bytes = data_of(pooled.get());
    {
        MemoryDomain frame = adopted(pooled.release());
        frame.make_shareable();
        MemoryDomain writer = frame.share();
        auto bytes = writer.as_mut_system_slice("writer");
        ASSERT_TRUE(bytes.ok());
        EXPECT_NE(bytes->data(), pooled_bytes);
        bytes->data()[0] = 2;
    }
    BufferRef again;
    ASSERT_EQ(try_acquire(pool.get(), again), GST_FLOW_OK);
    EXPECT_EQ(data_of(again.get())[0], 1);
    again.reset();
    gst_buffer_pool_set_active(pool.get(), FALSE);
}

TEST(Share, TheOnlyHolderWritesInPlace)
{
    MemoryDomain frame = adopted(gst_buffer_new_allocate(nullptr, 64, nullptr));
    const guint8 *original = data_of(frame.buffer());
    auto bytes = frame.as_mut_system_slice("sole");
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(bytes->data(), original);
}

TEST(Share, MakeShareableKeepsDmaBufZeroCopy)
{
    if (!G2G_HAVE_DMABUF)
        GTEST_SKIP() << "built without the dmabuf feature";
    GstMemory *memory = memfd_dmabuf(4096, GST_MEMORY_FLAG_NO_SHARE);
    const int fd = gst_dmabuf_memory_get_fd(memory);
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(), memory);
    fill(buffer.get(), 3);

    MemoryDomain frame = adopted(buffer.release());
    ASSERT_EQ(frame.kind(), K::DmaBuf);
    frame.make_shareable();
    ASSERT_TRUE(frame.is_shareable());
    GstMemory *shareable = gst_buffer_peek_memory(frame.buffer(), 0);
    ASSERT_TRUE(gst_is_dmabuf_memory(shareable));
    EXPECT_NE(gst_dmabuf_memory_get_fd(shareable), fd); // a dup ...
    // ... of the same dma-buf: a write through the original fd shows through the new memory.
    void *mapped = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ASSERT_NE(mapped, MAP_FAILED);
    static_cast<guint8 *>(mapped)[10] = 77;
    munmap(mapped, 4096);
    auto bytes = frame.require_system_slice("reader");
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    EXPECT_EQ(bytes->data()[0], 3);
    EXPECT_EQ(bytes->data()[10], 77);
}
