// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-export-pool.h"

#include <memory>

#include "vulkan-external.h"

#define G2G_TYPE_VULKAN_EXPORT_POOL (g2g_vulkan_export_pool_get_type())
G_DECLARE_FINAL_TYPE(G2gVulkanExportPool, g2g_vulkan_export_pool, G2G, VULKAN_EXPORT_POOL,
                     GstVulkanImageBufferPool)

struct _G2gVulkanExportPool {
    GstVulkanImageBufferPool parent; // its device: ours, one reference (the parent's finalize drops it)
    std::shared_ptr<g2g::vulkan::ExportedPool> *frames; // owned
    GstVideoInfo info;
};

G_DEFINE_TYPE(G2gVulkanExportPool, g2g_vulkan_export_pool, GST_TYPE_VULKAN_IMAGE_BUFFER_POOL)

// The parent's set_config, alloc_buffer and their private state are never used: the configuration
// goes to GstBufferPool's own, with the size of these images' allocations (its release_buffer
// discards a buffer of another size).
static gboolean g2g_vulkan_export_pool_set_config(GstBufferPool *pool, GstStructure *config)
{
    G2gVulkanExportPool *self = G2G_VULKAN_EXPORT_POOL(pool);
    GstCaps *caps = nullptr;
    guint size = 0, min = 0, max = 0;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps ||
        !gst_caps_is_fixed(caps) || !gst_video_info_from_caps(&self->info, caps)) {
        GST_WARNING_OBJECT(pool, "no fixed video caps in the configuration");
        return FALSE;
    }
    const GstCapsFeatures *features = gst_caps_get_features(caps, 0);
    if (!features || !gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE)) {
        GST_WARNING_OBJECT(pool, "caps %" GST_PTR_FORMAT " are not of Vulkan images", caps);
        return FALSE;
    }
    // One frame made now tells whether the device exports these images, and their size; it is the
    // first buffer's.
    g2g::Result<std::shared_ptr<g2g::vulkan::ExportedFrame>> first = (*self->frames)->acquire(self->info);
    if (!first) {
        GST_WARNING_OBJECT(pool, "%s", first.error().message().c_str());
        return FALSE;
    }
    const std::uint64_t allocations = (*first)->allocated_bytes();
    if (allocations > G_MAXUINT)
        return FALSE;
    gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(allocations), min, max);
    auto *base = static_cast<GstBufferPoolClass *>(g_type_class_peek(GST_TYPE_BUFFER_POOL));
    return base->set_config(pool, config);
}

static GstFlowReturn g2g_vulkan_export_pool_alloc(GstBufferPool *pool, GstBuffer **buffer,
                                                  GstBufferPoolAcquireParams *)
{
    G2gVulkanExportPool *self = G2G_VULKAN_EXPORT_POOL(pool);
    g2g::Result<std::shared_ptr<g2g::vulkan::ExportedFrame>> frame = (*self->frames)->acquire(self->info);
    if (!frame) {
        GST_WARNING_OBJECT(pool, "%s", frame.error().message().c_str());
        return GST_FLOW_ERROR;
    }
    g2g::BufferRef face = (*frame)->face();
    if (!face) {
        GST_WARNING_OBJECT(pool, "the exported images cannot be wrapped as a frame");
        return GST_FLOW_ERROR;
    }
    *buffer = face.release();
    return GST_FLOW_OK;
}

static void g2g_vulkan_export_pool_finalize(GObject *object)
{
    delete G2G_VULKAN_EXPORT_POOL(object)->frames;
    G_OBJECT_CLASS(g2g_vulkan_export_pool_parent_class)->finalize(object);
}

static void g2g_vulkan_export_pool_class_init(G2gVulkanExportPoolClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = g2g_vulkan_export_pool_finalize;
    GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);
    pool_class->set_config = g2g_vulkan_export_pool_set_config;
    pool_class->alloc_buffer = g2g_vulkan_export_pool_alloc;
}

static void g2g_vulkan_export_pool_init(G2gVulkanExportPool *self)
{
    gst_video_info_init(&self->info);
}

namespace g2g::vulkan {

GstBufferPool *export_pool_new(GstVulkanDevice *device)
{
    auto *pool = G2G_VULKAN_EXPORT_POOL(g_object_new(G2G_TYPE_VULKAN_EXPORT_POOL, nullptr));
    gst_object_ref_sink(pool);
    pool->parent.device = GST_VULKAN_DEVICE(gst_object_ref(device));
    pool->frames = new std::shared_ptr<ExportedPool>(exported_pool(device));
    return GST_BUFFER_POOL_CAST(pool);
}

GstVulkanDevice *export_pool_device(GstBufferPool *pool)
{
    return pool && G2G_IS_VULKAN_EXPORT_POOL(pool) ? G2G_VULKAN_EXPORT_POOL(pool)->parent.device : nullptr;
}

} // namespace g2g::vulkan
