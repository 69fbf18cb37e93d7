// SPDX-License-Identifier: LGPL-2.1-or-later
// g2g's work on one Vulkan queue: views of VulkanImage frames materialized by a compute shader
// (shaders/materialize.comp, compiled by glslc at build time and embedded), and VulkanImage
// frames downloaded to system memory without stalling (the copy is recorded with a fence; the
// frame's memory waits for it when first mapped).
//
// lib/src/platform/vulkan/ holds:
//   vulkan-memory         recognition of GStreamer's Vulkan images and host-visible buffers
//   gst-vulkan            GStreamer's Vulkan headers with the C linkage some of 1.22's lack
//   vulkan-engine         Engine (this header): the queue, its command pool, submissions, compute
//                         pipeline and staging buffers; vulkan-download: its download;
//                         vulkan-copy: its copies, the release of images to another API, the
//                         wait for the queue
//   vulkan-commands       a recording (barriers from the memories' recorded state, a fenced
//                         submission) and the view's walks in texels
//   vulkan-fence-pool     the fences g2g submits with: reset and reused, never one per submission
//   vulkan-submissions    the submissions not known to have run, and what each keeps alive until
//                         its fence signals (in place of GStreamer's trash list)
//   vulkan-staging        the download's staging buffers (mapped once) and their free list
//   vulkan-view-backend   the ViewBackend of VulkanTexture frames: the view geometry in texels
//   vulkan-storage-pool   a buffer pool of images a compute shader may write (GStreamer 1.22's
//                         image pool sets no storage usage), of the formats GStreamer gives each
//                         plane (compat::vulkan_plane_format)
//   vulkan-fenced-memory  the system memory a download hands out: it waits for its fence on map
//   shaders/              the GLSL compute shaders
//
// GStreamer's Vulkan objects each hold their device: an Engine is owned by whoever made it (an
// element, from its start to its stop), never by the device, its storage pools or the frames it
// wrote (they know it weakly), so nothing cycles.
#pragma once

#include <gst/video/video.h>
#include "gst-vulkan.h"

#include <array>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>

#include "vulkan-copy-due.h"
#include "vulkan-fence-pool.h"

namespace g2g::vulkan {

class Recording;
class StagingPool;
class Submissions;
struct PlaneWalk;

// Where one download's CPU time went, in seconds, part by part (bench-vulkan's download parts):
// what the H200 showed to be a millisecond per frame whatever the frame's size.
struct DownloadTiming {
    double staging = 0; // taking a staging buffer: a free one whose copy has run, or a new one
    double collect = 0; // letting go of what finished submissions kept (fences back to their pool)
    double record = 0;  // a command buffer begun, the barriers and plane copies recorded
    double fence = 0;   // a fence from the engine's pool
    double submit = 0;  // vkEndCommandBuffer, vkQueueSubmit, the submission kept until it runs
    double wait = 0;    // waiting for the copy (download's `wait` only)
    double frame = 0;   // the frame made around the staging buffer (memory, video meta, timestamps)
};

class Engine : public std::enable_shared_from_this<Engine> {
public:
    // Work on `queue` (one reference taken) of its device. Frames written here are ordered with
    // every later submission to the same queue, as GStreamer's Vulkan elements order theirs: the
    // pipeline's elements share one queue through the "gst.vulkan.queue" context.
    static std::shared_ptr<Engine> create(GstVulkanQueue *queue);
    // A queue of `device` that can compute, for callers without a pipeline (the library's
    // FrameView::materialize_to, benchmarks).
    static Result<std::shared_ptr<Engine>> for_device(GstVulkanDevice *device);
    ~Engine(); // waits for every frame it recorded

    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    GstVulkanDevice *device() const { return device_; }
    GstVulkanQueue *queue() const { return queue_; }

    // Writes `view` of `source` (a VulkanImage frame: one image per plane, or one multi-planar image
    // whose planes are first copied into images the shader samples) densely into
    // `destination` (VulkanImage, one storage-capable image per plane, the view's format and
    // size): one compute dispatch per plane, recorded and submitted; returns without waiting.
    // The images' layouts and barriers are updated in their memories as GStreamer's elements
    // expect. Images of another device than the engine's are refused, naming both devices.
    Result<void> materialize(const FrameView &view, GstBuffer *source, GstBuffer *destination);

    // The dense VulkanImage frame `source` (laid out as `info`: its format and size) as system
    // memory: one copy per plane into a host-visible staging buffer, recorded with a fence. The
    // returned buffer (one memory, `info`'s default layout, a GstVideoMeta, source's timestamps)
    // is handed on at once; mapping it waits for the fence, once. With `wait`, the copy is waited
    // for before returning (behind vulkanupload, whose staging buffer must not be refilled before
    // its copy ran: compat::vulkanupload_races_staging, docs/design-notes.md).
    // With `timing`, the CPU time of each part of this download is written there.
    Result<BufferRef> download(GstBuffer *source, const GstVideoInfo &info, bool wait = false,
                               DownloadTiming *timing = nullptr);

    // Copies the dense VulkanImage frame `source` into `buffer` (memory another API shares, laid out
    // as `layout`: its planes' offsets and strides, whole texels), and releases the buffer to that
    // API (the external queue family). Images larger than their plane give their top-left corner;
    // smaller ones are refused. Returns without waiting (finish does).
    Result<void> copy_to_external_buffer(GstBuffer *source, VkBuffer buffer, const GstVideoInfo &layout);

    // Releases a frame's images, written on this queue, to another API that shares their memory
    // (CUDA; the external queue family), before it reads them: each ends in
    // VK_IMAGE_LAYOUT_GENERAL, recorded in its memory. Returns without waiting (finish does).
    Result<void> release_to_external(GstBuffer *frame);

    // Copies the dense VulkanImage frame `source` (laid out as `info`) into `destination` (one image
    // per plane of `info`'s planes' sizes: an ExportedFrame's face) and releases those images to
    // another process (the external queue family, VK_IMAGE_LAYOUT_GENERAL, recorded in their
    // memories). Returns the copy's fence: the images are the other process's to read once it
    // signals.
    Result<Fence> copy_for_export(GstBuffer *source, GstBuffer *destination, const GstVideoInfo &info);

    // Waits until everything submitted to the engine's queue so far has run, by whoever recorded it
    // (GStreamer's elements share the queue): then another API may read what it wrote.
    Result<void> finish();

    // A pool of VulkanImage frames this engine's shader can write (storage usage on top of what
    // GStreamer's own image pool sets), on the engine's device. Configure it with caps.
    GstBufferPool *new_storage_pool();

    // Whether the device can write `format`'s planes from a shader (storage images of its
    // Vulkan formats without a format qualifier), and if not why, for the error.
    Result<void> check_writable(const GstVideoInfo &info) const;

    // Waits until everything recorded so far has run (benchmarks, teardown).
    void wait_idle();

    // "NVIDIA H200 (0x55d0c0a0)": the device for messages.
    static std::string describe(GstVulkanDevice *device);

    // What the engine has made so far, for tests and benchmarks: reuse keeps both at what was in
    // flight at once, whatever the number of frames.
    struct Created {
        std::size_t fences = 0;
        std::size_t staging_buffers = 0;
    };
    Created created() const;
    // How the reads of its downloads waited for their copies (vulkan-copy-due.h).
    CopyDue::Waits download_waits() const { return copy_due_->waits(); }

private:
    explicit Engine(GstVulkanQueue *queue);
    struct Kernels;
    struct PlaneImages;
    Result<const Kernels *> kernels();
    // What finished is let go of, and a recording begun. Under lock_.
    Result<Recording> record();
    // `source` holds `info`'s planes in Vulkan images of this engine's device (one per plane, or
    // one multi-planar image: image_plane), each at least the plane's size; else why not.
    Result<void> check_images(GstBuffer *source, const GstVideoInfo &info) const;
    // Records, for each walk whose source is a plane of a multi-planar image, its copy into an image of
    // the plane's own (PlaneImages), which the walk then reads instead.
    Result<void> copy_multiplanar_planes(Recording &recording, const GstVideoInfo &info,
                                         std::vector<PlaneWalk> &walks);
    // Records the copy of each plane of `source` (check_images'd) into `buffer`, laid out as `layout`.
    void record_plane_copies(Recording &recording, GstBuffer *source, const GstVideoInfo &layout,
                             VkBuffer buffer);
    void retire_materializes(guint room);

    GstVulkanDevice *device_ = nullptr;
    GstVulkanQueue *queue_ = nullptr;
    GstVulkanCommandPool *command_pool_ = nullptr;
    // Every submission until it has run, with what it keeps alive (descriptor sets among them).
    std::unique_ptr<Submissions> submissions_;
    std::unique_ptr<Kernels> kernels_;
    // The materializes not known to be done, oldest first: each one's fence and descriptor sets.
    // Descriptor sets are a fixed number: past it, the oldest is waited for (a slow device, a long
    // queue downstream), never refused.
    std::deque<std::pair<Fence, guint>> in_flight_;
    guint sets_in_flight_ = 0;
    // Shared with the frames' memories weakly: a frame outliving the engine frees its buffer.
    std::shared_ptr<StagingPool> staging_;
    // When its downloads' copies end, shared with the frames' memories (their first map waits).
    std::shared_ptr<CopyDue> copy_due_ = std::make_shared<CopyDue>();
    std::unique_ptr<PlaneImages> plane_images_;
    // Recording, submitting and the submissions; held while waiting only where descriptor sets
    // run out (retire_materializes).
    std::mutex lock_;
};

// A queue of `device` whose family can compute, one reference (nullptr: none). GStreamer 1.22
// makes a new GstVulkanQueue (with its own submit lock) at each call of gst_vulkan_device_get_queue,
// which this makes: the one kept must be shared (through its context) from then on.
GstVulkanQueue *new_compute_queue(GstVulkanDevice *device);

// The UUID of `physical` (VkPhysicalDeviceIDProperties::deviceUUID), the GPU's identity that CUDA
// gives too (cuDeviceGetUuid).
std::array<guint8, VK_UUID_SIZE> device_uuid(VkPhysicalDevice physical);

// The usage of the images g2g's shader writes (its storage pool's): GStreamer 1.22's image pool's
// but INPUT_ATTACHMENT, plus STORAGE, which that pool cannot be told to set.
inline constexpr VkImageUsageFlags kWrittenImageUsage =
    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
    VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;

// Marks `buffer`'s images as frames `engine` writes (its storage pool's, or those of a downstream
// export pool it keeps): the view backend then writes them on that engine's queue without waiting.
// The mark is weak: a frame outliving the engine is written as a library caller's.
void mark_written_by(GstBuffer *buffer, const std::weak_ptr<Engine> &engine);

// The engine `buffer`'s images are marked as written by (mark_written_by), while it lives; nullptr
// otherwise.
std::shared_ptr<Engine> engine_of(GstBuffer *buffer);

} // namespace g2g::vulkan
