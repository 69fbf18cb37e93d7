// SPDX-License-Identifier: LGPL-2.1-or-later
// Tearing down a pipeline with Vulkan elements safely on GStreamer 1.22 + Mesa's lavapipe.
// Header-only: the tests and the demo both use it.
#pragma once

#include <gst/gst.h>

#include "g2g-config.h"

#if G2G_HAVE_VULKAN
#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/vulkan/vulkan.h>
#endif

namespace g2g::test {

// GStreamer 1.22's Vulkan elements free command buffers at teardown without waiting for the
// device when the stream stopped on an error; Mesa's lavapipe, still executing them, then
// crashes in its queue thread (about a third of such runs on a loaded 2-core machine). Every
// Vulkan device the pipeline's elements use is waited for before the pipeline goes down.
inline void wait_for_vulkan_devices(GstBin *pipeline)
{
#if G2G_HAVE_VULKAN
    GstIterator *it = gst_bin_iterate_recurse(pipeline);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        auto *element = GST_ELEMENT(g_value_get_object(&item));
        GstElementFactory *factory = gst_element_get_factory(element);
        if (factory && g_str_has_prefix(GST_OBJECT_NAME(factory), "vulkan")) {
            GstQuery *query = gst_query_new_context(GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
            GstContext *context = nullptr;
            GstVulkanDevice *device = nullptr;
            GstPad *pad = gst_element_get_static_pad(element, "src");
            if (pad && gst_pad_query(pad, query)) {
                gst_query_parse_context(query, &context);
                if (context && gst_context_get_vulkan_device(context, &device) && device) {
                    vkDeviceWaitIdle(device->device);
                    gst_object_unref(device);
                }
            }
            if (pad)
                gst_object_unref(pad);
            gst_query_unref(query);
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
