// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without the dmabuf feature: DMABuf frames are still recognised (by memory type name),
// but their NO_SHARE memory stays as it is, and the DMA-BUF API answers that this build lacks it.
#include <g2g/dmabuf.h>

#include "platform/platform.h"

namespace g2g::platform::dmabuf {

GstMemory *share_fd(GstBuffer *, GstMemory *)
{
    return nullptr;
}

void begin_cpu_read(GstMemory *)
{
}
void end_cpu_read(GstMemory *)
{
}

} // namespace g2g::platform::dmabuf

namespace g2g::dmabuf {
namespace {

Error not_built()
{
    return Error(ErrorCode::UnsupportedDomain,
                 "this build of g2g has no DMA-BUF support (the dmabuf feature: "
                 "Linux, linux/dma-buf.h, memfd_create and libdrm-dev's drm_fourcc.h)");
}

} // namespace

std::string DrmFormat::to_string() const
{
    return {};
}

std::optional<DrmFormat> DrmFormat::parse(std::string_view)
{
    return std::nullopt;
}

std::uint32_t drm_fourcc_of(GstVideoFormat)
{
    return 0;
}

std::vector<GstVideoFormat> drm_video_formats()
{
    return {};
}

GstVideoFormat video_format_of(std::uint32_t)
{
    return GST_VIDEO_FORMAT_UNKNOWN;
}

bool modifier_known(std::uint64_t)
{
    return false;
}

Result<FrameLayout> layout_of(GstBuffer *, const GstVideoInfo *)
{
    return not_built();
}

bool is_mappable(GstBuffer *frame)
{
    return frame != nullptr;
}

Result<BufferRef> wrap(const FrameLayout &)
{
    return not_built();
}

std::string_view backend_name(Backend)
{
    return "none";
}

Backend backend()
{
    return Backend::Memfd;
}

GstAllocator *allocator()
{
    return nullptr;
}

GstBufferPool *pool_new(const GstCaps *, guint, guint)
{
    return nullptr;
}

Result<BufferRef> export_frame(GstBuffer *, const GstVideoInfo &, GstBufferPool *, std::string_view)
{
    return not_built();
}

} // namespace g2g::dmabuf

// ---- DMA_DRM caps (dma-drm-caps.cpp in a build with the feature) ----
// Without drm_fourcc.h there is no fourcc to pair with a video format: DMA_DRM structures are
// not understood (1.22 cannot say them, so they are dropped) and none are made.
namespace g2g::dmabuf {

CapsRef caps_from_dma_drm(const GstCaps *caps)
{
    CapsRef result = CapsRef::adopt(gst_caps_copy(caps));
    if (gst_caps_is_any(result.get()))
        return result;
    for (guint i = gst_caps_get_size(result.get()); i-- > 0;) {
        if (g_strcmp0(gst_structure_get_string(gst_caps_get_structure(result.get(), i), "format"),
                      "DMA_DRM") == 0)
            gst_caps_remove_structure(result.get(), i);
    }
    return result;
}

CapsRef caps_with_dma_drm(const GstCaps *caps)
{
    return CapsRef::adopt(gst_caps_copy(caps));
}

std::optional<DrmFormat> drm_format_of(const GstStructure *)
{
    return std::nullopt;
}

} // namespace g2g::dmabuf
