// SPDX-License-Identifier: LGPL-2.1-or-later
// G2gDmaBufAllocator, the GstDmaBufAllocator behind g2g::dmabuf::allocator() (dmabuf-memory.h
// maps the folder).
#pragma once

#include <gst/allocators/allocators.h>
#include <gst/gst.h>

G_BEGIN_DECLS
typedef struct _G2gDmaBufAllocator G2gDmaBufAllocator;
typedef struct {
    GstDmaBufAllocatorClass parent_class;
} G2gDmaBufAllocatorClass;
GType g2g_dmabuf_allocator_get_type(void);
G_END_DECLS

namespace g2g::dmabuf {
// True for memory of g2g's allocator (its mappings bracket themselves with DMA_BUF_IOCTL_SYNC).
bool is_g2g_memory(GstMemory *memory);
} // namespace g2g::dmabuf
