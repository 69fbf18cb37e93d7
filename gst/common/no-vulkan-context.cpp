// SPDX-License-Identifier: LGPL-2.1-or-later
// VulkanContextUse in a build without the vulkan feature: nothing to join, and VulkanImage output
// refused (the view elements' templates name no VulkanImage caps then, so this is never reached
// from a pipeline).
#include "vulkan-context.h"

#include "element-error.h"

namespace g2g::element {

void VulkanContextUse::provide(std::function<std::optional<GpuUuid>(GstElement *)>,
                               std::function<bool(GstElement *)>)
{
}

void VulkanContextUse::set_context(GstElement *, GstContext *)
{
}

bool VulkanContextUse::answer_query(GstElement *, GstQuery *)
{
    return false;
}

void VulkanContextUse::join(GstElement *)
{
}

bool VulkanContextUse::ensure(GstElement *element)
{
    post_error(element, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
               "g2g was built without the vulkan feature");
    return false;
}

bool VulkanContextUse::upload_races(GstElement *)
{
    return false;
}

Result<BufferRef> VulkanContextUse::download(GstBuffer *, const GstVideoInfo &, bool)
{
    return Error(ErrorCode::UnsupportedDomain, "g2g was built without the vulkan feature");
}

bool VulkanContextUse::check_frame(GstElement *element, GstBuffer *)
{
    return ensure(element);
}

Ref<GstBufferPool> VulkanContextUse::storage_pool(GstElement *element, GstCaps *, guint)
{
    ensure(element);
    return {};
}

bool VulkanContextUse::decide_pool(GstElement *element, GstQuery *)
{
    return ensure(element);
}

std::shared_ptr<g2g::vulkan::Engine> VulkanContextUse::engine() const
{
    return {};
}

void VulkanContextUse::release()
{
}

void VulkanContextUse::propose_export_pool(GstQuery *)
{
}

void VulkanContextUse::pass_export_pool(GstQuery *, GstQuery *)
{
}

} // namespace g2g::element
