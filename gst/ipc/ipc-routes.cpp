// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-routes.h"

#include <g2g-internal/plugin-interface.h>
#include <g2g/dmabuf.h>
#include <g2g/frame-view.h>
#include <g2g/memory-domain-kind.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>

#include <cstring>
#include <optional>

#include "tee-caps.h"
#include "view-caps.h"

namespace g2g::ipc {

namespace {

using K = MemoryDomainKind;

std::string caps_text(const GstCaps *caps)
{
    gchar *text = caps ? gst_caps_to_string(caps) : g_strdup("(none)");
    std::string out = text;
    g_free(text);
    return out;
}

// The fixed caps of `candidate` a consumer of `accepts` takes; null where it takes none.
CapsRef fixed_for(const GstCaps *candidate, const GstCaps *accepts)
{
    if (!candidate || gst_caps_is_empty(candidate))
        return {};
    CapsRef both = CapsRef::adopt(gst_caps_intersect_full(
        const_cast<GstCaps *>(candidate), const_cast<GstCaps *>(accepts), GST_CAPS_INTERSECT_FIRST));
    if (gst_caps_is_empty(both.get()))
        return {};
    return CapsRef::adopt(gst_caps_fixate(both.release()));
}

// `caps` (fixed) carry meta:G2gTensorView: their frames are views (view-caps' test of a structure).
bool has_view_feature(const GstCaps *caps)
{
    return caps::has_view_feature(gst_caps_get_features(caps, 0));
}

// The route of a consumer of a device stream (`kind`'s memory) that takes the stream as it is
// (direct), or, of a view stream, dense frames in the same memory (dense: the view written once on
// the device); nullopt where it takes neither.
std::optional<RouteDecision> on_the_device(const GstCaps *stream, const GstCaps *accepts, K kind)
{
    if (!accepts)
        return std::nullopt;
    RouteDecision decision;
    if (fixed_for(stream, accepts)) {
        decision.route = kRouteDirect;
        decision.caps = CapsRef::adopt(gst_caps_copy(stream));
        return decision;
    }
    if (!has_view_feature(stream))
        return std::nullopt;
    const CapsRef dense = tee::in_domain(stream, kind);
    CapsRef caps = fixed_for(dense.get(), accepts);
    if (!caps)
        return std::nullopt;
    decision.route = kRouteDense;
    decision.caps = std::move(caps);
    return decision;
}

bool all_fd_memory(GstBuffer *frame)
{
    const guint n = gst_buffer_n_memory(frame);
    for (guint i = 0; i < n; ++i)
        if (!gst_is_fd_memory(gst_buffer_peek_memory(frame, i)))
            return false;
    return n > 0;
}

std::string pair_name(K from, K to)
{
    return std::string(name(from)) + "-to-" + std::string(name(to));
}

Ref<GstBufferPool> active_pool(GstBufferPool *pool, const GstCaps *caps, guint size, GstAllocator *allocator)
{
    Ref<GstBufferPool> made = Ref<GstBufferPool>::adopt(pool);
    GstStructure *config = gst_buffer_pool_get_config(made.get());
    gst_buffer_pool_config_set_params(config, const_cast<GstCaps *>(caps), size, 0, 0);
    if (allocator)
        gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
    if (caps)
        gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(made.get(), config) || !gst_buffer_pool_set_active(made.get(), TRUE))
        return {};
    return made;
}

} // namespace

const char *route_name(RouteId route)
{
    switch (route) {
    case kRouteDirect:
        return "direct";
    case kRouteDense:
        return "dense";
    case kRouteDmaBuf:
        return "dmabuf";
    default:
        return "none";
    }
}

RouteDecision choose_route(const GstCaps *stream, const GstCaps *accepts, const std::string &sink)
{
    RouteDecision decision;
    if (!stream)
        return decision; // no stream yet: decided at its caps
    const std::optional<K> domain = detail::domain_of(stream);
    if (domain == K::VulkanTexture) {
        // Vulkan images cross as images (exportable ones, or copied once into such), to consumers
        // of them; a view as its view over those, or written dense once on the device for consumers of
        // dense images.
        const bool view = has_view_feature(stream);
        if (std::optional<RouteDecision> images = on_the_device(stream, accepts, K::VulkanTexture))
            return std::move(*images);
        decision.refusal = sink + " sends " + caps_text(stream) + " as Vulkan images" +
                           (view ? " (as views, or written dense)" : "") + "; the consumer takes " +
                           (accepts ? caps_text(accepts) : "what unixfdsink sends (memfds and DMA-BUFs)") +
                           (view ? ": write them as system memory before " + sink + " (g2gmaterialize)"
                                 : ": download them before " + sink + " (vulkandownload) for system memory");
        return decision;
    }
    if (domain == K::Cuda) {
        // CUDA memory crosses as it is (its IPC handle), or as a DMA-BUF over the same memory where
        // a consumer asks for memory:DMABuf (and DRM has a fourcc for the format). A view crosses
        // as its view, or written dense once on the device for consumers of dense frames (and of
        // DMA-BUFs, over that dense frame).
        const bool view = has_view_feature(stream);
        if (std::optional<RouteDecision> memory = on_the_device(stream, accepts, K::Cuda))
            return std::move(*memory);
        GstVideoInfo info;
        const bool exportable = gst_video_info_from_caps(&info, stream) &&
                                dmabuf::drm_fourcc_of(GST_VIDEO_INFO_FORMAT(&info)) &&
                                !cuda_dmabuf::formats().empty();
        if (accepts && exportable) {
            const CapsRef as_dmabuf = tee::in_domain(stream, K::DmaBuf);
            if (CapsRef caps = fixed_for(as_dmabuf.get(), accepts)) {
                decision.route = kRouteDmaBuf;
                decision.caps = std::move(caps);
                return decision;
            }
        }
        decision.refusal = sink + " sends " + caps_text(stream) + " as CUDA memory" +
                           (view ? " (as views, or written dense)" : "") +
                           (exportable ? " or DMA-BUFs" : "") + "; the consumer takes " +
                           (accepts ? caps_text(accepts) : "what unixfdsink sends (memfds and DMA-BUFs)") +
                           (view ? ": write them dense and download them before " + sink +
                                       " (g2gmaterialize ! cudadownload) for system memory"
                                 : ": download them before " + sink + " (cudadownload) for system memory");
        return decision;
    }
    const bool view = domain == K::SystemView;
    const bool dmabuf = domain == K::DmaBuf;
    // The routes in the order a consumer is given them: the stream as it is first (no work), then
    // system memory (read in place or one materialize), then a copy into a DMA-BUF.
    CapsRef dense = dmabuf ? dmabuf::caps_from_dma_drm(stream) : CapsRef::adopt(gst_caps_copy(stream));
    dense = tee::in_domain(dense.get(), K::System);
    if (!accepts) {
        // unixfdsrc: the stream as unixfdsink sends it; a view, which it cannot read, dense.
        decision.route = view ? kRouteDense : kRouteDirect;
        decision.caps =
            view ? CapsRef::adopt(gst_caps_fixate(dense.release())) : CapsRef::adopt(gst_caps_copy(stream));
        return decision;
    }
    if (CapsRef caps = fixed_for(stream, accepts)) {
        decision.route = kRouteDirect;
        decision.caps = CapsRef::adopt(gst_caps_copy(stream)); // the stream's own, as its frames say
        return decision;
    }
    if ((view || dmabuf)) {
        if (CapsRef caps = fixed_for(dense.get(), accepts)) {
            decision.route = kRouteDense;
            decision.caps = std::move(caps);
            return decision;
        }
    }
    // A copy into a DMA-BUF needs a DRM fourcc for the format (the consumer imports it by one).
    GstVideoInfo info;
    const GstVideoFormat format =
        gst_video_info_from_caps(&info, stream) ? GST_VIDEO_INFO_FORMAT(&info) : GST_VIDEO_FORMAT_UNKNOWN;
    const bool exportable = !dmabuf && dmabuf::drm_fourcc_of(format);
    if (exportable) {
        const CapsRef plain = tee::in_domain(stream, K::System);
        const CapsRef as_dmabuf = tee::in_domain(plain.get(), K::DmaBuf);
        if (CapsRef caps = fixed_for(as_dmabuf.get(), accepts)) {
            decision.route = kRouteDmaBuf;
            decision.caps = std::move(caps);
            return decision;
        }
    }
    std::string forms = " as it is, in system memory";
    if (exportable)
        forms += " or in DMA-BUFs";
    else if (!dmabuf)
        forms +=
            std::string(" (not in DMA-BUFs: ") + gst_video_format_to_string(format) + " has no DRM fourcc)";
    decision.refusal = sink + " sends " + caps_text(stream) + forms + "; the consumer takes " +
                       caps_text(accepts) + ": none of these";
    return decision;
}

Result<void> RouteForms::set_stream(const GstCaps *caps)
{
    stop();
    const CapsRef plain = dmabuf::caps_from_dma_drm(caps);
    if (!gst_video_info_from_caps(&info_, plain.get()))
        return Error(ErrorCode::InvalidArgument, "caps of no video layout: " + caps_text(caps));
    stream_ = CapsRef::adopt(gst_caps_copy(caps));
    stream_dmabuf_ = detail::domain_of(caps) == K::DmaBuf;
    stream_vulkan_ = detail::domain_of(caps) == K::VulkanTexture;
    stream_cuda_ = detail::domain_of(caps) == K::Cuda;
    stream_view_ = has_view_feature(caps);
    return {};
}

void RouteForms::set_engine(std::shared_ptr<vulkan::Engine> engine)
{
    engine_ = std::move(engine);
}

void RouteForms::stop()
{
    next_frame();
    vulkan_copies_.stop();
    vulkan_dense_.stop();
    cuda_dense_.stop();
    for (Ref<GstBufferPool> *pool : {&copies_, &dense_, &dmabufs_}) {
        if (*pool)
            gst_buffer_pool_set_active(pool->get(), FALSE);
        pool->reset();
    }
}

MemoryKind RouteForms::kind(RouteId route) const
{
    if (stream_vulkan_) // direct, and a view written dense
        return MemoryKind::VulkanImage;
    if ((route == kRouteDirect || route == kRouteDense) && stream_cuda_) // a view written dense too
        return MemoryKind::CudaIpc;
    return route == kRouteDmaBuf || (route == kRouteDirect && stream_dmabuf_) ? MemoryKind::DmaBuf
                                                                              : MemoryKind::Fd;
}

Result<BufferRef> RouteForms::form(RouteId route, GstBuffer *frame, const std::string &sink)
{
    // A GstVideoCropMeta travels on no wire (unixfdsink drops it too): a frame that carries one is
    // sent as the frame it shows, its crop written once into a memfd (FrameView reads the crop),
    // never as the whole frame under its caps.
    if (gst_buffer_get_video_crop_meta(frame) && !tensor_view_of(frame)) {
        Result<FrameView> shown = FrameView::of_frame(frame, info_);
        if (!shown)
            return shown.error();
        Result<BufferRef> cropped = dense(frame, *shown, K::System);
        if (!cropped || route != kRouteDmaBuf)
            return cropped;
        return to_dmabuf(cropped->get(), sink);
    }
    switch (route) {
    case kRouteDirect:
        if (stream_vulkan_)
            return copy_to_exported(frame, sink);
        if (stream_cuda_)
            return BufferRef::adopt(gst_buffer_ref(frame)); // its IPC handle crosses

        if (all_fd_memory(frame))
            return BufferRef::adopt(gst_buffer_ref(frame));
        return copy_to_memfd(frame);
    case kRouteDense: {
        if (stream_vulkan_)
            return materialize_to_exported(frame, sink);
        if (stream_cuda_)
            return cuda_dense(frame);
        if (stream_dmabuf_)
            return BufferRef::adopt(gst_buffer_ref(frame)); // read in place: the DMA-BUF as fd memory
        const FrameView *view = tensor_view_of(frame);
        if (!view)
            return Error(ErrorCode::InvalidArgument, "a frame of view caps without its view");
        return dense(frame, *view, K::SystemView);
    }
    case kRouteDmaBuf:
        if (stream_cuda_ && stream_view_) {
            Result<BufferRef> dense = cuda_dense(frame);
            return dense ? cuda_to_dmabuf(dense->get()) : dense;
        }
        if (stream_cuda_)
            return cuda_to_dmabuf(frame);
        return to_dmabuf(frame, sink);
    default:
        return Error(ErrorCode::InvalidArgument, sink + " has no route " + std::to_string(route));
    }
}

// Bytes that cross by descriptor: the frame's bytes once into a memfd of the pool, at the same
// offsets, so its GstVideoMeta and its view say the same of the copy.
Result<BufferRef> RouteForms::copy_to_memfd(GstBuffer *frame)
{
    const gsize size = gst_buffer_get_size(frame);
    if (!copies_ || copies_size_ != size) {
        if (copies_)
            gst_buffer_pool_set_active(copies_.get(), FALSE);
        copies_ =
            active_pool(gst_buffer_pool_new(), nullptr, static_cast<guint>(size), detail::memfd_allocator());
        copies_size_ = size;
    }
    GstBuffer *copy = nullptr;
    if (!copies_ || gst_buffer_pool_acquire_buffer(copies_.get(), &copy, nullptr) != GST_FLOW_OK)
        return Error(ErrorCode::InvalidArgument,
                     "no memfd of " + std::to_string(size) + " bytes to copy a frame into");
    BufferRef out = BufferRef::adopt(copy);
    GstMapInfo map;
    if (!gst_buffer_map(copy, &map, GST_MAP_WRITE))
        return Error(ErrorCode::InvalidArgument, "a memfd of the pool does not map");
    const gsize got = gst_buffer_extract(frame, 0, map.data, size);
    gst_buffer_unmap(copy, &map);
    if (got != size)
        return Error(ErrorCode::InvalidArgument,
                     "the frame's memory does not map: it cannot be copied into a memfd");
    gst_buffer_copy_into(copy, frame, GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, -1);
    if (const GstVideoMeta *meta = gst_buffer_get_video_meta(frame))
        gst_buffer_add_video_meta_full(copy, meta->flags, meta->format, meta->width, meta->height,
                                       meta->n_planes, const_cast<gsize *>(meta->offset),
                                       const_cast<gint *>(meta->stride));
    if (const FrameView *view = tensor_view_of(frame))
        attach_tensor_view(copy, *view);
    ++counters_.copies;
    counters_.bytes_copied += size;
    return out;
}

// A CUDA frame as a DMA-BUF over the same device memory (each pool memory exported once): no copy.
Result<BufferRef> RouteForms::cuda_to_dmabuf(GstBuffer *frame)
{
    Result<cuda_dmabuf::Export> exported = cuda_dmabuf::export_frame(frame);
    if (!exported)
        return exported.error();
    gst_buffer_copy_into(exported->frame.get(), frame,
                         GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0, -1);
    return std::move(exported->frame);
}

void RouteForms::next_frame()
{
    dense_cuda_of_ = {};
}

// A CUDA view written dense once, by the library's kernel, into a frame of a CUDA pool: once per
// frame, for the dense route and the DMA-BUF route alike.
Result<BufferRef> RouteForms::cuda_dense(GstBuffer *frame)
{
    if (dense_cuda_of_.first == frame && dense_cuda_of_.second)
        return BufferRef::adopt(gst_buffer_ref(dense_cuda_of_.second.get()));
    const FrameView *view = tensor_view_of(frame);
    if (!view)
        return Error(ErrorCode::InvalidArgument, "a frame of view caps without its view");
    Result<BufferRef> dense = cuda_dense_.materialize(frame, *view);
    if (!dense)
        return dense;
    dense_cuda_of_ = {frame, BufferRef::adopt(gst_buffer_ref(dense->get()))};
    const std::string pair = pair_name(K::Cuda, K::Cuda);
    ++counters_.conversions[pair];
    counters_.bytes_converted[pair] += GST_VIDEO_INFO_SIZE(&info_);
    return dense;
}

// A Vulkan frame as it is where upstream wrote it into exported images (the pool g2gipcsink
// offers), else copied once, on the pipeline's queue, into images another process imports; a
// view's source frame alike, the view rebuilt over a copy.
Result<BufferRef> RouteForms::copy_to_exported(GstBuffer *frame, const std::string &sink)
{
    if (!engine_)
        return Error(ErrorCode::UnsupportedDomain, sink + " has no Vulkan queue to copy the frame on");
    const FrameView *view = stream_view_ ? tensor_view_of(frame) : nullptr;
    if (stream_view_ && !view)
        return Error(ErrorCode::InvalidArgument, "a frame of view caps without its view");
    if (Result<BufferRef> shared = vulkan_copies_.in_place(*engine_, frame, info_, view); !shared || *shared)
        return shared;
    Result<BufferRef> exported = vulkan_copies_.copy(*engine_, frame, info_, view);
    if (!exported)
        return exported;
    ++counters_.copies;
    counters_.bytes_copied +=
        view ? GST_VIDEO_INFO_SIZE(&view->source_layout()) : GST_VIDEO_INFO_SIZE(&info_);
    return exported;
}

// A Vulkan view written dense once, by the engine's shader, into images another process imports.
Result<BufferRef> RouteForms::materialize_to_exported(GstBuffer *frame, const std::string &sink)
{
    if (!engine_)
        return Error(ErrorCode::UnsupportedDomain, sink + " has no Vulkan queue to write the view on");
    const FrameView *view = tensor_view_of(frame);
    if (!view)
        return Error(ErrorCode::InvalidArgument, "a frame of view caps without its view");
    Result<BufferRef> exported = vulkan_dense_.materialize(*engine_, frame, *view);
    if (!exported)
        return exported;
    const std::string pair = pair_name(K::VulkanTexture, K::VulkanTexture);
    ++counters_.conversions[pair];
    counters_.bytes_converted[pair] += GST_VIDEO_INFO_SIZE(&info_);
    return exported;
}

// What `view` of `frame` shows, materialized once into a memfd frame of its default layout.
Result<BufferRef> RouteForms::dense(GstBuffer *frame, const FrameView &view, MemoryDomainKind from)
{
    GstVideoInfo layout = view.info();
    if (!dense_ || dense_size_ != GST_VIDEO_INFO_SIZE(&layout)) {
        if (dense_)
            gst_buffer_pool_set_active(dense_.get(), FALSE);
        CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&layout));
        dense_ = active_pool(gst_video_buffer_pool_new(), caps.get(),
                             static_cast<guint>(GST_VIDEO_INFO_SIZE(&layout)), detail::memfd_allocator());
        dense_size_ = GST_VIDEO_INFO_SIZE(&layout);
    }
    GstBuffer *out = nullptr;
    if (!dense_ || gst_buffer_pool_acquire_buffer(dense_.get(), &out, nullptr) != GST_FLOW_OK)
        return Error(ErrorCode::InvalidArgument, "no memfd frame to materialize a view into");
    BufferRef dense = BufferRef::adopt(out);
    if (Result<void> written = view.materialize_to(frame, out, layout); !written)
        return written.error();
    gst_buffer_copy_into(out, frame, GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, -1);
    const std::string pair = pair_name(from, K::System);
    ++counters_.conversions[pair];
    counters_.bytes_converted[pair] += GST_VIDEO_INFO_SIZE(&layout);
    return dense;
}

Result<BufferRef> RouteForms::to_dmabuf(GstBuffer *frame, const std::string &sink)
{
    const FrameView *view = tensor_view_of(frame);
    GstVideoInfo layout = view ? view->info() : info_;
    if (!dmabufs_) {
        CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&layout));
        dmabufs_ = Ref<GstBufferPool>::adopt(dmabuf::pool_new(caps.get()));
        if (dmabufs_) {
            GstStructure *config = gst_buffer_pool_get_config(dmabufs_.get());
            gst_buffer_pool_config_set_params(config, caps.get(),
                                              static_cast<guint>(GST_VIDEO_INFO_SIZE(&layout)), 0, 0);
            if (!gst_buffer_pool_set_config(dmabufs_.get(), config) ||
                !gst_buffer_pool_set_active(dmabufs_.get(), TRUE))
                dmabufs_.reset();
        }
    }
    Result<BufferRef> exported = dmabuf::export_frame(frame, info_, dmabufs_.get(), sink);
    if (!exported)
        return exported;
    const std::string pair = pair_name(view ? K::SystemView : K::System, K::DmaBuf);
    ++counters_.conversions[pair];
    counters_.bytes_converted[pair] += GST_VIDEO_INFO_SIZE(&layout);
    return exported;
}

} // namespace g2g::ipc
