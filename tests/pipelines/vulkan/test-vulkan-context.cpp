// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview's and g2gmaterialize's Vulkan context glue (gst/common/vulkan-context), on lavapipe:
// they share the device and the queue of GStreamer's Vulkan elements around them, use a device the
// application hands them through NEED_CONTEXT, refuse a frame of another device naming both, say
// "no Vulkan device" when there is none, and open nothing Vulkan in a system-memory pipeline; and
// g2gmaterialize's download of VulkanImage frames (views and dense) to system memory.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "platform/vulkan/gst-vulkan.h"
#include "platform/vulkan/vulkan-engine.h"

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "frames.h"
#include "pipeline.h"
#include "vulkan-cases.h"
#include "vulkan-teardown.h"

using g2g::BufferRef;
using g2g::ElementRef;
using g2g::test::have_vulkan_device;
using g2g::test::PipelineRun;
using g2g::test::run_pipeline;

namespace {

constexpr const char *kSource = "videotestsrc num-buffers=3 pattern=smpte ! "
                                "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";
constexpr const char *kImageCaps =
    "video/x-raw(memory:VulkanImage),format=RGBA,width=64,height=48,framerate=30/1";

// The object of `type` ("gst.vulkan.device", ...) a CONTEXT query on `element`'s src pad is
// answered with, one reference; nullptr when it is not answered.
GstObject *context_object(GstElement *element, const char *type)
{
    GstQuery *query = gst_query_new_context(type);
    GstPad *pad = gst_element_get_static_pad(element, "src");
    GstObject *object = nullptr;
    if (gst_pad_query(pad, query)) {
        GstContext *context = nullptr;
        gst_query_parse_context(query, &context);
        const GstStructure *s = context ? gst_context_get_structure(context) : nullptr;
        const GValue *value = s ? gst_structure_get_value(s, type) : nullptr;
        if (value && G_VALUE_HOLDS_OBJECT(value))
            object = GST_OBJECT(g_value_dup_object(value));
    }
    gst_object_unref(pad);
    gst_query_unref(query);
    return object;
}

// The same, as a pointer to compare (the reference dropped: the element keeps it alive).
gpointer answered(GstBin *pipeline, const char *name, const char *type)
{
    ElementRef element = ElementRef::adopt(gst_bin_get_by_name(pipeline, name));
    GstObject *object = element ? context_object(element.get(), type) : nullptr;
    if (object)
        gst_object_unref(object);
    return object;
}

// The application's side of a pipeline with an appsrc named "src": a sync bus handler that
// records every NEED_CONTEXT and HAVE_CONTEXT and answers the device (and its instance) it was
// given, the frames it pushes, and the end of the run.
class AppPipeline {
public:
    explicit AppPipeline(const std::string &description, GstVulkanDevice *device = nullptr) : device_(device)
    {
        pipeline_ = ElementRef::adopt(gst_parse_launch(description.c_str(), nullptr));
        GstBus *bus = gst_element_get_bus(pipeline_.get());
        gst_bus_set_sync_handler(bus, on_message, this, nullptr);
        gst_object_unref(bus);
        // Pulled as they come: appsink posts EOS only once its samples are taken.
        ElementRef sink = ElementRef::adopt(gst_bin_get_by_name(bin(), "sink"));
        GstAppSinkCallbacks callbacks{};
        callbacks.new_sample = [](GstAppSink *appsink, gpointer data) -> GstFlowReturn {
            auto *self = static_cast<AppPipeline *>(data);
            GstSample *sample = gst_app_sink_pull_sample(appsink);
            if (!sample)
                return GST_FLOW_EOS;
            const std::lock_guard lock(self->lock_);
            self->received_.push_back(BufferRef::borrow(gst_sample_get_buffer(sample)));
            gst_sample_unref(sample);
            return GST_FLOW_OK;
        };
        gst_app_sink_set_callbacks(GST_APP_SINK(sink.get()), &callbacks, this, nullptr);
    }
    ~AppPipeline() { stop(); }
    AppPipeline(const AppPipeline &) = delete;
    AppPipeline &operator=(const AppPipeline &) = delete;

    GstBin *bin() const { return GST_BIN(pipeline_.get()); }

    // Plays, pushes `frames` (timestamped 1/30 s apart) and EOS into "src", and waits for EOS or
    // the first error, whose text it returns ("" at EOS, "timeout" without either).
    std::string run(const std::vector<BufferRef> &frames)
    {
        gst_element_set_state(pipeline_.get(), GST_STATE_PLAYING);
        ElementRef src = ElementRef::adopt(gst_bin_get_by_name(bin(), "src"));
        GstClockTime pts = 0;
        for (const BufferRef &frame : frames) {
            GstBuffer *buffer = gst_buffer_ref(frame.get());
            GST_BUFFER_PTS(buffer) = pts;
            GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
            pts += GST_SECOND / 30;
            gst_app_src_push_buffer(GST_APP_SRC(src.get()), buffer);
        }
        gst_app_src_end_of_stream(GST_APP_SRC(src.get()));
        GstBus *bus = gst_element_get_bus(pipeline_.get());
        GstMessage *message = gst_bus_timed_pop_filtered(
            bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
        gst_object_unref(bus);
        if (!message)
            return "timeout";
        std::string text = g2g::test::message_text(message);
        gst_message_unref(message);
        return text;
    }

    void stop()
    {
        if (!pipeline_)
            return;
        g2g::test::wait_for_vulkan_devices(bin());
        if (device_)
            vkDeviceWaitIdle(device_->device);
        gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
        pipeline_.reset();
    }

    std::vector<std::string> needed() const
    {
        const std::lock_guard lock(lock_);
        return needed_;
    }
    std::vector<std::string> had() const
    {
        const std::lock_guard lock(lock_);
        return had_;
    }
    // What appsink "sink" received, in order.
    std::vector<BufferRef> received() const
    {
        const std::lock_guard lock(lock_);
        return received_;
    }

private:
    static GstBusSyncReply on_message(GstBus *, GstMessage *message, gpointer data)
    {
        auto *self = static_cast<AppPipeline *>(data);
        const char *type = nullptr;
        if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_NEED_CONTEXT &&
            gst_message_parse_context_type(message, &type)) {
            {
                const std::lock_guard lock(self->lock_);
                self->needed_.push_back(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ":" + type);
            }
            GstContext *context = nullptr;
            if (self->device_ && g_strcmp0(type, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR) == 0) {
                context = gst_context_new(type, TRUE);
                gst_context_set_vulkan_device(context, self->device_);
            } else if (self->device_ && g_strcmp0(type, GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR) == 0) {
                context = gst_context_new(type, TRUE);
                gst_context_set_vulkan_instance(context, self->device_->instance);
            }
            if (context) {
                gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(message)), context);
                gst_context_unref(context);
            }
        } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_HAVE_CONTEXT) {
            GstContext *context = nullptr;
            gst_message_parse_have_context(message, &context);
            const std::lock_guard lock(self->lock_);
            self->had_.push_back(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ":" +
                                 gst_context_get_context_type(context));
            gst_context_unref(context);
        }
        return GST_BUS_PASS;
    }

    GstVulkanDevice *device_;
    ElementRef pipeline_;
    mutable std::mutex lock_;
    std::vector<std::string> needed_;
    std::vector<std::string> had_;
    std::vector<BufferRef> received_;
};

// An opened Vulkan instance and a device of its first physical device, the application's own.
struct AppVulkan {
    GstVulkanInstance *instance = nullptr;
    GstVulkanDevice *device = nullptr;

    AppVulkan()
    {
        instance = gst_vulkan_instance_new();
        if (!gst_vulkan_instance_open(instance, nullptr))
            return;
        device = gst_vulkan_instance_create_device(instance, nullptr);
    }
    ~AppVulkan()
    {
        if (device) {
            vkDeviceWaitIdle(device->device);
            gst_object_unref(device);
        }
        gst_object_unref(instance);
    }
    // Another VkDevice on the same physical device.
    GstVulkanDevice *another_device() const
    {
        GstVulkanDevice *other = gst_vulkan_device_new_with_index(instance, 0);
        if (!gst_vulkan_device_open(other, nullptr)) {
            gst_object_unref(other);
            return nullptr;
        }
        return other;
    }
};

// `count` RGBA 64x48 frames of Vulkan images of `device` (GStreamer's image pool), left undefined:
// the tests that push them read no pixel.
std::vector<BufferRef> image_frames(GstVulkanDevice *device, int count)
{
    std::vector<BufferRef> frames;
    GstBufferPool *pool = gst_vulkan_image_buffer_pool_new(device);
    GstCaps *caps = gst_caps_from_string(kImageCaps);
    GstVideoInfo info;
    gst_video_info_from_caps(&info, caps);
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0, 0);
    gst_caps_unref(caps);
    if (gst_buffer_pool_set_config(pool, config) && gst_buffer_pool_set_active(pool, TRUE)) {
        for (int i = 0; i < count; ++i) {
            BufferRef frame;
            if (gst_buffer_pool_acquire_buffer(pool, frame.out(), nullptr) == GST_FLOW_OK)
                frames.push_back(std::move(frame));
        }
        gst_buffer_pool_set_active(pool, FALSE);
    }
    gst_object_unref(pool);
    return frames;
}

bool contains(const std::vector<std::string> &list, const std::string &item)
{
    for (const std::string &entry : list) {
        if (entry == item)
            return true;
    }
    return false;
}

bool any_names(const std::vector<std::string> &list, const std::string &part)
{
    for (const std::string &entry : list) {
        if (entry.find(part) != std::string::npos)
            return true;
    }
    return false;
}

} // namespace

TEST(VulkanContext, TheViewElementsShareTheDeviceAndQueueOfVulkanuploadAndVulkandownload)
{
    SKIP_WITHOUT_VULKAN();
    gpointer devices[4] = {}, queues[4] = {};
    const char *names[4] = {"up", "view", "mat", "down"};
    PipelineRun run = run_pipeline(
        std::string(kSource) + " ! vulkanupload name=up ! g2gview name=view video-direction=horiz "
                               "! g2gmaterialize name=mat ! vulkandownload name=down ! appsink name=sink",
        {}, 20 * GST_SECOND, [&](GstBin *pipeline) {
            for (int i = 0; i < 4; ++i) {
                devices[i] = answered(pipeline, names[i], "gst.vulkan.device");
                queues[i] = answered(pipeline, names[i], "gst.vulkan.queue");
            }
        });
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(run.buffers.size(), 3u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_NE(devices[i], nullptr) << names[i] << " answers no device";
        EXPECT_EQ(devices[i], devices[0]) << names[i] << "'s device is not vulkanupload's";
        // GStreamer 1.22 makes a new GstVulkanQueue (with its own submit lock) per
        // gst_vulkan_device_get_queue: one object for all says the queue came through the context.
        EXPECT_NE(queues[i], nullptr) << names[i] << " answers no queue";
        EXPECT_EQ(queues[i], queues[0]) << names[i] << "'s queue is not vulkanupload's";
    }
}

TEST(VulkanContext, ADeviceTheApplicationGivesThroughNeedContextIsUsed)
{
    SKIP_WITHOUT_VULKAN();
    AppVulkan app;
    ASSERT_NE(app.device, nullptr);
    std::vector<BufferRef> frames = image_frames(app.device, 3);
    ASSERT_EQ(frames.size(), 3u);
    std::vector<GstMemory *> pushed;
    for (const BufferRef &frame : frames)
        pushed.push_back(gst_buffer_peek_memory(frame.get(), 0));

    AppPipeline pipeline(std::string("appsrc name=src format=time caps=") + kImageCaps +
                             " ! g2gview name=view video-direction=horiz ! appsink name=sink "
                             "caps=video/x-raw(memory:VulkanImage,meta:G2gTensorView)",
                         app.device);
    EXPECT_EQ(pipeline.run(frames), "");
    ElementRef view = ElementRef::adopt(gst_bin_get_by_name(pipeline.bin(), "view"));
    GstObject *device = context_object(view.get(), GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
    EXPECT_EQ(device, GST_OBJECT(app.device)) << "g2gview works on another device than the application's";
    if (device)
        gst_object_unref(device);
    EXPECT_TRUE(contains(pipeline.needed(), "view:gst.vulkan.device"));
    // Views of the application's images: the same memories, no copy.
    const std::vector<BufferRef> received = pipeline.received();
    ASSERT_EQ(received.size(), 3u);
    for (std::size_t i = 0; i < received.size(); ++i)
        EXPECT_EQ(gst_buffer_peek_memory(received[i].get(), 0), pushed[i]) << "frame " << i;
    pipeline.stop();
}

TEST(VulkanContext, AFrameOfAnotherDeviceIsRefusedNamingBoth)
{
    SKIP_WITHOUT_VULKAN();
    AppVulkan app;
    ASSERT_NE(app.device, nullptr);
    GstVulkanDevice *other = app.another_device();
    ASSERT_NE(other, nullptr);
    ASSERT_NE(other->device, app.device->device);
    {
        std::vector<BufferRef> frames = image_frames(other, 2);
        ASSERT_EQ(frames.size(), 2u);
        AppPipeline pipeline(std::string("appsrc name=src format=time caps=") + kImageCaps +
                                 " ! g2gview name=view video-direction=horiz ! appsink name=sink "
                                 "caps=video/x-raw(memory:VulkanImage,meta:G2gTensorView)",
                             app.device);
        EXPECT_EQ(pipeline.run(frames), "the frame's Vulkan images are of device " +
                                            g2g::vulkan::Engine::describe(other) +
                                            " but this element works on the pipeline's device " +
                                            g2g::vulkan::Engine::describe(app.device));
        pipeline.stop();
    }
    vkDeviceWaitIdle(other->device);
    gst_object_unref(other);
}

TEST(VulkanContext, ASystemMemoryPipelineOpensNothingVulkan)
{
    SKIP_WITHOUT_VULKAN(); // only so that the vulkan feature is known to be built and usable
    AppPipeline pipeline("appsrc name=src format=time caps=video/x-raw,format=RGBA,width=64,height=48,"
                         "framerate=30/1 ! g2gview name=view video-direction=90r ! g2gmaterialize name=mat "
                         "! appsink name=sink");
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    std::vector<BufferRef> frames;
    for (guint32 i = 0; i < 3; ++i)
        frames.push_back(g2g::test::random_frame(info, i));
    EXPECT_EQ(pipeline.run(frames), "");
    // They asked (READY->PAUSED joins whatever the pipeline has) ...
    EXPECT_TRUE(contains(pipeline.needed(), "view:gst.vulkan.device"));
    EXPECT_TRUE(contains(pipeline.needed(), "mat:gst.vulkan.device"));
    // ... but created nothing: no context was posted and they hold none.
    EXPECT_FALSE(any_names(pipeline.had(), "gst.vulkan")) << pipeline.had().size();
    for (const char *name : {"view", "mat"}) {
        for (const char *type : {GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR,
                                 GST_VULKAN_QUEUE_CONTEXT_TYPE_STR})
            EXPECT_EQ(answered(pipeline.bin(), name, type), nullptr) << name << " holds a " << type;
    }
    pipeline.stop();
}

// Mapped in the streaming thread, as a reader there would: vulkanupload (1.22 to 1.28) reuses its
// staging buffer once its chain returns, before its copy has run (see test-tee-vulkan.cpp), so the
// frames are read before the next one is uploaded.
void map_in_place(GstBuffer *buffer)
{
    GstMapInfo map;
    if (gst_buffer_map(buffer, &map, GST_MAP_READ))
        gst_buffer_unmap(buffer, &map);
}

class VulkanContextDownload : public testing::TestWithParam<const char *> {};

TEST_P(VulkanContextDownload, G2gmaterializeDownloadsVulkanViewsAndDenseFramesToSystemMemory)
{
    SKIP_WITHOUT_VULKAN();
    const char *format = GetParam();
    SKIP_WHERE_VULKANUPLOAD_CANNOT_MAKE(format);
    const std::string source = "videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=%s,width=64,"
                               "height=48,framerate=30/1";
    g_autofree gchar *src = g_strdup_printf(source.c_str(), format);
    for (const char *direction : {"identity", "90r", "vert"}) {
        SCOPED_TRACE(std::string(format) + " " + direction);
        PipelineRun peer = run_pipeline(std::string(src) + " ! videoflip video-direction=" + direction +
                                        " ! appsink name=sink");
        PipelineRun run =
            run_pipeline(std::string(src) + " ! vulkanupload ! g2gview video-direction=" + direction +
                             " ! g2gmaterialize ! video/x-raw ! identity name=tap "
                             "! appsink name=sink",
                         map_in_place);
        ASSERT_EQ(run.error, "");
        ASSERT_EQ(run.buffers.size(), peer.buffers.size());
        const GstVideoInfo info = g2g::test::video_info_of_caps(run.sink_caps["sink"]);
        for (std::size_t i = 0; i < run.buffers.size(); ++i) {
            // The download's own memory, handed on without a copy.
            EXPECT_STREQ(gst_buffer_peek_memory(run.buffers[i].get(), 0)->allocator->mem_type,
                         "G2gVulkanDownload");
            EXPECT_EQ(g2g::test::compare_frames(info, run.buffers[i].get(), info, peer.buffers[i].get()), "")
                << "frame " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, VulkanContextDownload, testing::Values("RGBA", "NV12", "I420"),
                         [](const testing::TestParamInfo<const char *> &info) {
                             return std::string(info.param);
                         });

TEST(VulkanContext, NoVulkanDriverIsALoudError)
{
    SKIP_WITHOUT_VULKAN();
    // The Vulkan loader reads its driver list at every vkCreateInstance: none here.
    const char *variables[] = {"VK_ICD_FILENAMES", "VK_DRIVER_FILES"};
    std::vector<std::pair<bool, std::string>> saved;
    for (const char *variable : variables) {
        const char *value = g_getenv(variable);
        saved.emplace_back(value != nullptr, value ? value : "");
        g_setenv(variable, "/nonexistent/g2g-no-driver.json", TRUE);
    }
    std::string error;
    {
        AppPipeline pipeline(std::string("appsrc name=src format=time caps=") + kImageCaps +
                             " ! g2gview name=view video-direction=horiz ! appsink name=sink "
                             "caps=video/x-raw(memory:VulkanImage,meta:G2gTensorView)");
        // A system-memory buffer under VulkanImage caps: the caps alone are refused.
        error =
            pipeline.run({g2g::test::random_frame(g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 64, 48), 1)});
        pipeline.stop();
    }
    for (std::size_t i = 0; i < saved.size(); ++i) {
        if (saved[i].first)
            g_setenv(variables[i], saved[i].second.c_str(), TRUE);
        else
            g_unsetenv(variables[i]);
    }
    EXPECT_EQ(error.rfind("no Vulkan device: ", 0), 0u) << error;
}

// Answers (after its peer did) every ALLOCATION query reaching the pad as a peer that reads
// GstVideoCropMeta and GstVideoMeta would.
GstPadProbeReturn offer_crop_meta(GstPad *, GstPadProbeInfo *info, gpointer)
{
    GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
    if (GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION) {
        if (!gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr))
            gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
        gst_query_add_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
    }
    return GST_PAD_PROBE_OK;
}

TEST(VulkanContext, AVulkanCropIsWrittenOutEvenForAPeerThatSaysItReadsCropMeta)
{
    SKIP_WITHOUT_VULKAN();
    // GStreamer's Vulkan elements read whole images: a crop meta on a VulkanImage frame would be
    // lost, so g2gview writes the crop out on the GPU whatever the ALLOCATION answer says.
    const std::string crop = "left=8 right=4 top=6 bottom=2";
    PipelineRun peer = run_pipeline(std::string(kSource) + " ! videocrop " + crop + " ! appsink name=sink");
    ElementRef pipeline =
        ElementRef::adopt(gst_parse_launch((std::string(kSource) + " ! vulkanupload ! g2gview " + crop +
                                            " ! vulkandownload name=down ! appsink name=sink")
                                               .c_str(),
                                           nullptr));
    ASSERT_TRUE(pipeline);
    ElementRef down = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "down"));
    GstPad *pad = gst_element_get_static_pad(down.get(), "sink");
    gst_pad_add_probe(
        pad, static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PULL),
        offer_crop_meta, nullptr, nullptr);
    gst_object_unref(pad);
    // run_pipeline parses its own: the same pipeline through a bin made here instead.
    GstBin *bin = GST_BIN(pipeline.get());
    std::vector<BufferRef> got;
    ElementRef sink = ElementRef::adopt(gst_bin_get_by_name(bin, "sink"));
    GstAppSinkCallbacks callbacks{};
    callbacks.new_sample = [](GstAppSink *appsink, gpointer data) -> GstFlowReturn {
        GstSample *sample = gst_app_sink_pull_sample(appsink);
        if (!sample)
            return GST_FLOW_EOS;
        static_cast<std::vector<BufferRef> *>(data)->push_back(
            BufferRef::borrow(gst_sample_get_buffer(sample)));
        gst_sample_unref(sample);
        return GST_FLOW_OK;
    };
    gst_app_sink_set_callbacks(GST_APP_SINK(sink.get()), &callbacks, &got, nullptr);
    gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline.get());
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    gst_object_unref(bus);
    ASSERT_NE(message, nullptr);
    EXPECT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_EOS) << g2g::test::message_text(message);
    gst_message_unref(message);
    g2g::test::wait_for_vulkan_devices(bin);
    gst_element_set_state(pipeline.get(), GST_STATE_NULL);

    ASSERT_EQ(got.size(), peer.buffers.size());
    const GstVideoInfo info = g2g::test::video_info(GST_VIDEO_FORMAT_RGBA, 64 - 12, 48 - 8);
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(gst_buffer_get_video_crop_meta(got[i].get()), nullptr) << "frame " << i;
        EXPECT_EQ(g2g::test::compare_frames(info, got[i].get(), info, peer.buffers[i].get()), "")
            << "frame " << i;
    }
}
