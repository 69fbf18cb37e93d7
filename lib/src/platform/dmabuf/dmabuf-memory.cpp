// SPDX-License-Identifier: LGPL-2.1-or-later
// g2g's DMA-BUF memory: the DRM format recorded on it, and memory over a given fd.
#include "dmabuf-memory.h"

#include <gst/allocators/allocators.h>

#include <fcntl.h>
#include <unistd.h>

namespace g2g::dmabuf::detail {
namespace {

GQuark format_quark()
{
    static const GQuark quark = g_quark_from_static_string("g2g-drm-format");
    return quark;
}

} // namespace

void record_format(GstMemory *memory, DrmFormat format)
{
    gst_mini_object_set_qdata(GST_MINI_OBJECT(memory), format_quark(), new DrmFormat(format),
                              [](gpointer recorded) { delete static_cast<DrmFormat *>(recorded); });
}

std::optional<DrmFormat> recorded_format(GstMemory *memory)
{
    // A memory gst_memory_share made (a buffer region) records nothing itself: its parent does.
    for (; memory; memory = memory->parent) {
        if (auto *recorded =
                static_cast<DrmFormat *>(gst_mini_object_get_qdata(GST_MINI_OBJECT(memory), format_quark())))
            return *recorded;
    }
    return std::nullopt;
}

GstMemory *wrap_fd(int fd, gsize size, DrmFormat format, bool mappable, bool close_fd)
{
    GstMemory *memory = gst_fd_allocator_alloc(
        allocator(), fd, size, close_fd ? GST_FD_MEMORY_FLAG_NONE : GST_FD_MEMORY_FLAG_DONT_CLOSE);
    if (!memory)
        return nullptr;
    record_format(memory, format);
    if (!mappable)
        GST_MINI_OBJECT_FLAG_SET(memory, GST_MEMORY_FLAG_NOT_MAPPABLE);
    return memory;
}

gssize fd_size(int fd)
{
    if (fd < 0 || fcntl(fd, F_GETFD) == -1)
        return -1;
    // The fd's file position is shared with every dup of it: put it back where it was.
    const off_t position = lseek(fd, 0, SEEK_CUR);
    const off_t end = lseek(fd, 0, SEEK_END);
    if (position >= 0)
        lseek(fd, position, SEEK_SET);
    return end > 0 ? static_cast<gssize>(end) : -1;
}

} // namespace g2g::dmabuf::detail
