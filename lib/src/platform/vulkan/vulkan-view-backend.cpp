// SPDX-License-Identifier: LGPL-2.1-or-later
// The view backend of VulkanTexture frames. A Vulkan image has no byte layout a view could
// address, so this backend gives it one: plane p starts where memory p does (in a multi-planar
// image, after the planes before it), and its rows are the plane's width in texels, densely. A view's byte
// strides over that layout are plain texel steps (vulkan-commands' plane_walks turns them back), and the
// frame views' code stays the same for every domain.
#include "platform/vulkan/gst-vulkan.h"

#include <algorithm>
#include <iterator>

#include "platform/platform.h"
#include "vulkan-commands.h"
#include "view/view-backend.h"
#include "vulkan-engine.h"

namespace g2g {
namespace {

// The formats whose every plane is one image of 8-bit UNORM channels as GStreamer makes them
// (compat::vulkan_plane_format), which the shader reads and writes exactly. Not: packed 4:2:2 (a
// macropixel is not a texel), RGB/BGR (24-bit images have no storage support), 16-bit formats.
constexpr GstVideoFormat kVulkanViewFormats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_AYUV, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,  GST_VIDEO_FORMAT_Y444,
};

bool all_images(GstBuffer *buffer)
{
    const guint n = gst_buffer_n_memory(buffer);
    for (guint i = 0; i < n; ++i) {
        if (!gst_is_vulkan_image_memory(gst_buffer_peek_memory(buffer, i)))
            return false;
    }
    return n > 0;
}

class VulkanBackend final : public detail::ViewBackend {
public:
    MemoryDomainKind domain() const override { return MemoryDomainKind::VulkanTexture; }

    bool supports_format(GstVideoFormat format) const override
    {
        return std::find(std::begin(kVulkanViewFormats), std::end(kVulkanViewFormats), format) !=
               std::end(kVulkanViewFormats);
    }

    std::optional<GstVideoInfo> memory_layout(GstBuffer *buffer, GstVideoFormat format) const override
    {
        if (!supports_format(format) || !all_images(buffer))
            return {};
        const auto *first = reinterpret_cast<GstVulkanImageMemory *>(gst_buffer_peek_memory(buffer, 0));
        GstVideoInfo info;
        if (!gst_video_info_set_format(&info, format, first->create_info.extent.width,
                                       first->create_info.extent.height))
            return {};
        // The memories lie one after the other in the layout; plane p's image is memory p, or the one
        // memory of a multi-planar image, so the planes meet their memories in order.
        gsize start = 0;
        const GstMemory *current = nullptr;
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
            const std::optional<vulkan::ImagePlane> plane = vulkan::image_plane(buffer, format, p);
            if (!plane)
                return {};
            const auto *memory = reinterpret_cast<const GstMemory *>(plane->image);
            if (current && memory != current)
                start += current->size;
            current = memory;
            const gsize bytes =
                gsize{plane->width} * plane->height * GST_VIDEO_FORMAT_INFO_PSTRIDE(info.finfo, p);
            // A multi-planar image's planes, laid densely, must fit its memory, which views are checked in
            // (its size is the image's memory requirement, every plane's texels and more).
            if (plane->aspect != VK_IMAGE_ASPECT_COLOR_BIT && plane->offset + bytes > memory->size)
                return {};
            info.offset[p] = start + plane->offset;
            info.stride[p] = static_cast<gint>(plane->width) * GST_VIDEO_FORMAT_INFO_PSTRIDE(info.finfo, p);
        }
        info.size = gst_buffer_get_size(buffer);
        return info;
    }

    // Into a storage pool's frame: on its engine's queue, returning at once. Into other images (a
    // library caller's): on a queue of their device, waiting for the frame.
    Result<void> materialize(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                             const GstVideoInfo &, const WorkerPool *) const override
    {
        if (!all_images(destination))
            return Error(ErrorCode::InvalidArgument, "the destination is not a Vulkan image frame");
        if (std::shared_ptr<vulkan::Engine> engine = vulkan::engine_of(destination))
            return engine->materialize(view, source, destination);
        auto *image = reinterpret_cast<GstVulkanImageMemory *>(gst_buffer_peek_memory(destination, 0));
        Result<std::shared_ptr<vulkan::Engine>> engine = vulkan::Engine::for_device(image->device);
        if (!engine)
            return engine.error();
        return (*engine)->materialize(view, source, destination); // the engine waits as it goes
    }
};

} // namespace

namespace platform::vulkan {

const detail::ViewBackend *view_backend()
{
    static const VulkanBackend backend;
    return &backend;
}

} // namespace platform::vulkan
} // namespace g2g
