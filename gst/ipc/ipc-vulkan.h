// SPDX-License-Identifier: LGPL-2.1-or-later
// VulkanImage frames across processes (issue 33). The producer copies each frame once, on its
// pipeline's queue, into images of exportable memory (GStreamer's own Vulkan allocations cannot
// be exported) and waits for the copy; each image's memory crosses as an opaque fd with a
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
#include <g2g/gst-ref.h>

#include "ipc-frame.h"

struct _GstVulkanDevice;
typedef struct _GstVulkanDevice GstVulkanDevice;

namespace g2g::vulkan {
class Engine;
}

namespace g2g::ipc {

// The device of `engine` (the element's Vulkan context's).
GstVulkanDevice *engine_device(vulkan::Engine &engine);

// Whether this build carries Vulkan images (the elements' templates name VulkanImage caps).
bool vulkan_built();

class VulkanExports {
public:
    VulkanExports();
    ~VulkanExports();
    // `frame` (a dense VulkanImage frame of `info`) copied on `engine`'s queue into images another
    // process imports, the copy waited for: a frame of those images (describe_vulkan_frame's).
    Result<BufferRef> copy(vulkan::Engine &engine, GstBuffer *frame, const GstVideoInfo &info);
    void stop(); // lets go of the images no frame holds

private:
    struct Pool;
    std::unique_ptr<Pool> pool_;
};

// The message of a frame VulkanExports::copy made (kind VulkanImage, one fd per plane, the
// G2gVulkanImages record), id `id`; nullopt for any other frame.
std::optional<Result<OutgoingFrame>> describe_vulkan_frame(GstBuffer *frame, std::uint64_t id);

class VulkanImports {
public:
    VulkanImports();
    ~VulkanImports();
    // The VulkanImage frame `message` describes (its G2gVulkanImages record; `fds`, taken, one per
    // plane) on `device`, for a stream of `info`: its images imported the first time the producer
    // sends that frame, kept for the next times (the last kKept frames). Refused before anything
    // is imported: a missing or unreadable record, what ImportedFrame::import refuses.
    Result<BufferRef> build(GstVulkanDevice *device, const NewBuffer &message, std::vector<UniqueFd> fds,
                            const GstVideoInfo &info);
    void clear();

private:
    struct Kept;
    std::unique_ptr<Kept> kept_;
};

} // namespace g2g::ipc
