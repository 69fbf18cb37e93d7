// SPDX-License-Identifier: LGPL-2.1-or-later
// GstVulkanInstance's "create-device" signal from GStreamer 1.26 on (compat/vulkan-device-compat.h):
// it takes the physical device's index first (gstvkinstance.c class_init: g_signal_new
// ("create-device", ..., GST_TYPE_VULKAN_DEVICE, 1, G_TYPE_UINT), emitted by
// gst_vulkan_instance_create_device_with_index as g_signal_emit (instance, ..., 0, device_index,
// &device); commit 9a771b6909 "vkinstance: add gst_vulkan_instance_create_device_with_index",
// 1.25.1). Emitted in 1.22's form, GLib takes the return location for the index and finds none
// for the device ("value location for 'GstVulkanDevice' passed as NULL"), and a handler of 1.22's
// form is handed the index where it expects its data.
#include "compat/vulkan-device-compat.h"

namespace g2g::compat {

namespace {

GstVulkanDevice *on_create_device(GstVulkanInstance *instance, guint device_index, gpointer data)
{
    const auto *handler = static_cast<const VulkanDeviceHandler *>(data);
    return handler->make(instance, device_index, handler->data);
}

} // namespace

GCallback vulkan_create_device_callback()
{
    return G_CALLBACK(on_create_device);
}

GstVulkanDevice *vulkan_device_from_handler(GstVulkanInstance *instance, guint device_index)
{
    GstVulkanDevice *made = nullptr;
    g_signal_emit_by_name(instance, "create-device", device_index, &made);
    return made;
}

} // namespace g2g::compat
