// SPDX-License-Identifier: LGPL-2.1-or-later
// VulkanContextUse with the vulkan feature: the pipeline's instance, device and queue joined as
// GStreamer 1.22's vulkanupload and vulkandownload join them (ext/vulkan/vkupload.c), and answered
// to them the same way.
#include "vulkan-context.h"

#include <string>
#include <utility>

#include "allocation.h"
#include "element-error.h"
#include "upstream-thread.h"
// GStreamer's Vulkan headers, with the C linkage some of 1.22's forget.
#include <g2g-internal/vulkan.h>

GST_DEBUG_CATEGORY_STATIC(g2g_vulkan_context_debug);
#define GST_CAT_DEFAULT g2g_vulkan_context_debug

namespace g2g::element {

namespace {

void init_debug()
{
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        GST_DEBUG_CATEGORY_INIT(g2g_vulkan_context_debug, "g2gvulkancontext", 0,
                                "g2g's elements joining the pipeline's Vulkan context");
        g_once_init_leave(&done, 1);
    }
}

GstVulkanInstance *instance_of(const Ref<GstObject> &object)
{
    return object ? GST_VULKAN_INSTANCE(object.get()) : nullptr;
}

GstVulkanDevice *device_of(const Ref<GstObject> &object)
{
    return object ? GST_VULKAN_DEVICE(object.get()) : nullptr;
}

GstVulkanQueue *queue_of(const Ref<GstObject> &object)
{
    return object ? GST_VULKAN_QUEUE(object.get()) : nullptr;
}

// Takes over a (transfer full) reference of a Vulkan object.
Ref<GstObject> adopt(gpointer object)
{
    return Ref<GstObject>::adopt(object ? GST_OBJECT(object) : nullptr);
}

bool can_compute(GstVulkanQueue *queue)
{
    const GstVulkanPhysicalDevice *physical = queue->device->physical_device;
    return queue->family < physical->n_queue_families &&
           (physical->queue_family_props[queue->family].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
}

// What GStreamer's _vk_context_propagate does for what an element created: the context set on
// the element itself (our set_context takes it) and posted, so that the bins keep it for any
// element that asks them later (NEED_CONTEXT).
void propagate(GstElement *element, GstContext *context)
{
    gst_element_set_context(element, context);
    // The message takes a reference of its own (transfer full); the caller keeps theirs.
    gst_element_post_message(element,
                             gst_message_new_have_context(GST_OBJECT(element), gst_context_ref(context)));
}

// Asks the peers (downstream first, then upstream), then the application and the bins
// (NEED_CONTEXT), for a context of `type`; whoever answers sets it on the element.
void ask(GstElement *element, const char *type)
{
    gst_vulkan_global_context_query(element, type);
}

std::string no_device(const GError *error)
{
    return std::string("no Vulkan device: ") + (error ? error->message : "unknown reason");
}

} // namespace

void VulkanContextUse::set_context(GstElement *element, GstContext *context)
{
    init_debug();
    const char *type = gst_context_get_context_type(context);
    const std::lock_guard lock(lock_);
    if (engine_) {
        GST_DEBUG_OBJECT(element, "keeping the engine's device and queue, not the new %s", type);
        return;
    }
    if (g_strcmp0(type, GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR) == 0) {
        if (device_) {
            GST_DEBUG_OBJECT(element, "keeping the instance of our device");
            return;
        }
        auto *instance = reinterpret_cast<GstVulkanInstance *>(instance_.release());
        gst_vulkan_handle_set_context(element, context, nullptr, &instance);
        instance_ = adopt(instance);
        return;
    }
    if (g_strcmp0(type, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR) == 0) {
        GstVulkanDevice *device = nullptr;
        if (!gst_context_get_vulkan_device(context, &device) || !device)
            return;
        if (queue_ && queue_of(queue_)->device != device)
            queue_.reset(); // of the device this one replaces
        device_ = adopt(device);
        instance_ = Ref<GstObject>::borrow(GST_OBJECT(device->instance));
        return;
    }
    if (g_strcmp0(type, GST_VULKAN_QUEUE_CONTEXT_TYPE_STR) == 0) {
        GstVulkanQueue *queue = nullptr;
        if (!gst_context_get_vulkan_queue(context, &queue) || !queue)
            return;
        Ref<GstObject> owned = adopt(queue);
        if (device_ && queue->device != device_of(device_)) {
            GST_INFO_OBJECT(element, "ignoring a queue of another device than ours");
            return;
        }
        device_ = Ref<GstObject>::borrow(GST_OBJECT(queue->device));
        instance_ = Ref<GstObject>::borrow(GST_OBJECT(queue->device->instance));
        queue_ = std::move(owned);
    }
}

void VulkanContextUse::provide(std::function<std::optional<GpuUuid>(GstElement *)> gpu_wanted,
                               std::function<bool(GstElement *)> at_join)
{
    gpu_wanted_ = std::move(gpu_wanted);
    provider_ = true;
    provide_at_join_ = std::move(at_join);
}

bool VulkanContextUse::answer_query(GstElement *element, GstQuery *query)
{
    if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT)
        return false;
    const auto answer = [&] {
        // These only fill the query in: nothing here calls back into an element.
        const std::lock_guard lock(lock_);
        return gst_vulkan_handle_context_query(element, query, nullptr, instance_of(instance_),
                                               device_of(device_)) ||
               gst_vulkan_queue_handle_context_query(element, query, queue_of(queue_));
    };
    if (answer())
        return true;
    const char *type = nullptr;
    gst_query_parse_context_type(query, &type);
    const bool vulkan = g_strcmp0(type, GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR) == 0 ||
                        g_strcmp0(type, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR) == 0 ||
                        g_strcmp0(type, GST_VULKAN_QUEUE_CONTEXT_TYPE_STR) == 0;
    if (!provider_ || !vulkan || providing_.exchange(true))
        return false;
    init_debug();
    GST_INFO_OBJECT(element, "no one has a Vulkan %s: creating the device g2g shares with CUDA", type);
    const bool made = ensure_queue(element);
    providing_ = false;
    return made && answer();
}

void VulkanContextUse::join(GstElement *element)
{
    init_debug();
    // A queue's context brings its device and instance, a device's its instance: asked first.
    if (!holds(queue_))
        ask(element, GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
    if (!holds(device_))
        ask(element, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
    if (!holds(instance_))
        ask(element, GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR);
    // A provider's device must exist before the producer upstream opens its own (in its
    // READY->PAUSED, after ours), so that it takes ours.
    if (provide_at_join_ && !holds(queue_) && provide_at_join_(element) && !providing_.exchange(true)) {
        ensure_queue(element);
        providing_ = false;
    }
    const std::lock_guard lock(lock_);
    GST_INFO_OBJECT(element,
                    "joined instance %" GST_PTR_FORMAT ", device %" GST_PTR_FORMAT ", queue %" GST_PTR_FORMAT,
                    instance_.get(), device_.get(), queue_.get());
}

bool VulkanContextUse::holds(const Ref<GstObject> &slot) const
{
    const std::lock_guard lock(lock_);
    return bool(slot);
}

Ref<GstObject> VulkanContextUse::held(const Ref<GstObject> &slot) const
{
    const std::lock_guard lock(lock_);
    return slot;
}

bool VulkanContextUse::create_device(GstElement *element)
{
    // Created as gst_vulkan_ensure_element_data and vulkanupload create them (without a display),
    // but failing with our own words (that function posts its own error first).
    if (!holds(instance_))
        ask(element, GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR);
    if (!holds(instance_)) {
        Ref<GstObject> instance = adopt(gst_vulkan_instance_new());
        GError *error = nullptr;
        if (!gst_vulkan_instance_open(instance_of(instance), &error)) {
            post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, no_device(error));
            g_clear_error(&error);
            return false;
        }
        g_autoptr(GstContext) context = gst_context_new(GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR, TRUE);
        gst_context_set_vulkan_instance(context, instance_of(instance));
        propagate(element, context);
    }
    const Ref<GstObject> instance = held(instance_);
    if (!instance) {
        post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, no_device(nullptr));
        return false;
    }
    // As gst_vulkan_instance_create_device does (whose create-device signal lets an application
    // hand its own device here; its form depends on the GStreamer version), but with what sharing
    // memory with CUDA needs enabled before the device opens (a no-op where the driver lacks it: the
    // bridge then says so) and on the GPU asked for.
    const guint index = device_index(element, instance_of(instance));
    GstVulkanDevice *made = g2g::compat::vulkan_device_from_handler(instance_of(instance), index);
    if (!made)
        made = gst_vulkan_device_new_with_index(instance_of(instance), index);
    const Ref<GstObject> device = adopt(made);
    // Only before it opens: GStreamer would list an extension enabled on an open device as enabled.
    if (made->device == VK_NULL_HANDLE)
        gst_vulkan_device_enable_extension(made, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    GError *error = nullptr;
    if (!gst_vulkan_device_open(made, &error)) {
        post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, no_device(error));
        g_clear_error(&error);
        return false;
    }
    g_autoptr(GstContext) context = gst_context_new(GST_VULKAN_DEVICE_CONTEXT_TYPE_STR, TRUE);
    gst_context_set_vulkan_device(context, device_of(device));
    propagate(element, context);
    return true;
}

bool VulkanContextUse::create_queue(GstElement *element)
{
    const Ref<GstObject> device = held(device_);
    const Ref<GstObject> queue = adopt(g2g::vulkan::new_compute_queue(device_of(device)));
    if (!queue) {
        post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
                   "no queue of the Vulkan device " + g2g::vulkan::Engine::describe(device_of(device)) +
                       " can run compute shaders (VK_QUEUE_COMPUTE_BIT), which g2g's views need");
        return false;
    }
    g_autoptr(GstContext) context = gst_context_new(GST_VULKAN_QUEUE_CONTEXT_TYPE_STR, TRUE);
    gst_context_set_vulkan_queue(context, queue_of(queue));
    propagate(element, context);
    return true;
}

guint VulkanContextUse::device_index(GstElement *element, GstVulkanInstance *instance)
{
    const std::optional<GpuUuid> wanted = gpu_wanted_ ? gpu_wanted_(element) : std::nullopt;
    if (!wanted)
        return 0;
    for (guint i = 0; i < instance->n_physical_devices; ++i) {
        if (g2g::vulkan::device_uuid(instance->physical_devices[i]) == *wanted) {
            GST_INFO_OBJECT(element, "opening Vulkan device %u: the GPU of the pipeline's CUDA context", i);
            return i;
        }
    }
    GST_WARNING_OBJECT(element,
                       "no Vulkan device is the GPU of the pipeline's CUDA context: opening the first");
    return 0;
}

bool VulkanContextUse::ensure_queue(GstElement *element)
{
    // What joined at READY->PAUSED may have been missing then: a producer upstream of us opens
    // its device in its own READY->PAUSED, after ours.
    if (!holds(queue_))
        ask(element, GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
    if (!holds(device_))
        ask(element, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
    if (!holds(device_) && !create_device(element))
        return false;
    return holds(queue_) || create_queue(element);
}

bool VulkanContextUse::ensure(GstElement *element)
{
    init_debug();
    {
        const std::lock_guard lock(lock_);
        if (engine_)
            return true;
    }
    if (!ensure_queue(element))
        return false;

    Ref<GstObject> kept = held(queue_);
    GstVulkanQueue *queue = queue_of(kept);
    if (!queue) { // a set_context of another device meanwhile dropped it: the next caps try again
        post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
                   "the pipeline's Vulkan device changed while g2g joined it");
        return false;
    }
    if (!can_compute(queue)) {
        g_autofree gchar *text =
            g_strdup_printf("the pipeline's Vulkan queue (family %u of %s) cannot run compute shaders "
                            "(no VK_QUEUE_COMPUTE_BIT), which g2g's views need",
                            queue->family, g2g::vulkan::Engine::describe(queue->device).c_str());
        post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, text);
        return false;
    }
    std::shared_ptr<g2g::vulkan::Engine> engine = g2g::vulkan::Engine::create(queue);
    if (!engine) {
        post_error(element, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
                   "cannot start g2g's Vulkan engine on " + g2g::vulkan::Engine::describe(queue->device));
        return false;
    }
    GST_INFO_OBJECT(element, "working on %s, queue family %u index %u",
                    g2g::vulkan::Engine::describe(queue->device).c_str(), queue->family, queue->index);
    // The engine's queue, device and instance are ours from now on, whatever came meanwhile.
    const std::lock_guard lock(lock_);
    device_ = Ref<GstObject>::borrow(GST_OBJECT(queue->device));
    instance_ = Ref<GstObject>::borrow(GST_OBJECT(queue->device->instance));
    queue_ = std::move(kept);
    engine_ = std::move(engine);
    return true;
}

Result<BufferRef> VulkanContextUse::download(GstBuffer *dense, const GstVideoInfo &info, bool wait)
{
    std::shared_ptr<g2g::vulkan::Engine> engine;
    {
        const std::lock_guard lock(lock_);
        engine = engine_;
    }
    if (!engine)
        return Error(ErrorCode::InvalidArgument,
                     "no Vulkan engine to download with: VulkanImage caps were not negotiated");
    return engine->download(dense, info, wait);
}

bool VulkanContextUse::upload_races(GstElement *element)
{
    return g2g::compat::vulkanupload_races_staging() && runs_upstream_in_thread(element, "vulkanupload");
}

bool VulkanContextUse::check_frame(GstElement *element, GstBuffer *buffer)
{
    GstVulkanDevice *ours;
    {
        const std::lock_guard lock(lock_);
        ours = engine_ ? engine_->device() : nullptr;
    }
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, i);
        if (!gst_is_vulkan_image_memory(memory))
            continue;
        GstVulkanDevice *theirs = reinterpret_cast<GstVulkanImageMemory *>(memory)->device;
        if (ours && theirs->device == ours->device)
            continue;
        post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                   "the frame's Vulkan images are of device " + g2g::vulkan::Engine::describe(theirs) +
                       " but this element works on the pipeline's device " +
                       (ours ? g2g::vulkan::Engine::describe(ours) : std::string("(none)")));
        return false;
    }
    return true;
}

Ref<GstBufferPool> VulkanContextUse::storage_pool(GstElement *element, GstCaps *caps, guint min)
{
    std::shared_ptr<g2g::vulkan::Engine> engine;
    {
        const std::lock_guard lock(lock_);
        engine = engine_;
    }
    GstVideoInfo info;
    if (!engine || !caps || !gst_video_info_from_caps(&info, caps))
        return {};
    if (Result<void> writable = engine->check_writable(info); !writable) {
        post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, writable.error());
        return {};
    }
    // The pool's frames are VulkanImage whatever memory `caps` named (a download's staging frame
    // has system-memory output caps).
    const CapsRef image_caps = CapsRef::adopt(gst_caps_copy(caps));
    gst_caps_set_features_simple(image_caps.get(),
                                 gst_caps_features_new_single(GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE));
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(engine->new_storage_pool());
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, image_caps.get(),
                                      static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), min, 0);
    if (!gst_buffer_pool_set_config(pool.get(), config)) {
        // The pool may amend the parameters: take its answer.
        config = gst_buffer_pool_get_config(pool.get());
        if (!gst_buffer_pool_set_config(pool.get(), config)) {
            post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                       "cannot configure g2g's Vulkan storage-image pool");
            return {};
        }
    }
    return pool;
}

namespace {

// Adds to `query` a pool of exportable images on `device` configured for its caps, where it serves
// them with exported images (not where the device cannot export them). The configuration names no
// usage: an element that keeps it (a GstVulkanVideoFilter) then asks for GStreamer's default usage,
// which exported images have where the format can be rendered to.
void add_export_pool(GstVulkanDevice *device, GstQuery *query)
{
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstVideoInfo info;
    if (!device || !caps || !gst_video_info_from_caps(&info, caps))
        return;
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(g2g::vulkan::export_pool_new(device));
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0, 0);
    if (!gst_buffer_pool_set_config(pool.get(), config) || !g2g::vulkan::export_pool_exports(pool.get()))
        return;
    g_autoptr(GstStructure) kept = gst_buffer_pool_get_config(pool.get());
    guint size = 0;
    gst_buffer_pool_config_get_params(kept, nullptr, &size, nullptr, nullptr);
    gst_query_add_allocation_pool(query, pool.get(), size, 0, 0);
}

} // namespace

void VulkanContextUse::propose_export_pool(GstQuery *query)
{
    if (const std::shared_ptr<g2g::vulkan::Engine> engine = this->engine())
        add_export_pool(engine->device(), query);
}

void VulkanContextUse::pass_export_pool(GstQuery *downstream, GstQuery *query)
{
    if (gst_query_get_n_allocation_pools(downstream) == 0)
        return;
    GstBufferPool *offered = nullptr;
    gst_query_parse_nth_allocation_pool(downstream, 0, &offered, nullptr, nullptr, nullptr);
    const Ref<GstBufferPool> held = Ref<GstBufferPool>::adopt(offered);
    add_export_pool(g2g::vulkan::export_pool_device(offered), query);
}

namespace {

// Downstream's first pool `offered` when it is an export pool on `engine`'s device that serves `caps`
// with exported images its shader can write (g2gipcsink's, passed on by a g2gview of views),
// configured and marked as the engine's; empty otherwise.
Ref<GstBufferPool> keep_export_pool(g2g::vulkan::Engine &engine, GstBufferPool *offered, GstCaps *caps,
                                    guint min)
{
    GstVideoInfo info;
    if (!offered || g2g::vulkan::export_pool_device(offered) != engine.device() || !caps ||
        !gst_video_info_from_caps(&info, caps) || !engine.check_writable(info))
        return {};
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(GST_BUFFER_POOL(gst_object_ref(offered)));
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), min, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    g2g::compat::ask_image_pool_usage(config, g2g::vulkan::kWrittenImageUsage);
    constexpr VkImageUsageFlags needed = VK_IMAGE_USAGE_STORAGE_BIT | g2g::vulkan::kExportedUsage;
    if (!gst_buffer_pool_set_config(pool.get(), config) ||
        (g2g::vulkan::export_pool_usage(pool.get()) & needed) != needed)
        return {};
    g2g::vulkan::export_pool_written_by(pool.get(), engine.shared_from_this());
    return pool;
}

} // namespace

bool VulkanContextUse::decide_pool(GstElement *element, GstQuery *query)
{
    if (!ensure(element))
        return false;
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    guint min = 0;
    Ref<GstBufferPool> offered;
    if (gst_query_get_n_allocation_pools(query) > 0) {
        GstBufferPool *first = nullptr;
        gst_query_parse_nth_allocation_pool(query, 0, &first, nullptr, &min, nullptr);
        offered = Ref<GstBufferPool>::adopt(first);
    }
    Ref<GstBufferPool> pool = keep_export_pool(*engine(), offered.get(), caps, min);
    if (pool)
        GST_INFO_OBJECT(element, "writing into downstream's exportable images");
    else
        pool = storage_pool(element, caps, min);
    if (!pool)
        return false;
    g_autoptr(GstStructure) config = gst_buffer_pool_get_config(pool.get());
    guint size = 0;
    gst_buffer_pool_config_get_params(config, nullptr, &size, &min, nullptr);
    set_first_allocation_pool(query, pool.get(), size, min, 0);
    return true;
}

std::shared_ptr<g2g::vulkan::Engine> VulkanContextUse::engine() const
{
    const std::lock_guard lock(lock_);
    return engine_;
}

void VulkanContextUse::release()
{
    std::shared_ptr<g2g::vulkan::Engine> engine;
    Ref<GstObject> queue, device, instance;
    {
        const std::lock_guard lock(lock_);
        engine = std::move(engine_);
        queue = std::move(queue_);
        device = std::move(device_);
        instance = std::move(instance_);
    }
    // Outside the lock: the engine's destructor waits for the frames it recorded.
}

} // namespace g2g::element
