// SPDX-License-Identifier: LGPL-2.1-or-later
// G2gDmaBufPool: GStreamer's video buffer pool on g2g's DMA-BUF allocator. Each frame is one
// DMA-BUF holding every plane at GstVideoInfo's offsets and strides, always with a GstVideoMeta
// (importers need the planes), and with its DRM format recorded on the memory.
// The whole video library: 1.28's gstvideopool.h alone does not compile (its
// gstvideodmabufpool.h needs GstVideoBufferPool, which gstvideopool.h declares after including it).
#include <gst/video/video.h>

#include "compat/dma-drm-compat.h"
#include "core/log-private.h"
#include "dmabuf-memory.h"

namespace {

struct G2gDmaBufPool {
    GstVideoBufferPool parent;
    g2g::dmabuf::DrmFormat format;
};

struct G2gDmaBufPoolClass {
    GstVideoBufferPoolClass parent_class;
};

GType g2g_dmabuf_pool_get_type();
G_DEFINE_TYPE(G2gDmaBufPool, g2g_dmabuf_pool, GST_TYPE_VIDEO_BUFFER_POOL)

gboolean set_config(GstBufferPool *pool, GstStructure *config)
{
    GstCaps *caps = nullptr;
    if (!gst_buffer_pool_config_get_params(config, &caps, nullptr, nullptr, nullptr) || !caps)
        return FALSE;
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) {
        GST_CAT_WARNING_OBJECT(G2G_CAT, pool, "g2g's DMA-BUF pool cannot serve caps %" GST_PTR_FORMAT, caps);
        return FALSE;
    }
    const std::uint32_t fourcc = g2g::dmabuf::drm_fourcc_of(GST_VIDEO_INFO_FORMAT(&info));
    if (!fourcc) {
        GST_CAT_WARNING_OBJECT(G2G_CAT, pool, "g2g's DMA-BUF pool: %s has no DRM fourcc",
                               gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
        return FALSE;
    }
    reinterpret_cast<G2gDmaBufPool *>(pool)->format = {fourcc, g2g::dmabuf::kModifierLinear};
    gst_buffer_pool_config_set_allocator(config, g2g::dmabuf::allocator(), nullptr);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    return GST_BUFFER_POOL_CLASS(g2g_dmabuf_pool_parent_class)->set_config(pool, config);
}

GstFlowReturn alloc_buffer(GstBufferPool *pool, GstBuffer **buffer, GstBufferPoolAcquireParams *params)
{
    const GstFlowReturn result =
        GST_BUFFER_POOL_CLASS(g2g_dmabuf_pool_parent_class)->alloc_buffer(pool, buffer, params);
    if (result == GST_FLOW_OK)
        g2g::dmabuf::detail::record_format(gst_buffer_peek_memory(*buffer, 0),
                                           reinterpret_cast<G2gDmaBufPool *>(pool)->format);
    return result;
}

void g2g_dmabuf_pool_class_init(G2gDmaBufPoolClass *klass)
{
    GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);
    pool_class->set_config = set_config;
    pool_class->alloc_buffer = alloc_buffer;
}

void g2g_dmabuf_pool_init(G2gDmaBufPool *)
{
}

} // namespace

namespace g2g::dmabuf {

GstBufferPool *pool_new(const GstCaps *caps, guint min_buffers, guint max_buffers)
{
    const CapsRef plain = caps_from_dma_drm(caps);
    GstVideoInfo info;
    if (!plain || !compat::video_info_from_caps(&info, caps))
        return nullptr;
    auto *pool = static_cast<GstBufferPool *>(g_object_new(g2g_dmabuf_pool_get_type(), nullptr));
    gst_object_ref_sink(pool);
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, plain.get(), static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)),
                                      min_buffers, max_buffers);
    if (!gst_buffer_pool_set_config(pool, config)) {
        gst_object_unref(pool);
        return nullptr;
    }
    return pool;
}

} // namespace g2g::dmabuf
