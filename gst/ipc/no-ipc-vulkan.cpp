// SPDX-License-Identifier: LGPL-2.1-or-later
// ipc-vulkan.h in a build without the vulkan feature: the elements' templates name no VulkanImage
// caps then, so no route carries Vulkan images and a producer's Vulkan images are refused.
#include "ipc-vulkan.h"

namespace g2g::ipc {

bool vulkan_built()
{
    return false;
}

GstVulkanDevice *engine_device(vulkan::Engine &)
{
    return nullptr;
}

struct VulkanExports::Pool {};
VulkanExports::VulkanExports() = default;
VulkanExports::~VulkanExports() = default;
void VulkanExports::stop()
{
}

Result<BufferRef> VulkanExports::in_place(vulkan::Engine &, GstBuffer *, const GstVideoInfo &,
                                          const FrameView *)
{
    return BufferRef(); // no frame is of exported images: none is made
}

Result<BufferRef> VulkanExports::copy(vulkan::Engine &, GstBuffer *, const GstVideoInfo &, const FrameView *)
{
    return Error(ErrorCode::UnsupportedDomain, "this g2g was built without the vulkan feature");
}

Result<BufferRef> VulkanExports::materialize(vulkan::Engine &, GstBuffer *, const FrameView &)
{
    return Error(ErrorCode::UnsupportedDomain, "this g2g was built without the vulkan feature");
}

std::optional<Result<OutgoingFrame>> describe_vulkan_frame(GstBuffer *, std::uint64_t)
{
    return std::nullopt;
}

struct VulkanImports::Kept {};
VulkanImports::VulkanImports() = default;
VulkanImports::~VulkanImports() = default;
void VulkanImports::clear()
{
}

Result<BufferRef> VulkanImports::build(GstVulkanDevice *, const NewBuffer &message, std::vector<UniqueFd>,
                                       const GstVideoInfo &, bool)
{
    return Error(ErrorCode::UnsupportedDomain,
                 "NEW_BUFFER " + std::to_string(message.id) +
                     " holds Vulkan images: this g2g was built without the vulkan feature");
}

} // namespace g2g::ipc
