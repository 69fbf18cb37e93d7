// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA side of g2gview and g2gmaterialize: they join the pipeline's CUDA context (GstContext
// "gst.cuda.context") as nvcodec elements do, so their kernels run on the decoder's device, and
// they give their CUDA output a CUDA buffer pool. cuda-context.cpp with CUDA, no-cuda-context.cpp
// without it (meson picks): there every call says no. context-glue.h installs it on the elements.
#pragma once

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
    // The pipeline's CUDA context (asked of the peers, then the application), or a new one, without
    // an element error when there is none: for a caller that only asks which GPU it is on.
    bool join(GstElement *element);
    // The context an upstream peer of `element` holds (a CONTEXT query through its sink pads),
    // taken without creating one: false when none answers.
    bool find_upstream(GstElement *element);
    // The context joined or ensured (a GstCudaContext), or nullptr.
    gpointer context() const { return context_; }
    // decide_allocation for CUDA output caps: keeps downstream's CUDA pool of our context,
    // else puts a CUDA pool of ours first in `query`.
    bool decide_pool(GstElement *element, GstQuery *query);
    // Drops the context (PAUSED->READY).
    void release();

private:
    gpointer context_ = nullptr; // GstCudaContext, one reference
};

} // namespace g2g::element
