// SPDX-License-Identifier: LGPL-2.1-or-later
// The frames g2g's shader writes: one image per plane of the Vulkan format GStreamer picks for it
// (compat::vulkan_plane_format: gst_vulkan_format_from_video_info where it names one, so
// vulkandownload and the other Vulkan elements read them as their own), optimal tiling,
// device-local, of kWrittenImageUsage. The pool and each image know their engine weakly, so the view backend
// writes a frame of this pool on the engine's queue; a strong reference would cycle (the engine's submissions
// hold the frames it is writing, a frame holds its pool).
#include <memory>

#include "compat/vulkan-format-compat.h"
#include "vulkan-engine.h"

namespace {

GQuark engine_quark()
{
    static const GQuark quark = g_quark_from_static_string("g2g-vulkan-engine");
    return quark;
}

} // namespace

#define G2G_TYPE_VULKAN_STORAGE_POOL (g2g_vulkan_storage_pool_get_type())
G_DECLARE_FINAL_TYPE(G2gVulkanStoragePool, g2g_vulkan_storage_pool, G2G, VULKAN_STORAGE_POOL, GstBufferPool)

struct _G2gVulkanStoragePool {
    GstBufferPool parent;
    std::weak_ptr<g2g::vulkan::Engine> *engine; // owned
    GstVulkanDevice *device;                    // one reference
    GstVideoInfo info;
};

G_DEFINE_TYPE(G2gVulkanStoragePool, g2g_vulkan_storage_pool, GST_TYPE_BUFFER_POOL)

static gboolean g2g_vulkan_storage_pool_set_config(GstBufferPool *pool, GstStructure *config)
{
    G2gVulkanStoragePool *self = G2G_VULKAN_STORAGE_POOL(pool);
    GstCaps *caps = nullptr;
    guint size = 0, min = 0, max = 0;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps ||
        !gst_video_info_from_caps(&self->info, caps))
        return FALSE;
    const std::shared_ptr<g2g::vulkan::Engine> engine = self->engine->lock();
    if (!engine || !engine->check_writable(self->info)) {
        GST_WARNING_OBJECT(pool, "the device cannot write %s images from a shader",
                           GST_VIDEO_INFO_NAME(&self->info));
        return FALSE;
    }
    gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&self->info), min, max);
    return GST_BUFFER_POOL_CLASS(g2g_vulkan_storage_pool_parent_class)->set_config(pool, config);
}

static GstFlowReturn g2g_vulkan_storage_pool_alloc(GstBufferPool *pool, GstBuffer **buffer,
                                                   GstBufferPoolAcquireParams *)
{
    G2gVulkanStoragePool *self = G2G_VULKAN_STORAGE_POOL(pool);
    GstBuffer *made = gst_buffer_new();
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&self->info); ++p) {
        GstMemory *memory = gst_vulkan_image_memory_alloc(
            self->device, g2g::compat::vulkan_plane_format(self->info, p),
            GST_VIDEO_INFO_COMP_WIDTH(&self->info, p), GST_VIDEO_INFO_COMP_HEIGHT(&self->info, p),
            VK_IMAGE_TILING_OPTIMAL, g2g::vulkan::kWrittenImageUsage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (!memory) {
            gst_buffer_unref(made);
            GST_WARNING_OBJECT(pool, "cannot allocate plane %u's storage image", p);
            return GST_FLOW_ERROR;
        }
        gst_buffer_append_memory(made, memory);
    }
    g2g::vulkan::mark_written_by(made, *self->engine);
    *buffer = made;
    return GST_FLOW_OK;
}

static void g2g_vulkan_storage_pool_finalize(GObject *object)
{
    G2gVulkanStoragePool *self = G2G_VULKAN_STORAGE_POOL(object);
    delete self->engine;
    gst_clear_object(&self->device);
    G_OBJECT_CLASS(g2g_vulkan_storage_pool_parent_class)->finalize(object);
}

static void g2g_vulkan_storage_pool_class_init(G2gVulkanStoragePoolClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = g2g_vulkan_storage_pool_finalize;
    GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);
    pool_class->set_config = g2g_vulkan_storage_pool_set_config;
    pool_class->alloc_buffer = g2g_vulkan_storage_pool_alloc;
}

static void g2g_vulkan_storage_pool_init(G2gVulkanStoragePool *self)
{
    gst_video_info_init(&self->info);
}

namespace g2g::vulkan {

GstBufferPool *Engine::new_storage_pool()
{
    auto *pool = G2G_VULKAN_STORAGE_POOL(g_object_new(G2G_TYPE_VULKAN_STORAGE_POOL, nullptr));
    gst_object_ref_sink(pool);
    pool->engine = new std::weak_ptr<Engine>(weak_from_this());
    pool->device = GST_VULKAN_DEVICE(gst_object_ref(device_));
    return GST_BUFFER_POOL_CAST(pool);
}

void mark_written_by(GstBuffer *buffer, const std::weak_ptr<Engine> &engine)
{
    const guint n = gst_buffer_n_memory(buffer);
    for (guint i = 0; i < n; ++i)
        gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(gst_buffer_peek_memory(buffer, i)), engine_quark(),
                                  new std::weak_ptr<Engine>(engine),
                                  [](gpointer data) { delete static_cast<std::weak_ptr<Engine> *>(data); });
}

std::shared_ptr<Engine> engine_of(GstBuffer *buffer)
{
    if (gst_buffer_n_memory(buffer) == 0)
        return nullptr;
    auto *known = static_cast<std::weak_ptr<Engine> *>(
        gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(gst_buffer_peek_memory(buffer, 0)), engine_quark()));
    return known ? known->lock() : nullptr;
}

} // namespace g2g::vulkan
