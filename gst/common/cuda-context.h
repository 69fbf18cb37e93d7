// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA side of g2gview and g2gmaterialize: they join the pipeline's CUDA context (GstContext
// "gst.cuda.context") as nvcodec elements do, so their kernels run on the decoder's device, and
// they give their CUDA output a CUDA buffer pool. cuda-context.cpp with CUDA, no-cuda-context.cpp
// without it (meson picks): there every call says no.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

namespace g2g::element {

class CudaContextUse {
public:
    CudaContextUse() = default;
    ~CudaContextUse() { release(); }
    CudaContextUse(const CudaContextUse &) = delete;
    CudaContextUse &operator=(const CudaContextUse &) = delete;

    // GstElementClass::set_context: a context the application or the pipeline hands us.
    void set_context(GstElement *element, GstContext *context);
    // A CONTEXT query reaching one of the element's pads: answered with ours, if we have one.
    bool answer_query(GstElement *element, GstQuery *query);
    // The pipeline's CUDA context (asked of the peers, then the application), or a new one.
    // False, with an element error, when CUDA cannot run here.
    bool ensure(GstElement *element);
    // decide_allocation for CUDA output caps: keeps downstream's CUDA pool of our context,
    // else puts a CUDA pool of ours first in `query`.
    bool decide_pool(GstElement *element, GstQuery *query);
    // Drops the context (stop).
    void release();

private:
    gpointer context_ = nullptr; // GstCudaContext, one reference
};

// The element's CudaContextUse, for install_cuda_glue.
using CudaUseOf = CudaContextUse &(*)(GstBaseTransform *);

// What every CUDA-capable view element does the same way, installed on its GstBaseTransform
// class: set_context joins the pipeline's CUDA context, CONTEXT queries are answered with it,
// stop releases it. Each then chains to GstBaseTransform. decide_allocation stays the
// element's own (CudaContextUse::decide_pool where it writes dense CUDA frames).
template <CudaUseOf use> void install_cuda_glue(GstBaseTransformClass *klass)
{
    GST_ELEMENT_CLASS(klass)->set_context = [](GstElement *element, GstContext *context) {
        use(GST_BASE_TRANSFORM(element)).set_context(element, context);
        GST_ELEMENT_CLASS(g_type_class_peek(GST_TYPE_BASE_TRANSFORM))->set_context(element, context);
    };
    klass->query = [](GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) -> gboolean {
        if (use(trans).answer_query(GST_ELEMENT(trans), query))
            return TRUE;
        return GST_BASE_TRANSFORM_CLASS(g_type_class_peek(GST_TYPE_BASE_TRANSFORM))
            ->query(trans, direction, query);
    };
    klass->stop = [](GstBaseTransform *trans) -> gboolean {
        use(trans).release();
        return TRUE;
    };
}

} // namespace g2g::element
