// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU contexts of a view element (g2gview, g2gmaterialize), joined the same way in both: the
// pipeline's CUDA context as nvcodec elements join it, its Vulkan instance, device and queue as
// GStreamer's Vulkan elements join them. install_context_glue wraps the element's GstElement and
// GstBaseTransform functions with that handling and chains to what they did before.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include "cuda-context.h"
#include "vulkan-context.h"

namespace g2g::element {

struct GpuContexts {
    CudaContextUse cuda;
    VulkanContextUse vulkan;
};

// The element's GpuContexts, for install_context_glue.
using GpuContextsOf = GpuContexts &(*)(GstBaseTransform *);

// One instance per element class (the template argument differs), so each chains to its own.
template <GpuContextsOf contexts> class ContextGlue {
public:
    // Call at the end of class_init, after the element set its own set_context, change_state and
    // query (or left its parent's): those are what the glue chains to.
    //   set_context   the CUDA and Vulkan contexts taken, then the element's
    //   query         CONTEXT queries answered with ours, anything else the element's
    //   change_state  READY->PAUSED joins the pipeline's Vulkan context (creating nothing) before
    //                 the element's; PAUSED->READY drops both contexts after it (the stream is
    //                 stopped then)
    // decide_allocation stays the element's own (decide_pool of the domain it writes).
    static void install(GstBaseTransformClass *klass)
    {
        GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
        next_set_context_ = element_class->set_context;
        next_change_state_ = element_class->change_state;
        next_query_ = klass->query;
        element_class->set_context = set_context;
        element_class->change_state = change_state;
        klass->query = query;
    }

private:
    static void set_context(GstElement *element, GstContext *context)
    {
        GpuContexts &gpu = contexts(GST_BASE_TRANSFORM(element));
        gpu.cuda.set_context(element, context);
        gpu.vulkan.set_context(element, context);
        next_set_context_(element, context);
    }

    static gboolean query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
    {
        if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT) {
            GpuContexts &gpu = contexts(trans);
            if (gpu.cuda.answer_query(GST_ELEMENT(trans), query) ||
                gpu.vulkan.answer_query(GST_ELEMENT(trans), query))
                return TRUE;
        }
        return next_query_(trans, direction, query);
    }

    static GstStateChangeReturn change_state(GstElement *element, GstStateChange transition)
    {
        GpuContexts &gpu = contexts(GST_BASE_TRANSFORM(element));
        if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
            gpu.vulkan.join(element);
        const GstStateChangeReturn result = next_change_state_(element, transition);
        if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && result != GST_STATE_CHANGE_FAILURE) {
            gpu.cuda.release();
            gpu.vulkan.release();
        }
        return result;
    }

    static inline void (*next_set_context_)(GstElement *, GstContext *) = nullptr;
    static inline GstStateChangeReturn (*next_change_state_)(GstElement *, GstStateChange) = nullptr;
    static inline gboolean (*next_query_)(GstBaseTransform *, GstPadDirection, GstQuery *) = nullptr;
};

template <GpuContextsOf contexts> void install_context_glue(GstBaseTransformClass *klass)
{
    ContextGlue<contexts>::install(klass);
}

} // namespace g2g::element
