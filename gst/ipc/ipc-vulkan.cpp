// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-vulkan.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include "ipc-vulkan-record.h"
#include <g2g-internal/vulkan.h>

namespace g2g::ipc {

bool vulkan_built()
{
    return true;
}

GstVulkanDevice *engine_device(vulkan::Engine &engine)
{
    return engine.device();
}

struct VulkanExports::Pool {
    std::shared_ptr<vulkan::ExportedPool> pool;
    GstVulkanDevice *device = nullptr; // the pool's (compared, not held)
};

VulkanExports::VulkanExports() : pool_(std::make_unique<Pool>())
{
}
VulkanExports::~VulkanExports() = default;

void VulkanExports::stop()
{
    pool_->pool.reset();
    pool_->device = nullptr;
}

Result<BufferRef> VulkanExports::copy(vulkan::Engine &engine, GstBuffer *frame, const GstVideoInfo &info)
{
    if (!pool_->pool || pool_->device != engine.device()) {
        pool_->pool = vulkan::exported_pool(engine.device());
        pool_->device = engine.device();
    }
    Result<std::shared_ptr<vulkan::ExportedFrame>> exported = pool_->pool->acquire(info);
    if (!exported)
        return exported.error();
    BufferRef face = (*exported)->face();
    if (!face)
        return Error(ErrorCode::InvalidArgument, "the exported images cannot be wrapped as a frame");
    // Before the copy's submission holds the face (and makes it read-only).
    gst_buffer_copy_into(face.get(), frame,
                         GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0, -1);
    Result<vulkan::Fence> copied = engine.copy_for_export(frame, face.get(), info);
    if (!copied)
        return copied.error();
    // The other process reads the images once this signals: it has when the frame is sent.
    if (VkResult r = copied->wait(); r != VK_SUCCESS)
        return Error(ErrorCode::MapFailed,
                     "waiting for the copy into exported images failed (VkResult " + std::to_string(r) + ")");
    return face;
}

std::optional<Result<OutgoingFrame>> describe_vulkan_frame(GstBuffer *frame, std::uint64_t id)
{
    const std::shared_ptr<vulkan::ExportedFrame> exported = vulkan::ExportedFrame::of_memory(
        gst_buffer_n_memory(frame) ? gst_buffer_peek_memory(frame, 0) : nullptr);
    if (!exported)
        return std::nullopt;
    OutgoingFrame out;
    out.message = message_of(frame, id);
    NewBuffer &message = out.message;
    message.kind = MemoryKind::VulkanImage;
    VulkanImages images;
    images.identity = vulkan::identity_of(exported->device());
    images.frame = exported->id();
    for (const vulkan::ExternalImage &plane : exported->planes()) {
        out.fds.push_back(plane.fd);
        message.memories.push_back({plane.description.size, 0});
        images.planes.push_back(plane.description);
    }
    message.metas.push_back(encode_vulkan_images(images));
    return Result<OutgoingFrame>(std::move(out));
}

struct VulkanImports::Kept {
    // The producer's frames imported, the most recent last.
    std::deque<std::pair<std::uint64_t, std::shared_ptr<vulkan::ImportedFrame>>> frames;
};

// More than a producer's frames in flight (its max-queued and its pool): a frame it still sends is
// never imported twice.
constexpr std::size_t kKept = 32;

VulkanImports::VulkanImports() : kept_(std::make_unique<Kept>())
{
}
VulkanImports::~VulkanImports() = default;

void VulkanImports::clear()
{
    kept_->frames.clear();
}

Result<BufferRef> VulkanImports::build(GstVulkanDevice *device, const NewBuffer &message,
                                       std::vector<UniqueFd> fds, const GstVideoInfo &info)
{
    const MetaRecord *record = nullptr;
    for (const MetaRecord &meta : message.metas)
        if (meta.name == kVulkanRecordName)
            record = &meta;
    auto refused = [&message](const std::string &what) {
        return Error(ErrorCode::InvalidArgument, "NEW_BUFFER " + std::to_string(message.id) + " " + what);
    };
    if (!record)
        return refused("of Vulkan images came without its G2gVulkanImages record");
    Result<VulkanImages> images = decode_vulkan_images(*record);
    if (!images)
        return refused(images.error().message());
    auto &frames = kept_->frames;
    auto known = std::find_if(frames.begin(), frames.end(),
                              [&](const auto &kept) { return kept.first == images->frame; });
    std::shared_ptr<vulkan::ImportedFrame> frame;
    if (known != frames.end()) {
        frame = known->second; // imported before: the descriptors that came again are closed
        frames.erase(known);
    } else {
        std::vector<int> raw;
        for (UniqueFd &fd : fds)
            raw.push_back(fd.release());
        Result<std::shared_ptr<vulkan::ImportedFrame>> imported =
            vulkan::ImportedFrame::import(device, images->identity, info, images->planes, std::move(raw));
        if (!imported)
            return Error(ErrorCode::InvalidArgument,
                         "NEW_BUFFER " + std::to_string(message.id) + ": " + imported.error().message());
        frame = std::move(*imported);
    }
    frames.emplace_back(images->frame, frame);
    if (frames.size() > kKept)
        frames.pop_front();
    BufferRef face = frame->face(images->planes);
    if (!face)
        return refused("'s imported images cannot be wrapped as a frame");
    set_fields(face.get(), message);
    return face;
}

} // namespace g2g::ipc
