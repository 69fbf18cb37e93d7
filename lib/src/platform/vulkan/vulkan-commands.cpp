// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-commands.h"

#include <algorithm>
#include <string>
#include <utility>

#include "compat/vulkan-timeline-compat.h"
#include "vulkan-engine.h"

namespace g2g::vulkan {

Error failure(const char *what, GError *error)
{
    std::string message = std::string(what) + " failed" + (error ? std::string(": ") + error->message : "");
    g_clear_error(&error);
    return Error(ErrorCode::MapFailed, std::move(message));
}

Error failure(const char *what, VkResult result)
{
    return Error(ErrorCode::MapFailed, std::string(what) + " failed: VkResult " + std::to_string(result));
}

namespace {

// Work nobody has recorded against yet waits for nothing.
VkPipelineStageFlags stages_or_top(VkPipelineStageFlags stages)
{
    return stages ? stages : static_cast<VkPipelineStageFlags>(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
}

} // namespace

Recording::Recording(GstVulkanQueue *queue, GstVulkanCommandBuffer *buffer, Submissions &submissions)
    : queue_(queue), buffer_(buffer), submissions_(&submissions), kept_(submissions.take_list())
{
}

Recording::Recording(Recording &&other) noexcept
    : queue_(other.queue_), buffer_(std::exchange(other.buffer_, nullptr)), submissions_(other.submissions_),
      kept_(std::move(other.kept_)), timelines_(std::move(other.timelines_)),
      timeline_values_(std::move(other.timeline_values_))
{
    other.kept_.clear();
}

Recording::~Recording()
{
    if (buffer_) {
        gst_vulkan_command_buffer_unlock(buffer_);
        gst_vulkan_command_buffer_unref(buffer_);
    }
    for (GstMiniObject *object : kept_)
        gst_mini_object_unref(object);
}

Result<Recording> Recording::begin(GstVulkanQueue *queue, GstVulkanCommandPool **pool,
                                   Submissions &submissions)
{
    GError *error = nullptr;
    if (!*pool && !(*pool = gst_vulkan_queue_create_command_pool(queue, &error)))
        return failure("creating a Vulkan command pool", error);
    GstVulkanCommandBuffer *buffer = gst_vulkan_command_pool_create(*pool, &error);
    if (!buffer)
        return failure("creating a Vulkan command buffer", error);
    gst_vulkan_command_buffer_lock(buffer);
    VkCommandBufferBeginInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    Recording recording(queue, buffer, submissions);
    if (VkResult r = vkBeginCommandBuffer(buffer->cmd, &info); r != VK_SUCCESS)
        return failure("vkBeginCommandBuffer", r);
    return recording;
}

namespace {

// The planes of the multi-planar formats whose planes are 8-bit samples, the ones GStreamer's decoders
// make for the formats g2g views (0: not multi-planar).
guint multiplanar_planes(VkFormat format)
{
    switch (format) {
    case VK_FORMAT_G8_B8R8_2PLANE_420_UNORM:
    case VK_FORMAT_G8_B8R8_2PLANE_422_UNORM:
        return 2;
    case VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM:
    case VK_FORMAT_G8_B8_R8_3PLANE_422_UNORM:
    case VK_FORMAT_G8_B8_R8_3PLANE_444_UNORM:
        return 3;
    default:
        return 0;
    }
}

constexpr VkImageAspectFlags kPlaneAspects[] = {VK_IMAGE_ASPECT_PLANE_0_BIT, VK_IMAGE_ASPECT_PLANE_1_BIT,
                                                VK_IMAGE_ASPECT_PLANE_2_BIT};

} // namespace

GstVulkanImageMemory *image_memory(GstBuffer *frame, guint index)
{
    GstMemory *memory = index < gst_buffer_n_memory(frame) ? gst_buffer_peek_memory(frame, index) : nullptr;
    return memory && gst_is_vulkan_image_memory(memory) ? reinterpret_cast<GstVulkanImageMemory *>(memory)
                                                        : nullptr;
}

std::optional<ImagePlane> image_plane(GstBuffer *frame, GstVideoFormat format, guint plane)
{
    const GstVideoFormatInfo *finfo = gst_video_format_get_info(format);
    const guint planes = finfo ? GST_VIDEO_FORMAT_INFO_N_PLANES(finfo) : 0;
    if (plane >= planes)
        return std::nullopt;
    ImagePlane found;
    if (gst_buffer_n_memory(frame) == planes) {
        if (!(found.image = image_memory(frame, plane)))
            return std::nullopt;
        found.width = found.image->create_info.extent.width;
        found.height = found.image->create_info.extent.height;
        return found;
    }
    if (gst_buffer_n_memory(frame) != 1 || !(found.image = image_memory(frame, 0)) ||
        multiplanar_planes(found.image->create_info.format) != planes)
        return std::nullopt;
    // Plane p's first component is component p in every format the Vulkan backend takes.
    const guint width = found.image->create_info.extent.width,
                height = found.image->create_info.extent.height;
    for (guint p = 0; p <= plane; ++p) {
        found.aspect = kPlaneAspects[p];
        found.width = static_cast<guint32>(GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(finfo, p, width));
        found.height = static_cast<guint32>(GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(finfo, p, height));
        if (p < plane)
            found.offset += gsize{found.width} * found.height * GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, p);
    }
    return found;
}

VkBufferImageCopy plane_copy_region(const GstVideoInfo &layout, guint plane, VkImageAspectFlags aspect)
{
    VkBufferImageCopy region{};
    region.bufferOffset = GST_VIDEO_INFO_PLANE_OFFSET(&layout, plane);
    region.bufferRowLength = static_cast<guint32>(GST_VIDEO_INFO_PLANE_STRIDE(&layout, plane) /
                                                  GST_VIDEO_INFO_COMP_PSTRIDE(&layout, plane));
    region.bufferImageHeight = static_cast<guint32>(GST_VIDEO_INFO_COMP_HEIGHT(&layout, plane));
    region.imageSubresource = {aspect, 0, 0, 1};
    region.imageExtent = {static_cast<guint32>(GST_VIDEO_INFO_COMP_WIDTH(&layout, plane)),
                          static_cast<guint32>(GST_VIDEO_INFO_COMP_HEIGHT(&layout, plane)), 1};
    return region;
}

VkImageMemoryBarrier image_barrier(GstVulkanImageMemory *image, VkImageLayout layout, VkAccessFlags access,
                                   VkPipelineStageFlags stage, VkPipelineStageFlags &src_stages)
{
    VkImageMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    barrier.srcAccessMask = image->barrier.parent.access_flags;
    barrier.dstAccessMask = access;
    barrier.oldLayout = image->barrier.image_layout;
    barrier.newLayout = layout;
    barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = image->image;
    barrier.subresourceRange = image->barrier.subresource_range;
    src_stages |= image->barrier.parent.pipeline_stages;
    image->barrier.parent.pipeline_stages = stage;
    image->barrier.parent.access_flags = access;
    image->barrier.image_layout = layout;
    return barrier;
}

void Recording::order_with(GstVulkanImageMemory *image)
{
    const compat::ImageTimeline timeline = compat::vulkan_image_timeline(image);
    if (timeline.semaphore == VK_NULL_HANDLE ||
        std::find(timelines_.begin(), timelines_.end(), timeline.semaphore) != timelines_.end())
        return;
    timelines_.push_back(timeline.semaphore);
    timeline_values_.push_back(timeline.value);
}

void Recording::transition(GstVulkanImageMemory *image, VkImageLayout layout, VkAccessFlags access,
                           VkPipelineStageFlags stage)
{
    order_with(image);
    VkPipelineStageFlags waited = 0;
    const VkImageMemoryBarrier barrier = image_barrier(image, layout, access, stage, waited);
    vkCmdPipelineBarrier(cmd(), stages_or_top(waited), stage, 0, 0, nullptr, 0, nullptr, 1, &barrier);
}

void Recording::transition(GstVulkanBufferMemory *buffer, VkAccessFlags access, VkPipelineStageFlags stage)
{
    VkBufferMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.srcAccessMask = buffer->barrier.parent.access_flags;
    barrier.dstAccessMask = access;
    barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = buffer->buffer;
    barrier.offset = 0;
    barrier.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd(), stages_or_top(buffer->barrier.parent.pipeline_stages), stage, 0, 0, nullptr,
                         1, &barrier, 0, nullptr);
    buffer->barrier.parent.pipeline_stages = stage;
    buffer->barrier.parent.access_flags = access;
}

Result<Fence> Recording::submit()
{
    Result<Fence> fence = submissions_->fences().acquire();
    if (!fence)
        return fence.error();
    return submit(std::move(*fence));
}

Result<Fence> Recording::submit(Fence fence)
{
    if (VkResult r = vkEndCommandBuffer(cmd()); r != VK_SUCCESS)
        return failure("vkEndCommandBuffer", r);
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &buffer_->cmd;
    // Each image's timeline: wait for its value (what others recorded on it), signal the next.
    std::vector<guint64> waits, signals;
    for (guint64 *value : timeline_values_) {
        waits.push_back(*value);
        signals.push_back(*value + 1);
    }
    const std::vector<VkPipelineStageFlags> stages(timelines_.size(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    VkTimelineSemaphoreSubmitInfo values{};
    values.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    if (!timelines_.empty()) {
        values.waitSemaphoreValueCount = values.signalSemaphoreValueCount =
            static_cast<guint32>(timelines_.size());
        values.pWaitSemaphoreValues = waits.data();
        values.pSignalSemaphoreValues = signals.data();
        submit.pNext = &values;
        submit.waitSemaphoreCount = submit.signalSemaphoreCount = static_cast<guint32>(timelines_.size());
        submit.pWaitSemaphores = submit.pSignalSemaphores = timelines_.data();
        submit.pWaitDstStageMask = stages.data();
    }
    gst_vulkan_queue_submit_lock(queue_);
    const VkResult r = vkQueueSubmit(queue_->queue, 1, &submit, fence.handle());
    gst_vulkan_queue_submit_unlock(queue_);
    if (r != VK_SUCCESS)
        return failure("vkQueueSubmit", r); // the fence goes back unsubmitted
    fence.mark_submitted();
    for (guint64 *value : timeline_values_)
        ++*value;
    // The command buffer, unlocked, goes back to GStreamer's command pool (reset) when its last
    // reference goes, once the submission has run.
    gst_vulkan_command_buffer_unlock(buffer_);
    kept_.push_back(GST_MINI_OBJECT_CAST(std::exchange(buffer_, nullptr)));
    submissions_->add(fence, std::move(kept_));
    kept_.clear();
    return fence;
}

namespace {

// A view step (bytes, in the layout where a plane image's rows are `stride` bytes of texels of
// `texel` bytes) as a texel step. A step of a whole row is a row first: in a one-texel-wide image
// the two are the same bytes, and only the row exists.
bool texel_step(std::int64_t step, std::int64_t stride, std::int64_t texel, gint32 &x, gint32 &y)
{
    x = y = 0;
    if (step == stride || step == -stride)
        y = step > 0 ? 1 : -1;
    else if (step == texel || step == -texel)
        x = step > 0 ? 1 : -1;
    else
        return step == 0;
    return true;
}

Error refused(std::string message)
{
    return Error(ErrorCode::InvalidArgument, std::move(message));
}

} // namespace

Result<std::vector<PlaneWalk>> plane_walks(const FrameView &view, GstBuffer *source, GstBuffer *destination,
                                           GstVulkanDevice *device)
{
    if (!view.strided())
        return refused("this view of " + std::string(gst_video_format_to_string(view.format())) +
                       " has no stride form; Vulkan frames materialize only strided views");
    const guint planes = view.n_planes();
    if (gst_buffer_n_memory(destination) != planes)
        return refused("the destination has " + std::to_string(gst_buffer_n_memory(destination)) +
                       " memories for the view's " + std::to_string(planes) +
                       " planes (one Vulkan image each)");
    if (Result<void> inside = view.check_bounds(source); !inside)
        return inside.error();
    std::vector<PlaneWalk> walks;
    for (guint p = 0; p < planes; ++p) {
        const PlaneView &plane = view.plane(p);
        const std::optional<ImagePlane> from = image_plane(source, view.format(), p);
        GstVulkanImageMemory *dst = image_memory(destination, p);
        if (!from || image_memory(source, plane.memory_index) != from->image)
            return refused("plane " + std::to_string(p) +
                           " of the source is not a Vulkan image of the view's " +
                           gst_video_format_to_string(view.format()) + " planes");
        if (!dst)
            return refused("plane " + std::to_string(p) + " of the destination is not a Vulkan image");
        for (GstVulkanImageMemory *image : {from->image, dst}) {
            if (image->device != device)
                return refused("the frame's Vulkan images are of device " + Engine::describe(image->device) +
                               " but g2g works on device " + Engine::describe(device));
        }
        const std::int64_t texel = plane.element_size;
        const std::int64_t src_w = from->width, src_h = from->height;
        const std::int64_t stride = src_w * texel;
        if (dst->create_info.extent.width < plane.grid.width ||
            dst->create_info.extent.height < plane.grid.height)
            return refused("plane " + std::to_string(p) + "'s destination image is " +
                           std::to_string(dst->create_info.extent.width) + "x" +
                           std::to_string(dst->create_info.extent.height) + " for a " +
                           std::to_string(plane.grid.width) + "x" + std::to_string(plane.grid.height) +
                           " view");
        PlaneWalk walk;
        walk.source = *from;
        walk.destination = dst;
        walk.width = plane.grid.width;
        walk.height = plane.grid.height;
        const std::int64_t origin = plane.grid.origin - static_cast<std::int64_t>(from->offset);
        bool ok = origin >= 0 && origin % texel == 0;
        walk.origin_x = static_cast<gint32>(ok ? origin % stride / texel : 0);
        walk.origin_y = static_cast<gint32>(ok ? origin / stride : 0);
        // A step the walk never takes (a one-wide or one-high view) may be anything.
        ok = ok && (walk.width < 2 || texel_step(plane.grid.col, stride, texel, walk.col_x, walk.col_y));
        ok = ok && (walk.height < 2 || texel_step(plane.grid.row, stride, texel, walk.row_x, walk.row_y));
        if (!ok)
            return refused("plane " + std::to_string(p) + " of the view does not walk whole texels of its " +
                           std::to_string(src_w) + "x" + std::to_string(src_h) + " Vulkan image plane");
        // Every corner of the walk inside the source plane: the walk is affine.
        for (std::int64_t cx : {std::int64_t{0}, std::int64_t{walk.width} - 1}) {
            for (std::int64_t cy : {std::int64_t{0}, std::int64_t{walk.height} - 1}) {
                const std::int64_t x = walk.origin_x + cx * walk.col_x + cy * walk.row_x;
                const std::int64_t y = walk.origin_y + cx * walk.col_y + cy * walk.row_y;
                if (x < 0 || y < 0 || x >= src_w || y >= src_h)
                    return refused("plane " + std::to_string(p) + " of the view reaches texel (" +
                                   std::to_string(x) + ", " + std::to_string(y) + ") outside its " +
                                   std::to_string(src_w) + "x" + std::to_string(src_h) +
                                   " Vulkan image plane");
            }
        }
        walks.push_back(walk);
    }
    return walks;
}

} // namespace g2g::vulkan
