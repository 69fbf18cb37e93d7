// SPDX-License-Identifier: LGPL-2.1-or-later
// One Vulkan device for every element of a pipeline, in every run of it, as a GStreamer 1.22
// application gives it: the instance through NEED_CONTEXT (GStreamer's Vulkan elements ask for
// nothing else) with its create-device signal answering the device, and the device through
// NEED_CONTEXT for g2g's elements, which ask for it. Header-only, like vulkan-teardown.h.
//
// Why a pipeline that restarts needs it on GStreamer 1.22 (compat::vulkanupload_keeps_image_pool):
// its vulkanupload keeps the image pool of its first run for good (vkupload.c: RawToImageUpload's
// pool is made once and freed at finalize) while every start gives it a new device (vulkandownload
// creates one per start), so from the second run on its frames are images of the first run's
// device. GStreamer's own elements then record commands over another device's images without
// noticing; g2g's refuse such frames (vulkan-context.h, check_frame). With one device for all,
// every run's frames are of it. It also hands a pipeline a device GStreamer opened (without the
// extensions g2gconvert needs: tests/pipelines/cuda/test-cuda-vulkan.cpp).
#pragma once

#include <gst/gst.h>

#include "g2g-config.h"

#if G2G_HAVE_VULKAN
#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <vulkan/vulkan.h>
extern "C" {
#include <gst/vulkan/vulkan.h>
}

// The create-device signal's form differs between GStreamer versions (1.26 added the device index),
// and only 1.22's vulkanupload keeps its image pool.
#include "compat/vulkan-device-compat.h"
#include "compat/vulkan-upload-compat.h"
#endif

namespace g2g::test {

class SharedVulkanDevice {
public:
    SharedVulkanDevice()
    {
#if G2G_HAVE_VULKAN
        instance_ = gst_vulkan_instance_new();
        if (!gst_vulkan_instance_open(instance_, nullptr))
            return;
        device_ = gst_vulkan_instance_create_device(instance_, nullptr);
        handler_ = g2g::compat::vulkan_on_create_device(instance_, create_device, this);
#endif
    }
    ~SharedVulkanDevice()
    {
#if G2G_HAVE_VULKAN
        if (handler_)
            g_signal_handler_disconnect(instance_, handler_);
        if (device_) {
            vkDeviceWaitIdle(device_->device);
            gst_object_unref(device_);
        }
        if (instance_)
            gst_object_unref(instance_);
#endif
    }
    SharedVulkanDevice(const SharedVulkanDevice &) = delete;
    SharedVulkanDevice &operator=(const SharedVulkanDevice &) = delete;

    // Whether a pipeline that restarts needs one device for all its runs on this GStreamer (1.22's
    // vulkanupload keeps its image pool: compat::vulkanupload_keeps_image_pool); from 1.24 on each
    // run's frames are of that run's device.
    static bool needed_for_restarts()
    {
#if G2G_HAVE_VULKAN
        return g2g::compat::vulkanupload_keeps_image_pool();
#else
        return false;
#endif
    }

    // Answers the NEED_CONTEXT messages of `pipeline`'s elements (a sync handler on its bus, which
    // must not have another). This object must outlive the pipeline.
    void give_to(GstElement *pipeline)
    {
#if G2G_HAVE_VULKAN
        GstBus *bus = gst_element_get_bus(pipeline);
        gst_bus_set_sync_handler(bus, on_message, this, nullptr);
        gst_object_unref(bus);
#else
        (void)pipeline;
#endif
    }

private:
#if G2G_HAVE_VULKAN
    // The one device, whichever physical device is asked for (1.26's signal names one).
    static GstVulkanDevice *create_device(GstVulkanInstance *, guint, gpointer data)
    {
        auto *self = static_cast<SharedVulkanDevice *>(data);
        return self->device_ ? GST_VULKAN_DEVICE(gst_object_ref(self->device_)) : nullptr;
    }

    static GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data)
    {
        auto *self = static_cast<SharedVulkanDevice *>(data);
        const char *type = nullptr;
        if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_NEED_CONTEXT || !self->device_ ||
            !gst_message_parse_context_type(message, &type))
            return GST_BUS_PASS;
        GstContext *context = nullptr;
        if (g_strcmp0(type, GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR) == 0) {
            context = gst_context_new(type, TRUE);
            gst_context_set_vulkan_instance(context, self->instance_);
        } else if (g_strcmp0(type, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR) == 0) {
            context = gst_context_new(type, TRUE);
            gst_context_set_vulkan_device(context, self->device_);
        }
        if (context) {
            gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(message)), context);
            gst_context_unref(context);
        }
        return GST_BUS_PASS;
    }

    GstVulkanInstance *instance_ = nullptr;
    GstVulkanDevice *device_ = nullptr;
    gulong handler_ = 0; // create-device's
#endif
};

} // namespace g2g::test
