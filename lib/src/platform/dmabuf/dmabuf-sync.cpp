// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA_BUF_IOCTL_SYNC around CPU access: a device's DMA-BUF may sit behind caches the CPU does not
// snoop, and the kernel flushes or invalidates them between the START and END of an access. fds
// without the ioctl (a memfd) answer ENOTTY, which is no error: their bytes are the CPU's already.
#include <gst/allocators/allocators.h>

#include <linux/dma-buf.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

#include "core/log-private.h"
#include "dmabuf-allocator.h"
#include "dmabuf-memory.h"
#include "platform/platform.h"

namespace g2g::dmabuf::detail {
namespace {

void sync(GstMemory *memory, GstMapFlags flags, __u64 phase)
{
    if (!memory || !gst_is_dmabuf_memory(memory))
        return;
    __u64 direction = 0;
    if (flags & GST_MAP_READ)
        direction |= DMA_BUF_SYNC_READ;
    if (flags & GST_MAP_WRITE)
        direction |= DMA_BUF_SYNC_WRITE;
    if (!direction)
        return;
    dma_buf_sync request{};
    request.flags = phase | direction;
    const int fd = gst_dmabuf_memory_get_fd(memory);
    int result;
    do
        result = ioctl(fd, DMA_BUF_IOCTL_SYNC, &request);
    while (result != 0 && (errno == EINTR || errno == EAGAIN));
    if (result != 0 && errno != ENOTTY && errno != EINVAL)
        GST_CAT_WARNING(G2G_CAT, "DMA_BUF_IOCTL_SYNC %s on fd %d failed: %s",
                        phase == DMA_BUF_SYNC_START ? "START" : "END", fd, std::strerror(errno));
}

} // namespace

void begin_cpu_access(GstMemory *memory, GstMapFlags flags)
{
    sync(memory, flags, DMA_BUF_SYNC_START);
}

void end_cpu_access(GstMemory *memory, GstMapFlags flags)
{
    sync(memory, flags, DMA_BUF_SYNC_END);
}

} // namespace g2g::dmabuf::detail

namespace g2g::platform::dmabuf {

// g2g's own memory brackets its mappings itself (dmabuf-allocator.cpp); other allocators'
// DMA-BUFs (a v4l2 decoder's, an application's GstDmaBufAllocator) are bracketed by the reader.
void begin_cpu_read(GstMemory *memory)
{
    if (!g2g::dmabuf::is_g2g_memory(memory))
        g2g::dmabuf::detail::begin_cpu_access(memory, GST_MAP_READ);
}

void end_cpu_read(GstMemory *memory)
{
    if (!g2g::dmabuf::is_g2g_memory(memory))
        g2g::dmabuf::detail::end_cpu_access(memory, GST_MAP_READ);
}

} // namespace g2g::platform::dmabuf
