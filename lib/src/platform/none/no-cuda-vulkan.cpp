// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without CUDA or without Vulkan: no bridge between them.
#include "platform/cuda-vulkan/cuda-vulkan-bridge.h"
#include "platform/platform.h"

namespace g2g::platform::cuda_vulkan {

bool built()
{
    return false;
}

} // namespace g2g::platform::cuda_vulkan

namespace g2g::cuda_vulkan {

namespace {

Error not_built()
{
    return Error(ErrorCode::UnsupportedDomain,
                 "this g2g was built without CUDA or without Vulkan: no conversion between them on the GPU");
}

} // namespace

std::optional<std::array<guint8, 16>> gpu_of_cuda_context(gpointer)
{
    return std::nullopt;
}

Result<std::shared_ptr<Bridge>> Bridge::create(gpointer, std::shared_ptr<vulkan::Engine>)
{
    return not_built();
}

Bridge::~Bridge() = default;

std::optional<Error> Bridge::different_gpus(const std::string &, const std::array<guint8, 16> &,
                                            const std::string &, const std::array<guint8, 16> &)
{
    return not_built();
}

guint64 Bridge::frames_allocated() const
{
    return 0;
}

Result<Conversion> Bridge::to_vulkan(GstBuffer *, const FrameView &, bool)
{
    return not_built();
}

Result<Conversion> Bridge::to_cuda(GstBuffer *, const FrameView &, bool)
{
    return not_built();
}

} // namespace g2g::cuda_vulkan
