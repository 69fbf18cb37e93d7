// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24 on (compat/vulkan-video-compat.h): a decoder's pool configuration carries its profile
// as caps ("decode-caps", gst_vulkan_image_buffer_pool_config_set_decode_caps), which
// gst_vulkan_video_profile_from_caps reads back; GStreamer's pool makes such images of one
// multi-planar format (gst_vulkan_format_from_video_info_2 with no_multiplane false: NV12's
// G8_B8R8_2PLANE_420 is the one its table names up to 1.26), shares them by every queue family the
// device opened (gstvkimagememory.c, where pQueueFamilyIndices is unset), and gives every image
// memory a timeline semaphore where the device has timeline semaphores (as that version decides:
// compat/vulkan-timeline-support-compat.h). Where GStreamer was built
// against Vulkan headers without the video extensions (GST_VULKAN_HAVE_VIDEO_EXTENSIONS 0), there
// is no profile to make.
#include "compat/vulkan-video-compat.h"

#include "compat/vulkan-timeline-support-compat.h"
#include "platform/vulkan/vulkan-commands.h"

#include <gst/vulkan/vulkan.h>

namespace g2g::compat {

namespace {

Error refused(const std::string &what)
{
    return Error(ErrorCode::UnsupportedDomain, what);
}

} // namespace

Result<VideoProfile> VideoProfile::decoding(const std::string &caps)
{
#if GST_VULKAN_HAVE_VIDEO_EXTENSIONS
    GstCaps *parsed = gst_caps_from_string(caps.c_str());
    if (!parsed || gst_caps_get_size(parsed) != 1 || !gst_caps_is_fixed(parsed)) {
        if (parsed)
            gst_caps_unref(parsed);
        return refused("\"" + caps + "\" are no fixed caps of one Vulkan video profile");
    }
    // The profile's structures point into each other (profile -> codec -> usage): kept where they are.
    struct List {
        GstVulkanVideoProfile profile{};
        VkVideoProfileListInfoKHR list{};
    };
    auto held = std::make_shared<List>();
    const gboolean read =
        gst_vulkan_video_profile_from_caps(&held->profile, parsed, GST_VULKAN_VIDEO_OPERATION_DECODE);
    gst_caps_unref(parsed);
    if (!read)
        return refused("\"" + caps + "\" name no Vulkan decoding profile GStreamer knows");
    held->list.sType = VK_STRUCTURE_TYPE_VIDEO_PROFILE_LIST_INFO_KHR;
    held->list.profileCount = 1;
    held->list.pProfiles = &held->profile.profile;
    VideoProfile profile;
    profile.caps_ = caps;
    profile.list_ = std::shared_ptr<const void>(held, &held->list);
    return profile;
#else
    return refused("images of the Vulkan video profile " + caps +
                   " cannot be made here: this GStreamer was built without the Vulkan video extensions");
#endif
}

std::string image_pool_decode_caps(GstStructure *config)
{
    const GValue *value = gst_structure_get_value(config, "decode-caps");
    const GstCaps *caps = value && GST_VALUE_HOLDS_CAPS(value) ? gst_value_get_caps(value) : nullptr;
    if (!caps)
        return {};
    gchar *text = gst_caps_to_string(caps);
    std::string out(text);
    g_free(text);
    return out;
}

VkFormat multi_planar_format(const GstVideoInfo &info)
{
    switch (GST_VIDEO_INFO_FORMAT(&info)) {
    case GST_VIDEO_FORMAT_NV12:
        return VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
    default:
        return VK_FORMAT_UNDEFINED;
    }
}

std::vector<std::uint32_t> video_image_families(GstVulkanDevice *device)
{
    GArray *indices = gst_vulkan_device_queue_family_indices(device);
    std::vector<std::uint32_t> families;
    if (indices && indices->len > 1)
        for (guint i = 0; i < indices->len; ++i)
            families.push_back(g_array_index(indices, std::uint32_t, i));
    if (indices)
        g_array_unref(indices);
    return families;
}

Result<void> give_image_timeline(GstVulkanImageMemory *memory)
{
#if defined(VK_KHR_timeline_semaphore)
    GstVulkanDevice *device = memory->device;
    if (!images_have_timelines(device))
        return {};
    VkSemaphoreTypeCreateInfo type{};
    type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    create.pNext = &type;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    if (VkResult r = vkCreateSemaphore(device->device, &create, nullptr, &semaphore); r != VK_SUCCESS)
        return vulkan::failure("vkCreateSemaphore of a timeline semaphore", r);
    memory->barrier.parent.semaphore = semaphore;
    memory->barrier.parent.semaphore_value = 0;
#endif
    return {};
}

void forget_image_timeline(GstVulkanBarrierImageInfo &barrier)
{
    barrier.parent.semaphore = VK_NULL_HANDLE;
    barrier.parent.semaphore_value = 0;
}

} // namespace g2g::compat
