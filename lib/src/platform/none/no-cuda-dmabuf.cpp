// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without CUDA or without DMA-BUF support: CUDA frames are not exported as DMA-BUFs.
#include "platform/cuda-dmabuf/cuda-dmabuf.h"
#include "platform/platform.h"

namespace g2g::platform::cuda_dmabuf {

bool built()
{
    return false;
}

} // namespace g2g::platform::cuda_dmabuf

namespace g2g::cuda_dmabuf {
namespace {

Error not_built()
{
    return Error(ErrorCode::UnsupportedDomain, "this g2g was built without CUDA or without DMA-BUF support: "
                                               "CUDA frames are not exported as DMA-BUFs");
}

} // namespace

std::string formats()
{
    return {};
}

Result<Export> export_frame(GstBuffer *)
{
    return not_built();
}

GstBuffer *cuda_frame_of(GstBuffer *)
{
    return nullptr;
}

Result<void> check_device(gint)
{
    return not_built();
}

} // namespace g2g::cuda_dmabuf
