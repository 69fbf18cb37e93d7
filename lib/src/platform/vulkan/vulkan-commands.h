// SPDX-License-Identifier: LGPL-2.1-or-later
// What the engine records with: one command buffer from GStreamer's command pool, barriers that
// move an image or a buffer on from the state its memory records (and record the new one, as
// GStreamer's Vulkan elements do, so the next element's barrier waits for this work), a
// submission with a pooled fence under the queue's submit lock, and the objects the GPU still
// reads kept by the engine's Submissions until that fence signals. Also the view geometry in texels.
#pragma once

#include "platform/vulkan/gst-vulkan.h"

#include <optional>
#include <vector>

#include <g2g/error.h>
#include <g2g/frame-view.h>

#include "vulkan-fence-pool.h"
#include "vulkan-submissions.h"

namespace g2g::vulkan {

// What failed and why, for an Error: GStreamer's GError (taken over), or a VkResult.
Error failure(const char *what, GError *error);
Error failure(const char *what, VkResult result);

// A barrier moving `image` on from the layout, access and stage its memory records to these, which
// it then records (as GStreamer's Vulkan elements do); `src_stages` gathers the stages to wait for.
VkImageMemoryBarrier image_barrier(GstVulkanImageMemory *image, VkImageLayout layout, VkAccessFlags access,
                                   VkPipelineStageFlags stage, VkPipelineStageFlags &src_stages);

// Plane `plane` of a VulkanImage frame of `info`'s format. GStreamer's frames hold one image per
// plane (vulkanupload, its image pools for sampling), except its video decoders' (1.24 on): one
// image of a multi-planar format (VK_FORMAT_G8_B8R8_2PLANE_420_UNORM for NV12) whose planes are
// aspects, as large as the coded size. Its pool makes those images without
// VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT, so no view of one plane can be made of them: their planes are
// copied by aspect (vkCmdCopyImageToBuffer, vkCmdCopyImage), never sampled in place.
struct ImagePlane {
    GstVulkanImageMemory *image = nullptr;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT; // a PLANE_n bit in a multi-planar image
    guint32 width = 0, height = 0;                         // the plane's extent in texels
    // Where the plane starts in the view layout of its memory (vulkan-view-backend): 0 for an image of
    // its own, the planes before it (their texels, densely) in a multi-planar image.
    gsize offset = 0;
};

// Memory `index` of `frame` where it is a Vulkan image; nullptr otherwise.
GstVulkanImageMemory *image_memory(GstBuffer *frame, guint index);

// Plane `plane` of `frame`, a frame of `format`; nullopt where `frame` is neither one image per plane
// nor one multi-planar image with the format's planes.
std::optional<ImagePlane> image_plane(GstBuffer *frame, GstVideoFormat format, guint plane);

// The copy of plane `plane` between a buffer laid out as `layout` (its offset, rows `stride` bytes
// apart) and the plane's aspect `aspect` of an image, `layout`'s size of it from its corner
// (vkCmdCopyBufferToImage and vkCmdCopyImageToBuffer alike).
VkBufferImageCopy plane_copy_region(const GstVideoInfo &layout, guint plane,
                                    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT);

class Recording {
public:
    // A command buffer of `*pool` (made on `queue` the first time), begun; submitted, it and what
    // the recording keeps go to `submissions` (which must outlive the recording) until its fence
    // signals. What finished before is not collected here: the caller does (Submissions::collect).
    static Result<Recording> begin(GstVulkanQueue *queue, GstVulkanCommandPool **pool,
                                   Submissions &submissions);
    Recording(Recording &&other) noexcept;
    Recording &operator=(Recording &&) = delete;
    ~Recording(); // an unsubmitted recording is dropped, with what it kept

    VkCommandBuffer cmd() const { return buffer_->cmd; }

    // A barrier from the image's recorded layout, access and stage to these, which it then records;
    // the submission is ordered with the image's timeline (order_with).
    void transition(GstVulkanImageMemory *image, VkImageLayout layout, VkAccessFlags access,
                    VkPipelineStageFlags stage);
    void transition(GstVulkanBufferMemory *buffer, VkAccessFlags access, VkPipelineStageFlags stage);

    // The submission waits for the work GStreamer's elements recorded on `image` on other queues (its
    // timeline semaphore's value, where this GStreamer has one: compat/vulkan-timeline-compat.h),
    // signals the next value and counts it up in the image's memory once submitted, as
    // GStreamer's own operations do. Once per image; images without a timeline are ordered by the queue.
    void order_with(GstVulkanImageMemory *image);

    // Keeps one reference of `object` (taken over) until the submission's fence signals.
    void keep(GstMiniObject *object) { kept_.push_back(object); }

    // Ends, submits with `fence` (unsubmitted, of the submissions' pool), hands the command buffer
    // and what was kept to the submissions until it signals, and returns the fence (a reference:
    // a download's frame waits for it). Without a fence, with one the submissions' pool hands out.
    Result<Fence> submit(Fence fence);
    Result<Fence> submit();

private:
    Recording(GstVulkanQueue *queue, GstVulkanCommandBuffer *buffer, Submissions &submissions);

    GstVulkanQueue *queue_;
    GstVulkanCommandBuffer *buffer_;
    Submissions *submissions_;
    std::vector<GstMiniObject *> kept_;
    std::vector<VkSemaphore> timelines_;
    std::vector<guint64 *> timeline_values_;
};

// One plane of a view as the shader walks it: output texel (x, y) reads source texel
// origin + x * col + y * row of plane `source` (an aspect of a multi-planar image is copied into an
// image of its own first: image_plane), written to image `destination`.
struct PlaneWalk {
    ImagePlane source;
    GstVulkanImageMemory *destination = nullptr;
    gint32 origin_x = 0, origin_y = 0;
    gint32 col_x = 0, col_y = 0;
    gint32 row_x = 0, row_y = 0;
    guint32 width = 0, height = 0;
};

// The texel walks of `view` of `source` into `destination` (VulkanImage frames of `device`:
// `source` as image_plane takes it, `destination` one image per plane). A view's byte offsets address
// a plane as if its texels were rows of the plane's width (vulkan-view-backend's layout); they are
// turned back into texel steps here.
// Refused: another device's images (naming both), a destination of the wrong format or size, a
// walk that leaves the source image.
Result<std::vector<PlaneWalk>> plane_walks(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                                           GstVulkanDevice *device);

} // namespace g2g::vulkan
