// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without the vulkan feature: GStreamer's Vulkan images are still recognised by their
// memory type name (the domain table's), nothing more: no views of them.
#include "platform/platform.h"

namespace g2g::platform::vulkan {

bool recognises_image(GstMemory *)
{
    return false;
}

bool is_host_visible_buffer(GstMemory *)
{
    return false;
}

const detail::ViewBackend *view_backend()
{
    return nullptr;
}

} // namespace g2g::platform::vulkan
