// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: real GStreamer pipelines run to EOS or error (see pipeline.h).
#include "pipeline.h"

#include "g2g-config.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include "vulkan-teardown.h"

#include <algorithm>
#include <memory>

namespace g2g::test {

bool have_element(const char *factory)
{
    GstElementFactory *found = gst_element_factory_find(factory);
    if (!found)
        return false;
    gst_object_unref(found);
    return true;
}

std::string media_path(const char *file)
{
    std::vector<std::string> dirs;
    if (const char *dir = g_getenv("G2G_MEDIA_DIR"))
        dirs.emplace_back(dir);
    dirs.emplace_back(G2G_SOURCE_ROOT "/.media");
    dirs.emplace_back(G2G_SOURCE_ROOT "/../shared/media");
    for (const std::string &dir : dirs) {
        std::string path = dir + "/" + file;
        if (g_file_test(path.c_str(), G_FILE_TEST_IS_REGULAR))
            return path;
    }
    return {};
}

bool have_vulkan_device()
{
    static const bool usable = [] {
        if (!have_element("vulkanupload") || !have_element("vulkandownload"))
            return false;
        // Ends in vulkandownload: GStreamer 1.22 on lavapipe may crash tearing down a pipeline
        // that drops VulkanImage frames without waiting for the device.
        PipelineRun run =
            run_pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16,height=16 "
                         "! vulkanupload ! video/x-raw(memory:VulkanImage) ! vulkandownload "
                         "! fakesink");
        return run.error.empty();
    }();
    return usable;
}

std::string gstreamer_version()
{
    g_autofree gchar *version = gst_version_string();
    return version;
}

std::string vulkan_not_in_gstreamer()
{
    if (G2G_HAVE_VULKAN || have_element("vulkanupload"))
        return "";
    return gstreamer_version() +
           " here has no Vulkan (no vulkanupload, and g2g found no gstreamer-vulkan-1.0 to build its Vulkan "
           "domain with): Debian builds its GStreamer 1.28 plugins-bad without Vulkan";
}

std::string vulkan_domain_lost()
{
    if (G2G_HAVE_VULKAN || !have_element("vulkanupload"))
        return "";
    return gstreamer_version() +
           " here has Vulkan (vulkanupload) but g2g was built without its Vulkan domain: install "
           "libgstreamer-plugins-bad1.0-dev, libvulkan-dev and glslc and build with -Dvulkan=enabled";
}

bool have_cuda_device()
{
    static const bool usable = [] {
        if (!have_element("cudaupload") || !have_element("cudadownload"))
            return false;
        PipelineRun run =
            run_pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=64 "
                         "! cudaupload ! video/x-raw(memory:CUDAMemory) ! cudadownload ! fakesink");
        return run.error.empty();
    }();
    return usable;
}

namespace {

// Where one appsink's samples go.
struct SinkRecord {
    std::vector<BufferRef> *buffers;
    std::string *caps;
    std::vector<std::string> *frame_caps;
};

GstFlowReturn keep_sample(GstAppSink *sink, gpointer data)
{
    auto *record = static_cast<SinkRecord *>(data);
    GstSample *sample = gst_app_sink_pull_sample(sink);
    if (!sample)
        return GST_FLOW_EOS;
    record->buffers->push_back(BufferRef::borrow(gst_sample_get_buffer(sample)));
    if (GstCaps *caps = gst_sample_get_caps(sample)) {
        gchar *text = gst_caps_to_string(caps);
        *record->caps = text;
        g_free(text);
    }
    record->frame_caps->push_back(*record->caps);
    gst_sample_unref(sample);
    return GST_FLOW_OK;
}

// Every appsink of `bin`, also inside nested bins.
std::vector<ElementRef> app_sinks(GstBin *bin)
{
    std::vector<ElementRef> sinks;
    GstIterator *it = gst_bin_iterate_recurse(bin);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        auto *element = GST_ELEMENT(g_value_get_object(&item));
        if (GST_IS_APP_SINK(element))
            sinks.push_back(ElementRef::borrow(element));
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    return sinks;
}

GstPadProbeReturn call_tap(GstPad *, GstPadProbeInfo *info, gpointer data)
{
    (*static_cast<const BufferTap *>(data))(GST_PAD_PROBE_INFO_BUFFER(info));
    return GST_PAD_PROBE_OK;
}

} // namespace

ElementRef parse_pipeline(const std::string &description, std::string &error)
{
    GError *parse_error = nullptr;
    ElementRef pipeline = ElementRef::adopt(gst_parse_launch(description.c_str(), &parse_error));
    if (parse_error) {
        error = std::string("parse: ") + parse_error->message;
        g_error_free(parse_error);
        return {};
    }
    return pipeline;
}

PipelineRun run_pipeline(const std::string &description, const BufferTap &tap, GstClockTime timeout,
                         const PipelineInspector &inspect, const PipelineInspector &prepare)
{
    PipelineRun run;
    ElementRef pipeline = parse_pipeline(description, run.error);
    if (!pipeline)
        return run;
    if (!GST_IS_BIN(pipeline.get())) {
        run.error = "parse: not a pipeline";
        return run;
    }
    // The maps' nodes are created before the pipeline runs: callbacks only append to them.
    std::vector<ElementRef> sinks = app_sinks(GST_BIN(pipeline.get()));
    std::vector<SinkRecord> records;
    records.reserve(sinks.size());
    for (const ElementRef &sink : sinks) {
        const char *name = GST_OBJECT_NAME(sink.get());
        records.push_back({&run.sinks[name], &run.sink_caps[name], &run.frame_caps[name]});
        GstAppSinkCallbacks callbacks{};
        callbacks.new_sample = keep_sample;
        gst_app_sink_set_callbacks(GST_APP_SINK(sink.get()), &callbacks, &records.back(), nullptr);
    }

    if (tap) {
        ElementRef tapped = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "tap"));
        if (!tapped) {
            run.error = "no element named tap";
            return run;
        }
        Ref<GstPad> pad = Ref<GstPad>::adopt(gst_element_get_static_pad(tapped.get(), "sink"));
        gst_pad_add_probe(pad.get(), GST_PAD_PROBE_TYPE_BUFFER, call_tap, const_cast<BufferTap *>(&tap),
                          nullptr);
    }
    if (prepare)
        prepare(GST_BIN(pipeline.get()));
    gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
    Ref<GstBus> bus = Ref<GstBus>::adopt(gst_element_get_bus(pipeline.get()));
    const gint64 deadline = g_get_monotonic_time() + static_cast<gint64>(timeout / GST_USECOND);
    Ref<GstMessage> message;
    for (;;) {
        const gint64 left = std::max<gint64>(0, deadline - g_get_monotonic_time());
        message = Ref<GstMessage>::adopt(gst_bus_timed_pop_filtered(
            bus.get(), static_cast<GstClockTime>(left) * GST_USECOND,
            static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING)));
        if (!message || GST_MESSAGE_TYPE(message.get()) != GST_MESSAGE_WARNING)
            break;
        run.warnings.push_back(message_text(message.get()));
    }
    if (!message) {
        run.error = "timeout";
    } else if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_ERROR) {
        run.error = message_text(message.get());
        run.error_source = GST_OBJECT_NAME(GST_MESSAGE_SRC(message.get()));
    }
    if (inspect)
        inspect(GST_BIN(pipeline.get()));
    wait_for_vulkan_devices(GST_BIN(pipeline.get()));
    gst_element_set_state(pipeline.get(), GST_STATE_NULL);
    if (auto kept = run.sinks.find("sink"); kept != run.sinks.end())
        run.buffers = kept->second;
    return run;
}

std::string bytes_of(const std::vector<BufferRef> &frames)
{
    std::string all;
    for (const BufferRef &buffer : frames) {
        GstMapInfo map;
        if (!gst_buffer_map(buffer.get(), &map, GST_MAP_READ))
            return "(unmappable)";
        all.append(reinterpret_cast<const char *>(map.data), map.size);
        gst_buffer_unmap(buffer.get(), &map);
    }
    return all;
}

std::string message_text(GstMessage *message)
{
    GError *error = nullptr;
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
        gst_message_parse_error(message, &error, nullptr);
    else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_WARNING)
        gst_message_parse_warning(message, &error, nullptr);
    if (!error)
        return "";
    std::string text = error->message;
    g_error_free(error);
    return text;
}

std::string message_with_source(GstMessage *message)
{
    return std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " + message_text(message);
}

std::string pop_message_text(GstBus *bus, GstMessageType type)
{
    const Ref<GstMessage> message = Ref<GstMessage>::adopt(gst_bus_pop_filtered(bus, type));
    return message ? message_text(message.get()) : "";
}

std::vector<std::string> pop_message_texts(GstBus *bus, GstMessageType type)
{
    std::vector<std::string> texts;
    while (const Ref<GstMessage> message = Ref<GstMessage>::adopt(gst_bus_pop_filtered(bus, type)))
        texts.push_back(message_text(message.get()));
    return texts;
}

PipelineInspector feed_appsrc(const std::string &caps, std::vector<BufferRef> frames, const char *source)
{
    // std::function copies what it holds: the frames are shared, and pushed once.
    auto held = std::make_shared<std::vector<BufferRef>>(std::move(frames));
    return [caps, held, name = std::string(source)](GstBin *pipeline) {
        const ElementRef src = ElementRef::adopt(gst_bin_get_by_name(pipeline, name.c_str()));
        const CapsRef src_caps = CapsRef::adopt(gst_caps_from_string(caps.c_str()));
        gst_app_src_set_caps(GST_APP_SRC(src.get()), src_caps.get());
        for (BufferRef &frame : *held)
            gst_app_src_push_buffer(GST_APP_SRC(src.get()), frame.release());
        held->clear();
        gst_app_src_end_of_stream(GST_APP_SRC(src.get()));
    };
}

} // namespace g2g::test
