// SPDX-License-Identifier: LGPL-2.1-or-later
// Where a view's bytes are read and written: one backend per memory domain that views can live
// in (the CPU one for host memory, CUDA's in platform/cuda/, Vulkan's in platform/vulkan/), picked by the
// frame's domain, so no element or view code asks which device a frame is on.
//
// lib/src/view/ holds the frame views:
//   frame-view        FrameView: per-plane strides, orientations and crops composed in O(1)
//   materialize       the dense copy: into caller planes (CPU), into a new buffer, or into a
//                     frame of any domain through its backend (this header)
//   tensor-view-meta  G2gTensorViewMeta, the view riding on a buffer
//   view-c-api        the C API's views: g2g_buffer_make_view (g2g/g2g.h)
//   view-buffer       the buffer a view rides on (the C API's views and g2gview's)
//   layout-check      the one check of a caller's layout every entry point shares: plane ends
//                     without overflow, destination planes, frames the CPU cannot read
//   cpu/              the CPU backend: plane copies, transposes, their SSE2 / AVX2 / AVX-512 kernels
#pragma once

#include <gst/video/video.h>

#include <optional>
#include <string>
#include <vector>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/memory-domain-kind.h>

namespace g2g::detail {

class ViewBackend {
public:
    virtual ~ViewBackend() = default;

    // The domain whose frames this backend reads and writes (System for host memory).
    virtual MemoryDomainKind domain() const = 0;

    // The formats whose views it materializes, a subset of FrameView::supports_format.
    virtual bool supports_format(GstVideoFormat format) const = 0;

    // The layout a frame's memory knows of itself (a CUDA memory's pitch is the driver's choice,
    // not the caps' default stride; a Vulkan image's texels have no byte layout but the one its
    // backend gives them), or nothing: then a GstVideoMeta or the caps say it.
    virtual std::optional<GstVideoInfo> memory_layout(GstBuffer *buffer, GstVideoFormat format) const = 0;

    // Writes `view` of `source` densely into `destination`, a frame of this domain laid out as
    // `layout`; the CPU's in row bands across `workers`' threads when given (a device's kernel or
    // shader has its own).
    virtual Result<void> materialize(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                                     const GstVideoInfo &layout, const WorkerPool *workers) const = 0;
};

// The CPU's backend (cpu/cpu-backend.cpp).
const ViewBackend &cpu_view_backend();

// The backend for frames of `kind`: the CPU's for the host domains (System, SystemView and
// mappable DmaBuf), CUDA's for Cuda frames and Vulkan's for VulkanTexture frames where this build
// has them; nullptr otherwise.
const ViewBackend *view_backend(MemoryDomainKind kind);

// The backend for `buffer`'s memory (its first memory's domain), or nullptr.
const ViewBackend *view_backend_of(GstBuffer *buffer);

// The memory domains whose frames views can be made of and materialized in, in this build.
std::vector<MemoryDomainKind> view_domains();

// `backend`'s formats as a caps list ("{ GRAY8, RGBA, NV12 }").
std::string format_list(const ViewBackend &backend);

} // namespace g2g::detail
