// SPDX-License-Identifier: LGPL-2.1-or-later
// Engine::download: a VulkanImage frame copied into a host-visible staging buffer, the copy
// recorded with a fence and the frame handed on at once as fenced memory (vulkan-fenced-memory).
// GStreamer 1.22's vulkandownload waits for every frame's copy on the streaming thread instead.
// Nothing is made per frame once the stream runs: staging buffers (mapped once) come back to the
// engine's free list when their frames are gone, fences to the engine's pool, command buffers to
// GStreamer's command pool (docs/design-notes.md, "The Vulkan download's fixed cost").
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "vulkan-commands.h"
#include "vulkan-engine.h"
#include "vulkan-copy-due.h"
#include "vulkan-fenced-memory.h"
#include "vulkan-staging.h"
#include "vulkan-submissions.h"

namespace g2g::vulkan {

Result<void> Engine::check_images(GstBuffer *source, const GstVideoInfo &info) const
{
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);
    for (guint p = 0; p < planes; ++p) {
        const std::optional<ImagePlane> plane = image_plane(source, GST_VIDEO_INFO_FORMAT(&info), p);
        if (!plane) {
            if (gst_buffer_n_memory(source) != planes && gst_buffer_n_memory(source) != 1)
                return Error(ErrorCode::InvalidArgument,
                             "the frame has " + std::to_string(gst_buffer_n_memory(source)) +
                                 " memories for " + GST_VIDEO_INFO_NAME(&info) + "'s " +
                                 std::to_string(planes) +
                                 " planes (one Vulkan image each, or one multi-planar image)");
            return Error(ErrorCode::InvalidArgument,
                         "plane " + std::to_string(p) + " of the frame is not a Vulkan image of " +
                             GST_VIDEO_INFO_NAME(&info) +
                             "'s planes (one image each, or one multi-planar image)");
        }
        if (plane->image->device != device_)
            return Error(ErrorCode::InvalidArgument, "the frame's Vulkan images are of device " +
                                                         describe(plane->image->device) +
                                                         " but g2g works on device " + describe(device_));
        // Plane p's first component is component p in every format the Vulkan backend takes.
        if (plane->width < static_cast<guint>(GST_VIDEO_INFO_COMP_WIDTH(&info, p)) ||
            plane->height < static_cast<guint>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p)))
            return Error(ErrorCode::InvalidArgument,
                         "plane " + std::to_string(p) + "'s Vulkan image is " + std::to_string(plane->width) +
                             "x" + std::to_string(plane->height) + ", smaller than " +
                             GST_VIDEO_INFO_NAME(&info) + " " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) +
                             "x" + std::to_string(GST_VIDEO_INFO_HEIGHT(&info)) + " needs");
    }
    return {};
}

void Engine::record_plane_copies(Recording &recording, GstBuffer *source, const GstVideoInfo &layout,
                                 VkBuffer buffer)
{
    GstVulkanImageMemory *transitioned = nullptr;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&layout); ++p) {
        const ImagePlane plane = *image_plane(source, GST_VIDEO_INFO_FORMAT(&layout), p); // check_images'd
        if (plane.image != transitioned) // a multi-planar image's planes move on together
            recording.transition(plane.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                 VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        transitioned = plane.image;
        const VkBufferImageCopy region = plane_copy_region(layout, p, plane.aspect);
        vkCmdCopyImageToBuffer(recording.cmd(), plane.image->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               buffer, 1, &region);
    }
}

namespace {

// The time since the last lap into `part`, when timing; nothing otherwise.
class Laps {
public:
    explicit Laps(DownloadTiming *timing) : timing_(timing)
    {
        if (timing_)
            last_ = std::chrono::steady_clock::now();
    }
    void lap(double DownloadTiming::*part)
    {
        if (!timing_)
            return;
        const auto now = std::chrono::steady_clock::now();
        timing_->*part = std::chrono::duration<double>(now - last_).count();
        last_ = now;
    }

private:
    DownloadTiming *timing_;
    std::chrono::steady_clock::time_point last_;
};

} // namespace

Result<BufferRef> Engine::download(GstBuffer *source, const GstVideoInfo &info, bool wait,
                                   DownloadTiming *timing)
{
    if (Result<void> fits = check_images(source, info); !fits)
        return fits.error();
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);
    if (timing)
        *timing = DownloadTiming{};
    Laps laps(timing);

    std::optional<StagingBuffer> staging = staging_->take(device_, GST_VIDEO_INFO_SIZE(&info));
    if (!staging)
        return Error(ErrorCode::MapFailed, "cannot allocate a host-visible Vulkan buffer of " +
                                               std::to_string(GST_VIDEO_INFO_SIZE(&info)) + " bytes");
    laps.lap(&DownloadTiming::staging);
    // Where nothing was submitted, the buffer goes back as free (no copy to wait for).
    auto unused = [&](Error error) {
        staging_->give_back(std::move(*staging), Fence());
        return error;
    };
    Fence fence;
    std::uint64_t submitted_ns = 0;
    {
        std::lock_guard<std::mutex> guard(lock_);
        Result<Recording> recording = Recording::begin(queue_, &command_pool_, *submissions_);
        if (!recording)
            return unused(recording.error());
        GstVulkanBufferMemory *buffer_memory = staging->memory();
        recording->transition(buffer_memory, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        record_plane_copies(*recording, source, info, staging->buffer());
        // The host reads the bytes after the fence: make the copy's writes visible to it.
        recording->transition(buffer_memory, VK_ACCESS_HOST_READ_BIT, VK_PIPELINE_STAGE_HOST_BIT);
        recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(source)));
        laps.lap(&DownloadTiming::record);
        Result<Fence> pooled = submissions_->fences().acquire();
        if (!pooled)
            return unused(pooled.error());
        laps.lap(&DownloadTiming::fence);
        Result<Fence> submitted = recording->submit(std::move(*pooled));
        if (!submitted)
            return unused(submitted.error());
        fence = std::move(*submitted);
        submitted_ns = monotonic_ns();
        laps.lap(&DownloadTiming::submit);
        // What earlier submissions kept is let go once this copy runs: the collection (2-4 us a
        // frame on the H200) is not between the frame's arrival and its copy's start.
        submissions_->collect();
        laps.lap(&DownloadTiming::collect);
    }

    if (wait) {
        if (Result<void> copied = wait_for_copy(fence, *copy_due_, GST_VIDEO_INFO_SIZE(&info), submitted_ns);
            !copied)
            return copied.error();
        laps.lap(&DownloadTiming::wait);
    }
    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(frame.get(),
                             fenced_memory_new(std::move(*staging), GST_VIDEO_INFO_SIZE(&info),
                                               std::move(fence), staging_, copy_due_, submitted_ns));
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                   GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info), planes,
                                   const_cast<gsize *>(info.offset), const_cast<gint *>(info.stride));
    gst_buffer_copy_into(frame.get(), source,
                         static_cast<GstBufferCopyFlags>(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS),
                         0, static_cast<gsize>(-1));
    laps.lap(&DownloadTiming::frame);
    return frame;
}

} // namespace g2g::vulkan
