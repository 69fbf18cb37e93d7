// SPDX-License-Identifier: LGPL-2.1-or-later
// Materialize's dispatch: the backend of a frame's domain (view-backend.h), and
// FrameView::materialize_to through it.
#include <g2g/classify.h>
#include <g2g/frame-view.h>

#include <string>

#include "frame-view-private.h"
#include "platform/platform.h"
#include "view-backend.h"

namespace g2g {

namespace detail {
namespace {

// The device backends this build has (a platform without its feature answers nullptr).
const std::vector<const ViewBackend *> &device_backends()
{
    static const std::vector<const ViewBackend *> backends = [] {
        std::vector<const ViewBackend *> built;
        for (const ViewBackend *device : {platform::cuda::view_backend(), platform::vulkan::view_backend()}) {
            if (device)
                built.push_back(device);
        }
        return built;
    }();
    return backends;
}

} // namespace

const ViewBackend *view_backend(MemoryDomainKind kind)
{
    if (is_host_domain(kind))
        return &cpu_view_backend();
    for (const ViewBackend *device : device_backends()) {
        if (device->domain() == kind)
            return device;
    }
    return nullptr;
}

const ViewBackend *view_backend_of(GstBuffer *buffer)
{
    if (gst_buffer_n_memory(buffer) == 0)
        return &cpu_view_backend();
    // Memory of a type g2g does not know (a display's or an encoder's pool under system-memory
    // caps) is tried through a mapping, as GStreamer's own video elements do.
    Result<MemoryDomainKind> kind = classify_memory(gst_buffer_peek_memory(buffer, 0));
    return kind ? view_backend(*kind) : &cpu_view_backend();
}

std::vector<MemoryDomainKind> view_domains()
{
    std::vector<MemoryDomainKind> kinds{MemoryDomainKind::System};
    for (const ViewBackend *device : device_backends())
        kinds.push_back(device->domain());
    return kinds;
}

std::string format_list(const ViewBackend &backend)
{
    std::string list;
    for (GstVideoFormat format : kViewFormats) {
        if (backend.supports_format(format))
            list += (list.empty() ? "{ " : ", ") + std::string(gst_video_format_to_string(format));
    }
    return list + " }";
}

} // namespace detail

namespace {

Result<void> materialize_by_backend(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                                    const GstVideoInfo &layout, const WorkerPool *workers)
{
    const detail::ViewBackend *backend = detail::view_backend_of(destination);
    if (!backend)
        return Error(ErrorCode::UnsupportedDomain, "this build of g2g materializes no views into " +
                                                       std::string(name(*classify_buffer(destination))) +
                                                       " frames");
    return backend->materialize(view, source, destination, layout, workers);
}

} // namespace

Result<void> FrameView::materialize_to(GstBuffer *source, GstBuffer *destination,
                                       const GstVideoInfo &layout) const
{
    return materialize_by_backend(*this, source, destination, layout, nullptr);
}

Result<void> FrameView::materialize_to(GstBuffer *source, GstBuffer *destination, const GstVideoInfo &layout,
                                       const WorkerPool &workers) const
{
    return materialize_by_backend(*this, source, destination, layout, &workers);
}

} // namespace g2g
