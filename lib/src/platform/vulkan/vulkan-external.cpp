// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-external.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <utility>

#include "compat/vulkan-format-compat.h"
#include "vulkan-commands.h"
#include "vulkan-engine.h"

namespace g2g::vulkan {

namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

Error refused(std::string message)
{
    return Error(ErrorCode::UnsupportedDomain, std::move(message));
}

std::string frame_name(const GstVideoInfo &info)
{
    return std::string(GST_VIDEO_INFO_NAME(&info)) + " " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" +
           std::to_string(GST_VIDEO_INFO_HEIGHT(&info));
}

// The images of a frame of `info`: one per plane, or one multi-planar image of a video profile.
guint image_count(const GstVideoInfo &info, bool video)
{
    return video ? 1 : GST_VIDEO_INFO_N_PLANES(&info);
}

// Image `p` of such a frame, as messages name it.
std::string image_name(const GstVideoInfo &info, guint p, bool video)
{
    return (video ? std::string("the video frame ") : "plane " + std::to_string(p) + " of ") +
           frame_name(info);
}

} // namespace

Result<VkImageUsageFlags> exportable_usage(GstVulkanDevice *device, VkFormat format, VkImageTiling tiling,
                                           const std::string &which)
{
    const bool linear = tiling == VK_IMAGE_TILING_LINEAR;
    const std::string images = linear ? "linear images" : "images";
    VkPhysicalDevice physical = gst_vulkan_device_get_physical_device(device);
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(physical, format, &properties);
    const VkFormatFeatureFlags features =
        linear ? properties.linearTilingFeatures : properties.optimalTilingFeatures;
    const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                        VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
                                        VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    if ((features & needed) != needed)
        return refused("the Vulkan device " + Engine::describe(device) + " cannot copy and sample " + images +
                       " of VkFormat " + std::to_string(format) + " (" + which + ")");
    // Whether images of `usage` can be exported and imported as opaque fds.
    auto shareable = [&](VkImageUsageFlags usage) {
        const VkExternalMemoryFeatureFlags both =
            VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
        return (external_image_features(physical, format, tiling, usage) & both) == both;
    };
    VkImageUsageFlags usage = kExportedUsage;
    if (features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
        usage |= VK_IMAGE_USAGE_STORAGE_BIT;
    const VkImageUsageFlags attachments =
        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
    if (!linear && (features & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) && shareable(usage | attachments))
        return usage | attachments;
    if (!shareable(usage))
        return refused("the Vulkan device " + Engine::describe(device) + " cannot export and import " +
                       images + " of VkFormat " + std::to_string(format) + " (" + which + ") as opaque fds");
    return usage;
}

Result<void> video_images_shareable(GstVulkanDevice *device, VkFormat format, const VideoImages &video,
                                    const std::string &which)
{
    // A video profile in an image's creation is valid only on a device opened with the extension.
#ifdef VK_KHR_video_queue
    const bool video_queue =
        gst_vulkan_device_is_extension_enabled(device, VK_KHR_VIDEO_QUEUE_EXTENSION_NAME);
#else
    const bool video_queue = false;
#endif
    if (!video_queue)
        return refused("the Vulkan device " + Engine::describe(device) +
                       " was opened without VK_KHR_video_queue: it cannot make images of the video profile " +
                       video.profile.caps() + " (" + which + ")");
    // What a decoder's images are: written by decoding, read by copies and samplers, perhaps its
    // references too (where its output and references coincide).
    VkImageUsageFlags decoded = 0, allowed = 0;
#ifdef VK_KHR_video_decode_queue
    decoded = VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR;
    allowed = decoded | VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
              VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
#endif
    if (!(video.usage & decoded) || (video.usage & ~allowed))
        return refused("images of usage " + std::to_string(video.usage) + " are no decoder's (" + which +
                       "): a decoder's images are decoded into (VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR) and "
                       "otherwise only copied, sampled, stored or referenced");
    const VkExternalMemoryFeatureFlags both =
        VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
    if ((external_image_features(gst_vulkan_device_get_physical_device(device), format,
                                 VK_IMAGE_TILING_OPTIMAL, video.usage, video.profile.list()) &
         both) != both)
        return refused("the Vulkan device " + Engine::describe(device) +
                       " cannot export and import images of VkFormat " + std::to_string(format) + ", usage " +
                       std::to_string(video.usage) + " and the video profile " + video.profile.caps() +
                       " as opaque fds (" + which + ")");
    return {};
}

Result<VkImage> external_image(GstVulkanDevice *device, const ExternalPlane &plane, const std::string &which,
                               const compat::VideoProfile *profile)
{
    VkExternalMemoryImageCreateInfo external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
    external.handleTypes = kHandle;
    external.pNext = profile ? profile->list() : nullptr;
    VkImageCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    create.pNext = &external;
    create.imageType = VK_IMAGE_TYPE_2D;
    create.format = static_cast<VkFormat>(plane.format);
    create.extent = {plane.width, plane.height, 1};
    create.mipLevels = 1;
    create.arrayLayers = 1;
    create.samples = VK_SAMPLE_COUNT_1_BIT;
    create.tiling = static_cast<VkImageTiling>(plane.tiling);
    create.usage = plane.usage;
    create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    const std::vector<std::uint32_t> families =
        profile ? compat::video_image_families(device) : std::vector<std::uint32_t>();
    if (!families.empty()) {
        create.sharingMode = VK_SHARING_MODE_CONCURRENT;
        create.queueFamilyIndexCount = static_cast<std::uint32_t>(families.size());
        create.pQueueFamilyIndices = families.data();
    }
    // A linear image's bytes are defined from the start (CUDA writes g2gconvert's).
    create.initialLayout =
        create.tiling == VK_IMAGE_TILING_LINEAR ? VK_IMAGE_LAYOUT_PREINITIALIZED : VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage image = VK_NULL_HANDLE;
    if (VkResult r = vkCreateImage(device->device, &create, nullptr, &image); r != VK_SUCCESS)
        return failure(("creating an external image for " + which).c_str(), r);
    return image;
}

Result<VkDeviceMemory> bind_external_memory(GstVulkanDevice *device, VkImage image,
                                            const VkMemoryRequirements &requirements, int fd,
                                            const std::string &which)
{
    const gint type = device_local_memory_type(device, requirements.memoryTypeBits);
    if (type < 0)
        return refused("no device-local Vulkan memory type holds " + which + " on " +
                       Engine::describe(device));
    VkMemoryDedicatedAllocateInfo dedicated{};
    dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    dedicated.image = image;
    VkExportMemoryAllocateInfo exported{};
    exported.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
    exported.pNext = &dedicated;
    exported.handleTypes = kHandle;
    VkImportMemoryFdInfoKHR imported{};
    imported.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
    imported.pNext = &dedicated;
    imported.handleType = kHandle;
    imported.fd = fd;
    VkMemoryAllocateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    info.pNext = fd < 0 ? static_cast<const void *>(&exported) : static_cast<const void *>(&imported);
    info.allocationSize = requirements.size;
    info.memoryTypeIndex = static_cast<guint32>(type);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    if (VkResult r = vkAllocateMemory(device->device, &info, nullptr, &memory); r != VK_SUCCESS)
        return failure(
            ((fd < 0 ? "allocating exportable memory for " : "importing the memory of ") + which).c_str(), r);
    if (VkResult r = vkBindImageMemory(device->device, image, memory, 0); r != VK_SUCCESS) {
        vkFreeMemory(device->device, memory, nullptr);
        return failure(("binding the memory of " + which).c_str(), r);
    }
    return memory;
}

namespace {

void destroy(GstVulkanDevice *device, std::vector<ExternalImage> &planes)
{
    for (ExternalImage &plane : planes) {
        if (plane.image)
            vkDestroyImage(device->device, plane.image, nullptr);
        if (plane.memory)
            vkFreeMemory(device->device, plane.memory, nullptr);
        if (plane.fd >= 0)
            close(plane.fd);
    }
    planes.clear();
}

GstVulkanBarrierImageInfo barrier_in(VkImageLayout layout)
{
    GstVulkanBarrierImageInfo barrier{};
    barrier.parent.type = GST_VULKAN_BARRIER_TYPE_IMAGE;
    barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    barrier.image_layout = layout;
    barrier.subresource_range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    return barrier;
}

// A VulkanImage memory of `plane`'s image, `hold` its user data (freed by `notify`), in `barrier`.
GstMemory *wrap(GstVulkanDevice *device, const ExternalImage &plane, gpointer hold, GDestroyNotify notify,
                const GstVulkanBarrierImageInfo &barrier)
{
    const ExternalPlane &d = plane.description;
    GstMemory *memory = gst_vulkan_image_memory_wrapped(
        device, plane.image, static_cast<VkFormat>(d.format), d.width, d.height,
        static_cast<VkImageTiling>(d.tiling), d.usage, hold, notify);
    if (memory)
        reinterpret_cast<GstVulkanImageMemory *>(memory)->barrier = barrier;
    return memory;
}

} // namespace

VkExternalMemoryFeatureFlags external_image_features(VkPhysicalDevice physical, VkFormat format,
                                                     VkImageTiling tiling, VkImageUsageFlags usage,
                                                     const void *profile)
{
    VkPhysicalDeviceExternalImageFormatInfo external_info{};
    external_info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO;
    external_info.pNext = profile;
    external_info.handleType = kHandle;
    VkPhysicalDeviceImageFormatInfo2 format_info{};
    format_info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2;
    format_info.pNext = &external_info;
    format_info.format = format;
    format_info.type = VK_IMAGE_TYPE_2D;
    format_info.tiling = tiling;
    format_info.usage = usage;
    VkExternalImageFormatProperties external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES;
    VkImageFormatProperties2 properties{};
    properties.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2;
    properties.pNext = &external;
    if (vkGetPhysicalDeviceImageFormatProperties2(physical, &format_info, &properties) != VK_SUCCESS)
        return 0;
    return external.externalMemoryProperties.externalMemoryFeatures;
}

gint device_local_memory_type(GstVulkanDevice *device, guint32 allowed)
{
    const VkPhysicalDeviceMemoryProperties &properties = device->physical_device->memory_properties;
    for (guint32 i = 0; i < properties.memoryTypeCount; ++i)
        if ((allowed >> i & 1) &&
            (properties.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            return static_cast<gint>(i);
    return -1;
}

DeviceIdentity identity_of(GstVulkanDevice *device)
{
    VkPhysicalDeviceIDProperties ids{};
    ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 properties{};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &ids;
    vkGetPhysicalDeviceProperties2(gst_vulkan_device_get_physical_device(device), &properties);
    DeviceIdentity identity;
    std::copy(std::begin(ids.deviceUUID), std::end(ids.deviceUUID), identity.device.begin());
    std::copy(std::begin(ids.driverUUID), std::end(ids.driverUUID), identity.driver.begin());
    return identity;
}

std::string uuid_text(const Uuid &uuid)
{
    std::string text;
    char byte[3];
    for (std::size_t i = 0; i < uuid.size(); ++i) {
        std::snprintf(byte, sizeof byte, "%02x", uuid[i]);
        text += byte;
        if (i == 3 || i == 5 || i == 7 || i == 9)
            text += '-';
    }
    return text;
}

Result<int> exported_fd(GstVulkanDevice *device, VkDeviceMemory memory)
{
    auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(
        gst_vulkan_device_get_proc_address(device, "vkGetMemoryFdKHR"));
    if (!get_fd)
        return refused("the Vulkan device " + Engine::describe(device) + " has no vkGetMemoryFdKHR");
    VkMemoryGetFdInfoKHR fd_info{};
    fd_info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
    fd_info.memory = memory;
    fd_info.handleType = kHandle;
    int fd = -1;
    if (VkResult r = get_fd(device->device, &fd_info, &fd); r != VK_SUCCESS)
        return failure("vkGetMemoryFdKHR", r);
    return fd;
}

// ---- ExportableImages ----

namespace {

// What marks a memory as a plane of an exportable frame's face.
struct FaceMark {
    std::weak_ptr<ExportableImages> frame;
    guint plane = 0;
};

GQuark face_mark_quark()
{
    static const GQuark quark = g_quark_from_static_string("g2g-exportable-images-face");
    return quark;
}

const FaceMark *face_mark(GstMemory *memory)
{
    return static_cast<const FaceMark *>(
        gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(memory), face_mark_quark()));
}

} // namespace

ExportableImages::ExportableImages()
{
    static std::atomic<std::uint64_t> next_id = 1;
    id_ = next_id++;
}

void ExportableImages::mark_face(GstMemory *memory, const std::shared_ptr<ExportableImages> &frame,
                                 guint plane)
{
    gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(memory), face_mark_quark(), new FaceMark{frame, plane},
                              [](gpointer mark) { delete static_cast<FaceMark *>(mark); });
}

VkImageLayout ExportableImages::layout_of(GstBuffer *face, guint plane, VkImageLayout last)
{
    if (!face || plane >= gst_buffer_n_memory(face))
        return last;
    return reinterpret_cast<GstVulkanImageMemory *>(gst_buffer_peek_memory(face, plane))
        ->barrier.image_layout;
}

std::shared_ptr<ExportableImages> ExportableImages::of_face(GstBuffer *buffer)
{
    const guint n = gst_buffer_n_memory(buffer);
    const FaceMark *first = n ? face_mark(gst_buffer_peek_memory(buffer, 0)) : nullptr;
    std::shared_ptr<ExportableImages> frame = first ? first->frame.lock() : nullptr;
    if (!frame || image_count(frame->info(), frame->video_profile() != nullptr) != n)
        return {};
    for (guint p = 0; p < n; ++p) {
        const FaceMark *mark = face_mark(gst_buffer_peek_memory(buffer, p));
        if (!mark || mark->plane != p || mark->frame.lock() != frame)
            return {};
    }
    return frame;
}

// ---- ExportedFrame ----

struct ExportedFrame::FaceHold {
    std::shared_ptr<ExportedFrame> frame;
    guint plane = 0;
    GstVulkanImageMemory *image = nullptr;
};

ExportedFrame::ExportedFrame(GstVulkanDevice *device, const GstVideoInfo &info)
    : device_(static_cast<GstVulkanDevice *>(gst_object_ref(device))), info_(info)
{
}

ExportedFrame::~ExportedFrame()
{
    destroy(device_, planes_);
    gst_object_unref(device_);
}

Result<std::unique_ptr<ExportedFrame>>
ExportedFrame::create(GstVulkanDevice *device, const GstVideoInfo &info, const VideoImages *video)
{
    if (!gst_vulkan_device_is_extension_enabled(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        return refused("the Vulkan device " + Engine::describe(device) + " was opened without " +
                       VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME + ", which another process's import needs");
    std::unique_ptr<ExportedFrame> frame(new ExportedFrame(device, info));
    if (video)
        frame->video_ = video->profile;
    for (guint p = 0; p < image_count(info, video != nullptr); ++p) {
        const std::string which = image_name(info, p, video != nullptr);
        ExternalPlane d;
        d.format = video ? compat::multi_planar_format(info) : compat::vulkan_plane_format(info, p);
        if (d.format == VK_FORMAT_UNDEFINED)
            return refused("no Vulkan format holds " + which);
        if (video) {
            if (Result<void> shareable =
                    video_images_shareable(device, static_cast<VkFormat>(d.format), *video, which);
                !shareable)
                return shareable.error();
            d.usage = video->usage;
        } else {
            Result<VkImageUsageFlags> usage =
                exportable_usage(device, static_cast<VkFormat>(d.format), VK_IMAGE_TILING_OPTIMAL, which);
            if (!usage)
                return usage.error();
            d.usage = *usage;
        }
        d.width = static_cast<std::uint32_t>(GST_VIDEO_INFO_COMP_WIDTH(&info, p));
        d.height = static_cast<std::uint32_t>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p));
        d.tiling = VK_IMAGE_TILING_OPTIMAL;
        d.layout = VK_IMAGE_LAYOUT_UNDEFINED;
        Result<VkImage> image = external_image(device, d, which, frame->video_profile());
        if (!image)
            return image.error();
        ExternalImage &plane = frame->planes_.emplace_back(); // destroyed with the frame from here on
        plane.image = *image;
        VkMemoryRequirements requirements{};
        vkGetImageMemoryRequirements(device->device, plane.image, &requirements);
        d.size = requirements.size;
        plane.description = d;
        Result<VkDeviceMemory> memory = bind_external_memory(device, plane.image, requirements, -1, which);
        if (!memory)
            return memory.error();
        plane.memory = *memory;
        Result<int> fd = exported_fd(device, plane.memory);
        if (!fd)
            return fd.error();
        plane.fd = *fd;
        frame->barriers_.push_back(barrier_in(VK_IMAGE_LAYOUT_UNDEFINED));
    }
    return frame;
}

std::vector<ExternalImage> ExportedFrame::planes(GstBuffer *face)
{
    std::vector<ExternalImage> planes = planes_;
    const std::lock_guard lock(lock_);
    for (guint p = 0; p < planes.size(); ++p)
        planes[p].description.layout = layout_of(face, p, barriers_[p].image_layout);
    return planes;
}

std::uint64_t ExportedFrame::allocated_bytes() const
{
    std::uint64_t bytes = 0;
    for (const ExternalImage &plane : planes_)
        bytes += plane.description.size;
    return bytes;
}

void ExportedFrame::release_plane(gpointer data)
{
    auto *hold = static_cast<FaceHold *>(data);
    {
        // The memory is being freed: its barrier state is still readable. Its timeline semaphore
        // goes with it (GStreamer destroys it); the next face gets a new one.
        const std::lock_guard lock(hold->frame->lock_);
        hold->frame->barriers_[hold->plane] = hold->image->barrier;
        compat::forget_image_timeline(hold->frame->barriers_[hold->plane]);
    }
    delete hold; // may give the frame back to its pool: outside the frame's lock
}

BufferRef ExportedFrame::face()
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    for (guint p = 0; p < planes_.size(); ++p) {
        auto *hold = new FaceHold{shared_from_this(), p, nullptr};
        GstVulkanBarrierImageInfo barrier;
        {
            const std::lock_guard lock(lock_);
            barrier = barriers_[p];
        }
        GstMemory *memory = wrap(device_, planes_[p], hold, release_plane, barrier);
        if (!memory) { // wrapped() calls no notify when it fails
            delete hold;
            return {};
        }
        hold->image = reinterpret_cast<GstVulkanImageMemory *>(memory);
        mark_face(memory, shared_from_this(), p);
        gst_buffer_append_memory(buffer.get(), memory);
        // A decoder orders its video queue's work on the image by the image's timeline, as on the
        // images GStreamer's pool makes for it.
        if (video_ && !compat::give_image_timeline(hold->image))
            return {};
    }
    return buffer;
}

std::shared_ptr<ExportedFrame> ExportedFrame::of_face(GstBuffer *buffer)
{
    return std::dynamic_pointer_cast<ExportedFrame>(ExportableImages::of_face(buffer));
}

// ---- ExportedPool ----

std::shared_ptr<ExportedPool> exported_pool(GstVulkanDevice *device, const VideoImages *video)
{
    const std::shared_ptr<GstVulkanDevice> held(static_cast<GstVulkanDevice *>(gst_object_ref(device)),
                                                [](GstVulkanDevice *d) { gst_object_unref(d); });
    std::optional<VideoImages> asked;
    if (video)
        asked = *video;
    return ExportedPool::create([held, asked](const GstVideoInfo &info) {
        return ExportedFrame::create(held.get(), info, asked ? &*asked : nullptr);
    });
}

// ---- ImportedFrame ----

struct ImportedFrame::FaceHold {
    std::shared_ptr<ImportedFrame> frame;
};

ImportedFrame::ImportedFrame(GstVulkanDevice *device)
    : device_(static_cast<GstVulkanDevice *>(gst_object_ref(device)))
{
}

ImportedFrame::~ImportedFrame()
{
    destroy(device_, planes_);
    gst_object_unref(device_);
}

Result<std::shared_ptr<ImportedFrame>>
ImportedFrame::import(GstVulkanDevice *device, const DeviceIdentity &exporter, const GstVideoInfo &info,
                      std::span<const ExternalPlane> planes, std::vector<int> fds,
                      const compat::VideoProfile *profile)
{
    // Every fd is closed here unless the driver took it.
    struct Fds {
        std::vector<int> &fds;
        ~Fds()
        {
            for (int fd : fds)
                if (fd >= 0)
                    close(fd);
        }
    } owned{fds};
    const DeviceIdentity here = identity_of(device);
    if (!(exporter == here))
        return refused("the producer's images are of the GPU " + uuid_text(exporter.device) + " (driver " +
                       uuid_text(exporter.driver) + "), this process's Vulkan device " +
                       Engine::describe(device) + " is " + uuid_text(here.device) + " (driver " +
                       uuid_text(here.driver) +
                       "): an opaque fd is read only by the driver and GPU that made it");
    if (!gst_vulkan_device_is_extension_enabled(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        return refused("the Vulkan device " + Engine::describe(device) + " was opened without " +
                       VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME +
                       ", which importing another process's images needs");
    // A decoder's frame is one multi-planar image, of its coded size (at least the stream's).
    const guint n = image_count(info, profile != nullptr);
    if (planes.size() != n || fds.size() != n)
        return refused(std::to_string(planes.size()) + " images and " + std::to_string(fds.size()) +
                       " descriptors for " +
                       (profile ? "a video frame of " : "the " + std::to_string(n) + " planes of ") +
                       frame_name(info) + (profile ? " (one multi-planar image)" : ""));
    std::shared_ptr<ImportedFrame> frame(new ImportedFrame(device));
    frame->info_ = info;
    for (guint p = 0; p < n; ++p) {
        const ExternalPlane &d = planes[p];
        const std::string which = image_name(info, p, profile != nullptr);
        const VkFormat format =
            profile ? compat::multi_planar_format(info) : compat::vulkan_plane_format(info, p);
        const guint32 width = static_cast<guint32>(GST_VIDEO_INFO_COMP_WIDTH(&info, p));
        const guint32 height = static_cast<guint32>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p));
        // A decoder's coded size is the stream's rounded up to its codec's blocks (AV1's largest: 128).
        auto coded = [](guint32 size) { return (size + 127) / 128 * 128; };
        const bool sized = profile ? d.width >= width && d.height >= height && d.width <= coded(width) &&
                                         d.height <= coded(height)
                                   : d.width == width && d.height == height;
        if (d.format != static_cast<std::uint32_t>(format) || !sized)
            return refused("image " + std::to_string(p) + " is VkFormat " + std::to_string(d.format) + " " +
                           std::to_string(d.width) + "x" + std::to_string(d.height) + ", " + which +
                           " is VkFormat " + std::to_string(format) + " " + (profile ? "of " : "") +
                           std::to_string(width) + "x" + std::to_string(height) +
                           (profile ? " to " + std::to_string(coded(width)) + "x" +
                                          std::to_string(coded(height)) + " (its coded size)"
                                    : ""));
        // Optimal images (ExportedFrame's) or linear ones (g2gconvert's, which CUDA writes by pitch),
        // of the usage an exporter on this driver gives them: no other image is made over the memory.
        const auto tiling = static_cast<VkImageTiling>(d.tiling);
        if (tiling != VK_IMAGE_TILING_OPTIMAL && (profile || tiling != VK_IMAGE_TILING_LINEAR))
            return refused("image " + std::to_string(p) + " has tiling " + std::to_string(d.tiling) +
                           (profile ? ": a video frame is of optimal tiling"
                                    : ": an exported image is of optimal or linear tiling"));
        if (profile) {
            // The decoder's usage, which the driver must give such images with their profile.
            if (Result<void> shareable = video_images_shareable(device, format, {*profile, d.usage}, which);
                !shareable)
                return shareable.error();
        } else if (Result<VkImageUsageFlags> usage = exportable_usage(device, format, tiling, which);
                   !usage) {
            return usage.error();
        } else if (d.usage != *usage) {
            return refused("image " + std::to_string(p) + " has usage " + std::to_string(d.usage) + ": " +
                           "this process makes " + which + " with usage " + std::to_string(*usage) + ", " +
                           (tiling == VK_IMAGE_TILING_LINEAR ? "linear" : "optimal") + " tiling");
        }
        if (d.layout != VK_IMAGE_LAYOUT_UNDEFINED && d.layout != VK_IMAGE_LAYOUT_GENERAL)
            return refused("image " + std::to_string(p) + " is said to be in VkImageLayout " +
                           std::to_string(d.layout) + ": a shared image is left in VK_IMAGE_LAYOUT_GENERAL");
        Result<VkImage> image = external_image(device, d, which, profile);
        if (!image)
            return image.error();
        ExternalImage &plane = frame->planes_.emplace_back();
        plane.image = *image;
        plane.description = d;
        VkMemoryRequirements requirements{};
        vkGetImageMemoryRequirements(device->device, plane.image, &requirements);
        if (requirements.size != d.size)
            return refused("image " + std::to_string(p) + "'s allocation is said to be " +
                           std::to_string(d.size) + " bytes; " + which + " takes " +
                           std::to_string(requirements.size));
        // lseek tells a memfd's size (lavapipe exports those): one smaller than the image is refused.
        if (const off_t end = ::lseek(fds[p], 0, SEEK_END);
            end >= 0 && static_cast<std::uint64_t>(end) < d.size)
            return refused("image " + std::to_string(p) + "'s descriptor holds " + std::to_string(end) +
                           " bytes; " + which + " takes " + std::to_string(d.size));
        Result<VkDeviceMemory> memory =
            bind_external_memory(device, plane.image, requirements, fds[p], which);
        if (!memory)
            return memory.error();
        fds[p] = -1; // the driver's now
        plane.memory = *memory;
    }
    return frame;
}

void ImportedFrame::release_plane(gpointer data)
{
    delete static_cast<FaceHold *>(data);
}

BufferRef ImportedFrame::face(std::span<const ExternalPlane> planes)
{
    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    for (std::size_t p = 0; p < planes_.size(); ++p) {
        auto *hold = new FaceHold{shared_from_this()};
        const VkImageLayout layout =
            p < planes.size() ? static_cast<VkImageLayout>(planes[p].layout) : VK_IMAGE_LAYOUT_UNDEFINED;
        GstMemory *memory = wrap(device_, planes_[p], hold, release_plane, barrier_in(layout));
        if (!memory) {
            delete hold;
            return {};
        }
        gst_buffer_append_memory(buffer.get(), memory);
    }
    return buffer;
}

} // namespace g2g::vulkan
