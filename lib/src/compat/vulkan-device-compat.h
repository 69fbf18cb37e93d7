// SPDX-License-Identifier: LGPL-2.1-or-later
// GstVulkanInstance's "create-device" signal, through which an application hands GStreamer's Vulkan
// elements (and g2g's) the device they open, in the form of each GStreamer version (compat.h has
// the map). Built with the vulkan feature; meson picks vulkan-device-compat-1.22.cpp or
// vulkan-device-compat-1.26.cpp.
#pragma once

#include "../platform/vulkan/gst-vulkan.h" // relative: the plugin reaches this header without lib/src on its path

namespace g2g::compat {

// The device a handler of `instance`'s "create-device" signal makes for its physical device
// `device_index` (one reference), or nullptr when none does: what
// gst_vulkan_instance_create_device asks before creating a device of its own. 1.26 added the
// index to the signal; before it, a handler is asked for the instance's device (index 0).
GstVulkanDevice *vulkan_device_from_handler(GstVulkanInstance *instance, guint device_index);

// A handler of "create-device": the device to use for physical device `device_index` of `instance`
// (one reference), or nullptr to let GStreamer create one.
using VulkanDeviceMaker = GstVulkanDevice *(*)(GstVulkanInstance *instance, guint device_index,
                                               gpointer data);

// What a connected handler calls, and with what.
struct VulkanDeviceHandler {
    VulkanDeviceMaker make;
    gpointer data;
};

// The signal handler of this GStreamer's form of "create-device" that calls the
// VulkanDeviceHandler it is connected with (1.22 and 1.24: no argument, so it is told index 0).
GCallback vulkan_create_device_callback();

// Connects `make` to `instance`'s "create-device" signal in the signal's form of this GStreamer;
// returns the handler's id.
inline gulong vulkan_on_create_device(GstVulkanInstance *instance, VulkanDeviceMaker make, gpointer data)
{
    return g_signal_connect_data(
        instance, "create-device", vulkan_create_device_callback(), new VulkanDeviceHandler{make, data},
        [](gpointer handler, GClosure *) { delete static_cast<VulkanDeviceHandler *>(handler); },
        GConnectFlags(0));
}

} // namespace g2g::compat
