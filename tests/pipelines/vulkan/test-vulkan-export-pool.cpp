// SPDX-License-Identifier: LGPL-2.1-or-later
// The pool of exportable images g2gipcsink offers upstream (lib/src/platform/vulkan/vulkan-export-pool.h)
// on a device of the test's own that exports memory (lavapipe in CI): its buffers are faces of
// exported frames and come back to the next acquire; a buffer GStreamer's pool discards (its
// memory still held, as a view of it holds it) comes back with its frame's id once the memory goes;
// a configuration it cannot serve with exported images is served as GStreamer's pool serves it;
// and ExportedFrame::of_face knows a face only whole, in order. On every GStreamer version: 1.22's
// configurations ask for what its pool makes of every one.
#include <gtest/gtest.h>

#include <cstdint>

#include <g2g/gst-ref.h>

#include "compat/vulkan-pool-compat.h"
#include "compat/vulkan-timeline-compat.h"
#include "compat/vulkan-video-compat.h"
#include "pipeline.h"
#include "platform/vulkan/vulkan-export-pool.h"
#include "platform/vulkan/vulkan-external.h"

using g2g::BufferRef;
using g2g::Ref;
using g2g::vulkan::ExportedFrame;

namespace {

constexpr const char *kImageCaps =
    "video/x-raw(memory:VulkanImage),format=NV12,width=64,height=48,framerate=30/1";

class VulkanExportPool : public ::testing::Test {
protected:
    void SetUp() override
    {
        SKIP_WITHOUT_VULKAN();
        instance_ = Ref<GstObject>::adopt(GST_OBJECT(gst_vulkan_instance_new()));
        ASSERT_TRUE(gst_vulkan_instance_open(GST_VULKAN_INSTANCE(instance_.get()), nullptr));
        device_ = open_device(true);
        ASSERT_TRUE(device_);
    }

    // Device 0, opened with or without VK_KHR_external_memory_fd.
    Ref<GstObject> open_device(bool exporting)
    {
        auto device = Ref<GstObject>::adopt(
            GST_OBJECT(gst_vulkan_device_new_with_index(GST_VULKAN_INSTANCE(instance_.get()), 0)));
        if (exporting)
            gst_vulkan_device_enable_extension(GST_VULKAN_DEVICE(device.get()),
                                               VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        if (!gst_vulkan_device_open(GST_VULKAN_DEVICE(device.get()), nullptr))
            return {};
        return device;
    }

    GstVulkanDevice *device() const { return GST_VULKAN_DEVICE(device_.get()); }

    // `pool` configured with `caps_text`, asking for images of `usage` (as g2gipcsink's offer
    // does, and vulkanupload keeps): whether the configuration was taken.
    static bool configure(GstBufferPool *pool, const char *caps_text,
                          VkImageUsageFlags usage = g2g::vulkan::kExportedUsage)
    {
        g2g::CapsRef caps = g2g::CapsRef::adopt(gst_caps_from_string(caps_text));
        GstStructure *config = gst_buffer_pool_get_config(pool);
        gst_buffer_pool_config_set_params(config, caps.get(), 4096, 0, 0);
        g2g::compat::ask_image_pool_usage(config, usage);
        return gst_buffer_pool_set_config(pool, config);
    }

    // Whether a configuration can ask for a usage: GStreamer 1.22's cannot (its pool makes every
    // image alike).
    static bool configurations_name_a_usage()
    {
        GstStructure *config = gst_structure_new_empty("config");
        g2g::compat::ask_image_pool_usage(config, VK_IMAGE_USAGE_FRAGMENT_DENSITY_MAP_BIT_EXT);
        const bool named =
            g2g::compat::image_pool_ask(config).usage == VK_IMAGE_USAGE_FRAGMENT_DENSITY_MAP_BIT_EXT;
        gst_structure_free(config);
        return named;
    }

    static BufferRef acquire(GstBufferPool *pool)
    {
        GstBuffer *buffer = nullptr;
        EXPECT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr), GST_FLOW_OK);
        return BufferRef::adopt(buffer);
    }

    static std::uint64_t id_of(GstBuffer *buffer)
    {
        const auto frame = ExportedFrame::of_face(buffer);
        return frame ? frame->id() : 0;
    }

    Ref<GstObject> instance_, device_;
};

} // namespace

// Its buffers are faces of exported frames, one image per plane, of the size the pool keeps
// (GstBufferPool discards a buffer of another size), and a buffer given back is the next one.
TEST_F(VulkanExportPool, ItsFramesAreExportedImagesAndComeBack)
{
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(g2g::vulkan::export_pool_new(device()));
    EXPECT_EQ(g2g::vulkan::export_pool_device(pool.get()), device());
    EXPECT_TRUE(GST_IS_VULKAN_IMAGE_BUFFER_POOL(pool.get())) << "vulkanupload keeps only such a pool";
    ASSERT_TRUE(configure(pool.get(), kImageCaps));
    EXPECT_TRUE(g2g::vulkan::export_pool_exports(pool.get()));
    ASSERT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));

    BufferRef first = acquire(pool.get());
    ASSERT_TRUE(first);
    const auto frame = ExportedFrame::of_face(first.get());
    ASSERT_TRUE(frame) << "a buffer of the pool is an exported frame's face";
    ASSERT_EQ(gst_buffer_n_memory(first.get()), 2u);
    for (guint p = 0; p < 2; ++p)
        EXPECT_TRUE(gst_is_vulkan_image_memory(gst_buffer_peek_memory(first.get(), p)));
    for (const g2g::vulkan::ExternalImage &plane : frame->planes(first.get()))
        EXPECT_GE(plane.fd, 0) << "each plane's allocation is exported";
    g_autoptr(GstStructure) config = gst_buffer_pool_get_config(pool.get());
    guint size = 0;
    ASSERT_TRUE(gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr));
    EXPECT_EQ(size, frame->allocated_bytes())
        << "the configuration keeps the images' size, not the 4096 asked";
    EXPECT_EQ(gst_buffer_get_size(first.get()), size);

    const std::uint64_t id = frame->id();
    first.reset();
    BufferRef again = acquire(pool.get());
    EXPECT_EQ(id_of(again.get()), id) << "the buffer given back is the next one";
    gst_buffer_pool_set_active(pool.get(), FALSE);
}

// A buffer whose memory is still held when it comes back (a view of it downstream holds its
// memories) is discarded by GStreamer's pool; its frame comes back, with its id, once the memory
// goes: a consumer that imported it never imports it again.
TEST_F(VulkanExportPool, AFrameWhoseMemoryIsHeldElsewhereComesBackWithItsId)
{
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(g2g::vulkan::export_pool_new(device()));
    ASSERT_TRUE(configure(pool.get(), kImageCaps));
    ASSERT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));

    BufferRef source = acquire(pool.get());
    const std::uint64_t held_id = id_of(source.get());
    ASSERT_NE(held_id, 0u);
    // A view's buffer: the same memories.
    BufferRef view = BufferRef::adopt(gst_buffer_new());
    gst_buffer_copy_into(view.get(), source.get(), GST_BUFFER_COPY_MEMORY, 0, -1);
    EXPECT_EQ(id_of(view.get()), held_id) << "a buffer of a face's memories is that face";
    source.reset(); // back to the pool, its memory not writable: discarded

    BufferRef other = acquire(pool.get());
    const std::uint64_t other_id = id_of(other.get());
    EXPECT_NE(other_id, 0u);
    EXPECT_NE(other_id, held_id) << "the held frame's images are still read";
    view.reset(); // the frame is free
    BufferRef next = acquire(pool.get());
    EXPECT_EQ(id_of(next.get()), held_id) << "the frame came back with its id";
    gst_buffer_pool_set_active(pool.get(), FALSE);
}

// A configuration that names nothing asks for what GStreamer's pool makes of it: images of
// TRANSFER_SRC | TRANSFER_DST | COLOR_ATTACHMENT | SAMPLED | INPUT_ATTACHMENT usage in device-local
// memory, one layer (1.24's defaults; on 1.22, what its pool makes of every configuration).
TEST_F(VulkanExportPool, AConfigurationThatNamesNothingAsksForGStreamersDefault)
{
    GstStructure *config = gst_structure_new_empty("config");
    const g2g::compat::ImagePoolAsk ask = g2g::compat::image_pool_ask(config);
    gst_structure_free(config);
    EXPECT_EQ(ask.usage, VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                           VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT));
    EXPECT_EQ(ask.memory, VkMemoryPropertyFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    EXPECT_EQ(ask.layout, VK_IMAGE_LAYOUT_UNDEFINED);
    EXPECT_EQ(ask.layers, 1u);
    EXPECT_FALSE(ask.video);
}

// A configuration it cannot serve with exported images is served as GStreamer's own pool serves it
// (taken or refused by that code), its frames then ordinary images: a device opened without
// VK_KHR_external_memory_fd, and (1.24 on) configurations asking for images of another kind (a
// usage exported images do not have, two layers). Caps of other memory are refused (1.22's pool
// dereferences the linear image NVIDIA's driver will not make for them). A configuration that
// names no usage, as a GstVulkanVideoFilter (vulkancolorconvert) keeps it, asks for GStreamer's
// default, color attachments included: exported images have them, on every version.
TEST_F(VulkanExportPool, WhatItCannotExportIsServedAsGStreamersPoolServesIt)
{
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(g2g::vulkan::export_pool_new(device()));
    EXPECT_FALSE(configure(pool.get(), "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"))
        << "system-memory caps";
    EXPECT_FALSE(g2g::vulkan::export_pool_exports(pool.get()));
    EXPECT_EQ(g2g::vulkan::export_pool_usage(pool.get()), 0u);

    if (configurations_name_a_usage()) {
        configure(pool.get(), kImageCaps,
                  g2g::vulkan::kExportedUsage | VK_IMAGE_USAGE_FRAGMENT_DENSITY_MAP_BIT_EXT);
        EXPECT_FALSE(g2g::vulkan::export_pool_exports(pool.get())) << "a usage exported images do not have";

        // Ordinary frames where it does not export: two layers.
        GstStructure *config = gst_buffer_pool_get_config(pool.get());
        g2g::CapsRef caps = g2g::CapsRef::adopt(gst_caps_from_string(kImageCaps));
        gst_buffer_pool_config_set_params(config, caps.get(), 4096, 0, 0);
        gst_structure_remove_field(config, "usage");
        gst_structure_set(config, "num-layers", G_TYPE_UINT, 2u, nullptr);
        ASSERT_TRUE(gst_buffer_pool_set_config(pool.get(), config));
        EXPECT_FALSE(g2g::vulkan::export_pool_exports(pool.get()));
        ASSERT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));
        {
            BufferRef ordinary = acquire(pool.get());
            ASSERT_TRUE(ordinary);
            EXPECT_EQ(id_of(ordinary.get()), 0u) << "GStreamer's own images, not exported ones";
            EXPECT_TRUE(gst_is_vulkan_image_memory(gst_buffer_peek_memory(ordinary.get(), 0)));
        }
        gst_buffer_pool_set_active(pool.get(), FALSE);
    }

    // No usage named: GStreamer's default, which exported images of NV12's planes have here.
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    g2g::CapsRef caps = g2g::CapsRef::adopt(gst_caps_from_string(kImageCaps));
    gst_buffer_pool_config_set_params(config, caps.get(), 4096, 0, 0);
    gst_structure_remove_field(config, "usage");
    gst_structure_remove_field(config, "num-layers");
    ASSERT_TRUE(gst_buffer_pool_set_config(pool.get(), config));
    EXPECT_TRUE(g2g::vulkan::export_pool_exports(pool.get())) << "a renderer's default usage";
    EXPECT_TRUE(g2g::vulkan::export_pool_usage(pool.get()) & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
    ASSERT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));
    {
        BufferRef face = acquire(pool.get());
        const auto frame = ExportedFrame::of_face(face.get());
        ASSERT_TRUE(frame);
        for (const g2g::vulkan::ExternalImage &plane : frame->planes(face.get()))
            EXPECT_TRUE(plane.description.usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)
                << "a renderer renders into it";
    }
    gst_buffer_pool_set_active(pool.get(), FALSE);

    Ref<GstObject> plain = open_device(false);
    ASSERT_TRUE(plain);
    Ref<GstBufferPool> unexporting =
        Ref<GstBufferPool>::adopt(g2g::vulkan::export_pool_new(GST_VULKAN_DEVICE(plain.get())));
    configure(unexporting.get(), kImageCaps);
    EXPECT_FALSE(g2g::vulkan::export_pool_exports(unexporting.get())) << "a device that cannot export";

    // A pool of GStreamer's own is no export pool.
    Ref<GstBufferPool> theirs = Ref<GstBufferPool>::adopt(gst_vulkan_image_buffer_pool_new(device()));
    EXPECT_EQ(g2g::vulkan::export_pool_device(theirs.get()), nullptr);
    EXPECT_FALSE(g2g::vulkan::export_pool_exports(theirs.get()));
}

// A video decoder's configuration (vulkanh264dec's: its profile's decode caps, decode usage, the
// coded size) is served with exported images of its kind where the device can make, export and
// import them (NVIDIA's driver): one multi-planar image per frame, of the profile, with a timeline
// semaphore the decoder's video queue orders by. Elsewhere (lavapipe: no video extensions) it is
// served as GStreamer's own pool serves it, never with exported images of another kind. GStreamer
// 1.22 has no Vulkan video.
TEST_F(VulkanExportPool, ADecodersConfigurationIsServedWithImagesOfItsProfileWhereTheDeviceExportsThem)
{
    const std::string h264 = "video/x-h264, profile=(string)high, interlace-mode=(string)progressive, "
                             "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8";
    g2g::Result<g2g::compat::VideoProfile> profile = g2g::compat::VideoProfile::decoding(h264);
    if (!profile)
        GTEST_SKIP() << profile.error().message();
    const VkImageUsageFlags usage = VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR |
                                    VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    GstVideoInfo coded;
    gst_video_info_set_format(&coded, GST_VIDEO_FORMAT_NV12, 64, 64);
    const bool shareable = static_cast<bool>(g2g::vulkan::video_images_shareable(
        device(), g2g::compat::multi_planar_format(coded), {*profile, usage}, "the test's frame"));

    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(g2g::vulkan::export_pool_new(device()));
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    g2g::CapsRef caps = g2g::CapsRef::adopt(gst_caps_from_string(
        "video/x-raw(memory:VulkanImage),format=NV12,width=64,height=64,framerate=30/1"));
    gst_buffer_pool_config_set_params(config, caps.get(), 4096, 0, 0);
    g2g::compat::ask_image_pool_usage(config, usage);
    g2g::CapsRef decode = g2g::CapsRef::adopt(gst_caps_from_string(h264.c_str()));
    gst_structure_set(config, "decode-caps", GST_TYPE_CAPS, decode.get(), nullptr);
    const bool taken = gst_buffer_pool_set_config(pool.get(), config);
    EXPECT_EQ(g2g::vulkan::export_pool_exports(pool.get()), shareable);
    if (!shareable)
        return; // GStreamer's own pool took or refused it (lavapipe: no video extensions)
    ASSERT_TRUE(taken);
    EXPECT_EQ(g2g::vulkan::export_pool_usage(pool.get()), usage);
    ASSERT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));
    {
        BufferRef face = acquire(pool.get());
        const auto frame = ExportedFrame::of_face(face.get());
        ASSERT_TRUE(frame);
        ASSERT_NE(frame->video_profile(), nullptr);
        EXPECT_EQ(frame->video_profile()->caps(), h264);
        ASSERT_EQ(gst_buffer_n_memory(face.get()), 1u) << "one multi-planar image";
        auto *image = reinterpret_cast<GstVulkanImageMemory *>(gst_buffer_peek_memory(face.get(), 0));
        EXPECT_EQ(image->create_info.format, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM);
        EXPECT_NE(g2g::compat::vulkan_image_timeline(image).semaphore, VkSemaphore(VK_NULL_HANDLE))
            << "the decoder's video queue orders by the image's timeline";
        const std::vector<g2g::vulkan::ExternalImage> images = frame->planes(face.get());
        ASSERT_EQ(images.size(), 1u);
        EXPECT_GE(images[0].fd, 0);
        EXPECT_EQ(images[0].description.usage, usage);
        EXPECT_EQ(images[0].description.width, 64u);
        EXPECT_EQ(images[0].description.height, 64u);
    }
    gst_buffer_pool_set_active(pool.get(), FALSE);
}

// A face is known only whole and in order: planes swapped, planes of two frames, a plane missing
// or a memory added are no face (such a frame is copied, never sent as another's images).
TEST_F(VulkanExportPool, AFaceIsKnownOnlyWholeAndInOrder)
{
    // Two exported frames' faces, as the pool (or the producer's copy) makes them.
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 64, 48);
    const auto frames = g2g::vulkan::exported_pool(device());
    auto first = frames->acquire(info), second = frames->acquire(info);
    ASSERT_TRUE(first) << first.error().message();
    ASSERT_TRUE(second) << second.error().message();
    BufferRef a = (*first)->face(), b = (*second)->face();
    ASSERT_NE(id_of(a.get()), 0u);
    ASSERT_NE(id_of(b.get()), 0u);
    auto made_of = [](std::initializer_list<GstMemory *> memories) {
        BufferRef buffer = BufferRef::adopt(gst_buffer_new());
        for (GstMemory *memory : memories)
            gst_buffer_append_memory(buffer.get(), gst_memory_ref(memory));
        return buffer;
    };
    GstMemory *a0 = gst_buffer_peek_memory(a.get(), 0), *a1 = gst_buffer_peek_memory(a.get(), 1);
    GstMemory *b1 = gst_buffer_peek_memory(b.get(), 1);
    EXPECT_EQ(id_of(made_of({a0, a1}).get()), id_of(a.get()));
    EXPECT_EQ(id_of(made_of({a1, a0}).get()), 0u) << "planes swapped";
    EXPECT_EQ(id_of(made_of({a0, b1}).get()), 0u) << "planes of two frames";
    EXPECT_EQ(id_of(made_of({a0}).get()), 0u) << "a plane missing";
    GstMemory *system = gst_allocator_alloc(nullptr, 16, nullptr);
    EXPECT_EQ(id_of(made_of({a0, a1, system}).get()), 0u) << "a memory added";
    gst_memory_unref(system);
}
