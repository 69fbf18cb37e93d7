// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-export-pool.h"

#include <memory>
#include <optional>
#include <string>

#include "compat/vulkan-pool-compat.h"
#include "compat/vulkan-video-compat.h"
#include "vulkan-engine.h"
#include "vulkan-external.h"

#define G2G_TYPE_VULKAN_EXPORT_POOL (g2g_vulkan_export_pool_get_type())
G_DECLARE_FINAL_TYPE(G2gVulkanExportPool, g2g_vulkan_export_pool, G2G, VULKAN_EXPORT_POOL,
                     GstVulkanImageBufferPool)

struct _G2gVulkanExportPool {
    GstVulkanImageBufferPool parent; // its device: ours, one reference (the parent's finalize drops it)
    std::shared_ptr<g2g::vulkan::ExportedPool> *frames; // owned
    std::optional<g2g::vulkan::VideoImages> *video;     // owned: what a decoder asked *frames to make
    GstVideoInfo info;
    // The usage every plane of its exported images has, when the configuration is served with them;
    // 0 when it is served by the parent's code.
    VkImageUsageFlags exported_usage;
    std::weak_ptr<g2g::vulkan::Engine> *writer; // owned; the engine whose shader writes its frames, if any
};

G_DEFINE_TYPE(G2gVulkanExportPool, g2g_vulkan_export_pool, GST_TYPE_VULKAN_IMAGE_BUFFER_POOL)

namespace {

// Whether `config` (fixed VulkanImage video caps, its ask read) is served by images exported as
// ExportedFrame makes them: of `served` usage on every plane, device-local, one layer, of no video
// profile, in an undefined first layout.
bool exported_images_serve(const g2g::compat::ImagePoolAsk &ask, VkImageUsageFlags served)
{
    return !ask.video && ask.layers == 1 && (ask.usage & ~served) == 0 &&
           (ask.memory & ~VkMemoryPropertyFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) == 0 &&
           ask.layout == VK_IMAGE_LAYOUT_UNDEFINED;
}

// The images a video decoder asks `config` for (vulkanh264dec: its profile's decode caps and decode
// usage), where exported ones can be them: device-local, of one layer. The first layout it asks
// (VIDEO_DECODE_DST) needs no serving: its own barriers move its output and references from
// whatever layout they are in.
std::optional<g2g::vulkan::VideoImages> decoder_images(GstStructure *config,
                                                       const g2g::compat::ImagePoolAsk &ask)
{
    const std::string caps = g2g::compat::image_pool_decode_caps(config);
    if (!ask.video || caps.empty() || ask.layers != 1 ||
        (ask.memory & ~VkMemoryPropertyFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) != 0)
        return std::nullopt;
    g2g::Result<g2g::compat::VideoProfile> profile = g2g::compat::VideoProfile::decoding(caps);
    if (!profile)
        return std::nullopt;
    return g2g::vulkan::VideoImages{std::move(*profile), ask.usage};
}

bool same_images(const std::optional<g2g::vulkan::VideoImages> &a,
                 const std::optional<g2g::vulkan::VideoImages> &b)
{
    return a.has_value() == b.has_value() && (!a || (a->profile == b->profile && a->usage == b->usage));
}

} // namespace

// A configuration served with exported images goes to GstBufferPool's own set_config, with the size
// of their allocations (its release_buffer discards a buffer of another size); any other of
// VulkanImage caps, to the parent's, whose alloc_buffer then makes the frames. Caps of other memory
// are refused here: 1.22's parent makes linear images for them, and dereferences the one that a
// driver refuses to make (NVIDIA's, for NV12's planes).
static gboolean g2g_vulkan_export_pool_set_config(GstBufferPool *pool, GstStructure *config)
{
    G2gVulkanExportPool *self = G2G_VULKAN_EXPORT_POOL(pool);
    self->exported_usage = 0;
    GstCaps *caps = nullptr;
    guint size = 0, min = 0, max = 0;
    const GstCapsFeatures *features = nullptr;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps ||
        !gst_caps_is_fixed(caps) || !gst_video_info_from_caps(&self->info, caps) ||
        !(features = gst_caps_get_features(caps, 0)) ||
        !gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE)) {
        GST_WARNING_OBJECT(pool, "refused: no fixed VulkanImage video caps in %" GST_PTR_FORMAT, config);
        return FALSE;
    }
    const g2g::compat::ImagePoolAsk ask = g2g::compat::image_pool_ask(config);
    // A decoder's images come from a pool of their own kind, made again when what it asks changes.
    std::optional<g2g::vulkan::VideoImages> video = decoder_images(config, ask);
    if (!same_images(video, *self->video)) {
        *self->frames = g2g::vulkan::exported_pool(self->parent.device, video ? &*video : nullptr);
        *self->video = std::move(video);
    }
    // One frame made now tells whether the device exports these images, their usage and their size;
    // it is the first buffer's.
    g2g::Result<std::shared_ptr<g2g::vulkan::ExportedFrame>> first = (*self->frames)->acquire(self->info);
    if (first) {
        VkImageUsageFlags served = ~VkImageUsageFlags(0);
        for (const g2g::vulkan::ExternalImage &plane : (*first)->planes())
            served &= plane.description.usage;
        const std::uint64_t allocations = (*first)->allocated_bytes();
        if ((*self->video || exported_images_serve(ask, served)) && allocations <= G_MAXUINT) {
            gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(allocations), min, max);
            auto *base = static_cast<GstBufferPoolClass *>(g_type_class_peek(GST_TYPE_BUFFER_POOL));
            if (!base->set_config(pool, config))
                return FALSE;
            self->exported_usage = served;
            return TRUE;
        }
        GST_INFO_OBJECT(pool,
                        "served as GStreamer's pool: its configuration asks for images of another kind");
    } else {
        GST_INFO_OBJECT(pool, "served as GStreamer's pool: %s", first.error().message().c_str());
    }
    return GST_BUFFER_POOL_CLASS(g2g_vulkan_export_pool_parent_class)->set_config(pool, config);
}

static GstFlowReturn g2g_vulkan_export_pool_alloc(GstBufferPool *pool, GstBuffer **buffer,
                                                  GstBufferPoolAcquireParams *params)
{
    G2gVulkanExportPool *self = G2G_VULKAN_EXPORT_POOL(pool);
    if (self->exported_usage == 0)
        return GST_BUFFER_POOL_CLASS(g2g_vulkan_export_pool_parent_class)->alloc_buffer(pool, buffer, params);
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
    if (self->writer)
        g2g::vulkan::mark_written_by(face.get(), *self->writer);
    *buffer = face.release();
    return GST_FLOW_OK;
}

static void g2g_vulkan_export_pool_finalize(GObject *object)
{
    delete G2G_VULKAN_EXPORT_POOL(object)->frames;
    delete G2G_VULKAN_EXPORT_POOL(object)->video;
    delete G2G_VULKAN_EXPORT_POOL(object)->writer;
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
    self->exported_usage = 0;
    self->writer = nullptr;
}

namespace g2g::vulkan {

GstBufferPool *export_pool_new(GstVulkanDevice *device)
{
    auto *pool = G2G_VULKAN_EXPORT_POOL(g_object_new(G2G_TYPE_VULKAN_EXPORT_POOL, nullptr));
    gst_object_ref_sink(pool);
    pool->parent.device = GST_VULKAN_DEVICE(gst_object_ref(device));
    pool->frames = new std::shared_ptr<ExportedPool>(exported_pool(device));
    pool->video = new std::optional<VideoImages>();
    return GST_BUFFER_POOL_CAST(pool);
}

GstVulkanDevice *export_pool_device(GstBufferPool *pool)
{
    return pool && G2G_IS_VULKAN_EXPORT_POOL(pool) ? G2G_VULKAN_EXPORT_POOL(pool)->parent.device : nullptr;
}

VkImageUsageFlags export_pool_usage(GstBufferPool *pool)
{
    return export_pool_device(pool) ? G2G_VULKAN_EXPORT_POOL(pool)->exported_usage : 0;
}

bool export_pool_exports(GstBufferPool *pool)
{
    return export_pool_usage(pool) != 0;
}

void export_pool_written_by(GstBufferPool *pool, const std::shared_ptr<Engine> &engine)
{
    G2gVulkanExportPool *self = G2G_VULKAN_EXPORT_POOL(pool);
    delete self->writer;
    self->writer = new std::weak_ptr<Engine>(engine);
}

} // namespace g2g::vulkan
