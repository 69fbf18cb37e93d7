// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer's vulkanupload (1.22 to 1.28: compat::vulkanupload_races_staging) hands a frame on as
// soon as it has submitted the copy into its image, and gives the buffer it copies from back to its
// pool at once: the next frame is written into that buffer while the copy may not have run yet, and
// the image then holds the next frame's pixels (`videotestsrc ! vulkanupload ! queue !
// vulkandownload` on lavapipe with 1.22: 71 of 100 frames). A consumer that waits for each frame, as
// vulkandownload does, hides it; g2g's fenced download, which does not wait, shows it. Tests that
// compare pixels wait, after each frame vulkanupload hands on, for everything submitted to its
// queue. Header-only, like vulkan-teardown.h.
#pragma once

#include <gst/gst.h>

#include "g2g-config.h"

#if G2G_HAVE_VULKAN
#include "compat/vulkan-upload-compat.h"
#include "platform/vulkan/gst-vulkan.h"
#endif

namespace g2g::test {

// True on a thread while it asks vulkanupload for its queue here (a test that keeps
// vulkanupload's context queries unanswered lets these through).
inline bool &asking_for_the_upload_queue()
{
    thread_local bool asking = false;
    return asking;
}

#if G2G_HAVE_VULKAN
// Waits until the work submitted so far to the Vulkan queue `element` answers is done.
inline void wait_for_queue_of(GstElement *element, GstPad *pad)
{
    GstQuery *query = gst_query_new_context(GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
    GstContext *context = nullptr;
    GstVulkanQueue *queue = nullptr;
    asking_for_the_upload_queue() = true;
    const bool answered = gst_pad_query(pad, query);
    asking_for_the_upload_queue() = false;
    if (answered) {
        gst_query_parse_context(query, &context);
        if (context)
            gst_context_get_vulkan_queue(context, &queue);
    }
    gst_query_unref(query);
    if (!queue) {
        GST_WARNING_OBJECT(element, "no Vulkan queue to wait for");
        return;
    }
    GstVulkanFence *fence = gst_vulkan_device_create_fence(queue->device, nullptr);
    if (fence) {
        VkFence vk = GST_VULKAN_FENCE_FENCE(fence);
        gst_vulkan_queue_submit_lock(queue);
        const VkResult submitted = vkQueueSubmit(queue->queue, 0, nullptr, vk);
        gst_vulkan_queue_submit_unlock(queue);
        if (submitted == VK_SUCCESS)
            vkWaitForFences(queue->device->device, 1, &vk, VK_TRUE, G_MAXUINT64);
        gst_vulkan_fence_unref(fence);
    }
    gst_object_unref(queue);
}
#endif

// Makes every vulkanupload of `pipeline` (not yet running) wait for its copy before handing a
// frame on, on the versions whose vulkanupload races its staging buffer.
inline void wait_for_each_upload(GstBin *pipeline)
{
#if G2G_HAVE_VULKAN
    if (!g2g::compat::vulkanupload_races_staging())
        return;
    GstIterator *it = gst_bin_iterate_recurse(pipeline);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        auto *element = GST_ELEMENT(g_value_get_object(&item));
        GstElementFactory *factory = gst_element_get_factory(element);
        if (factory && g_str_equal(GST_OBJECT_NAME(factory), "vulkanupload")) {
            GstPad *pad = gst_element_get_static_pad(element, "src");
            gst_pad_add_probe(
                pad, GST_PAD_PROBE_TYPE_BUFFER,
                [](GstPad *src, GstPadProbeInfo *, gpointer upload) {
                    wait_for_queue_of(GST_ELEMENT(upload), src);
                    return GST_PAD_PROBE_OK;
                },
                element, nullptr);
            gst_object_unref(pad);
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
#else
    (void)pipeline;
#endif
}

} // namespace g2g::test
