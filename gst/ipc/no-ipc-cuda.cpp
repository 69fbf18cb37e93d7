// SPDX-License-Identifier: LGPL-2.1-or-later
// ipc-cuda.h in a build without the cuda feature: the elements' templates name no CUDAMemory caps
// then, so no frame is a CUDA frame and a producer's CUDA handles are refused.
#include "ipc-cuda.h"

namespace g2g::ipc {

bool cuda_built()
{
    return false;
}

std::optional<Result<OutgoingFrame>> describe_cuda_frame(GstBuffer *, std::uint64_t)
{
    return std::nullopt;
}

struct CudaDense::Pool {};
CudaDense::CudaDense() = default;
CudaDense::~CudaDense() = default;
void CudaDense::stop()
{
}

Result<BufferRef> CudaDense::materialize(GstBuffer *, const FrameView &)
{
    return Error(ErrorCode::UnsupportedDomain, "this g2g was built without the cuda feature");
}

struct CudaImports::Opened {};
CudaImports::CudaImports() = default;
CudaImports::~CudaImports() = default;
void CudaImports::clear()
{
}

Result<BufferRef> CudaImports::build(gpointer, const NewBuffer &message, const GstVideoInfo &, bool)
{
    return Error(ErrorCode::UnsupportedDomain,
                 "NEW_BUFFER " + std::to_string(message.id) +
                     " holds CUDA memory: this g2g was built without the cuda feature");
}

} // namespace g2g::ipc
