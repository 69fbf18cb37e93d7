// SPDX-License-Identifier: LGPL-2.1-or-later
// The Vulkan engine on its own (on lavapipe in CI, on the GPU machine's driver there): every
// method and a crop of every format the Vulkan backend takes, materialized by the compute shader
// and read back by the fenced download, against the CPU backend's materialize of what the images
// hold; the download's frame waits for its fence on first map.
//
// What the images hold is the frame vulkanupload received only where its planes' default strides
// are their rows' length: GStreamer 1.22 to 1.26's vulkanupload copies each plane with a row length
// of the plane's width, ignoring the padded stride of an 8-bit plane whose width is not a multiple
// of 4 (GRAY8 37 wide arrives with rows shifted; its vulkandownload makes the same mistake
// backwards, so its round trip hides it): compat::vulkanupload_shears_padded_planes.
// docs/design-notes.md has it. Formats whose frames this GStreamer's vulkanupload cannot make
// (compat::vulkanupload_lacks_format: I420, YV12, Y444 and GRAY8 on 1.24 and 1.26) are uploaded by
// the test itself, faithfully, into images of the formats g2g gives them (compat::vulkan_plane_format).
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <g2g/classify.h>
#include <g2g/frame-view.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "compat/vulkan-format-compat.h"
#include "compat/vulkan-upload-compat.h"
#include "frames.h"
#include "pipeline.h"
#include "platform/vulkan/vulkan-commands.h"
#include "platform/vulkan/vulkan-engine.h"
#include "platform/vulkan/vulkan-fenced-memory.h"
#include "platform/vulkan/vulkan-staging.h"
#include "vulkan-cases.h"
#include "vulkan-frames.h"

using g2g::BufferRef;
using g2g::FrameView;
using g2g::test::compare_frames;
using g2g::test::have_vulkan_device;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;
using g2g::test::video_info;
using g2g::vulkan::Engine;

namespace {

constexpr GstVideoFormat kFormats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_AYUV, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,  GST_VIDEO_FORMAT_Y444,
};

constexpr GstVideoOrientationMethod kMethods[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_180,
    GST_VIDEO_ORIENTATION_90L,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL,
};

// One frame as videotestsrc made it (system memory) and as vulkanupload holds it (images).
struct Uploaded {
    GstVideoInfo info{};
    BufferRef system;
    BufferRef images;
};

// `system` (laid out as `info`) in images of a device of its own, one per plane of the format g2g
// gives it (compat::vulkan_plane_format), each plane copied with its rows as laid out: the faithful
// upload, for the formats this GStreamer's vulkanupload cannot make. The images hold the device (and
// it its instance); they are left as the copy wrote them, which their memories record.
// With `multiplanar`, one image of that multi-planar format instead, `extra_rows` taller than the
// frame, the planes copied into its aspects: a frame as GStreamer 1.24+'s video decoders make them
// (one image per frame, its extent the coded size, no storage usage).
BufferRef upload_here(const GstVideoInfo &info, GstBuffer *system, VkFormat multiplanar = VK_FORMAT_UNDEFINED,
                      guint extra_rows = 0)
{
    const g2g::Ref<GstObject> instance = g2g::Ref<GstObject>::adopt(GST_OBJECT(gst_vulkan_instance_new()));
    if (!gst_vulkan_instance_open(GST_VULKAN_INSTANCE(instance.get()), nullptr))
        return {};
    const g2g::Ref<GstObject> device = g2g::Ref<GstObject>::adopt(
        GST_OBJECT(gst_vulkan_instance_create_device(GST_VULKAN_INSTANCE(instance.get()), nullptr)));
    if (!device)
        return {};
    GstVulkanDevice *vk_device = GST_VULKAN_DEVICE(device.get());
    const g2g::Ref<GstObject> queue =
        g2g::Ref<GstObject>::adopt(GST_OBJECT(g2g::vulkan::new_compute_queue(vk_device)));
    if (!queue)
        return {};
    GstVulkanQueue *vk_queue = GST_VULKAN_QUEUE(queue.get());

    // The staging buffer, the frame's bytes at `info`'s offsets and strides.
    const g2g::MemoryRef staging = g2g::MemoryRef::adopt(gst_vulkan_buffer_memory_alloc(
        vk_device, GST_VIDEO_INFO_SIZE(&info), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    GstMapInfo from, to;
    if (!staging || !gst_buffer_map(system, &from, GST_MAP_READ))
        return {};
    if (!gst_memory_map(staging.get(), &to, GST_MAP_WRITE)) {
        gst_buffer_unmap(system, &from);
        return {};
    }
    memcpy(to.data, from.data, std::min(from.size, to.size));
    gst_memory_unmap(staging.get(), &to);
    gst_buffer_unmap(system, &from);

    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    if (multiplanar != VK_FORMAT_UNDEFINED) {
        GstMemory *image = gst_vulkan_image_memory_alloc(
            vk_device, multiplanar, GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info) + extra_rows,
            VK_IMAGE_TILING_OPTIMAL,
            VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (!image)
            return {};
        gst_buffer_append_memory(frame.get(), image);
    }
    for (guint p = 0; multiplanar == VK_FORMAT_UNDEFINED && p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        GstMemory *image = gst_vulkan_image_memory_alloc(
            vk_device, g2g::compat::vulkan_plane_format(info, p), GST_VIDEO_INFO_COMP_WIDTH(&info, p),
            GST_VIDEO_INFO_COMP_HEIGHT(&info, p), VK_IMAGE_TILING_OPTIMAL,
            VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                VK_IMAGE_USAGE_STORAGE_BIT,
            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (!image)
            return {};
        gst_buffer_append_memory(frame.get(), image);
    }

    // Recorded as the engine records (vulkan-commands.h): its barriers, its pooled fence, its
    // submissions (which keep the command buffer until the copy has run).
    GstVulkanCommandPool *command_pool = nullptr;
    g2g::vulkan::Submissions submissions(vk_device);
    g2g::Result<g2g::vulkan::Recording> recording =
        g2g::vulkan::Recording::begin(vk_queue, &command_pool, submissions);
    const g2g::Ref<GstObject> pool_kept = g2g::Ref<GstObject>::adopt(GST_OBJECT(command_pool));
    if (!recording)
        return {};
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        const std::optional<g2g::vulkan::ImagePlane> plane =
            g2g::vulkan::image_plane(frame.get(), GST_VIDEO_INFO_FORMAT(&info), p);
        if (!plane)
            return {};
        GstVulkanImageMemory *image = plane->image;
        if (p == 0 || multiplanar == VK_FORMAT_UNDEFINED)
            recording->transition(image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_TRANSFER_BIT);
        const VkBufferImageCopy region = g2g::vulkan::plane_copy_region(info, p, plane->aspect);
        vkCmdCopyBufferToImage(recording->cmd(),
                               reinterpret_cast<GstVulkanBufferMemory *>(staging.get())->buffer, image->image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    }
    g2g::Result<g2g::vulkan::Fence> fence = recording->submit();
    if (!fence || fence->wait() != VK_SUCCESS)
        return {};
    return frame;
}

Uploaded upload(GstVideoFormat format, int width, int height)
{
    const std::string caps = std::string("video/x-raw,format=") + gst_video_format_to_string(format) +
                             ",width=" + std::to_string(width) + ",height=" + std::to_string(height);
    if (!g2g::test::vulkanupload_cannot_make(gst_video_format_to_string(format)).empty()) {
        Uploaded frame;
        frame.info = video_info(format, width, height);
        PipelineRun run =
            run_pipeline("videotestsrc num-buffers=1 pattern=snow ! " + caps + " ! appsink name=sink");
        EXPECT_EQ(run.error, "");
        if (run.buffers.size() == 1) {
            frame.system = std::move(run.buffers[0]);
            frame.images = upload_here(frame.info, frame.system.get());
            EXPECT_TRUE(frame.images) << "the test's own upload of " << caps;
        }
        return frame;
    }
    PipelineRun run =
        run_pipeline("videotestsrc num-buffers=1 pattern=snow ! " + caps +
                     " ! tee name=t t. ! queue ! appsink name=system "
                     "t. ! queue ! vulkanupload ! video/x-raw(memory:VulkanImage) ! appsink name=images");
    Uploaded frame;
    frame.info = video_info(format, width, height);
    EXPECT_EQ(run.error, "");
    if (run.sinks["system"].size() == 1 && run.sinks["images"].size() == 1) {
        frame.system = std::move(run.sinks["system"][0]);
        frame.images = std::move(run.sinks["images"][0]);
    }
    return frame;
}

// Whether vulkanupload's copy keeps the rows of a frame of `info`: every plane's default stride is
// its rows' length, or this GStreamer does not shear padded planes, or the test uploads the frames
// of that format itself (faithfully).
bool uploads_faithfully(const GstVideoInfo &info)
{
    if (!g2g::compat::vulkanupload_shears_padded_planes() ||
        !g2g::test::vulkanupload_cannot_make(GST_VIDEO_INFO_NAME(&info)).empty())
        return true;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        if (GST_VIDEO_INFO_PLANE_STRIDE(&info, p) !=
            GST_VIDEO_INFO_COMP_WIDTH(&info, p) * GST_VIDEO_FORMAT_INFO_PSTRIDE(info.finfo, p))
            return false;
    }
    return true;
}

GstVulkanDevice *device_of(GstBuffer *images)
{
    return reinterpret_cast<GstVulkanImageMemory *>(gst_buffer_peek_memory(images, 0))->device;
}

// A frame of `info` from a storage pool of `engine`.
BufferRef storage_frame(Engine &engine, const GstVideoInfo &info)
{
    GstBufferPool *pool = engine.new_storage_pool();
    g2g::CapsRef caps = g2g::CapsRef::adopt(gst_video_info_to_caps(&info));
    gst_caps_set_features(caps.get(), 0, gst_caps_features_new_single("memory:VulkanImage"));
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps.get(), GST_VIDEO_INFO_SIZE(&info), 0, 0);
    BufferRef frame;
    if (gst_buffer_pool_set_config(pool, config) && gst_buffer_pool_set_active(pool, TRUE)) {
        gst_buffer_pool_acquire_buffer(pool, frame.out(), nullptr);
        gst_buffer_pool_set_active(pool, FALSE);
    }
    gst_object_unref(pool);
    return frame;
}

class VulkanEngineMaterialize
    : public ::testing::TestWithParam<std::tuple<GstVideoFormat, std::pair<int, int>>> {};

TEST_P(VulkanEngineMaterialize, EveryMethodAndACropEqualsTheCpuBackend)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    const auto [format, size] = GetParam();
    Uploaded frame = upload(format, size.first, size.second);
    ASSERT_TRUE(frame.images && frame.system);
    auto engine = Engine::for_device(device_of(frame.images.get()));
    ASSERT_TRUE(engine) << engine.error().message();
    // What the images hold, read back plainly; the frame videotestsrc made where vulkanupload
    // copies it faithfully.
    g2g::Result<BufferRef> held = (*engine)->download(frame.images.get(), frame.info);
    ASSERT_TRUE(held) << held.error().message();
    if (uploads_faithfully(frame.info)) {
        EXPECT_EQ(compare_frames(frame.info, held->get(), frame.info, frame.system.get()), "");
    }

    for (GstVideoOrientationMethod method : kMethods) {
        for (bool crop : {false, true}) {
            g2g::Result<FrameView> gpu_view = FrameView::of_frame(frame.images.get(), frame.info);
            g2g::Result<FrameView> cpu_view = FrameView::of_frame(held->get(), frame.info);
            ASSERT_TRUE(gpu_view) << gpu_view.error().message();
            ASSERT_TRUE(cpu_view) << cpu_view.error().message();
            // An even crop keeps 4:2:0 chroma whole; one pixel in from the right and the bottom.
            const guint left = crop && size.first > 4 ? 2 : 0, top = crop && size.second > 4 ? 2 : 0;
            if (crop && (left || top)) {
                ASSERT_TRUE(gpu_view->crop(left, top, size.first - left - 1, size.second - top - 1));
                ASSERT_TRUE(cpu_view->crop(left, top, size.first - left - 1, size.second - top - 1));
            }
            gpu_view->orient(method);
            cpu_view->orient(method);
            const std::string what = std::string(gst_video_format_to_string(format)) + " " +
                                     std::to_string(size.first) + "x" + std::to_string(size.second) +
                                     " method " + std::to_string(method) + (crop ? " cropped" : "");

            BufferRef written = storage_frame(**engine, gpu_view->info());
            ASSERT_TRUE(written) << what;
            g2g::Result<void> done = (*engine)->materialize(*gpu_view, frame.images.get(), written.get());
            ASSERT_TRUE(done) << what << ": " << done.error().message();
            g2g::Result<BufferRef> read = (*engine)->download(written.get(), gpu_view->info());
            ASSERT_TRUE(read) << what << ": " << read.error().message();
            g2g::Result<BufferRef> want = cpu_view->materialize(held->get());
            ASSERT_TRUE(want) << what;
            EXPECT_EQ(compare_frames(gpu_view->info(), read->get(), cpu_view->info(), want->get()), "")
                << what;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(FormatsAndSizes, VulkanEngineMaterialize,
                         ::testing::Combine(::testing::ValuesIn(kFormats),
                                            ::testing::Values(std::pair{64, 48}, std::pair{37, 23},
                                                              std::pair{1, 1}, std::pair{2, 3})),
                         [](const auto &info) {
                             return std::string(gst_video_format_to_string(std::get<0>(info.param))) + "_" +
                                    std::to_string(std::get<1>(info.param).first) + "x" +
                                    std::to_string(std::get<1>(info.param).second);
                         });

// The benchmark's frame size: every workgroup of a 4K dispatch lands (a rotation and a crop).
TEST(VulkanEngine4K, ARotatedAndCroppedFrameEqualsTheCpuBackend)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
        Uploaded frame = upload(format, 3840, 2160);
        ASSERT_TRUE(frame.images);
        auto engine = Engine::for_device(device_of(frame.images.get()));
        ASSERT_TRUE(engine);
        g2g::Result<BufferRef> held = (*engine)->download(frame.images.get(), frame.info);
        ASSERT_TRUE(held);
        EXPECT_EQ(compare_frames(frame.info, held->get(), frame.info, frame.system.get()), "");
        g2g::Result<FrameView> gpu_view = FrameView::of_frame(frame.images.get(), frame.info);
        g2g::Result<FrameView> cpu_view = FrameView::of_frame(held->get(), frame.info);
        ASSERT_TRUE(gpu_view && cpu_view);
        for (FrameView *view : {&*gpu_view, &*cpu_view}) {
            ASSERT_TRUE(view->crop(64, 32, 3840 - 64 - 2, 2160 - 32 - 6));
            view->orient(GST_VIDEO_ORIENTATION_90R);
        }
        BufferRef written = storage_frame(**engine, gpu_view->info());
        ASSERT_TRUE(written);
        ASSERT_TRUE((*engine)->materialize(*gpu_view, frame.images.get(), written.get()));
        g2g::Result<BufferRef> read = (*engine)->download(written.get(), gpu_view->info());
        g2g::Result<BufferRef> want = cpu_view->materialize(held->get());
        ASSERT_TRUE(read && want);
        EXPECT_EQ(compare_frames(gpu_view->info(), read->get(), cpu_view->info(), want->get()), "")
            << gst_video_format_to_string(format);
    }
}

// Why the first Vulkan device here cannot copy to and from images of `format` ("" if it can).
std::string cannot_copy_images_of(VkFormat format)
{
    const g2g::Ref<GstObject> instance = g2g::Ref<GstObject>::adopt(GST_OBJECT(gst_vulkan_instance_new()));
    if (!gst_vulkan_instance_open(GST_VULKAN_INSTANCE(instance.get()), nullptr))
        return "no Vulkan instance";
    const g2g::Ref<GstObject> device = g2g::Ref<GstObject>::adopt(
        GST_OBJECT(gst_vulkan_instance_create_device(GST_VULKAN_INSTANCE(instance.get()), nullptr)));
    if (!device)
        return "no Vulkan device";
    const GstVulkanPhysicalDevice *physical = GST_VULKAN_DEVICE(device.get())->physical_device;
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(physical->device, format, &properties);
    const VkFormatFeatureFlags needed =
        VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    if ((properties.optimalTilingFeatures & needed) == needed)
        return {};
    return std::string("Vulkan device '") + physical->properties.deviceName +
           "' has no multi-planar images of format " + std::to_string(format) +
           " (Mesa's lavapipe has them from 23.x; Debian 12's is 22.3)";
}

// Frames as GStreamer 1.24+'s video decoders make them (vulkanh264dec: one image of a multi-planar
// format per frame, the coded size, no MUTABLE_FORMAT and no storage usage): the engine's download
// copies each plane by aspect, and its materialize first copies each plane into an image the shader
// samples. Against the CPU backend on the frame the images were written from.
TEST(VulkanEngineMultiplanar, EveryMethodAndACropOfADecodersImageEqualsTheCpuBackend)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    const std::pair<GstVideoFormat, VkFormat> cases[] = {
        {GST_VIDEO_FORMAT_NV12, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM},
        {GST_VIDEO_FORMAT_I420, VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM},
        {GST_VIDEO_FORMAT_Y444, VK_FORMAT_G8_B8_R8_3PLANE_444_UNORM},
    };
    for (const auto &[format, multiplanar] : cases) {
        if (const std::string why = cannot_copy_images_of(multiplanar); !why.empty())
            GTEST_SKIP() << why;
        // 64x40 in a 64x48 image: 1080p H.264 decodes into 1088 rows.
        const GstVideoInfo info = video_info(format, 64, 40);
        PipelineRun run =
            run_pipeline(std::string("videotestsrc num-buffers=1 pattern=snow ! video/x-raw,format=") +
                         GST_VIDEO_INFO_NAME(&info) + ",width=64,height=40 ! appsink name=sink");
        ASSERT_EQ(run.buffers.size(), 1u) << run.error;
        GstBuffer *system = run.buffers[0].get();
        BufferRef images = upload_here(info, system, multiplanar, 8);
        ASSERT_TRUE(images) << "a " << GST_VIDEO_INFO_NAME(&info) << " multi-planar image";
        auto engine = Engine::for_device(device_of(images.get()));
        ASSERT_TRUE(engine);
        g2g::Result<BufferRef> held = (*engine)->download(images.get(), info);
        ASSERT_TRUE(held) << held.error().message();
        EXPECT_EQ(compare_frames(info, held->get(), info, system), "") << GST_VIDEO_INFO_NAME(&info);
        for (GstVideoOrientationMethod method : kMethods) {
            for (bool crop : {false, true}) {
                g2g::Result<FrameView> gpu_view = FrameView::of_frame(images.get(), info);
                g2g::Result<FrameView> cpu_view = FrameView::of_frame(system, info);
                ASSERT_TRUE(gpu_view) << gpu_view.error().message();
                ASSERT_TRUE(cpu_view) << cpu_view.error().message();
                for (FrameView *view : {&*gpu_view, &*cpu_view}) {
                    if (crop) {
                        ASSERT_TRUE(view->crop(2, 4, 64 - 2 - 6, 40 - 4 - 2));
                    }
                    view->orient(method);
                }
                const std::string what = std::string(GST_VIDEO_INFO_NAME(&info)) + " method " +
                                         std::to_string(method) + (crop ? " cropped" : "");
                BufferRef written = storage_frame(**engine, gpu_view->info());
                ASSERT_TRUE(written) << what;
                g2g::Result<void> done = (*engine)->materialize(*gpu_view, images.get(), written.get());
                ASSERT_TRUE(done) << what << ": " << done.error().message();
                g2g::Result<BufferRef> read = (*engine)->download(written.get(), gpu_view->info());
                g2g::Result<BufferRef> want = cpu_view->materialize(system);
                ASSERT_TRUE(read && want) << what;
                EXPECT_EQ(compare_frames(gpu_view->info(), read->get(), cpu_view->info(), want->get()), "")
                    << what;
            }
        }
    }
}

// A multi-planar image whose planes are not the caps' (a 3-plane I420 image under NV12 caps) is
// refused by name, never read as the caps' planes; so is a view of it.
TEST(VulkanEngineMultiplanar, AnImageOfOtherPlanesThanTheCapsIsRefused)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    if (const std::string why = cannot_copy_images_of(VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM); !why.empty())
        GTEST_SKIP() << why;
    const GstVideoInfo i420 = video_info(GST_VIDEO_FORMAT_I420, 64, 40);
    PipelineRun run =
        run_pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=64,height=40 ! "
                     "appsink name=sink");
    ASSERT_EQ(run.buffers.size(), 1u) << run.error;
    BufferRef images = upload_here(i420, run.buffers[0].get(), VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM);
    ASSERT_TRUE(images);
    auto engine = Engine::for_device(device_of(images.get()));
    ASSERT_TRUE(engine);
    const GstVideoInfo nv12 = video_info(GST_VIDEO_FORMAT_NV12, 64, 40);
    g2g::Result<BufferRef> read = (*engine)->download(images.get(), nv12);
    ASSERT_FALSE(read);
    EXPECT_EQ(read.error().message(),
              "plane 0 of the frame is not a Vulkan image of NV12's planes (one image "
              "each, or one multi-planar image)");
    g2g::Result<FrameView> view = FrameView::of_frame(images.get(), nv12);
    if (view) {
        BufferRef written = storage_frame(**engine, view->info());
        ASSERT_TRUE(written);
        g2g::Result<void> done = (*engine)->materialize(*view, images.get(), written.get());
        ASSERT_FALSE(done);
        EXPECT_EQ(done.error().message(),
                  "plane 0 of the source is not a Vulkan image of the view's NV12 planes");
    }
}

// The downloads' frame: NV12 64x48 as vulkanupload made it (and as it was in system memory), and an
// engine on its device.
class VulkanEngineDownload : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!have_vulkan_device())
            GTEST_SKIP() << "no Vulkan device on this machine";
        frame = upload(GST_VIDEO_FORMAT_NV12, 64, 48);
        ASSERT_TRUE(frame.images && frame.system);
        g2g::Result<std::shared_ptr<Engine>> made = Engine::for_device(device_of(frame.images.get()));
        ASSERT_TRUE(made) << made.error().message();
        engine = *made;
    }

    Uploaded frame;
    std::shared_ptr<Engine> engine;
};

TEST_F(VulkanEngineDownload, HandsTheFrameOnAtOnceAndWaitsOnFirstMap)
{
    g2g::Result<BufferRef> read = engine->download(frame.images.get(), frame.info);
    ASSERT_TRUE(read) << read.error().message();
    GstMemory *memory = gst_buffer_peek_memory(read->get(), 0);
    EXPECT_TRUE(g2g::vulkan::is_fenced_memory(memory));
    EXPECT_STREQ(memory->allocator->mem_type, g2g::vulkan::kFencedMemoryType);
    EXPECT_EQ(compare_frames(frame.info, read->get(), frame.info, frame.system.get()), "");
    // A share of it (as gst_buffer_copy_region makes) reads the same bytes.
    BufferRef part = BufferRef::adopt(gst_buffer_copy_region(read->get(), GST_BUFFER_COPY_MEMORY, 64, 128));
    GstMapInfo whole, shared;
    ASSERT_TRUE(gst_buffer_map(read->get(), &whole, GST_MAP_READ));
    ASSERT_TRUE(gst_buffer_map(part.get(), &shared, GST_MAP_READ));
    EXPECT_EQ(0, memcmp(whole.data + 64, shared.data, 128));
    gst_buffer_unmap(part.get(), &shared);
    gst_buffer_unmap(read->get(), &whole);
}

// Maps `frame` and unmaps it, as a sink that reads it does (the first map waits for the copy).
bool read_frame(GstBuffer *frame)
{
    GstMapInfo map;
    if (!gst_buffer_map(frame, &map, GST_MAP_READ))
        return false;
    gst_buffer_unmap(frame, &map);
    return true;
}

// Nothing is made per frame once a stream runs: the fences come back to the engine's pool and the
// staging buffers to its free list, whether a sink reads each frame at once, 4 frames later (behind
// a queue) or never (a fakesink). Every frame holds the bytes of its own copy.
TEST_F(VulkanEngineDownload, ManyDownloadsReuseAFewFencesAndStagingBuffers)
{
    constexpr int kFrames = 200;

    for (int i = 0; i < kFrames; ++i) {
        g2g::Result<BufferRef> read = engine->download(frame.images.get(), frame.info);
        ASSERT_TRUE(read) << "frame " << i << ": " << read.error().message();
        if (i % 50 == 0)
            EXPECT_EQ(compare_frames(frame.info, read->get(), frame.info, frame.system.get()), "")
                << "frame " << i;
        else
            ASSERT_TRUE(read_frame(read->get())) << "frame " << i;
    }
    const Engine::Created at_once = engine->created();
    EXPECT_LE(at_once.fences, 2u) << "frames read at once";
    EXPECT_EQ(at_once.staging_buffers, 1u) << "frames read at once";

    std::deque<BufferRef> queued;
    for (int i = 0; i < kFrames; ++i) {
        g2g::Result<BufferRef> read = engine->download(frame.images.get(), frame.info);
        ASSERT_TRUE(read) << "frame " << i << ": " << read.error().message();
        queued.push_back(std::move(*read));
        if (queued.size() <= 4)
            continue;
        if (i % 50 == 0)
            EXPECT_EQ(compare_frames(frame.info, queued.front().get(), frame.info, frame.system.get()), "")
                << "frame " << i - 4;
        else
            ASSERT_TRUE(read_frame(queued.front().get())) << "frame " << i - 4;
        queued.pop_front();
    }
    queued.clear();
    const Engine::Created behind_a_queue = engine->created();
    // Five frames out at once, a buffer back in the free list, a fence of a submission not collected.
    EXPECT_LE(behind_a_queue.fences, 8u) << "frames read 4 later";
    EXPECT_LE(behind_a_queue.staging_buffers, 6u) << "frames read 4 later";

    for (int i = 0; i < kFrames; ++i) {
        g2g::Result<BufferRef> dropped = engine->download(frame.images.get(), frame.info);
        ASSERT_TRUE(dropped) << "frame " << i << ": " << dropped.error().message();
    }
    const Engine::Created unread = engine->created();
    EXPECT_LE(unread.staging_buffers, g2g::vulkan::StagingPool::kMaxBuffers) << "frames dropped unread";
    EXPECT_LE(unread.fences, g2g::vulkan::StagingPool::kMaxBuffers + 2) << "frames dropped unread";
    g2g::Result<BufferRef> last = engine->download(frame.images.get(), frame.info);
    ASSERT_TRUE(last);
    EXPECT_EQ(compare_frames(frame.info, last->get(), frame.info, frame.system.get()), "");
}

// A reader waits for its frame's copy once, at its first map, and is told how: by polling the fence
// from shortly before the copy is due (from the last copies' lengths), seen done after a slice of the
// sleep before, asleep in the driver's wait where none is known yet or the copy is held up, or not at
// all where the copy ran before it came (vulkan-copy-due.h).
// Every frame read at once is one of those waits, and holds its copy's bytes; once three copies
// were seen, a reader no longer sleeps through its copy unless the copy is late.
TEST_F(VulkanEngineDownload, AReaderWaitsForItsCopyOnceAndPollsWhenItIsDueSoon)
{
    constexpr int kFrames = 60;
    const g2g::vulkan::CopyDue::Waits before = engine->download_waits();
    for (int i = 0; i < kFrames; ++i) {
        g2g::Result<BufferRef> read = engine->download(frame.images.get(), frame.info);
        ASSERT_TRUE(read) << "frame " << i << ": " << read.error().message();
        if (i % 10 == 0)
            EXPECT_EQ(compare_frames(frame.info, read->get(), frame.info, frame.system.get()), "")
                << "frame " << i;
        else
            ASSERT_TRUE(read_frame(read->get())) << "frame " << i;
        ASSERT_TRUE(read_frame(read->get())) << "a second map waits no more";
    }
    const g2g::vulkan::CopyDue::Waits after = engine->download_waits();
    const std::uint64_t polled = after.polled - before.polled, woken = after.woken - before.woken,
                        slept = after.slept - before.slept, done = after.already_done - before.already_done;
    EXPECT_EQ(polled + woken + slept + done, std::uint64_t(kFrames)) << "one wait a frame, at its first map";
    // The first copies teach the lengths (asleep, or done before their reader came); after them a
    // reader sleeps through its copy only when the copy runs late (this machine is shared: some).
    EXPECT_LT(slept, std::uint64_t(kFrames / 2)) << polled << " polled, " << done << " done before";
}

// What a copy's length is known as: nothing before three copies of its size, then the median of the
// last nine; each size apart, the four used last kept.
TEST(VulkanCopyDue, IsTheMedianOfTheLastCopiesOfTheSameSize)
{
    g2g::vulkan::CopyDue due;
    EXPECT_FALSE(due.due_ns(100));
    due.observe(100, 500);
    due.observe(100, 700);
    EXPECT_FALSE(due.due_ns(100)) << "two copies say nothing yet";
    due.observe(100, 600);
    EXPECT_EQ(due.due_ns(100), 600u);
    // Twelve more: only the last nine count, and one late copy moves nothing.
    for (std::uint64_t ns : {900u, 910u, 920u, 930u, 940u, 950u, 960u, 970u, 50000u, 980u, 990u, 1000u})
        due.observe(100, ns);
    EXPECT_EQ(due.due_ns(100), 970u);
    EXPECT_FALSE(due.due_ns(200)) << "another size is apart";

    // Four sizes kept: a fifth takes the place of the one used longest ago.
    for (std::size_t bytes : {200u, 300u, 400u})
        for (int i = 0; i < 3; ++i)
            due.observe(bytes, bytes * 10);
    EXPECT_EQ(due.due_ns(200), 2000u);
    EXPECT_EQ(due.due_ns(300), 3000u);
    EXPECT_EQ(due.due_ns(400), 4000u);
    EXPECT_EQ(due.due_ns(100), 970u); // used last now; 200 was used longest ago
    for (int i = 0; i < 3; ++i)
        due.observe(500, 5000);
    EXPECT_EQ(due.due_ns(500), 5000u);
    EXPECT_FALSE(due.due_ns(200)) << "the size used longest ago is forgotten";
    EXPECT_EQ(due.due_ns(100), 970u);
}

// A frame is handed on at once and may outlive the engine that made it, with its fence (of the
// engine's pool) and its staging buffer (of the engine's free list): dropping the engine first, then
// reading the frames and their shares, or dropping them unread, is safe and frees everything (the
// leaks tracer's run checks the last part).
TEST_F(VulkanEngineDownload, FramesOutliveTheirEngineAndItsFences)
{
    std::vector<BufferRef> frames;
    for (int i = 0; i < 6; ++i) {
        g2g::Result<BufferRef> read = engine->download(frame.images.get(), frame.info);
        ASSERT_TRUE(read) << read.error().message();
        frames.push_back(std::move(*read));
    }
    // One read before the engine goes, one shared (as gst_buffer_copy_region shares it).
    EXPECT_EQ(compare_frames(frame.info, frames[0].get(), frame.info, frame.system.get()), "");
    BufferRef part =
        BufferRef::adopt(gst_buffer_copy_region(frames[1].get(), GST_BUFFER_COPY_MEMORY, 64, 128));
    ASSERT_TRUE(part);
    const std::weak_ptr<Engine> watched = engine;
    engine.reset();
    ASSERT_TRUE(watched.expired()) << "the frames hold no reference to their engine";
    // The frames read after their engine: each waits for its own fence.
    for (std::size_t i = 0; i < frames.size(); i += 2)
        EXPECT_EQ(compare_frames(frame.info, frames[i].get(), frame.info, frame.system.get()), "")
            << "frame " << i;
    GstMapInfo whole, shared;
    ASSERT_TRUE(gst_buffer_map(part.get(), &shared, GST_MAP_READ)); // the share waits for the copy
    ASSERT_TRUE(gst_buffer_map(frames[1].get(), &whole, GST_MAP_READ));
    EXPECT_EQ(0, memcmp(whole.data + 64, shared.data, 128));
    gst_buffer_unmap(frames[1].get(), &whole);
    gst_buffer_unmap(part.get(), &shared);
    // Dropped in no particular order, frames 3 and 5 unread: their buffers wait for their copies
    // before they are freed, and the last fence back frees the pool.
    frames[1].reset();
    frames[5].reset();
    part.reset();
    frames.clear();
}

TEST(VulkanEngineMaterializeInFlight, MoreFramesThanDescriptorSetsWaitInsteadOfFailing)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    Uploaded frame = upload(GST_VIDEO_FORMAT_NV12, 64, 48);
    ASSERT_TRUE(frame.images);
    auto engine = Engine::for_device(device_of(frame.images.get()));
    ASSERT_TRUE(engine);
    g2g::Result<FrameView> view = FrameView::of_frame(frame.images.get(), frame.info);
    ASSERT_TRUE(view);
    view->orient(GST_VIDEO_ORIENTATION_90R);
    // 300 frames of 2 planes, none waited for: 600 descriptor sets where the engine has 256.
    BufferRef written = storage_frame(**engine, view->info());
    ASSERT_TRUE(written);
    for (int i = 0; i < 300; ++i) {
        g2g::Result<void> done = (*engine)->materialize(*view, frame.images.get(), written.get());
        ASSERT_TRUE(done) << "frame " << i << ": " << done.error().message();
    }
    (*engine)->wait_idle();
}

TEST(VulkanEngineRefusals, AViewOfAnotherDeviceIsRefusedNamingBoth)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    Uploaded frame = upload(GST_VIDEO_FORMAT_RGBA, 16, 16);
    ASSERT_TRUE(frame.images);
    GstVulkanDevice *device = device_of(frame.images.get());
    // A second logical device of the same physical device: its images are not this one's.
    GstVulkanDevice *other =
        gst_vulkan_device_new_with_index(device->instance, device->physical_device->device_index);
    ASSERT_TRUE(gst_vulkan_device_open(other, nullptr));
    auto engine = Engine::for_device(other);
    ASSERT_TRUE(engine);
    g2g::Result<FrameView> view = FrameView::of_frame(frame.images.get(), frame.info);
    ASSERT_TRUE(view);
    BufferRef written = storage_frame(**engine, view->info());
    ASSERT_TRUE(written);
    g2g::Result<void> done = (*engine)->materialize(*view, frame.images.get(), written.get());
    ASSERT_FALSE(done);
    EXPECT_NE(done.error().message().find("the frame's Vulkan images are of device " +
                                          Engine::describe(device) + " but g2g works on device " +
                                          Engine::describe(other)),
              std::string::npos)
        << done.error().message();
    written.reset();
    engine->reset();
    gst_object_unref(other);
}

} // namespace

// The CUDA bridge's Vulkan half (platform/cuda-vulkan/): a frame copied into a buffer at the
// planes' offsets and row pitches CUDA reads, the queue then drained. The buffer here is a
// host-visible one, read back by the CPU, in place of the exported one CUDA imports.
TEST(VulkanEngineExternalCopy, AFrameLandsInTheBufferAtTheLayoutsOffsetsAndPitches)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    for (const auto &[format, width, height] :
         {std::tuple{GST_VIDEO_FORMAT_NV12, 64, 48}, std::tuple{GST_VIDEO_FORMAT_RGBA, 37, 23},
          std::tuple{GST_VIDEO_FORMAT_I420, 320, 2}, std::tuple{GST_VIDEO_FORMAT_Y444, 16, 9}}) {
        const std::string what = std::string(gst_video_format_to_string(format)) + " " +
                                 std::to_string(width) + "x" + std::to_string(height);
        Uploaded frame = upload(format, width, height);
        ASSERT_TRUE(frame.images && frame.system) << what;
        auto engine = Engine::for_device(device_of(frame.images.get()));
        ASSERT_TRUE(engine) << what;
        // Rows padded to 256 bytes, planes one after another: what SharedBuffer lays out.
        GstVideoInfo layout = frame.info;
        gsize offset = 0;
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&layout); ++p) {
            const gint row = GST_VIDEO_INFO_COMP_WIDTH(&layout, p) * GST_VIDEO_INFO_COMP_PSTRIDE(&layout, p);
            GST_VIDEO_INFO_PLANE_STRIDE(&layout, p) = (row + 255) / 256 * 256;
            GST_VIDEO_INFO_PLANE_OFFSET(&layout, p) = offset;
            offset += static_cast<gsize>(GST_VIDEO_INFO_PLANE_STRIDE(&layout, p)) *
                      static_cast<gsize>(GST_VIDEO_INFO_COMP_HEIGHT(&layout, p));
        }
        GST_VIDEO_INFO_SIZE(&layout) = offset;
        GstMemory *buffer = gst_vulkan_buffer_memory_alloc(
            device_of(frame.images.get()), offset, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        ASSERT_TRUE(buffer) << what;
        g2g::Result<void> copied = (*engine)->copy_to_external_buffer(
            frame.images.get(), reinterpret_cast<GstVulkanBufferMemory *>(buffer)->buffer, layout);
        ASSERT_TRUE(copied) << what << ": " << copied.error().message();
        ASSERT_TRUE((*engine)->finish()) << what;
        BufferRef read = BufferRef::adopt(gst_buffer_new());
        gst_buffer_append_memory(read.get(), buffer);
        gst_buffer_add_video_meta_full(read.get(), GST_VIDEO_FRAME_FLAG_NONE, format, width, height,
                                       GST_VIDEO_INFO_N_PLANES(&layout), layout.offset, layout.stride);
        // Sizes whose rows vulkanupload keeps (the design notes' row-length bug).
        EXPECT_TRUE(uploads_faithfully(frame.info)) << what;
        EXPECT_EQ(compare_frames(layout, read.get(), frame.info, frame.system.get()), "") << what;
    }
}

TEST(VulkanEngineExternalCopy, AFrameOfOtherPlanesOrSizesIsRefused)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    Uploaded frame = upload(GST_VIDEO_FORMAT_NV12, 64, 48);
    ASSERT_TRUE(frame.images);
    auto engine = Engine::for_device(device_of(frame.images.get()));
    ASSERT_TRUE(engine);
    GstMemory *buffer =
        gst_vulkan_buffer_memory_alloc(device_of(frame.images.get()), 1 << 16,
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    ASSERT_TRUE(buffer);
    VkBuffer vk = reinterpret_cast<GstVulkanBufferMemory *>(buffer)->buffer;
    const GstVideoInfo rgba = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    g2g::Result<void> planes = (*engine)->copy_to_external_buffer(frame.images.get(), vk, rgba);
    ASSERT_FALSE(planes);
    EXPECT_EQ(planes.error().message(),
              "the frame has 2 memories for RGBA's 1 planes (one Vulkan image each, or one multi-planar "
              "image)");
    const GstVideoInfo bigger = video_info(GST_VIDEO_FORMAT_NV12, 64, 50);
    g2g::Result<void> size = (*engine)->copy_to_external_buffer(frame.images.get(), vk, bigger);
    ASSERT_FALSE(size);
    EXPECT_EQ(size.error().message(), "plane 0's Vulkan image is 64x48, smaller than NV12 64x50 needs");
    gst_memory_unref(buffer);
}

// What GStreamer 1.22's vulkanupload hands on after a renegotiation to a smaller size: images of
// its first caps' size. Their top-left corner is the frame.
TEST(VulkanEngineExternalCopy, ImagesLargerThanTheFrameGiveTheirCorner)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    Uploaded frame = upload(GST_VIDEO_FORMAT_RGBA, 64, 48);
    ASSERT_TRUE(frame.images && frame.system);
    auto engine = Engine::for_device(device_of(frame.images.get()));
    ASSERT_TRUE(engine);
    const GstVideoInfo corner = video_info(GST_VIDEO_FORMAT_RGBA, 40, 30); // stride 160
    GstMemory *buffer = gst_vulkan_buffer_memory_alloc(
        device_of(frame.images.get()), GST_VIDEO_INFO_SIZE(&corner), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    ASSERT_TRUE(buffer);
    ASSERT_TRUE((*engine)->copy_to_external_buffer(
        frame.images.get(), reinterpret_cast<GstVulkanBufferMemory *>(buffer)->buffer, corner));
    ASSERT_TRUE((*engine)->finish());
    GstMapInfo map;
    ASSERT_TRUE(gst_memory_map(buffer, &map, GST_MAP_READ));
    GstMapInfo source;
    ASSERT_TRUE(gst_buffer_map(frame.system.get(), &source, GST_MAP_READ));
    for (int y = 0; y < 30; ++y)
        ASSERT_EQ(0, memcmp(map.data + y * 160, source.data + y * 256, 160)) << "row " << y;
    gst_buffer_unmap(frame.system.get(), &source);
    gst_memory_unmap(buffer, &map);
    gst_memory_unref(buffer);
}

TEST(VulkanEngineExternalCopy, ReleasedImagesEndInTheGeneralLayoutRecordedInTheirMemories)
{
    if (!have_vulkan_device())
        GTEST_SKIP() << "no Vulkan device on this machine";
    Uploaded frame = upload(GST_VIDEO_FORMAT_NV12, 64, 48);
    ASSERT_TRUE(frame.images);
    auto engine = Engine::for_device(device_of(frame.images.get()));
    ASSERT_TRUE(engine);
    ASSERT_TRUE((*engine)->release_to_external(frame.images.get()));
    ASSERT_TRUE((*engine)->finish());
    for (guint p = 0; p < 2; ++p) {
        auto *image = reinterpret_cast<GstVulkanImageMemory *>(gst_buffer_peek_memory(frame.images.get(), p));
        EXPECT_EQ(image->barrier.image_layout, VK_IMAGE_LAYOUT_GENERAL);
        EXPECT_EQ(image->barrier.parent.access_flags, 0u);
    }
    // The frame reads back the same after (g2g's download, which transitions from what was recorded).
    g2g::Result<BufferRef> read = (*engine)->download(frame.images.get(), frame.info, true);
    ASSERT_TRUE(read);
    EXPECT_EQ(compare_frames(frame.info, read->get(), frame.info, frame.system.get()), "");
}
