// SPDX-License-Identifier: LGPL-2.1-or-later
// A consumer of exported CUDA frames (see dmabuf-consumer.h).
#include "dmabuf-consumer.h"
#include "open-fds.h"

#include "g2g-config.h"

#include <gst/allocators/allocators.h>

#include <g2g/classify.h>
#include <g2g/dmabuf.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "frames.h"
#include "platform/cuda-dmabuf/cuda-dmabuf.h"
#include "platform/dmabuf/dmabuf-memory.h"

#if G2G_HAVE_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

namespace g2g::test {
namespace {

using g2g::cuda_dmabuf::export_range;
using g2g::cuda_dmabuf::ExportRange;

std::string hex(guint64 value)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%" G_GINT64_MODIFIER "x", value);
    return text;
}

// The domain of a memory or a frame; nullopt where classification refuses it.
template <typename Classified> std::optional<g2g::MemoryDomainKind> domain_of(const Classified &result)
{
    return result ? std::optional<g2g::MemoryDomainKind>(*result) : std::nullopt;
}

// The layout of the CUDA memory a DMA-BUF frame is over, and where its device memory starts.
struct CudaSide {
    GstVideoInfo info{};
    guint64 data = 0;    // the device pointer
    gsize maxsize = 0;   // the CUDA memory's bytes (pitch x rows)
    gpointer context{};  // its GstCudaContext (transfer none)
    std::string problem; // why there is none
};

CudaSide cuda_side(GstBuffer *frame)
{
    CudaSide side;
    GstBuffer *cuda = g2g::cuda_dmabuf::cuda_frame_of(frame);
    if (!cuda || gst_buffer_n_memory(cuda) != 1) {
        side.problem = "the DMA-BUF frame does not hold the CUDA frame it exports";
        return side;
    }
    GstMemory *memory = gst_buffer_peek_memory(cuda, 0);
#if G2G_HAVE_CUDA
    if (!gst_is_cuda_memory(memory)) {
        side.problem = "the frame it holds is not CUDA memory";
        return side;
    }
    side.info = GST_CUDA_MEMORY_CAST(memory)->info;
    side.context = GST_CUDA_MEMORY_CAST(memory)->context;
    side.maxsize = memory->maxsize;
    GstMapInfo map;
    if (!gst_memory_map(memory, &map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
        side.problem = "the CUDA memory does not map on its device";
        return side;
    }
    side.data = reinterpret_cast<guint64>(map.data);
    gst_memory_unmap(memory, &map);
#else
    (void)memory;
    side.problem = "this build has no CUDA";
#endif
    return side;
}

// The bytes a plane of a `layout` frame needs in its fd: from its offset to the end of its last row.
gsize plane_end(const g2g::dmabuf::FrameLayout &layout, const GstVideoInfo &info, guint p)
{
    const g2g::dmabuf::Plane &plane = layout.planes[p];
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(info.finfo, p, components);
    const gsize rows = static_cast<gsize>(GST_VIDEO_INFO_COMP_HEIGHT(&info, components[0]));
    gsize row = 0;
    for (gint c : components) {
        if (c < 0)
            break;
        row = std::max(row, static_cast<gsize>(GST_VIDEO_INFO_COMP_WIDTH(&info, c)) *
                                static_cast<gsize>(GST_VIDEO_INFO_COMP_PSTRIDE(&info, c)));
    }
    return plane.offset + static_cast<gsize>(plane.stride) * (rows - 1) + row;
}

// The first frame as a consumer of the fd sees it, for the record.
std::string describe(const g2g::dmabuf::FrameLayout &layout, const GstVideoInfo &info, int fd, gssize size,
                     const CudaSide &cuda)
{
    std::string first = std::string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info))) + " " +
                        std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" +
                        std::to_string(GST_VIDEO_INFO_HEIGHT(&info)) + ", drm-format " +
                        layout.format.to_string() + ", fd of " + std::to_string(size) +
                        " bytes (CUDA memory of " + std::to_string(cuda.maxsize) +
                        " bytes at device address " + hex(cuda.data) + ")";
    for (guint p = 0; p < layout.planes.size(); ++p)
        first += ", plane " + std::to_string(p) + " at " + std::to_string(layout.planes[p].offset) +
                 " stride " + std::to_string(layout.planes[p].stride);
    const std::map<std::string, std::string> proc = fd_info(fd);
    for (const char *key : {"exp_name", "size", "count", "flags"}) {
        if (auto found = proc.find(key); found != proc.end())
            first += std::string(", fdinfo ") + key + " " + found->second;
    }
    return first;
}

} // namespace

DmaBufConsumer::DmaBufConsumer(const std::vector<BufferRef> *peer, GstVideoInfo peer_info)
    : peer_(peer), peer_info_(peer_info)
{
}

BufferTap DmaBufConsumer::tap()
{
    return [this](GstBuffer *frame) { take(frame); };
}

void DmaBufConsumer::take(GstBuffer *frame)
{
    const guint64 index = frames++;
    if (index == 50)
        fds_at_50 = static_cast<std::size_t>(open_fd_count());
    fds_at_last = static_cast<std::size_t>(open_fd_count());
    if (!problem.empty())
        return;
    problem = check(frame, index);
    if (!problem.empty())
        problem = "frame " + std::to_string(index) + ": " + problem;
}

std::string DmaBufConsumer::check(GstBuffer *frame, guint64 index)
{
    if (gst_buffer_n_memory(frame) != 1)
        return std::to_string(gst_buffer_n_memory(frame)) + " memories, not one DMA-BUF";
    GstMemory *memory = gst_buffer_peek_memory(frame, 0);
    if (!gst_is_dmabuf_memory(memory))
        return std::string("its memory is ") + memory->allocator->mem_type + ", not a DMA-BUF";
    if (domain_of(g2g::classify_buffer(frame)) != g2g::MemoryDomainKind::DmaBuf)
        return "it does not classify as DmaBuf";
    if (g2g::dmabuf::is_mappable(frame))
        return "it is not marked GST_MEMORY_FLAG_NOT_MAPPABLE";
    GstMapInfo map;
    if (gst_memory_map(memory, &map, GST_MAP_READ)) {
        gst_memory_unmap(memory, &map);
        return "gst_memory_map(GST_MAP_READ) of it succeeded: a CPU mapped the GPU's frame";
    }
    const int fd = gst_dmabuf_memory_get_fd(memory);
    g2g::Result<g2g::dmabuf::FrameLayout> layout = g2g::dmabuf::layout_of(frame);
    if (!layout)
        return "layout_of: " + layout.error().message();
    const GstVideoMeta *meta = gst_buffer_get_video_meta(frame);
    if (!meta)
        return "no GstVideoMeta";
    GstVideoInfo info;
    gst_video_info_set_format(&info, meta->format, meta->width, meta->height);
    if (layout->format != g2g::dmabuf::DrmFormat{g2g::dmabuf::drm_fourcc_of(meta->format)})
        return "its DRM format is " + layout->format.to_string() + ", not the linear " +
               g2g::dmabuf::DrmFormat{g2g::dmabuf::drm_fourcc_of(meta->format)}.to_string();

    // The planes are the CUDA memory's, where the fd's pages put its first byte.
    const CudaSide cuda = cuda_side(frame);
    if (!cuda.problem.empty())
        return cuda.problem;
    const guint64 page = static_cast<guint64>(sysconf(_SC_PAGESIZE));
    const ExportRange range = export_range(cuda.data, cuda.maxsize, page);
    if (layout->planes.size() != GST_VIDEO_INFO_N_PLANES(&cuda.info))
        return std::to_string(layout->planes.size()) + " planes, the CUDA memory has " +
               std::to_string(GST_VIDEO_INFO_N_PLANES(&cuda.info));
    for (guint p = 0; p < layout->planes.size(); ++p) {
        const g2g::dmabuf::Plane &plane = layout->planes[p];
        const std::string which = "plane " + std::to_string(p);
        if (plane.fd != fd)
            return which + " is in fd " + std::to_string(plane.fd) + ", not the frame's " +
                   std::to_string(fd);
        if (plane.stride != GST_VIDEO_INFO_PLANE_STRIDE(&cuda.info, p))
            return which + "'s stride is " + std::to_string(plane.stride) + ", the CUDA pitch " +
                   std::to_string(GST_VIDEO_INFO_PLANE_STRIDE(&cuda.info, p));
        if (plane.offset != range.offset + GST_VIDEO_INFO_PLANE_OFFSET(&cuda.info, p))
            return which + " is at byte " + std::to_string(plane.offset) +
                   " of the fd, the CUDA memory has it at " +
                   std::to_string(GST_VIDEO_INFO_PLANE_OFFSET(&cuda.info, p)) + " (+" +
                   std::to_string(range.offset) + ")";
    }
    const gssize size = g2g::dmabuf::detail::fd_size(fd);
    if (size != static_cast<gssize>(range.size))
        return "the fd holds " + std::to_string(size) + " bytes (lseek SEEK_END), its pages " +
               std::to_string(range.size);
    if (memory->size != static_cast<gsize>(size))
        return "the memory is " + std::to_string(memory->size) + " bytes of an fd of " + std::to_string(size);
    for (guint p = 0; p < layout->planes.size(); ++p) {
        if (plane_end(*layout, info, p) > static_cast<gsize>(size))
            return "plane " + std::to_string(p) + " ends at byte " +
                   std::to_string(plane_end(*layout, info, p)) + " of an fd of " + std::to_string(size);
    }
    struct stat status {};
    if (fstat(fd, &status) != 0)
        return "fstat of the fd failed";
    dmabufs.insert(status.st_ino);
    fds.insert(fd);
    if (index == 0)
        first = describe(*layout, info, fd, size, cuda);

    if (!reader)
        reader = std::make_unique<DmaBufReader>(import_through_cuda ? cuda.context : nullptr);
    std::optional<std::vector<guint8>> bytes = reader->read(fd, static_cast<gsize>(size));
    if (index == 0 && bytes) {
        std::string head;
        for (std::size_t i = 0; i < 16 && i < bytes->size(); ++i)
            head += (i ? " " : "") + std::to_string((*bytes)[layout->planes[0].offset + i]);
        first_bytes = "through " + reader->importer() + ": " + head;
    }
    if (!bytes || !peer_)
        return {};
    if (index >= peer_->size())
        return "more frames than the peer's " + std::to_string(peer_->size());
    // The bytes as a system frame with the DMA-BUF's planes.
    BufferRef copy = BufferRef::adopt(gst_buffer_new_memdup(bytes->data(), bytes->size()));
    gsize offsets[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    for (guint p = 0; p < layout->planes.size(); ++p) {
        offsets[p] = layout->planes[p].offset;
        strides[p] = layout->planes[p].stride;
    }
    gst_buffer_add_video_meta_full(copy.get(), GST_VIDEO_FRAME_FLAG_NONE, meta->format, meta->width,
                                   meta->height, meta->n_planes, offsets, strides);
    const std::string differs = compare_frames(info, copy.get(), peer_info_, (*peer_)[index].get());
    if (!differs.empty())
        return "the bytes read back through " + reader->importer() + " differ from the peer's: " + differs;
    ++compared;
    return {};
}

} // namespace g2g::test
