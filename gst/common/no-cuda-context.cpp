// SPDX-License-Identifier: LGPL-2.1-or-later
// CudaContextUse in a build without CUDA: no context to join, and dense CUDA output refused.
#include "cuda-context.h"

#include "element-error.h"

namespace g2g::element {

void CudaContextUse::set_context(GstElement *, GstContext *)
{
}

bool CudaContextUse::answer_query(GstElement *, GstQuery *)
{
    return false;
}

bool CudaContextUse::find_upstream(GstElement *)
{
    return false;
}

bool CudaContextUse::join(GstElement *)
{
    return false;
}

bool CudaContextUse::ensure(GstElement *element)
{
    post_error(element, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
               "g2g was built without the cuda feature");
    return false;
}

bool CudaContextUse::decide_pool(GstElement *element, GstQuery *)
{
    return ensure(element);
}

void CudaContextUse::release()
{
}

} // namespace g2g::element
