// SPDX-License-Identifier: LGPL-2.1-or-later
// Vulkan frames another process imports (issue 33): one image per plane, each in an allocation of
// its own exported as an opaque fd (VK_KHR_external_memory_fd, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT).
// An opaque fd is imported only by the same driver on the same GPU (deviceUUID and driverUUID
// equal) into an image made with the exporter's parameters: ExternalPlane is what crosses for
// that, and import refuses what another device, driver or image would read.
//
//   ExportableImages  what every such frame is: ExportedFrame, and g2gconvert's linear images that
//                     CUDA writes (cuda_vulkan::SharedImages); a face of one is known by its memories.
//   ExportedFrame     the producer's side: optimal-tiling images made to be exported (GStreamer's own
//                     Vulkan allocations are not exportable), reused through ExportedPool. Those a
//                     video decoder writes (VideoImages) are one multi-planar image of its profile
//                     per frame, as GStreamer's pool makes a decoder's.
//   ImportedFrame     the consumer's side: the same images over the imported memory, imported once
//                     per exported frame (the consumer keeps them while the producer reuses it).
// All hand out faces: VulkanImage frames (one GstVulkanImageMemory per plane) that hold them.
#pragma once

#include <gst/video/video.h>
#include "gst-vulkan.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

#include "../../compat/vulkan-video-compat.h"
#include "frame-pool.h"
#include "vulkan-external-plane.h"

namespace g2g::vulkan {

// The usage both sides give every image: the producer copies into it (or vulkanupload writes it), a
// consumer copies, samples or (where the format allows, with STORAGE added) writes it.
inline constexpr VkImageUsageFlags kExportedUsage =
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;

DeviceIdentity identity_of(GstVulkanDevice *device);
// What the driver says of exporting and importing 2D images of `format`, `tiling` and `usage` as
// opaque fds (VkExternalMemoryFeatureFlags; 0 where it cannot make such images at all).
// `profile` (a VkVideoProfileListInfoKHR) where the images are of a video profile.
VkExternalMemoryFeatureFlags external_image_features(VkPhysicalDevice physical, VkFormat format,
                                                     VkImageTiling tiling, VkImageUsageFlags usage,
                                                     const void *profile = nullptr);
// The usage every image of `format` and `tiling` that g2g exports has (an importer on the same
// driver expects the same): kExportedUsage, plus STORAGE where the tiling has it (g2g's shader writes
// it), plus for optimal tiling the color and input attachments GStreamer's own image pool gives
// every image by default, where the format can be rendered to and such images exported (an element
// that renders into its downstream's pool, a GstVulkanVideoFilter such as vulkancolorconvert, keeps
// that usage and renders into them). Refused with the reason where the device cannot copy, sample,
// export and import such images (`which` names the plane).
Result<VkImageUsageFlags> exportable_usage(GstVulkanDevice *device, VkFormat format, VkImageTiling tiling,
                                           const std::string &which);

// What a video decoder asks of the images it writes (vulkanh264dec keeps its downstream's pool): one
// multi-planar image per frame, of its profile and usage (decode usages among them).
struct VideoImages {
    compat::VideoProfile profile;
    VkImageUsageFlags usage = 0;
};
// Whether `device` can make, export and import optimal images of `format` (multi-planar), `video`'s
// usage and profile; refused with the reason: a device opened without the video extensions, a
// profile or usage the driver does not give such images.
Result<void> video_images_shareable(GstVulkanDevice *device, VkFormat format, const VideoImages &video,
                                    const std::string &which);
// An image of `plane`'s parameters (its layout aside) whose memory is external: exported or
// imported, as an opaque fd. A linear one starts VK_IMAGE_LAYOUT_PREINITIALIZED (its bytes are
// defined from the start: CUDA writes g2gconvert's), an optimal one VK_IMAGE_LAYOUT_UNDEFINED. With
// `profile`, an image of that video profile, shared by the device's queue families as GStreamer
// shares a decoder's (compat::video_image_families).
Result<VkImage> external_image(GstVulkanDevice *device, const ExternalPlane &plane, const std::string &which,
                               const compat::VideoProfile *profile = nullptr);
// A device-local allocation of its own for `image` (`requirements` its own), bound to it: exportable
// as an opaque fd (`fd` -1), or imported from `fd` (taken by the driver on success).
Result<VkDeviceMemory> bind_external_memory(GstVulkanDevice *device, VkImage image,
                                            const VkMemoryRequirements &requirements, int fd,
                                            const std::string &which);
// A new opaque fd of `memory` (an allocation made exportable), the caller's to close.
Result<int> exported_fd(GstVulkanDevice *device, VkDeviceMemory memory);
// The first device-local memory type of `allowed` (a VkMemoryRequirements' memoryTypeBits), or -1:
// an exporter and an importer of the same image on the same driver pick the same one.
gint device_local_memory_type(GstVulkanDevice *device, guint32 allowed);
std::string uuid_text(const Uuid &uuid);

// One plane's image and its allocation; an exported one's fd is owned here (closed with its frame),
// an imported one's by the driver (fd -1).
struct ExternalImage {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    int fd = -1;
    ExternalPlane description;
};

// A frame whose images another process can import, each plane's image in an allocation of its own.
class ExportableImages {
public:
    virtual ~ExportableImages() = default;
    ExportableImages(const ExportableImages &) = delete;
    ExportableImages &operator=(const ExportableImages &) = delete;

    virtual GstVulkanDevice *device() const = 0;
    virtual const GstVideoInfo &info() const = 0;
    // The video profile its images are of (a decoder writes them: one multi-planar image for every
    // plane, of the decoder's coded size, which may exceed the stream's), or nullptr: one image per plane.
    virtual const compat::VideoProfile *video_profile() const { return nullptr; }
    // Unique in this process: a consumer keeps its import of this frame by it.
    std::uint64_t id() const { return id_; }
    // Per plane: its fd (owned by the frame; -1 where the driver would not export it) and its
    // description, in the layout `face` (one of this frame's faces) holds it in now; without a face,
    // the layout the last face left it in.
    virtual std::vector<ExternalImage> planes(GstBuffer *face = nullptr) = 0;
    // The frame whose face `buffer` is (its memories are the frame's planes, in order, and nothing
    // else), or nullptr: a buffer of another frame, of other memory, or of memories mixed or
    // reordered by an element upstream.
    static std::shared_ptr<ExportableImages> of_face(GstBuffer *buffer);

protected:
    ExportableImages();
    // The layout plane `plane` is in: as `face` (one of this frame's faces) holds it, or without a
    // face `last` (the layout the last face left).
    static VkImageLayout layout_of(GstBuffer *face, guint plane, VkImageLayout last);
    // Marks `memory` as plane `plane` of a face of `frame` (this frame), for of_face.
    static void mark_face(GstMemory *memory, const std::shared_ptr<ExportableImages> &frame, guint plane);

private:
    std::uint64_t id_;
};

class ExportedFrame : public ExportableImages, public std::enable_shared_from_this<ExportedFrame> {
public:
    // Optimal-tiling images of `info`'s planes on `device`, exportable; with `video`, one multi-planar
    // image of `info`'s size for them all, as the decoder asks. Refused with the reason: a device
    // opened without VK_KHR_external_memory_fd, a plane (or a frame, for video) without a Vulkan
    // format, images the driver cannot copy into, sample and export (video_images_shareable).
    static Result<std::unique_ptr<ExportedFrame>> create(GstVulkanDevice *device, const GstVideoInfo &info,
                                                         const VideoImages *video = nullptr);
    ~ExportedFrame() override;

    const GstVideoInfo &info() const override { return info_; }
    GstVulkanDevice *device() const override { return device_; }
    const compat::VideoProfile *video_profile() const override { return video_ ? &*video_ : nullptr; }
    std::vector<ExternalImage> planes(GstBuffer *face = nullptr) override;
    // The bytes of its planes' allocations together.
    std::uint64_t allocated_bytes() const;
    // A VulkanImage frame of the images, holding this frame until its memories are freed.
    BufferRef face();
    // The frame whose face `buffer` is (ExportableImages::of_face), where it is an ExportedFrame.
    static std::shared_ptr<ExportedFrame> of_face(GstBuffer *buffer);

private:
    ExportedFrame(GstVulkanDevice *device, const GstVideoInfo &info);
    struct FaceHold;
    static void release_plane(gpointer hold);

    GstVulkanDevice *device_; // one reference
    GstVideoInfo info_;
    std::optional<compat::VideoProfile> video_;
    std::mutex lock_; // the barriers
    std::vector<ExternalImage> planes_;
    std::vector<GstVulkanBarrierImageInfo> barriers_;
};

// Exported frames of one layout that no face holds, reused: a consumer imports each once.
using ExportedPool = FramePool<ExportedFrame>;
// The device held while it lives; with `video`, of the images a decoder asks for.
std::shared_ptr<ExportedPool> exported_pool(GstVulkanDevice *device, const VideoImages *video = nullptr);

class ImportedFrame : public std::enable_shared_from_this<ImportedFrame> {
public:
    // The images `planes` describe over the allocations of `fds` (taken, one per image), on
    // `device`, for a frame of `info`: one per plane, or with `profile` (a decoder's frame) one
    // multi-planar image of that video profile, at least `info`'s size. Refused before anything is
    // imported: another GPU or driver than `exporter` says, an image count, format or size other
    // than `info`'s planes in Vulkan, a usage or tiling no exporter on this driver makes
    // (exportable_usage, video_images_shareable), an allocation size other than the image needs.
    static Result<std::shared_ptr<ImportedFrame>>
    import(GstVulkanDevice *device, const DeviceIdentity &exporter, const GstVideoInfo &info,
           std::span<const ExternalPlane> planes, std::vector<int> fds,
           const compat::VideoProfile *profile = nullptr);
    ~ImportedFrame();
    ImportedFrame(const ImportedFrame &) = delete;
    ImportedFrame &operator=(const ImportedFrame &) = delete;

    // A VulkanImage frame of the images, each in the layout `planes` says (the exporter's last),
    // holding this frame until its memories are freed.
    BufferRef face(std::span<const ExternalPlane> planes);

private:
    explicit ImportedFrame(GstVulkanDevice *device);
    struct FaceHold;
    static void release_plane(gpointer hold);

    GstVulkanDevice *device_;
    GstVideoInfo info_{};
    std::vector<ExternalImage> planes_; // fd -1: the driver owns an imported fd
};

} // namespace g2g::vulkan
