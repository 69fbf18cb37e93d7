// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22's vulkanupload (compat/vulkan-upload-compat.h), ext/vulkan/vkupload.c
// _raw_to_image_perform:
// - each plane is copied with bufferRowLength = GST_VIDEO_INFO_COMP_WIDTH from a GstVulkanBufferPool
//   buffer laid out with the default strides (and vkdownload.c _image_to_raw_perform copies back the
//   same way): padded 8-bit planes are sheared;
// - the buffer copied from is unreffed right after vkQueueSubmit, before the copy has run;
// - RawToImageUpload's image pool is made at the first frame and freed only at finalize, while
//   every start of the element opens a new device; it is its own (gst_vulkan_image_buffer_pool_new),
//   and its decide_allocation returns TRUE without reading the query: a pool its downstream
//   offers is never used;
// - its image pool names a Vulkan format for every plane of every format it offers
//   (gst_vulkan_format_from_video_info, gstvkimagememory.c).
// 1.24 made the image pool at each negotiation (vulkan-upload-compat-1.24.cpp).
#include "compat/vulkan-upload-compat.h"

namespace g2g::compat {

bool vulkanupload_shears_padded_planes()
{
    return true;
}

bool vulkanupload_races_staging()
{
    return true;
}

bool vulkanupload_keeps_image_pool()
{
    return true;
}

bool vulkanupload_takes_downstream_pool()
{
    return false;
}

const char *vulkanupload_lacks_format(GstVideoFormat)
{
    return nullptr;
}

} // namespace g2g::compat
