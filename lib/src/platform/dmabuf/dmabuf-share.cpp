// SPDX-License-Identifier: LGPL-2.1-or-later
// DmaBuf frames made shareable: a second memory of g2g's DMA-BUF allocator over a dup of the same fd.
#include <gst/allocators/allocators.h>

#include <unistd.h>

#include "dmabuf-memory.h"
#include "platform/platform.h"

namespace g2g::platform::dmabuf {

GstMemory *share_fd(GstBuffer *frame, GstMemory *memory)
{
    static const GQuark source_frame_quark = g_quark_from_static_string("g2g-shareable-source-frame");
    if (!gst_is_dmabuf_memory(memory))
        return nullptr;
    gsize offset = 0;
    gsize maxsize = 0;
    const gsize size = gst_memory_get_sizes(memory, &offset, &maxsize);
    const int fd = dup(gst_dmabuf_memory_get_fd(memory));
    if (fd < 0)
        return nullptr;
    // g2g's allocator, whose mappings refuse memory flagged not mappable (GStreamer's would mmap
    // a tiled share as rows) and bracket themselves with DMA_BUF_IOCTL_SYNC.
    GstMemory *shareable =
        gst_fd_allocator_alloc(g2g::dmabuf::allocator(), fd, maxsize, GST_FD_MEMORY_FLAG_NONE);
    if (!shareable) {
        close(fd);
        return nullptr;
    }
    gst_memory_resize(shareable, static_cast<gssize>(offset), size);
    // What the frame's memory says of its bytes holds for the share: its DRM format, and that no
    // CPU may map it (a tiled modifier, a device's memory).
    if (std::optional<g2g::dmabuf::DrmFormat> format = g2g::dmabuf::detail::recorded_format(memory))
        g2g::dmabuf::detail::record_format(shareable, *format);
    if (GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NOT_MAPPABLE))
        GST_MINI_OBJECT_FLAG_SET(shareable, GST_MEMORY_FLAG_NOT_MAPPABLE);
    gst_mini_object_set_qdata(GST_MINI_OBJECT(shareable), source_frame_quark, gst_buffer_ref(frame),
                              reinterpret_cast<GDestroyNotify>(gst_buffer_unref));
    return shareable;
}

} // namespace g2g::platform::dmabuf
