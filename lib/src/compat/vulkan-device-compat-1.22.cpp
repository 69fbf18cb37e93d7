// SPDX-License-Identifier: LGPL-2.1-or-later
// GstVulkanInstance's "create-device" signal as GStreamer 1.22 and 1.24 define it
// (compat/vulkan-device-compat.h): no argument, a GstVulkanDevice returned (gstvkinstance.c
// class_init: g_signal_new ("create-device", ..., GST_TYPE_VULKAN_DEVICE, 0), emitted by
// gst_vulkan_instance_create_device with only the return location). 1.26 added the device index
// (vulkan-device-compat-1.26.cpp).
#include "compat/vulkan-device-compat.h"

namespace g2g::compat {

namespace {

GstVulkanDevice *on_create_device(GstVulkanInstance *instance, gpointer data)
{
    const auto *handler = static_cast<const VulkanDeviceHandler *>(data);
    return handler->make(instance, 0, handler->data);
}

} // namespace

GCallback vulkan_create_device_callback()
{
    return G_CALLBACK(on_create_device);
}

GstVulkanDevice *vulkan_device_from_handler(GstVulkanInstance *instance, guint)
{
    GstVulkanDevice *made = nullptr;
    g_signal_emit_by_name(instance, "create-device", &made);
    return made;
}

} // namespace g2g::compat
