// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-vulkan.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include <g2g/tensor-view-meta.h>

#include "ipc-view.h"
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

Result<std::shared_ptr<vulkan::ExportedFrame>> VulkanExports::acquire(vulkan::Engine &engine,
                                                                      const GstVideoInfo &info)
{
    if (!pool_->pool || pool_->device != engine.device()) {
        pool_->pool = vulkan::exported_pool(engine.device());
        pool_->device = engine.device();
    }
    return pool_->pool->acquire(info);
}

namespace {

// The frame a VulkanImage frame of caps `info` is, or the one its `view` reads (of the size its
// layout says): what crosses.
GstVideoInfo crossing_frame(const GstVideoInfo &info, const FrameView *view)
{
    GstVideoInfo source = info;
    if (view) {
        const GstVideoInfo &layout = view->source_layout();
        gst_video_info_set_format(&source, GST_VIDEO_INFO_FORMAT(&layout), GST_VIDEO_INFO_WIDTH(&layout),
                                  GST_VIDEO_INFO_HEIGHT(&layout));
    }
    return source;
}

} // namespace

Result<BufferRef> VulkanExports::in_place(vulkan::Engine &engine, GstBuffer *frame, const GstVideoInfo &info,
                                          const FrameView *view)
{
    const std::shared_ptr<vulkan::ExportableImages> exported = vulkan::ExportableImages::of_face(frame);
    const GstVideoInfo source = crossing_frame(info, view);
    if (!exported || exported->device() != engine.device() ||
        GST_VIDEO_INFO_FORMAT(&exported->info()) != GST_VIDEO_INFO_FORMAT(&source))
        return BufferRef();
    // A decoder's images are of its coded size, which may exceed the stream's (or the frame a view
    // reads: the consumer's import takes them so); any other exported frame is of that size.
    const GstVideoInfo &made = exported->info();
    const bool video = exported->video_profile() != nullptr;
    if (video ? GST_VIDEO_INFO_WIDTH(&made) < GST_VIDEO_INFO_WIDTH(&source) ||
                    GST_VIDEO_INFO_HEIGHT(&made) < GST_VIDEO_INFO_HEIGHT(&source)
              : GST_VIDEO_INFO_WIDTH(&made) != GST_VIDEO_INFO_WIDTH(&source) ||
                    GST_VIDEO_INFO_HEIGHT(&made) != GST_VIDEO_INFO_HEIGHT(&source))
        return BufferRef();
    // A plane whose memory the driver would not give an fd for is copied (its frame's warning says why).
    for (const vulkan::ExternalImage &plane : exported->planes(frame))
        if (plane.fd < 0)
            return BufferRef();
    // Upstream's writes were submitted to this queue (GStreamer's elements share the pipeline's), or
    // are ordered before the release by the images' timeline semaphores: once the queue has
    // finished, the images are the other process's to read.
    if (Result<void> released = engine.release_to_external(frame); !released)
        return released.error();
    if (Result<void> finished = engine.finish(); !finished)
        return finished.error();
    return BufferRef::adopt(gst_buffer_ref(frame));
}

Result<BufferRef> VulkanExports::copy(vulkan::Engine &engine, GstBuffer *frame, const GstVideoInfo &info,
                                      const FrameView *view)
{
    // What is copied: the frame, or the frame a view reads.
    const GstVideoInfo source = crossing_frame(info, view);
    Result<std::shared_ptr<vulkan::ExportedFrame>> exported = acquire(engine, source);
    if (!exported)
        return exported.error();
    BufferRef face = (*exported)->face();
    if (!face)
        return Error(ErrorCode::InvalidArgument, "the exported images cannot be wrapped as a frame");
    // Before the copy's submission holds the face (and makes it read-only).
    gst_buffer_copy_into(face.get(), frame,
                         GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0, -1);
    if (view) {
        // The view's byte steps are over the source's images; over the copy's (allocations of other
        // sizes) it is made again from its pixels, as the consumer will.
        Result<FrameView> again = decode_view(encode_view(*view), face.get(), source, info);
        if (!again)
            return again.error();
        attach_tensor_view(face.get(), std::move(*again));
    }
    Result<vulkan::Fence> copied = engine.copy_for_export(frame, face.get(), source);
    if (!copied)
        return copied.error();
    // The other process reads the images once this signals: it has when the frame is sent.
    if (VkResult r = copied->wait(); r != VK_SUCCESS)
        return Error(ErrorCode::MapFailed,
                     "waiting for the copy into exported images failed (VkResult " + std::to_string(r) + ")");
    return face;
}

Result<BufferRef> VulkanExports::materialize(vulkan::Engine &engine, GstBuffer *frame, const FrameView &view)
{
    Result<std::shared_ptr<vulkan::ExportedFrame>> exported = acquire(engine, view.info());
    if (!exported)
        return exported.error();
    BufferRef face = (*exported)->face();
    if (!face)
        return Error(ErrorCode::InvalidArgument, "the exported images cannot be wrapped as a frame");
    for (const vulkan::ExternalImage &plane : (*exported)->planes(face.get()))
        if (!(plane.description.usage & VK_IMAGE_USAGE_STORAGE_BIT))
            return Error(ErrorCode::UnsupportedDomain,
                         std::string("this Vulkan device's exportable images of ") +
                             gst_video_format_to_string(view.format()) +
                             " cannot be written by a shader: the view crosses only as a view "
                             "(a consumer that takes meta:G2gTensorView)");
    gst_buffer_copy_into(face.get(), frame,
                         GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0, -1);
    if (Result<void> written = engine.materialize(view, frame, face.get()); !written)
        return written.error();
    // The images are another process's next (the external queue family), once the write has run.
    if (Result<void> released = engine.release_to_external(face.get()); !released)
        return released.error();
    if (Result<void> finished = engine.finish(); !finished)
        return finished.error();
    return face;
}

std::optional<Result<OutgoingFrame>> describe_vulkan_frame(GstBuffer *frame, std::uint64_t id)
{
    const std::shared_ptr<vulkan::ExportableImages> exported = vulkan::ExportableImages::of_face(frame);
    if (!exported)
        return std::nullopt;
    OutgoingFrame out;
    out.message = message_of(frame, id);
    NewBuffer &message = out.message;
    message.kind = MemoryKind::VulkanImage;
    VulkanImages images;
    images.identity = vulkan::identity_of(exported->device());
    images.frame = exported->id();
    for (const vulkan::ExternalImage &plane : exported->planes(frame)) {
        out.fds.push_back(plane.fd);
        message.memories.push_back({plane.description.size, 0});
        images.planes.push_back(plane.description);
    }
    message.metas.push_back(encode_vulkan_images(images));
    if (const compat::VideoProfile *profile = exported->video_profile())
        message.metas.push_back(encode_video_profile(profile->caps()));
    if (const FrameView *view = tensor_view_of(frame)) {
        // The size of the frame the view reads (its images'), then the view.
        message.metas.push_back(encode_video_meta(video_meta_of(view->source_layout())));
        message.metas.push_back(encode_view(*view));
    }
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
                                       std::vector<UniqueFd> fds, const GstVideoInfo &info, bool view_caps)
{
    const MetaRecord *record = nullptr, *layout = nullptr, *view = nullptr, *video = nullptr;
    for (const MetaRecord &meta : message.metas) {
        if (meta.name == kVulkanRecordName)
            record = &meta;
        else if (meta.name == kVideoProfileRecordName)
            video = &meta;
        else if (meta.name == kVideoMetaName)
            layout = &meta;
        else if (meta.name == kViewRecordName)
            view = &meta;
    }
    auto refused = [&message](const std::string &what) {
        return Error(ErrorCode::InvalidArgument, "NEW_BUFFER " + std::to_string(message.id) + " " + what);
    };
    if (!record)
        return refused("of Vulkan images came without its G2gVulkanImages record");
    Result<VulkanImages> images = decode_vulkan_images(*record);
    if (!images)
        return refused(images.error().message());
    // A view travels only in caps that say so (a reader of dense images would read its source).
    if (view_caps && !view)
        return refused("arrived in view caps (meta:G2gTensorView) without its view");
    if (view && !view_caps)
        return refused("carries a view in caps without meta:G2gTensorView");
    // A decoder's frame: one image of the video profile its record names (a view's source too).
    std::optional<compat::VideoProfile> profile;
    if (video) {
        Result<std::string> caps = decode_video_profile(*video);
        if (!caps)
            return refused(caps.error().message());
        Result<compat::VideoProfile> made = compat::VideoProfile::decoding(*caps);
        if (!made)
            return refused(made.error().message());
        profile = std::move(*made);
    }
    // The images are the frame the view reads: of the stream's format, at the size its layout says.
    GstVideoInfo source = info;
    Result<ViewRecord> wanted = view ? read_view(*view, info) : Result<ViewRecord>(ViewRecord{});
    if (!wanted)
        return refused(wanted.error().message());
    if (view) {
        if (!layout)
            return refused("carries a view without the layout of the frame it reads (a GstVideoMeta record)");
        Result<WireVideoMeta> read = decode_video_meta(*layout);
        if (!read)
            return refused(read.error().message());
        const auto format = static_cast<GstVideoFormat>(read->format);
        if (format != GST_VIDEO_INFO_FORMAT(&info))
            return refused(std::string("lays out ") + gst_video_format_to_string(format) +
                           " in a stream of " + gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
        if (!gst_video_info_set_format(&source, format, read->width, read->height))
            return refused("lays out a frame of " + std::to_string(read->width) + "x" +
                           std::to_string(read->height) + ", which is no video frame");
    }
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
        Result<std::shared_ptr<vulkan::ImportedFrame>> imported = vulkan::ImportedFrame::import(
            device, images->identity, source, images->planes, std::move(raw), profile ? &*profile : nullptr);
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
    if (view) {
        Result<FrameView> decoded = view_over(*wanted, face.get(), source);
        if (!decoded)
            return refused(decoded.error().message());
        attach_tensor_view(face.get(), std::move(*decoded));
    }
    return face;
}

} // namespace g2g::ipc
