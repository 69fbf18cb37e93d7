// SPDX-License-Identifier: LGPL-2.1-or-later
// What each consumer of g2gipcsink takes, and the form of each frame for it. A consumer's route
// is decided from the stream's caps and the caps it said it takes (choose_route, pure); each frame
// is made once per route in use (RouteForms) and shared with every consumer of that route, as
// g2gtee feeds its branches:
//   direct  the stream as it is: its memory by descriptor (a System frame not yet in fd memory is
//           copied once into a memfd of a pool); a view crosses as its view
//   dense   system memory without a view: a view materialized once into a memfd of a pool, a
//           DMA-BUF frame read in place (its descriptor, as fd memory)
//   dmabuf  memory:DMABuf: a System frame or a view copied once into a DMA-BUF of g2g's pool
// A frame with a GstVideoCropMeta (which no wire carries) crosses as the frame it shows: its crop
// written once into a memfd (counted as a System-to-System conversion).
// A consumer that said nothing (unixfdsrc) takes the stream as unixfdsink would send it, its view
// dense. A VulkanImage stream goes to consumers of Vulkan images alone (direct: each frame as it
// is where upstream wrote it into the exportable images g2gipcsink offered, else copied once on the
// device into such images, ipc-vulkan.h; a view as its view over its source, or over the copy of
// it; dense: a view written dense once by the engine's shader into such images, for consumers of
// dense images). A CUDA stream goes to
// consumers of CUDA memory (direct: its IPC handle, ipc-cuda.h) and of DMA-BUFs (dmabuf: the same
// device memory exported as a DMA-BUF), with no copy either way; a CUDA view crosses as its view
// over the same memory (direct), or written dense once by the library's kernel for consumers of
// dense CUDA frames (dense) and of DMA-BUFs (dmabuf, that dense frame exported).
#pragma once

#include <gst/video/video.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

#include "ipc-cuda.h"
#include "ipc-server.h"
#include "ipc-vulkan.h"

namespace g2g::ipc {

enum Route : RouteId { kRouteDirect = 0, kRouteDense = 1, kRouteDmaBuf = 2 };
const char *route_name(RouteId route); // "direct", "dense", "dmabuf"

// The route of a consumer that takes `accepts` (null: one that said nothing), for a stream of
// fixed caps `stream` (null: none yet, so no route and no refusal). `sink` names the element in
// a refusal.
RouteDecision choose_route(const GstCaps *stream, const GstCaps *accepts, const std::string &sink);

// What making the frames of each route cost, since the stream began.
struct FormCounters {
    // Frames copied to be shared (direct): System frames into memfds, Vulkan frames into exportable
    // images on the device.
    std::uint64_t copies = 0, bytes_copied = 0;
    std::map<std::string, std::uint64_t> conversions, bytes_converted; // by pair, "SystemView-to-System"
};

class RouteForms {
public:
    // The stream's caps (fixed). Resets the pools.
    Result<void> set_stream(const GstCaps *caps);
    // The queue a VulkanImage stream's frames are copied on (the pipeline's).
    void set_engine(std::shared_ptr<vulkan::Engine> engine);
    // `frame` in the form of `route`; refused with the reason (named by `sink`). Between two
    // next_frame() calls, every form is of the same frame (what two routes share is made once).
    Result<BufferRef> form(RouteId route, GstBuffer *frame, const std::string &sink);
    void next_frame();
    // The memory kind NEW_BUFFER says for `route`'s frames: DmaBuf in memory:DMABuf caps alone.
    MemoryKind kind(RouteId route) const;
    const FormCounters &counters() const { return counters_; }
    void stop(); // lets go of the pools

private:
    Result<BufferRef> copy_to_memfd(GstBuffer *frame);
    Result<BufferRef> dense(GstBuffer *frame, const FrameView &view, MemoryDomainKind from);
    Result<BufferRef> to_dmabuf(GstBuffer *frame, const std::string &sink);
    Result<BufferRef> copy_to_exported(GstBuffer *frame, const std::string &sink);
    Result<BufferRef> materialize_to_exported(GstBuffer *frame, const std::string &sink);
    Result<BufferRef> cuda_to_dmabuf(GstBuffer *frame);
    Result<BufferRef> cuda_dense(GstBuffer *frame);

    CapsRef stream_;
    GstVideoInfo info_{};
    bool stream_dmabuf_ = false, stream_vulkan_ = false, stream_cuda_ = false, stream_view_ = false;
    Ref<GstBufferPool> copies_, dense_, dmabufs_;
    gsize copies_size_ = 0, dense_size_ = 0;
    FormCounters counters_;
    std::shared_ptr<vulkan::Engine> engine_;
    VulkanExports vulkan_copies_, vulkan_dense_; // one layout each: a view's source, the view dense
    CudaDense cuda_dense_;
    std::pair<GstBuffer *, BufferRef> dense_cuda_of_; // this frame's view written dense, for two routes
};

} // namespace g2g::ipc
