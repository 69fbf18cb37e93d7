// SPDX-License-Identifier: LGPL-2.1-or-later
// Engine: the queue g2g records on, its command pool and submissions (what each holds until its
// fence signals), and the compute pipeline of shaders/materialize.comp, made once per engine.
#include "vulkan-engine.h"

#include <algorithm>

#include <cstdio>

#include "compat/vulkan-format-compat.h"
#include "vulkan-commands.h"
#include "vulkan-staging.h"
#include "vulkan-submissions.h"

// The SPIR-V glslc compiled from shaders/materialize.comp at build time.
extern "C" const unsigned char g2g_vulkan_materialize_spv[];
extern "C" const unsigned int g2g_vulkan_materialize_spv_size;

namespace g2g::vulkan {

// Must match shaders/materialize.comp's push constants.
struct Walk {
    gint32 origin[2];
    gint32 col[2];
    gint32 row[2];
    guint32 size[2];
};

struct Engine::Kernels {
    GstVulkanHandle *sampler = nullptr;
    GstVulkanHandle *set_layout = nullptr;
    GstVulkanHandle *pipeline_layout = nullptr;
    GstVulkanHandle *shader = nullptr;
    GstVulkanHandle *pipeline = nullptr;
    GstVulkanDescriptorCache *descriptors = nullptr;

    ~Kernels()
    {
        gst_clear_object(&descriptors);
        for (GstVulkanHandle *handle : {pipeline, shader, pipeline_layout, set_layout, sampler}) {
            if (handle)
                gst_vulkan_handle_unref(handle);
        }
    }
};

// Images of one plane each that the shader samples, for the planes of multi-planar source images
// (image_plane: no view of one plane can be made of those, so each plane is copied into one of
// these first). A submission keeps a reference to what it reads until its fence signals, so an
// image only this cache holds is free to reuse; past kMaxCached, images are made for one frame.
struct Engine::PlaneImages {
    static constexpr std::size_t kMaxCached = 16;
    std::vector<GstMemory *> images;

    ~PlaneImages()
    {
        for (GstMemory *image : images)
            gst_memory_unref(image);
    }

    // One reference, for the recording to keep.
    GstVulkanImageMemory *take(GstVulkanDevice *device, VkFormat format, guint32 width, guint32 height)
    {
        for (GstMemory *memory : images) {
            const auto *image = reinterpret_cast<GstVulkanImageMemory *>(memory);
            if (GST_MINI_OBJECT_REFCOUNT_VALUE(memory) == 1 && image->create_info.format == format &&
                image->create_info.extent.width == width && image->create_info.extent.height == height)
                return reinterpret_cast<GstVulkanImageMemory *>(gst_memory_ref(memory));
        }
        // Free images of other formats and sizes go first (the stream changed).
        if (images.size() >= kMaxCached) {
            std::erase_if(images, [](GstMemory *memory) {
                if (GST_MINI_OBJECT_REFCOUNT_VALUE(memory) != 1)
                    return false;
                gst_memory_unref(memory);
                return true;
            });
        }
        GstMemory *made =
            gst_vulkan_image_memory_alloc(device, format, width, height, VK_IMAGE_TILING_OPTIMAL,
                                          VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (made && images.size() < kMaxCached)
            images.push_back(gst_memory_ref(made));
        return reinterpret_cast<GstVulkanImageMemory *>(made);
    }
};

namespace {

// Descriptor sets in flight at most (one per plane per frame not yet done): the cache reuses
// those whose frames are done, so this bounds frames in flight, not frames.
constexpr guint kMaxSets = 256;

// A Vulkan object as GStreamer's handle, which destroys it with `free` when the last reference goes.
template <typename Handle>
GstVulkanHandle *wrap(GstVulkanDevice *device, GstVulkanHandleType type, Handle handle,
                      GstVulkanHandleDestroyNotify free)
{
    return gst_vulkan_handle_new_wrapped(device, type, reinterpret_cast<GstVulkanHandleTypedef>(handle), free,
                                         nullptr);
}

} // namespace

Engine::Engine(GstVulkanQueue *queue)
    : device_(GST_VULKAN_DEVICE(gst_object_ref(queue->device))),
      queue_(GST_VULKAN_QUEUE(gst_object_ref(queue))), submissions_(std::make_unique<Submissions>(device_)),
      staging_(std::make_shared<StagingPool>())
{
}

std::shared_ptr<Engine> Engine::create(GstVulkanQueue *queue)
{
    return std::shared_ptr<Engine>(new Engine(queue));
}

GstVulkanQueue *new_compute_queue(GstVulkanDevice *device)
{
    GstVulkanQueue *found = nullptr;
    gst_vulkan_device_foreach_queue(
        device,
        [](GstVulkanDevice *, GstVulkanQueue *queue, gpointer data) -> gboolean {
            const VkQueueFamilyProperties &family =
                queue->device->physical_device->queue_family_props[queue->family];
            if (!(family.queueFlags & VK_QUEUE_COMPUTE_BIT))
                return TRUE; // go on
            *static_cast<GstVulkanQueue **>(data) = GST_VULKAN_QUEUE(gst_object_ref(queue));
            return FALSE;
        },
        &found);
    return found;
}

Result<std::shared_ptr<Engine>> Engine::for_device(GstVulkanDevice *device)
{
    GstVulkanQueue *found = new_compute_queue(device);
    if (!found)
        return Error(ErrorCode::UnsupportedDomain,
                     "Vulkan device " + describe(device) + " has no compute queue");
    std::shared_ptr<Engine> engine = create(found);
    gst_object_unref(found);
    return engine;
}

Engine::~Engine()
{
    wait_idle();
    // What the submissions kept (descriptor sets of the kernels' cache, command buffers of the
    // pool) goes first; frames may still hold fences of the submissions' pool, which lives on.
    submissions_.reset();
    kernels_.reset();
    gst_clear_object(&command_pool_);
    gst_clear_object(&queue_);
    gst_clear_object(&device_);
}

void Engine::wait_idle()
{
    std::vector<Fence> pending;
    {
        std::lock_guard<std::mutex> guard(lock_);
        pending = submissions_->pending();
    }
    for (const Fence &fence : pending)
        fence.wait();
    std::lock_guard<std::mutex> guard(lock_);
    submissions_->collect();
    retire_materializes(kMaxSets);
}

Engine::Created Engine::created() const
{
    // The pools lock themselves: fences go back to theirs from any thread.
    Created made;
    made.fences = submissions_->fences().created();
    made.staging_buffers = staging_->created();
    return made;
}

Result<Recording> Engine::record()
{
    submissions_->collect();
    return Recording::begin(queue_, &command_pool_, *submissions_);
}

// Forgets the materializes that are done, then waits for the oldest until `room` descriptor sets
// are free (GStreamer's pool hands out one fewer than its size). The submissions' collection,
// which record() runs next, gives the done ones' sets back to the cache.
void Engine::retire_materializes(guint room)
{
    auto pop = [this] {
        sets_in_flight_ -= in_flight_.front().second;
        in_flight_.pop_front();
    };
    while (!in_flight_.empty() && in_flight_.front().first.signaled())
        pop();
    while (!in_flight_.empty() && sets_in_flight_ + room >= kMaxSets) {
        in_flight_.front().first.wait();
        pop();
    }
}

std::string Engine::describe(GstVulkanDevice *device)
{
    if (!device)
        return "(none)";
    char handle[32];
    std::snprintf(handle, sizeof handle, "%p", static_cast<void *>(device->device));
    return "'" + std::string(device->physical_device->properties.deviceName) + "' (VkDevice " + handle + ")";
}

Result<const Engine::Kernels *> Engine::kernels()
{
    if (kernels_)
        return kernels_.get();
    auto made = std::make_unique<Kernels>();
    VkDevice vk = device_->device;
    GError *error = nullptr;

    VkSamplerCreateInfo sampler_info{};
    sampler_info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
    sampler_info.magFilter = sampler_info.minFilter = VK_FILTER_NEAREST;
    sampler_info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sampler_info.addressModeU = sampler_info.addressModeV = sampler_info.addressModeW =
        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    sampler_info.borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK;
    VkSampler sampler = VK_NULL_HANDLE;
    if (VkResult r = vkCreateSampler(vk, &sampler_info, nullptr, &sampler); r != VK_SUCCESS)
        return failure("vkCreateSampler", r);
    made->sampler = wrap(device_, GST_VULKAN_HANDLE_TYPE_SAMPLER, sampler, gst_vulkan_handle_free_sampler);

    const VkDescriptorSetLayoutBinding bindings[] = {
        {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, &sampler},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
    };
    VkDescriptorSetLayoutCreateInfo set_info{};
    set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    set_info.bindingCount = 2;
    set_info.pBindings = bindings;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    if (VkResult r = vkCreateDescriptorSetLayout(vk, &set_info, nullptr, &set_layout); r != VK_SUCCESS)
        return failure("vkCreateDescriptorSetLayout", r);
    made->set_layout = wrap(device_, GST_VULKAN_HANDLE_TYPE_DESCRIPTOR_SET_LAYOUT, set_layout,
                            gst_vulkan_handle_free_descriptor_set_layout);

    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Walk)};
    VkPipelineLayoutCreateInfo layout_info{};
    layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &push;
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    if (VkResult r = vkCreatePipelineLayout(vk, &layout_info, nullptr, &pipeline_layout); r != VK_SUCCESS)
        return failure("vkCreatePipelineLayout", r);
    made->pipeline_layout = wrap(device_, GST_VULKAN_HANDLE_TYPE_PIPELINE_LAYOUT, pipeline_layout,
                                 gst_vulkan_handle_free_pipeline_layout);

    made->shader =
        gst_vulkan_create_shader(device_, reinterpret_cast<const gchar *>(g2g_vulkan_materialize_spv),
                                 g2g_vulkan_materialize_spv_size, &error);
    if (!made->shader)
        return failure("loading g2g's materialize shader", error);

    VkComputePipelineCreateInfo pipeline_info{};
    pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = reinterpret_cast<VkShaderModule>(made->shader->handle);
    pipeline_info.stage.pName = "main";
    pipeline_info.layout = pipeline_layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    if (VkResult r = vkCreateComputePipelines(vk, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline);
        r != VK_SUCCESS)
        return failure("vkCreateComputePipelines", r);
    made->pipeline =
        wrap(device_, GST_VULKAN_HANDLE_TYPE_PIPELINE, pipeline, gst_vulkan_handle_free_pipeline);

    const VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, kMaxSets},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kMaxSets},
    };
    VkDescriptorPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pool_info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT; // GStreamer frees sets one by one
    pool_info.maxSets = kMaxSets;
    pool_info.poolSizeCount = 2;
    pool_info.pPoolSizes = sizes;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    if (VkResult r = vkCreateDescriptorPool(vk, &pool_info, nullptr, &pool); r != VK_SUCCESS)
        return failure("vkCreateDescriptorPool", r);
    GstVulkanDescriptorPool *descriptor_pool =
        gst_vulkan_descriptor_pool_new_wrapped(device_, pool, kMaxSets);
    made->descriptors = gst_vulkan_descriptor_cache_new(descriptor_pool, 1, &made->set_layout);
    gst_object_unref(descriptor_pool);

    kernels_ = std::move(made);
    return kernels_.get();
}

Result<void> Engine::check_writable(const GstVideoInfo &info) const
{
    // What the physical device supports: GStreamer 1.22 opens its devices with no feature enabled
    // (pEnabledFeatures = NULL), and lavapipe and NVIDIA's driver run the shader on them anyway;
    // from 1.24 on it enables every feature the physical device has (gstvkdevice.c: pNext =
    // gst_vulkan_physical_device_get_features, 25140499fc), so there the check is what is enabled.
    const GstVulkanPhysicalDevice *physical = device_->physical_device;
    if (!physical->features.shaderStorageImageWriteWithoutFormat)
        return Error(ErrorCode::UnsupportedDomain,
                     "Vulkan device " + describe(device_) +
                         " cannot write images from a shader without a format qualifier "
                         "(shaderStorageImageWriteWithoutFormat), which g2g's materialize shader needs");
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        // The format of g2g's storage images, which are GStreamer's for this version.
        const VkFormat format = compat::vulkan_plane_format(info, p);
        if (format == VK_FORMAT_UNDEFINED)
            return Error(ErrorCode::UnsupportedDomain,
                         std::string("GStreamer names no Vulkan format for plane ") + std::to_string(p) +
                             " of " + GST_VIDEO_INFO_NAME(&info) + ", so g2g cannot make its images");
        VkFormatProperties properties{};
        vkGetPhysicalDeviceFormatProperties(physical->device, format, &properties);
        if (!(properties.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
            const GstVulkanFormatInfo *format_info = gst_vulkan_format_get_info(format);
            return Error(ErrorCode::UnsupportedDomain,
                         "Vulkan device " + describe(device_) + " cannot write " +
                             (format_info ? format_info->name : std::to_string(format)) +
                             " images from a shader (plane " + std::to_string(p) + " of " +
                             GST_VIDEO_INFO_NAME(&info) + "), so g2g cannot materialize " +
                             GST_VIDEO_INFO_NAME(&info) + " views on it");
        }
    }
    return {};
}

Result<void> Engine::materialize(const FrameView &view, GstBuffer *source, GstBuffer *destination)
{
    Result<std::vector<PlaneWalk>> walks = plane_walks(view, source, destination, device_);
    if (!walks)
        return walks.error();
    if (Result<void> writable = check_writable(view.info()); !writable)
        return writable;

    std::lock_guard<std::mutex> guard(lock_);
    Result<const Kernels *> made = kernels();
    retire_materializes(static_cast<guint>(walks->size()));
    if (!made)
        return made.error();
    const Kernels &k = **made;
    Result<Recording> recording = record();
    if (!recording)
        return recording.error();
    if (Result<void> copied = copy_multiplanar_planes(*recording, view.info(), *walks); !copied)
        return copied;

    vkCmdBindPipeline(recording->cmd(), VK_PIPELINE_BIND_POINT_COMPUTE,
                      reinterpret_cast<VkPipeline>(k.pipeline->handle));
    for (const PlaneWalk &walk : *walks) {
        GError *error = nullptr;
        GstVulkanDescriptorSet *set = gst_vulkan_descriptor_cache_acquire(k.descriptors, &error);
        if (!set)
            return failure("acquiring a descriptor set", error);
        recording->keep(GST_MINI_OBJECT_CAST(set));
        GstVulkanImageView *from = gst_vulkan_get_or_create_image_view(walk.source.image);
        GstVulkanImageView *to = gst_vulkan_get_or_create_image_view(walk.destination);
        recording->keep(GST_MINI_OBJECT_CAST(from));
        recording->keep(GST_MINI_OBJECT_CAST(to));

        recording->transition(walk.source.image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                              VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        recording->transition(walk.destination, VK_IMAGE_LAYOUT_GENERAL, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);

        const VkDescriptorImageInfo images[] = {
            {VK_NULL_HANDLE, from->view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
            {VK_NULL_HANDLE, to->view, VK_IMAGE_LAYOUT_GENERAL},
        };
        VkWriteDescriptorSet writes[2]{};
        for (guint i = 0; i < 2; ++i) {
            writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            writes[i].dstSet = set->set;
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType =
                i == 0 ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
            writes[i].pImageInfo = &images[i];
        }
        vkUpdateDescriptorSets(device_->device, 2, writes, 0, nullptr);
        vkCmdBindDescriptorSets(recording->cmd(), VK_PIPELINE_BIND_POINT_COMPUTE,
                                reinterpret_cast<VkPipelineLayout>(k.pipeline_layout->handle), 0, 1,
                                &set->set, 0, nullptr);
        const Walk push{{walk.origin_x, walk.origin_y},
                        {walk.col_x, walk.col_y},
                        {walk.row_x, walk.row_y},
                        {walk.width, walk.height}};
        vkCmdPushConstants(recording->cmd(), reinterpret_cast<VkPipelineLayout>(k.pipeline_layout->handle),
                           VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        vkCmdDispatch(recording->cmd(), (walk.width + 15) / 16, (walk.height + 15) / 16, 1);
    }
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(source)));
    recording->keep(GST_MINI_OBJECT_CAST(gst_buffer_ref(destination)));
    Result<Fence> fence = recording->submit();
    if (!fence)
        return fence.error();
    in_flight_.emplace_back(std::move(*fence), static_cast<guint>(walks->size()));
    sets_in_flight_ += static_cast<guint>(walks->size());
    return {};
}

Result<void> Engine::copy_multiplanar_planes(Recording &recording, const GstVideoInfo &info,
                                             std::vector<PlaneWalk> &walks)
{
    GstVulkanImageMemory *transitioned = nullptr;
    for (guint p = 0; p < walks.size(); ++p) {
        ImagePlane &source = walks[p].source;
        if (source.aspect == VK_IMAGE_ASPECT_COLOR_BIT)
            continue;
        if (!plane_images_)
            plane_images_ = std::make_unique<PlaneImages>();
        GstVulkanImageMemory *sampled =
            plane_images_->take(device_, compat::vulkan_plane_format(info, p), source.width, source.height);
        if (!sampled)
            return Error(ErrorCode::MapFailed, "cannot allocate a " + std::to_string(source.width) + "x" +
                                                   std::to_string(source.height) +
                                                   " Vulkan image for plane " + std::to_string(p) +
                                                   " of a multi-planar image");
        recording.keep(GST_MINI_OBJECT_CAST(sampled));
        if (source.image != transitioned) // a multi-planar image's planes move on together
            recording.transition(source.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                 VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        transitioned = source.image;
        recording.transition(sampled, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                             VK_PIPELINE_STAGE_TRANSFER_BIT);
        VkImageCopy region{};
        region.srcSubresource = {source.aspect, 0, 0, 1};
        region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.extent = {source.width, source.height, 1};
        vkCmdCopyImage(recording.cmd(), source.image->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                       sampled->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        source = ImagePlane{sampled, VK_IMAGE_ASPECT_COLOR_BIT, source.width, source.height, 0};
    }
    return {};
}

std::array<guint8, VK_UUID_SIZE> device_uuid(VkPhysicalDevice physical)
{
    VkPhysicalDeviceIDProperties ids{};
    ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 properties{};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &ids;
    vkGetPhysicalDeviceProperties2(physical, &properties);
    std::array<guint8, VK_UUID_SIZE> uuid{};
    std::copy(std::begin(ids.deviceUUID), std::end(ids.deviceUUID), uuid.begin());
    return uuid;
}

} // namespace g2g::vulkan
