// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer's Vulkan library for C++: some of its 1.22 headers (gstvkqueue.h, gstvkcommandpool.h,
// gstvkdescriptorpool.h, gstvkdescriptorcache.h, ...) lack G_BEGIN_DECLS, so their functions
// would be looked up under C++ names. Everything of ours includes it through this header.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <vulkan/vulkan.h>

extern "C" {
#include <gst/vulkan/vulkan.h>
}
