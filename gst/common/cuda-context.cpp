// SPDX-License-Identifier: LGPL-2.1-or-later
// CudaContextUse with CUDA: the pipeline's GstCudaContext joined as nvcodec elements do.
#include "cuda-context.h"

#include <g2g/cuda-view.h>
#include <g2g/gst-ref.h>

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/video/video.h>

#include <algorithm>

#include "allocation.h"
#include "element-error.h"

namespace g2g::element {

namespace {

// Any device: the first context the pipeline offers, as nvcodec elements with cuda-device-id=-1.
constexpr gint kAnyDevice = -1;

GstCudaContext **slot(gpointer &context)
{
    return reinterpret_cast<GstCudaContext **>(&context);
}

} // namespace

void CudaContextUse::set_context(GstElement *element, GstContext *context)
{
    if (g2g::cuda::available())
        gst_cuda_handle_set_context(element, context, kAnyDevice, slot(context_));
}

bool CudaContextUse::answer_query(GstElement *element, GstQuery *query)
{
    return GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && context_ &&
           gst_cuda_handle_context_query(element, query, GST_CUDA_CONTEXT(context_));
}

bool CudaContextUse::find_upstream(GstElement *element)
{
    if (context_ || !g2g::cuda::available())
        return context_ != nullptr;
    const Ref<GstQuery> query = Ref<GstQuery>::adopt(gst_query_new_context("gst.cuda.context"));
    gst_element_foreach_sink_pad(
        element,
        [](GstElement *, GstPad *pad, gpointer data) -> gboolean {
            return !gst_pad_peer_query(pad, static_cast<GstQuery *>(data)); // stop at the first answer
        },
        query.get());
    GstContext *context = nullptr; // the query's
    gst_query_parse_context(query.get(), &context);
    if (context)
        gst_cuda_handle_set_context(element, context, kAnyDevice, slot(context_));
    return context_ != nullptr;
}

bool CudaContextUse::join(GstElement *element)
{
    return context_ ||
           (g2g::cuda::available() && gst_cuda_ensure_element_context(element, kAnyDevice, slot(context_)));
}

bool CudaContextUse::ensure(GstElement *element)
{
    if (context_)
        return true;
    if (!g2g::cuda::available()) {
        post_error(element, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
                   "CUDA frames need the NVIDIA driver's CUDA library, which does not load on this machine");
        return false;
    }
    if (!gst_cuda_ensure_element_context(element, kAnyDevice, slot(context_))) {
        post_error(element, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
                   "no CUDA context: no usable CUDA device here");
        return false;
    }
    return true;
}

bool CudaContextUse::decide_pool(GstElement *element, GstQuery *query)
{
    if (!ensure(element))
        return false;
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return false;
    Ref<GstBufferPool> pool;
    guint size = 0, min = 0, max = 0;
    if (gst_query_get_n_allocation_pools(query) > 0)
        gst_query_parse_nth_allocation_pool(query, 0, pool.out(), &size, &min, &max);
    if (pool &&
        (!GST_IS_CUDA_BUFFER_POOL(pool.get()) || GST_CUDA_BUFFER_POOL(pool.get())->context != context_))
        pool.reset();
    if (!pool)
        pool.reset(gst_cuda_buffer_pool_new(GST_CUDA_CONTEXT(context_)));
    size = std::max<guint>(size, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)));
    GstStructure *config = gst_buffer_pool_get_config(pool.get());
    gst_buffer_pool_config_set_params(config, caps, size, min, max);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool.get(), config)) {
        // The pool may round the size up (the pitch): take its answer.
        config = gst_buffer_pool_get_config(pool.get());
        gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
        if (!gst_buffer_pool_set_config(pool.get(), config)) {
            post_error(element, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                       "cannot configure a CUDA buffer pool");
            return false;
        }
    }
    set_first_allocation_pool(query, pool.get(), size, min, max);
    return true;
}

void CudaContextUse::release()
{
    gst_clear_object(slot(context_));
}

} // namespace g2g::element
