// SPDX-License-Identifier: LGPL-2.1-or-later
// g2g's Vulkan path against GStreamer's Vulkan peers, on one Vulkan device, in one run, as ratios:
//  1. materialize: g2g::vulkan::Engine::materialize of a VulkanImage frame (every video-direction
//     method, a crop, a crop + rotation) into a storage-pool frame, against vkCmdCopyImage of every
//     plane of the same frame into a frame of its format and size (GStreamer's image pool),
//     recorded with GStreamer's command pool on the engine's queue; GPU time per frame from two
//     timestamp queries around a batch that the queue holds behind a host event until every frame
//     of it is submitted (so no submission is in the figure), and apart the CPU time of a submission;
//  2. pipeline: one VulkanImage frame pushed again and again by an appsrc (no upload in either
//     figure) into g2gview video-direction=M ! g2gmaterialize ! video/x-raw against vulkandownload
//     ! videoflip video-direction=M, frames/s into a sink that maps every frame and reads a byte
//     of each page (so a fenced download's wait is in the figure);
//  3. download: the same frames into g2gtee ! video/x-raw against vulkandownload, frames/s into
//     the same sink, directly and behind a queue (the sink maps later, in the queue's thread:
//     where a fenced download overlaps the next frames' copies); then Engine::download alone, in
//     one thread, each frame read at once or 4 frames later; then (3c, alone as download-parts)
//     where Engine::download's CPU time goes, part by part, and what a fence per submission cost
//     before g2g's fence pool (gst_vulkan_fence_new and its unref) against a pooled fence; then
//     (3d, alone as copy-bound) the copy itself on the GPU, into each kind of memory, on each
//     queue family.
// Every figure is the median of its rounds; ours and the peer's alternate round by round.
// With --csv DIR also writes vulkan-materialize.csv, vulkan-pipeline.csv, vulkan-download.csv and
// vulkan-engine-download.csv there, which tests/bench/plot-vulkan.gp turns into
// docs/performance-vulkan.png.
// Usage: kUsage below (bench-vulkan --help).
#include <g2g/frame-view.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench-util.h"
#include "platform/vulkan/gst-vulkan.h"
#include "platform/vulkan/vulkan-commands.h"
#include "platform/vulkan/vulkan-engine.h"
#include "platform/vulkan/vulkan-fence-pool.h"
#include "platform/vulkan/vulkan-fenced-memory.h"

using g2g::bench::open_csv;
using g2g::bench::split;

namespace {

constexpr const char *kUsage =
    "Usage: bench-vulkan [--csv DIR] [options] [materialize] [pipeline] [download] [download-parts]\n"
    "                    [copy-bound]\n"
    "  (materialize, pipeline and download if none; download ends with download-parts and copy-bound)\n"
    "  --device N          the Vulkan device of that index (0)\n"
    "  --size WxH          the materialize frames (3840x2160)\n"
    "  --sizes WxH,...     the pipeline and download frames (1920x1080,3840x2160)\n"
    "  --formats F,...     (RGBA,NV12)\n"
    "  --methods M,...     the pipeline views (90r,horiz)\n"
    "  --batch N           frames per materialize batch (100)\n"
    "  --rounds N          materialize rounds (5)\n"
    "  --seconds S         length of a pipeline run after its warm-up, and of the download parts' run (1)\n"
    "  --repeats N         pipeline runs of each (3)\n"
    "  --no-gate           time materialize batches without holding the queue (submissions included)\n"
    "  --read-every-byte   the sinks read every byte of a frame (an encoder, a copy into an array)\n"
    "                      instead of a byte of every page\n";

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// This thread's CPU time in seconds.
double thread_cpu()
{
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    return double(cpu.tv_sec) + double(cpu.tv_nsec) * 1e-9;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

[[noreturn]] void die(const std::string &message)
{
    std::fprintf(stderr, "bench-vulkan: %s\n", message.c_str());
    std::exit(1);
}

struct Size {
    std::string name;
    int width = 0, height = 0;
};

Size size_of(const std::string &text)
{
    int width = 0, height = 0;
    if (std::sscanf(text.c_str(), "%dx%d", &width, &height) != 2 || width <= 0 || height <= 0)
        die("not a size (WxH): " + text);
    const std::string name = width == 3840 && height == 2160   ? "4K"
                             : width == 1920 && height == 1080 ? "1080p"
                             : width == 1280 && height == 720  ? "720p"
                                                               : text;
    return {name, width, height};
}

struct Options {
    guint device = 0;
    Size size = size_of("3840x2160");
    std::vector<Size> sizes = {size_of("1920x1080"), size_of("3840x2160")};
    std::vector<std::string> formats = {"RGBA", "NV12"};
    std::vector<std::string> methods = {"90r", "horiz"};
    int batch = 100;
    int rounds = 5;
    double seconds = 1;
    int repeats = 3;
    bool gate = true;
    std::vector<std::string> modes;
};

struct Method {
    const char *name;
    GstVideoOrientationMethod method;
};
constexpr Method kMethods[] = {
    {"identity", GST_VIDEO_ORIENTATION_IDENTITY}, {"90r", GST_VIDEO_ORIENTATION_90R},
    {"180", GST_VIDEO_ORIENTATION_180},           {"90l", GST_VIDEO_ORIENTATION_90L},
    {"horiz", GST_VIDEO_ORIENTATION_HORIZ},       {"vert", GST_VIDEO_ORIENTATION_VERT},
    {"ul-lr", GST_VIDEO_ORIENTATION_UL_LR},       {"ur-ll", GST_VIDEO_ORIENTATION_UR_LL},
};

// ---- The device -----------------------------------------------------------------------------

// The Vulkan instance, device and g2g engine of every figure; every element of every pipeline is
// given these (and the engine's queue) through GstContext.
struct Vulkan {
    GstVulkanInstance *instance = nullptr;
    GstVulkanDevice *device = nullptr;
    std::shared_ptr<g2g::vulkan::Engine> engine;
    GstVulkanQueue *queue() const { return engine->queue(); }
};

void open_vulkan(Vulkan &vk, guint index)
{
    GError *error = nullptr;
    vk.instance = gst_vulkan_instance_new();
    if (!gst_vulkan_instance_open(vk.instance, &error))
        die(std::string("cannot open a Vulkan instance: ") + (error ? error->message : "?"));
    vk.device = gst_vulkan_device_new_with_index(vk.instance, index);
    if (!vk.device || !gst_vulkan_device_open(vk.device, &error))
        die("cannot open Vulkan device " + std::to_string(index) + ": " + (error ? error->message : "?"));
    g2g::Result<std::shared_ptr<g2g::vulkan::Engine>> engine = g2g::vulkan::Engine::for_device(vk.device);
    if (!engine)
        die("no g2g engine on the device: " + engine.error().message());
    vk.engine = *engine;
}

// Waits until everything submitted to `queue` (by anyone) has run.
void queue_wait_idle(GstVulkanQueue *queue)
{
    gst_vulkan_queue_submit_lock(queue);
    vkQueueWaitIdle(queue->queue);
    gst_vulkan_queue_submit_unlock(queue);
}

// Answers the Vulkan context queries (instance, device, queue) that reach `pad` with vk's: the
// elements around it then work on our device and queue rather than opening their own.
GstPadProbeReturn answer_context_query(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
    const auto *vk = static_cast<const Vulkan *>(data);
    GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
    if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT)
        return GST_PAD_PROBE_OK;
    GstElement *element = GST_ELEMENT_CAST(GST_OBJECT_PARENT(pad));
    if (gst_vulkan_handle_context_query(element, query, nullptr, vk->instance, vk->device) ||
        gst_vulkan_queue_handle_context_query(element, query, vk->queue()))
        return GST_PAD_PROBE_HANDLED;
    return GST_PAD_PROBE_OK;
}

// The same for the contexts elements ask the application for (need-context messages).
GstBusSyncReply answer_need_context(GstBus *, GstMessage *message, gpointer data)
{
    const auto *vk = static_cast<const Vulkan *>(data);
    if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_NEED_CONTEXT)
        return GST_BUS_PASS;
    const gchar *type = nullptr;
    gst_message_parse_context_type(message, &type);
    GstContext *context = gst_context_new(type, TRUE);
    if (!g_strcmp0(type, GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR))
        gst_context_set_vulkan_instance(context, vk->instance);
    else if (!g_strcmp0(type, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR))
        gst_context_set_vulkan_device(context, vk->device);
    else if (!g_strcmp0(type, GST_VULKAN_QUEUE_CONTEXT_TYPE_STR))
        gst_context_set_vulkan_queue(context, vk->queue());
    else
        g_clear_pointer(&context, gst_context_unref);
    if (context) {
        gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(message)), context);
        gst_context_unref(context);
    }
    return GST_BUS_PASS;
}

// Makes `pipeline`'s elements find vk's instance, device and queue: from peers of `pad`, and by
// need-context messages.
void give_vulkan_contexts(GstElement *pipeline, GstPad *pad, Vulkan &vk)
{
    gst_pad_add_probe(pad,
                      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_QUERY_BOTH | GST_PAD_PROBE_TYPE_PUSH),
                      answer_context_query, &vk, nullptr);
    GstBus *bus = gst_element_get_bus(pipeline);
    gst_bus_set_sync_handler(bus, answer_need_context, &vk, nullptr);
    gst_object_unref(bus);
}

std::string element_error(GstMessage *message)
{
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    std::string text = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " + error->message;
    // "streaming stopped, reason not-negotiated (-4)": the reason is what tells.
    if (const char *reason = debug ? std::strstr(debug, "reason ") : nullptr)
        text += std::string(" (") + reason + ")";
    g_error_free(error);
    g_free(debug);
    return text;
}

// A VulkanImage frame on vk's device, with its caps.
struct Frame {
    GstBuffer *buffer = nullptr;
    GstCaps *caps = nullptr;
    GstVideoInfo info{};
};

// One frame of videotestsrc's pattern uploaded by vulkanupload on vk's device and queue, kept
// after its pipeline stopped.
Frame upload_frame(Vulkan &vk, const std::string &format, const Size &size)
{
    const std::string description = "videotestsrc num-buffers=1 ! video/x-raw,format=" + format +
                                    ",width=" + std::to_string(size.width) +
                                    ",height=" + std::to_string(size.height) +
                                    ",framerate=30/1 ! vulkanupload ! video/x-raw(memory:VulkanImage) ! "
                                    "appsink name=sink";
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (error)
        die("cannot run " + description + ": " + error->message);
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    give_vulkan_contexts(pipeline, pad, vk);
    gst_object_unref(pad);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstSample *sample = gst_app_sink_pull_sample(GST_APP_SINK(sink));
    if (!sample) {
        GstBus *bus = gst_element_get_bus(pipeline);
        GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
        die("cannot upload a " + format + " " + size.name +
            " frame: " + (message ? element_error(message) : "no frame"));
    }
    Frame frame;
    frame.buffer = gst_buffer_ref(gst_sample_get_buffer(sample));
    frame.caps = gst_caps_ref(gst_sample_get_caps(sample));
    gst_video_info_from_caps(&frame.info, frame.caps);
    gst_sample_unref(sample);
    queue_wait_idle(vk.queue());
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    return frame;
}

// A frame of `pool` (configured with `caps`, activated), or null with `why` set.
GstBuffer *frame_of_pool(GstBufferPool *pool, GstCaps *caps, const GstVideoInfo &info, std::string &why)
{
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 1, 0);
    GstBuffer *buffer = nullptr;
    if (!gst_buffer_pool_set_config(pool, config))
        why = "the pool refuses its configuration";
    else if (!gst_buffer_pool_set_active(pool, TRUE))
        why = "the pool cannot start";
    else if (gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr) != GST_FLOW_OK)
        why = "the pool gives no frame";
    return buffer;
}

GstCaps *vulkan_caps_of(const GstVideoInfo &info)
{
    GstCaps *caps = gst_video_info_to_caps(&info);
    gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, nullptr));
    return caps;
}

// ---- 1. materialize against vkCmdCopyImage --------------------------------------------------

// A host event that holds a queue: set when the batch is submitted, or by a watchdog after 3 s
// (should a submission wait for the device, which the event holds back).
class Gate {
public:
    Gate(VkDevice device, VkEvent event) : device_(device), event_(event)
    {
        if (event_)
            watchdog_ = std::thread([this] {
                std::unique_lock<std::mutex> lock(mutex_);
                if (!changed_.wait_for(lock, std::chrono::seconds(3), [this] { return open_; })) {
                    open_ = true;
                    early_ = true;
                    vkSetEvent(device_, event_);
                }
            });
    }
    ~Gate() { open(); }
    Gate(const Gate &) = delete;
    Gate &operator=(const Gate &) = delete;

    // Opens the gate; false if the watchdog had to.
    bool open()
    {
        if (!event_)
            return false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!open_) {
                open_ = true;
                vkSetEvent(device_, event_);
            }
        }
        changed_.notify_all();
        if (watchdog_.joinable())
            watchdog_.join();
        return !early_;
    }

private:
    VkDevice device_;
    VkEvent event_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool open_ = false;
    bool early_ = false;
    std::thread watchdog_;
};

// Times batches of frames on vk's queue: two timestamp queries around the batch (written at
// the bottom of the pipe: each waits for everything submitted before it), the first behind a
// host event that is set only once the whole batch is submitted. Without timestamps on the
// queue, a batch's wall time from its first submission to the idle queue.
class GpuClock {
public:
    // On `queue`, or on the engine's where null.
    GpuClock(const Vulkan &vk, bool gate, GstVulkanQueue *queue = nullptr)
        : queue_(queue ? queue : vk.queue()), device_(vk.device->device)
    {
        GError *error = nullptr;
        pool_ = gst_vulkan_queue_create_command_pool(queue_, &error);
        if (!pool_)
            die(std::string("no command pool: ") + (error ? error->message : "?"));
        const GstVulkanPhysicalDevice *physical = vk.device->physical_device;
        const guint32 bits = physical->queue_family_props[queue_->family].timestampValidBits;
        period_ns_ = physical->properties.limits.timestampPeriod;
        mask_ = bits >= 64 ? ~guint64(0) : (guint64(1) << bits) - 1;
        if (bits > 0) {
            VkQueryPoolCreateInfo info{};
            info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
            info.queryType = VK_QUERY_TYPE_TIMESTAMP;
            info.queryCount = 2;
            if (vkCreateQueryPool(device_, &info, nullptr, &queries_) != VK_SUCCESS)
                queries_ = VK_NULL_HANDLE;
        }
        if (gate && queries_) {
            VkEventCreateInfo info{};
            info.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO;
            if (vkCreateEvent(device_, &info, nullptr, &event_) != VK_SUCCESS)
                event_ = VK_NULL_HANDLE;
        }
        VkFenceCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        if (vkCreateFence(device_, &info, nullptr, &fence_) != VK_SUCCESS)
            die("cannot create a fence");
    }
    ~GpuClock()
    {
        queue_wait_idle(queue_);
        release();
        vkDestroyFence(device_, fence_, nullptr);
        if (event_)
            vkDestroyEvent(device_, event_, nullptr);
        if (queries_)
            vkDestroyQueryPool(device_, queries_, nullptr);
        gst_object_unref(pool_);
    }
    GpuClock(const GpuClock &) = delete;
    GpuClock &operator=(const GpuClock &) = delete;

    // Whether batches are held back until fully submitted.
    bool holds() const { return event_ != VK_NULL_HANDLE; }

    // What a batch's figure is.
    std::string method() const
    {
        if (!queries_)
            return "wall time of batches from the first submission to the idle queue (no timestamps "
                   "on this queue), submissions included";
        if (!event_)
            return "GPU timestamps around batches, the queue not held: CPU-bound submissions included";
        return "GPU timestamps around batches held back until fully submitted: no submission in the "
               "figure";
    }

    struct Batch {
        double gpu = 0;    // seconds per frame, on the GPU
        double submit = 0; // seconds per frame, on the CPU inside the submitting call
        bool held = false; // the gate held until every frame was submitted
        bool ok = true;
    };

    // `calls` calls of `frame` (each submits one frame's work to the queue) in one batch.
    Batch run(const std::function<bool()> &frame, int calls)
    {
        Batch batch;
        queue_wait_idle(queue_);
        if (event_)
            vkResetEvent(device_, event_);
        submit(record([&](VkCommandBuffer cmd) {
            if (queries_)
                vkCmdResetQueryPool(cmd, queries_, 0, 2);
            if (event_)
                vkCmdWaitEvents(cmd, 1, &event_, VK_PIPELINE_STAGE_HOST_BIT,
                                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, nullptr, 0, nullptr, 0, nullptr);
            if (queries_)
                vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 0);
        }));
        Gate gate(device_, event_);
        const double start = now();
        double inside = 0;
        for (int i = 0; i < calls && batch.ok; ++i) {
            const double before = now();
            batch.ok = frame();
            inside += now() - before;
        }
        submit(record([&](VkCommandBuffer cmd) {
                   if (queries_)
                       vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
               }),
               fence_);
        batch.held = gate.open();
        vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX);
        vkResetFences(device_, 1, &fence_);
        queue_wait_idle(queue_);
        const double wall = now() - start;
        release();
        batch.submit = inside / calls;
        batch.gpu = wall / calls;
        if (queries_) {
            guint64 stamps[2] = {0, 0};
            if (vkGetQueryPoolResults(device_, queries_, 0, 2, sizeof stamps, stamps, sizeof stamps[0],
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS)
                batch.gpu = double((stamps[1] - stamps[0]) & mask_) * period_ns_ * 1e-9 / calls;
        }
        return batch;
    }

    // A command buffer of GStreamer's command pool on the queue, recorded by `body`.
    GstVulkanCommandBuffer *record(const std::function<void(VkCommandBuffer)> &body)
    {
        GError *error = nullptr;
        GstVulkanCommandBuffer *cmd = gst_vulkan_command_pool_create(pool_, &error);
        if (!cmd)
            die(std::string("no command buffer: ") + (error ? error->message : "?"));
        VkCommandBufferBeginInfo begin{};
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        gst_vulkan_command_buffer_lock(cmd);
        vkBeginCommandBuffer(cmd->cmd, &begin);
        body(cmd->cmd);
        vkEndCommandBuffer(cmd->cmd);
        gst_vulkan_command_buffer_unlock(cmd);
        return cmd;
    }

    // Submits `cmd` to the queue; it is kept until the batch has run.
    void submit(GstVulkanCommandBuffer *cmd, VkFence fence = VK_NULL_HANDLE)
    {
        VkSubmitInfo info{};
        info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        info.commandBufferCount = 1;
        info.pCommandBuffers = &cmd->cmd;
        gst_vulkan_queue_submit_lock(queue_);
        const VkResult result = vkQueueSubmit(queue_->queue, 1, &info, fence);
        gst_vulkan_queue_submit_unlock(queue_);
        if (result != VK_SUCCESS)
            die("vkQueueSubmit failed: " + std::to_string(result));
        in_flight_.push_back(cmd);
    }

private:
    void release()
    {
        for (GstVulkanCommandBuffer *cmd : in_flight_)
            gst_vulkan_command_buffer_unref(cmd);
        in_flight_.clear();
    }

    GstVulkanQueue *queue_;
    VkDevice device_;
    GstVulkanCommandPool *pool_ = nullptr;
    VkQueryPool queries_ = VK_NULL_HANDLE;
    VkEvent event_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    double period_ns_ = 1;
    guint64 mask_ = ~guint64(0);
    std::vector<GstVulkanCommandBuffer *> in_flight_;
};

GstVulkanImageMemory *image_of(GstBuffer *buffer, guint index)
{
    return reinterpret_cast<GstVulkanImageMemory *>(gst_buffer_peek_memory(buffer, index));
}

// vkCmdCopyImage of every plane (one image each) of `source` into `destination`.
void record_plane_copies(VkCommandBuffer cmd, GstBuffer *source, GstBuffer *destination)
{
    const guint planes = gst_buffer_n_memory(source);
    std::vector<VkImageMemoryBarrier> barriers;
    VkPipelineStageFlags src_stages = 0;
    for (guint p = 0; p < planes; ++p) {
        // Barriers from the state each memory records, as GStreamer's Vulkan elements record them.
        barriers.push_back(g2g::vulkan::image_barrier(
            image_of(source, p), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT, src_stages));
        barriers.push_back(g2g::vulkan::image_barrier(
            image_of(destination, p), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT, src_stages));
    }
    vkCmdPipelineBarrier(
        cmd, src_stages ? src_stages : VkPipelineStageFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
        VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, guint32(barriers.size()), barriers.data());
    for (guint p = 0; p < planes; ++p) {
        GstVulkanImageMemory *from = image_of(source, p);
        VkImageCopy region{};
        region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.extent = from->create_info.extent;
        vkCmdCopyImage(cmd, from->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                       image_of(destination, p)->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    }
}

struct Case {
    const char *name;
    GstVideoOrientationMethod method;
    int crop; // 0: none; 1: 64/64/32/32 (left/right/top/bottom, as bench-view's); 2: then 90r
};

void materialize_against_copy(Vulkan &vk, const Options &options)
{
    GpuClock clock(vk, options.gate);
    // A held batch is all in flight at once, and the engine has 256 descriptor sets (one a plane
    // of a frame in flight): at most 240 planes a batch.
    guint planes = 1;
    for (const std::string &format : options.formats)
        planes = std::max(planes, GST_VIDEO_FORMAT_INFO_N_PLANES(gst_video_format_get_info(
                                      gst_video_format_from_string(format.c_str()))));
    const int per_batch = std::min(options.batch, int(240 / planes));
    std::printf("\n1. Materialize on the GPU (Engine::materialize into a storage-pool frame) against "
                "vkCmdCopyImage of every plane into a frame of the same format and size, %dx%d, on the "
                "engine's queue; %s; batches of %d frames, median of %d rounds, alternating\n",
                options.size.width, options.size.height, clock.method().c_str(), per_batch, options.rounds);
    std::printf("%-6s %-10s %10s %10s %10s %14s %14s\n", "format", "view", "ours ms", "copy ms", "copy/ours",
                "ours submit us", "copy submit us");
    FILE *csv = open_csv("vulkan-materialize.csv");
    std::vector<Case> cases;
    for (const Method &m : kMethods)
        cases.push_back({m.name, m.method, 0});
    cases.push_back({"crop", GST_VIDEO_ORIENTATION_IDENTITY, 1});
    cases.push_back({"crop+90r", GST_VIDEO_ORIENTATION_90R, 2});
    std::string first_error;
    int unheld = 0;
    for (const std::string &format : options.formats) {
        Frame source = upload_frame(vk, format, options.size);
        if (gst_buffer_n_memory(source.buffer) != GST_VIDEO_INFO_N_PLANES(&source.info))
            die(format + ": vulkanupload made " + std::to_string(gst_buffer_n_memory(source.buffer)) +
                " images for " + std::to_string(GST_VIDEO_INFO_N_PLANES(&source.info)) + " planes");
        std::string why;
        GstBufferPool *copy_pool = gst_vulkan_image_buffer_pool_new(vk.device);
        GstBuffer *copy = frame_of_pool(copy_pool, source.caps, source.info, why);
        if (!copy)
            die("no frame of GStreamer's image pool: " + why);
        for (const Case &c : cases) {
            const int w = source.info.width, h = source.info.height;
            g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(source.buffer, source.info);
            std::string error;
            if (!view) {
                error = "FrameView::of_frame: " + view.error().message();
            } else {
                g2g::Result<void> cropped;
                if (c.crop == 1)
                    cropped = view->crop(64, 32, w - 128, h - 64);
                else if (c.crop == 2)
                    cropped = view->crop(64, 32, w - 64 - 128, h - 32 - 16);
                if (!cropped)
                    error = "crop: " + cropped.error().message();
                view->orient(c.method);
            }
            GstBufferPool *pool = nullptr;
            GstBuffer *destination = nullptr;
            if (error.empty()) {
                if (g2g::Result<void> writable = vk.engine->check_writable(view->info()); !writable)
                    error = "check_writable: " + writable.error().message();
            }
            if (error.empty()) {
                pool = vk.engine->new_storage_pool();
                GstCaps *caps = vulkan_caps_of(view->info());
                destination = frame_of_pool(pool, caps, view->info(), why);
                gst_caps_unref(caps);
                if (!destination)
                    error = "storage pool: " + why;
            }
            const auto ours = [&] {
                g2g::Result<void> done = vk.engine->materialize(*view, source.buffer, destination);
                if (!done)
                    error = "materialize: " + done.error().message();
                return done.ok();
            };
            const auto peer = [&] {
                clock.submit(clock.record(
                    [&](VkCommandBuffer cmd) { record_plane_copies(cmd, source.buffer, copy); }));
                return true;
            };
            // One untimed batch each: pipelines built, pools and caches filled.
            if (error.empty())
                clock.run(ours, std::min(per_batch, 10));
            clock.run(peer, std::min(per_batch, 10));
            std::vector<double> our_gpu, our_submit, copy_gpu, copy_submit;
            for (int round = 0; round < options.rounds; ++round) {
                if (error.empty()) {
                    const GpuClock::Batch batch = clock.run(ours, per_batch);
                    if (batch.ok) {
                        our_gpu.push_back(batch.gpu);
                        our_submit.push_back(batch.submit);
                        unheld += clock.holds() && !batch.held;
                    }
                }
                const GpuClock::Batch batch = clock.run(peer, per_batch);
                copy_gpu.push_back(batch.gpu);
                copy_submit.push_back(batch.submit);
                unheld += clock.holds() && !batch.held;
            }
            const std::string name = format + "-" + c.name;
            const double copy_s = median(copy_gpu);
            if (error.empty()) {
                const double ours_s = median(our_gpu);
                std::printf("%-6s %-10s %10.3f %10.3f %9.0f%% %14.1f %14.1f\n", format.c_str(), c.name,
                            ours_s * 1e3, copy_s * 1e3, 100 * copy_s / ours_s, median(our_submit) * 1e6,
                            median(copy_submit) * 1e6);
                if (csv)
                    std::fprintf(csv, "%s %g %g\n", name.c_str(), ours_s, copy_s);
            } else {
                std::printf("%-6s %-10s %10s %10.3f %10s %14s %14.1f\n", format.c_str(), c.name, "n/a",
                            copy_s * 1e3, "n/a", "n/a", median(copy_submit) * 1e6);
                if (csv)
                    std::fprintf(csv, "%s ? %g\n", name.c_str(), copy_s);
                if (first_error.empty())
                    first_error = name + ": " + error;
            }
            if (destination)
                gst_buffer_unref(destination);
            if (pool) {
                gst_buffer_pool_set_active(pool, FALSE);
                gst_object_unref(pool);
            }
        }
        queue_wait_idle(vk.queue());
        gst_buffer_unref(copy);
        gst_buffer_pool_set_active(copy_pool, FALSE);
        gst_object_unref(copy_pool);
        gst_buffer_unref(source.buffer);
        gst_caps_unref(source.caps);
    }
    if (!first_error.empty())
        std::printf("n/a: %s\n", first_error.c_str());
    if (unheld)
        std::printf("(%d batches outlasted the 3 s gate: their figures include submissions)\n", unheld);
    if (csv)
        std::fclose(csv);
}

// ---- 2. and 3.: whole pipelines -------------------------------------------------------------

// What the sink saw: frames, and when (after the warm-up) they were consumed.
struct SinkCount {
    int warmup = 10;
    std::atomic<int> frames{0};
    std::atomic<int> unmapped{0};
    std::atomic<double> first{0}, last{0};
    std::atomic<unsigned> checksum{0};
    std::string memory; // of the first frame
};

// What a frame's memories are: "SystemMemory", "VulkanBuffer (host-visible, not HOST_CACHED)", ...
// (reading host-visible memory that the CPU does not cache costs a reader dearly).
std::string memory_of(GstBuffer *buffer)
{
    std::string text;
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, i);
        std::string one =
            memory->allocator && memory->allocator->mem_type ? memory->allocator->mem_type : "?";
        if (gst_is_vulkan_buffer_memory(memory)) {
            const GstVulkanMemory *backing = reinterpret_cast<GstVulkanBufferMemory *>(memory)->vk_mem;
            one += backing && (backing->properties & VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
                       ? " (host-visible, HOST_CACHED)"
                       : " (host-visible, not HOST_CACHED)";
        }
        if (text.find(one) == std::string::npos)
            text += (text.empty() ? "" : " + ") + one;
    }
    return text;
}

// --read-every-byte: the sinks read every byte of every frame, as an encoder or an application
// copying the frame into an array does, instead of a byte of every page.
bool read_every_byte = false;

// Maps `buffer` and reads a byte of every page (or, with --read-every-byte, every byte), as a
// consumer of the bytes would (a fenced download waits here); false if it cannot be mapped.
bool read_pages(GstBuffer *buffer, std::atomic<unsigned> &checksum)
{
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READ))
        return false;
    unsigned sum = 0;
    if (read_every_byte) {
        guint64 words = 0;
        for (gsize i = 0; i + 8 <= map.size; i += 8) {
            guint64 word;
            std::memcpy(&word, map.data + i, 8);
            words += word;
        }
        sum = static_cast<unsigned>(words ^ (words >> 32));
    }
    for (gsize i = 0; !read_every_byte && i < map.size; i += 4096)
        sum += map.data[i];
    checksum += sum;
    gst_buffer_unmap(buffer, &map);
    return true;
}

// fakesink's handoff.
void consume(GstElement *, GstBuffer *buffer, GstPad *, gpointer data)
{
    auto *sink = static_cast<SinkCount *>(data);
    if (sink->frames == 0)
        sink->memory = memory_of(buffer);
    if (!read_pages(buffer, sink->checksum))
        ++sink->unmapped;
    const double t = now();
    if (++sink->frames == sink->warmup)
        sink->first = t;
    sink->last = t;
}

struct Rate {
    double fps = 0;
    std::string error;
    std::string memory; // what the sink's frames were made of
};

// Frames per second through `middle` ("appsrc ! MIDDLE ! fakesink" with `frame`'s caps), the frame
// pushed again and again: from the sink's 10th frame for `seconds`.
Rate frames_per_second(Vulkan &vk, const std::string &middle, const Frame &frame, double seconds)
{
    const std::string description = "appsrc name=src format=time max-buffers=2 block=true ! " + middle +
                                    " ! fakesink name=sink sync=false signal-handoffs=true";
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    if (error) {
        Rate rate;
        rate.error = std::string("cannot build the pipeline: ") + error->message;
        g_error_free(error);
        if (pipeline)
            gst_object_unref(pipeline);
        return rate;
    }
    GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    gst_app_src_set_caps(GST_APP_SRC(src), frame.caps);
    GstPad *src_pad = gst_element_get_static_pad(src, "src");
    give_vulkan_contexts(pipeline, src_pad, vk);
    gst_object_unref(src_pad);
    SinkCount count;
    g_signal_connect(sink, "handoff", G_CALLBACK(consume), &count);

    std::atomic<bool> stop{false};
    const double timeout = 4 * seconds + 30;
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    const double started = now();
    std::thread pusher([&] {
        while (!stop && now() - started < timeout) {
            if (count.frames >= count.warmup && now() - count.first >= seconds)
                break;
            if (gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_ref(frame.buffer)) != GST_FLOW_OK)
                break;
        }
        gst_app_src_end_of_stream(GST_APP_SRC(src));
    });
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(bus, GstClockTime(timeout * GST_SECOND),
                                                     GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    Rate rate;
    if (!message)
        rate.error = "timed out";
    else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
        rate.error = element_error(message);
    if (message)
        gst_message_unref(message);
    stop = true;
    // GStreamer 1.22's Vulkan elements free command buffers at teardown without waiting.
    queue_wait_idle(vk.queue());
    gst_element_set_state(pipeline, GST_STATE_NULL);
    pusher.join();
    queue_wait_idle(vk.queue());
    const int frames = count.frames;
    if (rate.error.empty() && count.unmapped)
        rate.error = std::to_string(count.unmapped) + " frames the sink could not map";
    if (rate.error.empty() && frames <= count.warmup)
        rate.error = "only " + std::to_string(frames) + " frames";
    if (rate.error.empty())
        rate.fps = (frames - count.warmup) / (count.last - count.first);
    rate.memory = count.memory;
    gst_object_unref(bus);
    gst_object_unref(sink);
    gst_object_unref(src);
    gst_object_unref(pipeline);
    return rate;
}

// Medians of `repeats` runs of ours and the peer's, alternating; ours stops at its first error.
std::pair<Rate, Rate> paired_rates(Vulkan &vk, const std::string &ours, const std::string &peer,
                                   const Frame &frame, const Options &options)
{
    std::vector<double> our_fps, peer_fps;
    Rate our_rate, peer_rate;
    for (int r = 0; r < options.repeats; ++r) {
        if (our_rate.error.empty()) {
            const Rate rate = frames_per_second(vk, ours, frame, options.seconds);
            our_rate.error = rate.error;
            our_rate.memory = rate.memory;
            our_fps.push_back(rate.fps);
        }
        if (peer_rate.error.empty()) {
            const Rate rate = frames_per_second(vk, peer, frame, options.seconds);
            peer_rate.error = rate.error;
            peer_rate.memory = rate.memory;
            peer_fps.push_back(rate.fps);
        }
    }
    our_rate.fps = our_rate.error.empty() ? median(our_fps) : 0;
    peer_rate.fps = peer_rate.error.empty() ? median(peer_fps) : 0;
    return {our_rate, peer_rate};
}

std::string fps_text(const Rate &rate)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", rate.fps);
    return rate.error.empty() ? text : "n/a";
}

std::string ratio_text(const Rate &ours, const Rate &peer)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", ours.fps / peer.fps);
    return ours.error.empty() && peer.error.empty() ? text : "n/a";
}

std::string csv_fps(const Rate &rate)
{
    return rate.error.empty() ? std::to_string(rate.fps) : "?";
}

// The uploaded frames of modes 2 and 3, one per format and size, made once.
class Frames {
public:
    explicit Frames(Vulkan &vk) : vk_(vk) {}
    ~Frames()
    {
        queue_wait_idle(vk_.queue());
        for (auto &[key, frame] : frames_) {
            gst_buffer_unref(frame.buffer);
            gst_caps_unref(frame.caps);
        }
    }
    Frames(const Frames &) = delete;
    Frames &operator=(const Frames &) = delete;

    const Frame &get(const std::string &format, const Size &size)
    {
        const std::string key = format + "-" + size.name;
        auto found = frames_.find(key);
        if (found == frames_.end())
            found = frames_.emplace(key, upload_frame(vk_, format, size)).first;
        return found->second;
    }

private:
    Vulkan &vk_;
    std::map<std::string, Frame> frames_;
};

// Each of `lines` once.
void report_lines(const std::vector<std::string> &lines, const char *prefix)
{
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (std::find(lines.begin(), lines.begin() + i, lines[i]) == lines.begin() + i)
            std::printf("%s%s\n", prefix, lines[i].c_str());
    }
}

void pipeline_against_peer(Vulkan &vk, Frames &frames, const Options &options)
{
    std::printf("\n2. appsrc (one VulkanImage frame, again and again) ! g2gview video-direction=M ! "
                "g2gmaterialize ! video/x-raw against appsrc ! vulkandownload ! videoflip "
                "video-direction=M, into a sink that maps every frame; frames/s, median of %d runs of %g s, "
                "alternating\n",
                options.repeats, options.seconds);
    std::printf("%-6s %-9s %-8s %12s %12s %10s\n", "format", "size", "view", "g2g fr/s", "peer fr/s",
                "g2g/peer");
    FILE *csv = open_csv("vulkan-pipeline.csv");
    std::vector<std::string> errors, memories;
    for (const Size &size : options.sizes)
        for (const std::string &format : options.formats) {
            const Frame &frame = frames.get(format, size);
            for (const std::string &method : options.methods) {
                const std::string ours =
                    "g2gview video-direction=" + method + " ! g2gmaterialize ! video/x-raw";
                const std::string peer =
                    "vulkandownload ! videoflip video-direction=" + method + " ! video/x-raw";
                const auto [our_rate, peer_rate] = paired_rates(vk, ours, peer, frame, options);
                std::printf("%-6s %-9s %-8s %12s %12s %10s\n", format.c_str(), size.name.c_str(),
                            method.c_str(), fps_text(our_rate).c_str(), fps_text(peer_rate).c_str(),
                            ratio_text(our_rate, peer_rate).c_str());
                if (csv)
                    std::fprintf(csv, "%s-%s-%s %s %s\n", format.c_str(), size.name.c_str(), method.c_str(),
                                 csv_fps(our_rate).c_str(), csv_fps(peer_rate).c_str());
                for (const Rate *rate : {&our_rate, &peer_rate})
                    if (!rate->error.empty())
                        errors.push_back((rate == &our_rate ? ours : peer) + ": " + rate->error);
                for (const auto &[rate, name] :
                     {std::pair{&our_rate, "g2gmaterialize"}, {&peer_rate, "videoflip"}})
                    if (!rate->memory.empty())
                        memories.push_back(std::string(name) + "'s frames: " + rate->memory);
            }
        }
    report_lines(errors, "n/a: ");
    report_lines(memories, "");
    if (csv)
        std::fclose(csv);
}

void download_against_vulkandownload(Vulkan &vk, Frames &frames, const Options &options)
{
    std::printf(
        "\n3. appsrc (one VulkanImage frame, again and again) ! g2gtee ! video/x-raw against appsrc ! "
        "vulkandownload, into a sink that maps every frame and reads %s, directly and behind a queue of 4 "
        "(the sink maps later); frames/s, median of %d runs of %g s, alternating\n",
        read_every_byte ? "every byte" : "a byte of every page", options.repeats, options.seconds);
    std::printf("%-6s %-9s %12s %12s %8s %12s %12s %8s\n", "format", "size", "tee fr/s", "vkdl fr/s",
                "tee/vkdl", "tee+q fr/s", "vkdl+q fr/s", "tee/vkdl");
    FILE *csv = open_csv("vulkan-download.csv");
    const std::string queue = " ! queue max-size-buffers=4 max-size-bytes=0 max-size-time=0";
    std::vector<std::string> errors, memories;
    for (const Size &size : options.sizes)
        for (const std::string &format : options.formats) {
            const Frame &frame = frames.get(format, size);
            const std::string ours = "g2gtee name=t t.", peer = "vulkandownload";
            const auto [direct_ours, direct_peer] =
                paired_rates(vk, ours + " ! video/x-raw", peer + " ! video/x-raw", frame, options);
            const auto [queued_ours, queued_peer] = paired_rates(
                vk, ours + queue + " ! video/x-raw", peer + queue + " ! video/x-raw", frame, options);
            std::printf("%-6s %-9s %12s %12s %8s %12s %12s %8s\n", format.c_str(), size.name.c_str(),
                        fps_text(direct_ours).c_str(), fps_text(direct_peer).c_str(),
                        ratio_text(direct_ours, direct_peer).c_str(), fps_text(queued_ours).c_str(),
                        fps_text(queued_peer).c_str(), ratio_text(queued_ours, queued_peer).c_str());
            if (csv)
                std::fprintf(csv, "%s-%s %s %s %s %s\n", format.c_str(), size.name.c_str(),
                             csv_fps(direct_ours).c_str(), csv_fps(direct_peer).c_str(),
                             csv_fps(queued_ours).c_str(), csv_fps(queued_peer).c_str());
            for (const auto &[rate, name] : {std::pair{&direct_ours, "g2gtee"},
                                             {&direct_peer, "vulkandownload"},
                                             {&queued_ours, "g2gtee + queue"},
                                             {&queued_peer, "vulkandownload + queue"}}) {
                if (!rate->error.empty())
                    errors.push_back(std::string(name) + ": " + rate->error);
                if (!rate->memory.empty() && rate != &queued_ours && rate != &queued_peer)
                    memories.push_back(std::string(name) + "'s frames: " + rate->memory);
            }
        }
    report_lines(errors, "n/a: ");
    report_lines(memories, "");
    if (csv)
        std::fclose(csv);
}

// Frames/s of Engine::download of `frame` alone (no elements, one thread), each frame mapped and
// read (a byte a page) at once, or `lag` frames later: the copies of the frames between run
// meanwhile. From the 10th frame for `seconds`.
Rate engine_downloads(Vulkan &vk, const Frame &frame, int lag, double seconds)
{
    Rate rate;
    std::deque<g2g::BufferRef> pending;
    std::atomic<unsigned> checksum{0};
    const int warmup = 10;
    int frames = 0;
    double first = 0;
    const double started = now();
    while (rate.error.empty() && now() - started < 4 * seconds + 30) {
        g2g::Result<g2g::BufferRef> downloaded = vk.engine->download(frame.buffer, frame.info);
        if (!downloaded) {
            rate.error = "Engine::download: " + downloaded.error().message();
            break;
        }
        pending.push_back(std::move(*downloaded));
        if (int(pending.size()) <= lag)
            continue;
        if (frames == 0)
            rate.memory = memory_of(pending.front().get());
        if (!read_pages(pending.front().get(), checksum))
            rate.error = "its frames cannot be mapped";
        pending.pop_front();
        const double t = now();
        if (++frames == warmup)
            first = t;
        if (frames > warmup && t - first >= seconds) {
            rate.fps = (frames - warmup) / (t - first);
            break;
        }
    }
    if (rate.error.empty() && rate.fps == 0)
        rate.error = "timed out";
    pending.clear();
    vk.engine->wait_idle();
    return rate;
}

void engine_download(Vulkan &vk, Frames &frames, const Options &options)
{
    std::printf("\n3b. Engine::download alone (no elements, one thread), each frame mapped at once or 4 "
                "frames later; frames/s, median of %d runs of %g s\n",
                options.repeats, options.seconds);
    std::printf("%-6s %-9s %12s %12s %8s\n", "format", "size", "at once", "4 later", "later/once");
    FILE *csv = open_csv("vulkan-engine-download.csv");
    std::vector<std::string> errors, memories;
    for (const Size &size : options.sizes)
        for (const std::string &format : options.formats) {
            const Frame &frame = frames.get(format, size);
            Rate rates[2];
            std::vector<double> fps[2];
            for (int r = 0; r < options.repeats; ++r)
                for (int lagged = 0; lagged < 2; ++lagged) {
                    if (!rates[lagged].error.empty())
                        continue;
                    const Rate rate = engine_downloads(vk, frame, lagged ? 4 : 0, options.seconds);
                    rates[lagged].error = rate.error;
                    rates[lagged].memory = rate.memory;
                    fps[lagged].push_back(rate.fps);
                }
            for (int lagged = 0; lagged < 2; ++lagged) {
                rates[lagged].fps = rates[lagged].error.empty() ? median(fps[lagged]) : 0;
                if (!rates[lagged].error.empty())
                    errors.push_back(rates[lagged].error);
                if (!rates[lagged].memory.empty())
                    memories.push_back("Engine::download's frames: " + rates[lagged].memory);
            }
            std::printf("%-6s %-9s %12s %12s %8s\n", format.c_str(), size.name.c_str(),
                        fps_text(rates[0]).c_str(), fps_text(rates[1]).c_str(),
                        ratio_text(rates[1], rates[0]).c_str());
            if (csv)
                std::fprintf(csv, "%s-%s %s %s\n", format.c_str(), size.name.c_str(),
                             csv_fps(rates[0]).c_str(), csv_fps(rates[1]).c_str());
        }
    report_lines(errors, "n/a: ");
    report_lines(memories, "");
    if (csv)
        std::fclose(csv);
}

// Median of `values` in microseconds, for the parts table.
std::string micros(const std::vector<double> &values)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", median(values) * 1e6);
    return values.empty() ? "n/a" : text;
}

// The fence a submission had before g2g's pool (issue #32): one made and destroyed per submission,
// gst_vulkan_fence_new (vkCreateFence) and its last unref (vkDestroyFence, which the trash list's
// collection did), against a fence of the pool acquired and given back. Never submitted: only the
// CPU cost of making and freeing the object.
void fence_costs(Vulkan &vk, int rounds)
{
    std::vector<double> create, destroy, pooled;
    std::shared_ptr<g2g::vulkan::FencePool> pool = g2g::vulkan::FencePool::create(vk.device);
    for (int i = 0; i < rounds; ++i) {
        double t = now();
        GstVulkanFence *fence = gst_vulkan_fence_new(vk.device, nullptr);
        double t1 = now();
        if (!fence)
            break;
        gst_vulkan_fence_unref(fence);
        const double t2 = now();
        create.push_back(t1 - t);
        destroy.push_back(t2 - t1);
        t = now();
        g2g::Result<g2g::vulkan::Fence> reused = pool->acquire();
        if (!reused)
            break;
        reused->reset();
        pooled.push_back(now() - t);
    }
    std::printf("fences, median of %d: gst_vulkan_fence_new %s us, its unref %s us (a new fence per "
                "submission, as before the pool); a pooled fence acquired and given back %s us\n",
                rounds, micros(create).c_str(), micros(destroy).c_str(), micros(pooled).c_str());
}

// 3c. Where Engine::download's CPU time goes, part by part (DownloadTiming), each frame read at once
// and dropped, as a sink does: the parts of the call, then the sink's wait for the copy
// (fenced_memory_wait), its map (after the wait: the staging buffer is mapped once, so this is the
// memory's bookkeeping) and the frame's drop (its staging buffer back to the engine's free list).
// Medians in us of the frames of `seconds` after 10 of warm-up; "made" is what the engine created
// for the row's frames, warm-up included (fences, staging buffers): reuse keeps both small.
void engine_download_parts(Vulkan &vk, Frames &frames, const Options &options)
{
    std::printf("\n3c. Engine::download's parts (one thread, each frame read at once), CPU us per frame, "
                "median over %g s\n",
                options.seconds);
    std::printf("%-6s %-9s %7s | %7s %7s %7s %7s %7s %7s | %7s %7s %7s %7s %7s | %s\n", "format", "size",
                "call", "staging", "collect", "record", "fence", "submit", "frame", "wait", "its cpu",
                "polled", "map", "drop", "made; the map's waits");
    std::vector<std::string> errors;
    for (const Size &size : options.sizes)
        for (const std::string &format : options.formats) {
            const Frame &frame = frames.get(format, size);
            const g2g::vulkan::Engine::Created before = vk.engine->created();
            const g2g::vulkan::CopyDue::Waits waits_before = vk.engine->download_waits();
            std::vector<double> call, staging, collect, record, fence, submit, made_frame, wait, wait_cpu,
                poll, map, drop;
            const int warmup = 10;
            int count = 0;
            double first = 0;
            std::string error;
            const double started = now();
            while (error.empty() && now() - started < 4 * options.seconds + 30) {
                g2g::vulkan::DownloadTiming parts;
                const double t0 = now();
                g2g::Result<g2g::BufferRef> downloaded =
                    vk.engine->download(frame.buffer, frame.info, false, &parts);
                const double t1 = now();
                if (!downloaded) {
                    error = "Engine::download: " + downloaded.error().message();
                    break;
                }
                GstMemory *memory = gst_buffer_peek_memory(downloaded->get(), 0);
                // Every other frame, the copy is polled for (vkGetFenceStatus in a loop) before the
                // wait, which then returns at once: how late a sleeping wait wakes.
                const bool polled = count % 2 == 1;
                const double cpu1 = thread_cpu();
                if (polled)
                    while (!g2g::vulkan::fenced_memory_ready(memory) && now() - t1 < 1.0) {
                    }
                const bool copied = g2g::vulkan::fenced_memory_wait(memory);
                const double t2 = now();
                const double cpu2 = thread_cpu();
                GstMapInfo info;
                const bool mapped = gst_buffer_map(downloaded->get(), &info, GST_MAP_READ);
                if (mapped)
                    gst_buffer_unmap(downloaded->get(), &info);
                const double t3 = now();
                downloaded->reset();
                const double t4 = now();
                if (!copied || !mapped) {
                    error = "a downloaded frame cannot be read";
                    break;
                }
                if (++count == warmup)
                    first = t4;
                if (count <= warmup)
                    continue;
                call.push_back(t1 - t0);
                staging.push_back(parts.staging);
                collect.push_back(parts.collect);
                record.push_back(parts.record);
                fence.push_back(parts.fence);
                submit.push_back(parts.submit);
                made_frame.push_back(parts.frame);
                (polled ? poll : wait).push_back(t2 - t1);
                if (!polled)
                    wait_cpu.push_back(cpu2 - cpu1);
                map.push_back(t3 - t2);
                drop.push_back(t4 - t3);
                if (t4 - first >= options.seconds)
                    break;
            }
            vk.engine->wait_idle();
            if (!error.empty()) {
                errors.push_back(format + " " + size.name + ": " + error);
                continue;
            }
            const g2g::vulkan::Engine::Created after = vk.engine->created();
            const g2g::vulkan::CopyDue::Waits waits = vk.engine->download_waits();
            std::printf("%-6s %-9s %7s | %7s %7s %7s %7s %7s %7s | %7s %7s %7s %7s %7s | %zu fences, %zu "
                        "staging buffers; %llu polled, %llu woken, %llu slept, %llu done before\n",
                        format.c_str(), size.name.c_str(), micros(call).c_str(), micros(staging).c_str(),
                        micros(collect).c_str(), micros(record).c_str(), micros(fence).c_str(),
                        micros(submit).c_str(), micros(made_frame).c_str(), micros(wait).c_str(),
                        micros(wait_cpu).c_str(), micros(poll).c_str(), micros(map).c_str(),
                        micros(drop).c_str(), after.fences - before.fences,
                        after.staging_buffers - before.staging_buffers,
                        static_cast<unsigned long long>(waits.polled - waits_before.polled),
                        static_cast<unsigned long long>(waits.woken - waits_before.woken),
                        static_cast<unsigned long long>(waits.slept - waits_before.slept),
                        static_cast<unsigned long long>(waits.already_done - waits_before.already_done));
        }
    report_lines(errors, "n/a: ");
    fence_costs(vk, 200);
}

// 3d. The copy both downloads wait for, on the GPU alone: vkCmdCopyImageToBuffer of a whole frame
// into a buffer of each kind of memory, timed by timestamps around batches (as section 1), on the
// first queue of each queue family that copies. Read at once, a download is this copy plus fixed
// costs, for g2g and vulkandownload alike: a faster copy is the only lead left there. A queue of
// another family than the one vulkanupload made the images on reads them without a queue family
// ownership transfer: their bytes are undefined there, their copy's time is not.
struct CopyTarget {
    const char *name;
    VkMemoryPropertyFlags flags;
};
constexpr CopyTarget kCopyTargets[] = {
    {"host-cached (g2g's staging)", VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT},
    {"host-coherent (vulkandownload's)",
     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT},
    {"device-local (no bus)", VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT},
};

gboolean gather_queue(GstVulkanDevice *, GstVulkanQueue *queue, gpointer data)
{
    auto *queues = static_cast<std::vector<GstVulkanQueue *> *>(data);
    const bool family_seen = std::any_of(queues->begin(), queues->end(),
                                         [&](GstVulkanQueue *q) { return q->family == queue->family; });
    if (!family_seen)
        queues->push_back(GST_VULKAN_QUEUE(gst_object_ref(queue)));
    return TRUE;
}

std::string family_text(const Vulkan &vk, guint32 family)
{
    const VkQueueFlags flags = vk.device->physical_device->queue_family_props[family].queueFlags;
    std::string text = "family " + std::to_string(family) + " (";
    const std::pair<VkQueueFlags, const char *> names[] = {{VK_QUEUE_GRAPHICS_BIT, "graphics"},
                                                           {VK_QUEUE_COMPUTE_BIT, "compute"},
                                                           {VK_QUEUE_TRANSFER_BIT, "transfer"}};
    bool first = true;
    for (const auto &[bit, name] : names)
        if (flags & bit) {
            text += std::string(first ? "" : "+") + name;
            first = false;
        }
    return text + ")";
}

void copy_bound(Vulkan &vk, Frames &frames, const Options &options)
{
    std::vector<GstVulkanQueue *> queues;
    gst_vulkan_device_foreach_queue(vk.device, gather_queue, &queues);
    std::printf("\n3d. The copy a download waits for, on the GPU: vkCmdCopyImageToBuffer of the whole frame "
                "into each memory, batches of %d, median of %d rounds; the device's queue families: ",
                options.batch, options.rounds);
    for (GstVulkanQueue *queue : queues)
        std::printf("%s%s", family_text(vk, queue->family).c_str(), queue == queues.back() ? "\n" : ", ");
    std::printf("%-6s %-6s %-36s %-34s %9s %9s\n", "format", "size", "queue", "into", "us/frame", "GB/s");
    std::vector<std::string> errors;
    for (GstVulkanQueue *queue : queues) {
        const VkQueueFlags flags = vk.device->physical_device->queue_family_props[queue->family].queueFlags;
        if (!(flags & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
            continue; // a video queue
        GpuClock clock(vk, true, queue);
        for (const Size &size : options.sizes)
            for (const std::string &format : options.formats) {
                const Frame &frame = frames.get(format, size);
                const GstVideoFormat video_format = GST_VIDEO_INFO_FORMAT(&frame.info);
                for (const CopyTarget &target : kCopyTargets) {
                    GstMemory *memory =
                        gst_vulkan_buffer_memory_alloc(vk.device, GST_VIDEO_INFO_SIZE(&frame.info),
                                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT, target.flags);
                    if (!memory) {
                        errors.push_back(std::string(target.name) + ": no such memory on this device");
                        continue;
                    }
                    const VkBuffer buffer = reinterpret_cast<GstVulkanBufferMemory *>(memory)->buffer;
                    std::vector<double> seconds;
                    bool ok = true;
                    for (int round = 0; round < options.rounds && ok; ++round) {
                        const GpuClock::Batch batch = clock.run(
                            [&] {
                                clock.submit(clock.record([&](VkCommandBuffer cmd) {
                                    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&frame.info); ++p) {
                                        const std::optional<g2g::vulkan::ImagePlane> plane =
                                            g2g::vulkan::image_plane(frame.buffer, video_format, p);
                                        if (!plane)
                                            return;
                                        VkPipelineStageFlags src_stages = 0;
                                        const VkImageMemoryBarrier barrier = g2g::vulkan::image_barrier(
                                            plane->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                            VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                            src_stages);
                                        vkCmdPipelineBarrier(
                                            cmd,
                                            src_stages
                                                ? src_stages
                                                : VkPipelineStageFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                                            VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 1,
                                            &barrier);
                                        const VkBufferImageCopy region =
                                            g2g::vulkan::plane_copy_region(frame.info, p, plane->aspect);
                                        vkCmdCopyImageToBuffer(cmd, plane->image->image,
                                                               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer,
                                                               1, &region);
                                    }
                                }));
                                return true;
                            },
                            options.batch);
                        ok = batch.ok;
                        seconds.push_back(batch.gpu);
                    }
                    gst_memory_unref(memory);
                    const double per_frame = median(seconds);
                    std::printf("%-6s %-6s %-36s %-34s %9.1f %9.1f\n", format.c_str(), size.name.c_str(),
                                family_text(vk, queue->family).c_str(), target.name, per_frame * 1e6,
                                double(GST_VIDEO_INFO_SIZE(&frame.info)) / per_frame * 1e-9);
                }
            }
    }
    for (GstVulkanQueue *queue : queues) {
        queue_wait_idle(queue);
        gst_object_unref(queue);
    }
    report_lines(errors, "n/a: ");
}

Options parse(int argc, char **argv)
{
    Options options;
    for (int i = g2g::bench::take_csv_option(argc, argv); i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                die(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--csv")
            g2g::bench::csv_dir() = value();
        else if (arg == "--device")
            options.device = guint(std::atoi(value().c_str()));
        else if (arg == "--size")
            options.size = size_of(value());
        else if (arg == "--sizes") {
            options.sizes.clear();
            for (const std::string &s : split(value()))
                options.sizes.push_back(size_of(s));
        } else if (arg == "--formats")
            options.formats = split(value());
        else if (arg == "--methods")
            options.methods = split(value());
        else if (arg == "--batch")
            options.batch = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--rounds")
            options.rounds = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--seconds")
            options.seconds = std::atof(value().c_str());
        else if (arg == "--repeats")
            options.repeats = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--no-gate")
            options.gate = false;
        else if (arg == "--read-every-byte")
            read_every_byte = true;
        else if (arg == "--help" || arg == "-h") {
            std::printf("%s", kUsage);
            std::exit(0);
        } else if (arg == "materialize" || arg == "pipeline" || arg == "download" ||
                   arg == "download-parts" || arg == "copy-bound")
            options.modes.push_back(arg);
        else
            die("unknown argument " + arg + " (bench-vulkan --help)");
    }
    if (options.modes.empty())
        options.modes = {"materialize", "pipeline", "download"};
    return options;
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    const Options options = parse(argc, argv);
    if (!g2g::bench::have_element("vulkanupload") || !g2g::bench::have_element("vulkandownload")) {
        std::printf("no vulkanupload / vulkandownload on this machine: nothing to measure\n");
        return 0;
    }
    Vulkan vk;
    open_vulkan(vk, options.device);
    const VkPhysicalDeviceProperties &properties = vk.device->physical_device->properties;
    gchar *version = gst_version_string();
    std::printf("Vulkan device %u: %s (driver 0x%x, Vulkan %u.%u.%u), queue family %u; %s\n", options.device,
                g2g::vulkan::Engine::describe(vk.device).c_str(), properties.driverVersion,
                VK_VERSION_MAJOR(properties.apiVersion), VK_VERSION_MINOR(properties.apiVersion),
                VK_VERSION_PATCH(properties.apiVersion), vk.queue()->family, version);
    g_free(version);
    {
        Frames frames(vk);
        for (const std::string &mode : options.modes) {
            if (mode == "materialize")
                materialize_against_copy(vk, options);
            else if (mode == "pipeline")
                pipeline_against_peer(vk, frames, options);
            else if (mode == "download") {
                download_against_vulkandownload(vk, frames, options);
                engine_download(vk, frames, options);
                engine_download_parts(vk, frames, options);
                copy_bound(vk, frames, options);
            } else if (mode == "download-parts") {
                engine_download_parts(vk, frames, options);
            } else {
                copy_bound(vk, frames, options);
            }
            std::fflush(stdout);
        }
    }
    queue_wait_idle(vk.queue());
    vk.engine.reset();
    gst_object_unref(vk.device);
    gst_object_unref(vk.instance);
    return 0;
}
