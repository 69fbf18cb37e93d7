// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend: views of host memory (System, SystemView, mappable DmaBuf) written densely
// through mappings, by the plane copies and transposes of this folder, on the calling thread or
// in parts (bands of rows; blocks of transposing planes) across a WorkerPool's threads
// (row-bands-private.h). FrameView::materialize and materialize_into are its public faces.
#include <g2g/frame-view.h>

#include <array>
#include <string>

#include "plane-copy-private.h"
#include "platform/platform.h"
#include "row-bands-private.h"
#include "view/frame-view-private.h"
#include "view/layout-check.h"
#include "view/view-backend.h"
#include "worker-pool-private.h"

namespace g2g {
namespace {

// Read mappings of a buffer's memories, made on first use and released together.
class MappedMemories {
public:
    explicit MappedMemories(GstBuffer *buffer) : buffer_(buffer) {}
    ~MappedMemories()
    {
        for (guint i = 0; i < maps_.size(); ++i) {
            if (maps_[i].memory) {
                gst_memory_unmap(maps_[i].memory, &maps_[i]);
                platform::dmabuf::end_cpu_read(maps_[i].memory);
            }
        }
    }
    MappedMemories(const MappedMemories &) = delete;
    MappedMemories &operator=(const MappedMemories &) = delete;

    const std::uint8_t *data(guint index)
    {
        if (index >= maps_.size() || index >= gst_buffer_n_memory(buffer_))
            return nullptr;
        if (!maps_[index].memory) {
            // A DMA-BUF is read between DMA_BUF_IOCTL_SYNC brackets (where its fd has them).
            GstMemory *memory = gst_buffer_peek_memory(buffer_, index);
            platform::dmabuf::begin_cpu_read(memory);
            if (!gst_memory_map(memory, &maps_[index], GST_MAP_READ)) {
                platform::dmabuf::end_cpu_read(memory);
                return nullptr;
            }
        }
        return maps_[index].data;
    }

private:
    GstBuffer *buffer_;
    std::array<GstMapInfo, 16> maps_{};
};

class CpuBackend final : public detail::ViewBackend {
public:
    MemoryDomainKind domain() const override { return MemoryDomainKind::System; }

    bool supports_format(GstVideoFormat format) const override { return FrameView::supports_format(format); }

    std::optional<GstVideoInfo> memory_layout(GstBuffer *, GstVideoFormat) const override { return {}; }

    Result<void> materialize(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                             const GstVideoInfo &layout, const WorkerPool *workers) const override
    {
        GstVideoFrame frame;
        if (!gst_video_frame_map(&frame, const_cast<GstVideoInfo *>(&layout), destination, GST_MAP_WRITE))
            return Error(ErrorCode::MapFailed, "cannot map the output frame for writing");
        guint8 *planes[GST_VIDEO_MAX_PLANES];
        for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p)
            planes[p] = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        Result<void> written = workers ? view.materialize_into(source, planes, frame.info.stride, *workers)
                                       : view.materialize_into(source, planes, frame.info.stride);
        gst_video_frame_unmap(&frame);
        return written;
    }
};

// The pool of materialize_into(..., n_threads): one thread per processor, started at its first
// use and joined at exit.
const WorkerPool &shared_workers()
{
    static const WorkerPool workers(0);
    return workers;
}

} // namespace

namespace detail {

const ViewBackend &cpu_view_backend()
{
    static const CpuBackend backend;
    return backend;
}

} // namespace detail

Result<void> FrameView::materialize_into(GstBuffer *source, guint8 *const dst[],
                                         const gint dst_stride[]) const
{
    return write_planes("FrameView::materialize_into", source, dst, dst_stride, nullptr, 1);
}

Result<void> FrameView::materialize_into(GstBuffer *source, guint8 *const dst[], const gint dst_stride[],
                                         const WorkerPool &workers) const
{
    return write_planes("FrameView::materialize_into", source, dst, dst_stride, &workers,
                        workers.n_threads());
}

Result<void> FrameView::materialize_into(GstBuffer *source, guint8 *const dst[], const gint dst_stride[],
                                         unsigned n_threads) const
{
    const unsigned threads = WorkerPool::threads_for(n_threads);
    return write_planes("FrameView::materialize_into", source, dst, dst_stride,
                        threads > 1 ? &shared_workers() : nullptr, threads);
}

Result<void> FrameView::write_planes(std::string_view caller, GstBuffer *source, guint8 *const dst[],
                                     const gint dst_stride[], const WorkerPool *workers, unsigned bands) const
{
    if (Result<void> readable = detail::check_host_readable(caller, source); !readable)
        return readable;
    Result<void> inside = check_bounds(source);
    if (!inside)
        return inside;
    if (Result<void> fits = detail::check_destination(
            caller, info_, reinterpret_cast<const void *const *>(dst), dst_stride, nullptr);
        !fits)
        return fits;
    // Every memory is mapped here, by the calling thread, before any band is written.
    MappedMemories memories(source);
    const std::size_t frame_bytes = GST_VIDEO_INFO_SIZE(&info_);
    bands = workers ? detail::band_count(frame_bytes, bands, workers->state().min_band_bytes) : 1;
    auto run = [&](const auto &band) {
        if (bands == 1)
            band(0u);
        else
            workers->run(bands, band);
    };
    if (!strided_) {
        const std::uint8_t *base = memories.data(source_plane0_.memory_index);
        if (!base)
            return Error(ErrorCode::MapFailed, "cannot map the view's source memory for reading");
        run([&](unsigned k) {
            const detail::RowBand rows = detail::row_band(pixels_.height, 1, k, bands);
            if (rows.rows() == 0)
                return;
            Grid<PixelStep> part = pixels_;
            part.crop(0, rows.begin, pixels_.width, rows.rows());
            detail::copy_packed_422(format(), base + source_plane0_.grid.origin, source_plane0_.grid.row,
                                    part, dst[0] + std::int64_t{rows.begin} * dst_stride[0], dst_stride[0]);
        });
        return {};
    }
    std::array<const std::uint8_t *, GST_VIDEO_MAX_PLANES> bases{};
    for (unsigned p = 0; p < n_planes_; ++p) {
        bases[p] = memories.data(planes_[p].memory_index);
        if (!bases[p])
            return Error(ErrorCode::MapFailed,
                         "cannot map plane " + std::to_string(p) + " of the view for reading");
    }
    run([&](unsigned k) {
        for (unsigned p = 0; p < n_planes_; ++p) {
            const PlaneView &plane = planes_[p];
            const detail::PlanePart part = detail::plane_part(plane, k, bands);
            if (part.empty())
                continue;
            Grid<std::int64_t> grid = plane.grid;
            grid.crop(part.cols.begin, part.rows.begin, part.cols.rows(), part.rows.rows());
            // Each part decides its stores by the whole frame's size, as the one-thread walk does.
            detail::copy_plane(bases[p], grid, plane.element_size,
                               dst[p] + std::int64_t{part.rows.begin} * dst_stride[p] +
                                   std::int64_t{part.cols.begin} * plane.element_size,
                               dst_stride[p], frame_bytes);
        }
    });
    return {};
}

Result<BufferRef> FrameView::materialize(GstBuffer *source) const
{
    return dense_buffer(source, nullptr);
}

Result<BufferRef> FrameView::materialize(GstBuffer *source, const WorkerPool &workers) const
{
    return dense_buffer(source, &workers);
}

Result<BufferRef> FrameView::dense_buffer(GstBuffer *source, const WorkerPool *workers) const
{
    BufferRef dense =
        BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info_), nullptr));
    GstMapInfo map;
    if (!gst_buffer_map(dense.get(), &map, GST_MAP_WRITE))
        return Error(ErrorCode::MapFailed, "cannot map a new buffer for writing");
    guint8 *planes[GST_VIDEO_MAX_PLANES];
    for (unsigned p = 0; p < n_planes_; ++p)
        planes[p] = map.data + GST_VIDEO_INFO_PLANE_OFFSET(&info_, p);
    Result<void> written =
        workers ? write_planes("FrameView::materialize", source, planes, info_.stride, workers,
                               workers->n_threads())
                : write_planes("FrameView::materialize", source, planes, info_.stride, nullptr, 1);
    gst_buffer_unmap(dense.get(), &map);
    if (!written)
        return written.error();
    gst_buffer_copy_into(dense.get(), source,
                         static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, static_cast<gsize>(-1));
    return dense;
}

} // namespace g2g
