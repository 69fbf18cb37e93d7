// SPDX-License-Identifier: LGPL-2.1-or-later
// What differs between the GStreamer versions g2g supports (1.22 to 1.28), in one place: the rest
// of g2g calls these and never tests a version. Each difference is one header here and one file
// per version from which it changed, `<difference>-<version>.cpp`; meson.build in this folder
// lists them and the build takes, for each, the file of the newest version not past the GStreamer it
// builds against. Each file opens by saying which versions need it and why. docs/versions.md is the
// table for users.
//
//   buffer-free-compat.h   a freed buffer's memories given back before its metas (1.24 does it;
//                          1.22 frees the metas first, so a view's parent left its pool)
//                                              buffer-free-compat-1.22.cpp, buffer-free-compat-1.24.cpp
//   cuda-compat.h      GstCudaMemory: allocation (1.24 added a stream argument), wrapping device
//                      memory g2g holds (1.22: an allocator subclass; 1.24: alloc_wrapped), and
//                      waiting for a producer's stream before reading (1.24's memory has one)
//                                              cuda-compat-1.22.cpp, cuda-compat-1.24.cpp
//   dma-drm-compat.h   DMA_DRM caps read into a video info (1.24 reads them itself; 1.22 has
//                      no DMA_DRM and reads g2g's restatement in its own form)
//                                              dma-drm-compat-1.22.cpp, dma-drm-compat-1.24.cpp
//   vulkan-device-compat.h   GstVulkanInstance's create-device signal (1.26 added the device index)
//                                              vulkan-device-compat-1.22.cpp, vulkan-device-compat-1.26.cpp
//   vulkan-format-compat.h   the Vulkan format of each plane's image (1.24's table names no format for
//                            planes 1 and 2 of 3-plane formats; 1.26 takes UNORM for RGB whatever the
//                            transfer)
//                                              vulkan-format-compat-1.22.cpp, vulkan-format-compat-1.24.cpp
//   vulkan-upload-compat.h   what vulkanupload does to frames: sheared padded planes and its staging
//                            race (1.22 to 1.26), its image pool made once (1.22 only), the formats
//                            it cannot make (1.24 and 1.26: 3-plane formats, GRAY8)
//                                              vulkan-upload-compat-1.22.cpp, vulkan-upload-compat-1.24.cpp
//   vulkan-pool-compat.h     what a GstVulkanImageBufferPool's configuration asks of its images (1.24
//                            added usage, memory, layout, layers and video caps; 1.22 has the caps)
//                                              vulkan-pool-compat-1.22.cpp, vulkan-pool-compat-1.24.cpp
//   vulkan-timeline-compat.h the timeline semaphore that orders work on an image across queues
//                            (1.24 added it to each image's barrier state; 1.22 orders by one queue)
//                                              vulkan-timeline-compat-1.22.cpp,
//                                              vulkan-timeline-compat-1.24.cpp
//   vulkan-timeline-support-compat.h  whether GStreamer gives an image it allocates a timeline
//                            semaphore (1.24: with the extension; 1.26: also on Vulkan 1.2+)
//                                              vulkan-timeline-support-compat-1.22.cpp, -1.24.cpp, -1.26.cpp
//   vulkan-video-compat.h    images of a Vulkan video profile, as a decoder's are made (1.24 added
//                            Vulkan video: a pool's decode caps, multi-planar images shared by the
//                            queue families, a timeline per image; 1.22 has none)
//                                              vulkan-video-compat-1.22.cpp, vulkan-video-compat-1.24.cpp
#pragma once
