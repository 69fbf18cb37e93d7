// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-output.h"

#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/gstvideopool.h>

#include "common/allocation.h"
#include "common/element-error.h"
#include <g2g-internal/plugin-interface.h>

namespace g2g::element {

gboolean frame_size_of(GstBaseTransform *, GstCaps *caps, gsize *size)
{
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps))
        return FALSE;
    *size = GST_VIDEO_INFO_SIZE(&info);
    return TRUE;
}

gboolean frame_size_of_caps(GstBaseTransform *trans, GstPadDirection, GstCaps *, gsize, GstCaps *othercaps,
                            gsize *othersize)
{
    return frame_size_of(trans, othercaps, othersize);
}

bool describes_geometry(GType api)
{
    return api == GST_VIDEO_META_API_TYPE || api == GST_VIDEO_CROP_META_API_TYPE ||
           api == G2G_TENSOR_VIEW_META_API_TYPE || api == GST_PARENT_BUFFER_META_API_TYPE;
}

namespace {

constexpr guint kLineMask = 63;

// The query's first allocation parameters (added when it has none) with their memory aligned to
// a line, written back; returns them and their allocator.
Ref<GstAllocator> align_first_allocation_param(GstQuery *query, GstAllocationParams &params)
{
    GstAllocator *allocator = nullptr;
    gst_allocation_params_init(&params);
    const bool has_params = gst_query_get_n_allocation_params(query) > 0;
    if (has_params)
        gst_query_parse_nth_allocation_param(query, 0, &allocator, &params);
    params.align |= kLineMask;
    if (has_params)
        gst_query_set_nth_allocation_param(query, 0, allocator, &params);
    else
        gst_query_add_allocation_param(query, allocator, &params);
    return Ref<GstAllocator>::adopt(allocator);
}

} // namespace

bool decide_line_aligned_pool(GstQuery *query)
{
    if (!gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr))
        return false;
    if (gst_query_get_n_allocation_pools(query) > 0) {
        GstBufferPool *offered = nullptr;
        gst_query_parse_nth_allocation_pool(query, 0, &offered, nullptr, nullptr, nullptr);
        const Ref<GstBufferPool> owned = Ref<GstBufferPool>::adopt(offered);
        if (owned)
            return false; // downstream's own pool (a display's, an encoder's) comes first
    }
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return false;
    GstVideoAlignment align;
    gst_video_alignment_reset(&align);
    for (guint &stride_align : align.stride_align)
        stride_align = kLineMask;
    if (!gst_video_info_align(&info, &align))
        return false;

    GstAllocationParams params;
    const Ref<GstAllocator> allocator = align_first_allocation_param(query, params);
    const Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(gst_video_buffer_pool_new());
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 0, 0);
    gst_buffer_pool_config_set_allocator(config, allocator.get(), &params);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    gst_buffer_pool_config_set_video_alignment(config, &align);
    if (!gst_buffer_pool_set_config(pool.get(), config))
        return false;
    set_first_allocation_pool(query, pool.get(), GST_VIDEO_INFO_SIZE(&info), 0, 0);
    return true;
}

void ask_line_aligned_memory(GstQuery *query)
{
    GstAllocationParams params;
    align_first_allocation_param(query, params);
}

gboolean transform_meta_but_geometry(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
                                     GstBuffer *inbuf)
{
    if (describes_geometry(meta->info->api))
        return FALSE;
    auto *base = static_cast<GstBaseTransformClass *>(g_type_class_peek(GST_TYPE_BASE_TRANSFORM));
    return base->transform_meta(trans, outbuf, meta, inbuf);
}

GstFlowReturn check_view_fits(GstElement *element, const FrameView &view, const GstVideoInfo *info)
{
    if (view.format() == GST_VIDEO_INFO_FORMAT(info) &&
        view.width() == static_cast<guint>(GST_VIDEO_INFO_WIDTH(info)) &&
        view.height() == static_cast<guint>(GST_VIDEO_INFO_HEIGHT(info)))
        return GST_FLOW_OK;
    g_autofree gchar *message =
        g_strdup_printf("the frame's view is %s %ux%u but the caps say %s %dx%d",
                        gst_video_format_to_string(view.format()), view.width(), view.height(),
                        GST_VIDEO_INFO_NAME(info), GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info));
    return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, message);
}

GstFlowReturn write_dense(GstElement *element, const FrameView &view, GstBuffer *input,
                          const GstVideoInfo *info, GstBuffer *output, StreamThreads &threads)
{
    // A CUDA frame under system-memory caps (cudadownload 1.22 passes CUDA memory through to peers
    // that take GstVideoMeta, downloading when mapped) is written by the CPU into system memory:
    // the output's domain decides, and mapping the input downloads it, once. Only the CPU's writes
    // take threads (a GPU's kernel or shader does not: no pool is made for it).
    const WorkerPool *workers = detail::view_backend_of(output) == &detail::cpu_view_backend()
                                    ? threads.pool(element, GST_VIDEO_INFO_SIZE(&view.info()))
                                    : nullptr;
    Result<void> written = workers ? view.materialize_to(input, output, *info, *workers)
                                   : view.materialize_to(input, output, *info);
    if (!written)
        return post_error(element, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, written.error());
    return GST_FLOW_OK;
}

} // namespace g2g::element
