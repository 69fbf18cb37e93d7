// SPDX-License-Identifier: LGPL-2.1-or-later
// VulkanImage frames across processes (issue 33). The producer sends frames of exportable images as
// they are (vulkan::ExportableImages: written into its pool of them, or g2gconvert's linear images
// that CUDA wrote); any other frame it copies once, on its pipeline's queue, into
// such images (GStreamer's own Vulkan allocations cannot be exported); either way it waits for the
// queue before the frame is sent. Each image's memory crosses as an opaque fd with a
// G2gVulkanImages record (ipc-vulkan-record.h). The consumer imports each producer frame once on
// its device, which must be the same GPU with the same driver, and keeps it for the next time the
// producer sends that frame. ipc-vulkan.cpp with the vulkan feature, no-ipc-vulkan.cpp without.
#pragma once

#include <gst/video/video.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>

#include "ipc-frame.h"

struct _GstVulkanDevice;
typedef struct _GstVulkanDevice GstVulkanDevice;

namespace g2g::vulkan {
class Engine;
class ExportedFrame;
} // namespace g2g::vulkan

namespace g2g::ipc {

// The device of `engine` (the element's Vulkan context's).
GstVulkanDevice *engine_device(vulkan::Engine &engine);

// Whether this build carries Vulkan images (the elements' templates name VulkanImage caps).
bool vulkan_built();

// Frames of images another process imports, of one layout at a time (one per route).
class VulkanExports {
public:
    VulkanExports();
    ~VulkanExports();
    // `frame` itself where its images are exported ones already, of the planes `copy` would copy
    // (upstream wrote it into the pool g2gipcsink offered, VulkanContextUse::propose_export_pool, or
    // it is g2gconvert's, whose images CUDA writes): its
    // images released to the other process on `engine`'s queue and that queue finished, no byte
    // copied. An empty frame for any other frame, which `copy` copies.
    Result<BufferRef> in_place(vulkan::Engine &engine, GstBuffer *frame, const GstVideoInfo &info,
                               const FrameView *view = nullptr);
    // `frame` (a VulkanImage frame of caps `info`) copied on `engine`'s queue into images another
    // process imports, the copy waited for: a frame of those images (describe_vulkan_frame's). With
    // `view` (the frame's, in view caps), the frame it reads is copied and the view is made again
    // over the copy, as a consumer makes it from the view's record.
    Result<BufferRef> copy(vulkan::Engine &engine, GstBuffer *frame, const GstVideoInfo &info,
                           const FrameView *view = nullptr);
    // `view` of `frame` written dense by `engine`'s shader into such images, the write waited for.
    Result<BufferRef> materialize(vulkan::Engine &engine, GstBuffer *frame, const FrameView &view);
    void stop(); // lets go of the images no frame holds

private:
    // A frame of `info`'s images from the pool of `engine`'s device (made again for another device).
    Result<std::shared_ptr<vulkan::ExportedFrame>> acquire(vulkan::Engine &engine, const GstVideoInfo &info);

    struct Pool;
    std::unique_ptr<Pool> pool_;
};

// The message of a frame VulkanExports made (kind VulkanImage, one fd per plane, the
// G2gVulkanImages record; for a view, its source's layout record and its view record, as a view
// in memfds crosses), id `id`; nullopt for any other frame.
std::optional<Result<OutgoingFrame>> describe_vulkan_frame(GstBuffer *frame, std::uint64_t id);

class VulkanImports {
public:
    VulkanImports();
    ~VulkanImports();
    // The VulkanImage frame `message` describes (its G2gVulkanImages record; `fds`, taken, one per
    // plane) on `device`, for a stream of `info`: its images imported the first time the producer
    // sends that frame, kept for the next times (the last kKept frames). In view caps (`view_caps`)
    // the images are the frame the view reads, of the size its layout record says, and the view is
    // made again over them (decode_view). Refused before anything is imported: a missing or
    // unreadable record, a view without its layout or in caps without meta:G2gTensorView (and the
    // reverse), a layout of another format than the stream's, what ImportedFrame::import refuses;
    // after: what decode_view refuses.
    Result<BufferRef> build(GstVulkanDevice *device, const NewBuffer &message, std::vector<UniqueFd> fds,
                            const GstVideoInfo &info, bool view_caps);
    void clear();

private:
    struct Kept;
    std::unique_ptr<Kept> kept_;
};

} // namespace g2g::ipc
