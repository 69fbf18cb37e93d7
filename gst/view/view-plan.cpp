// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-plan.h"

#include <g2g/gst-ref.h>

#include <algorithm>

#include "common/allocation.h"
#include "view-caps.h"
#include "view-handles.h"
#include <g2g-internal/plugin-interface.h>

namespace g2g::element {

namespace {

std::string nick_of(GstVideoOrientationMethod method)
{
    const GEnumValue *value = g_enum_get_value(
        static_cast<GEnumClass *>(g_type_class_peek(GST_TYPE_VIDEO_ORIENTATION_METHOD)), method);
    return value ? value->value_nick : "?";
}

std::string feature_text(const GstCapsFeatures *features)
{
    g_autofree gchar *text = gst_caps_features_to_string(features);
    return text;
}

} // namespace

bool is_opaque_memory(const GstCapsFeatures *features)
{
    if (!features || gst_caps_features_is_any(features) || handle_domain_of(features))
        return false;
    static const std::vector<MemoryDomainKind> viewed = detail::view_domains();
    std::optional<MemoryDomainKind> kind = detail::domain_of(features);
    if (kind == MemoryDomainKind::SystemView)
        kind = MemoryDomainKind::System;
    return !kind || std::find(viewed.begin(), viewed.end(), *kind) == viewed.end();
}

std::optional<std::string> refusal_of_input(GstElement *view, GstPad *src, const GeometryRequest &request,
                                            GstCaps *in_caps)
{
    if (!in_caps || !gst_caps_is_fixed(in_caps))
        return std::nullopt;
    const GstStructure *s = gst_caps_get_structure(in_caps, 0);
    gint width = 0, height = 0;
    if (gst_structure_get_int(s, "width", &width) && gst_structure_get_int(s, "height", &height) &&
        !request.fixed().output_size(width, height))
        return request.no_pixels_left(width, height);
    if (std::optional<std::string> text = handle_refusal(view, src, in_caps, request.fixed()))
        return text;
    GstCapsFeatures *features = gst_caps_get_features(in_caps, 0);
    if (is_opaque_memory(features) && request.method != GST_VIDEO_ORIENTATION_IDENTITY)
        return std::string(GST_OBJECT_NAME(view)) + " cannot flip or rotate " + feature_text(features) +
               " frames (video-direction=" + nick_of(request.method) +
               "): it has no view of that memory, and a GstVideoCropMeta carries crops only; orient the "
               "frames before they reach that memory, or convert them to system memory before " +
               GST_OBJECT_NAME(view);
    return std::nullopt;
}

Result<ViewPlan> plan_for_caps(GstElement *view, GstPad *src, const GeometryRequest &request,
                               GstCaps *in_caps, GstCaps *out_caps)
{
    if (std::optional<std::string> refusal = refusal_of_input(view, src, request, in_caps))
        return Error(ErrorCode::InvalidArgument, *refusal);
    ViewPlan plan;
    // Any raw video, DMA_DRM caps of memory g2gview passes through included.
    Result<GstVideoInfo> in_info = detail::video_info_of_caps(GST_OBJECT_NAME(view), in_caps);
    Result<GstVideoInfo> out_info = detail::video_info_of_caps(GST_OBJECT_NAME(view), out_caps);
    if (!in_info)
        return in_info.error();
    if (!out_info)
        return out_info.error();
    plan.in_info = *in_info;
    plan.out_info = *out_info;
    GstCapsFeatures *in_features = gst_caps_get_features(in_caps, 0);
    plan.in_view = caps::has_view_feature(in_features);
    plan.out_view = caps::has_view_feature(gst_caps_get_features(out_caps, 0));
    plan.opaque = is_opaque_memory(in_features);

    const gint in_w = GST_VIDEO_INFO_WIDTH(&plan.in_info), in_h = GST_VIDEO_INFO_HEIGHT(&plan.in_info);
    const gint out_w = GST_VIDEO_INFO_WIDTH(&plan.out_info), out_h = GST_VIDEO_INFO_HEIGHT(&plan.out_info);
    const std::optional<Geometry> geometry = request.resolve(in_w, in_h, out_w, out_h);
    if (!geometry) {
        g_autofree gchar *text =
            g_strdup_printf("%s: output caps of %dx%d do not match a crop left=%d right=%d "
                            "top=%d bottom=%d of %dx%d frames",
                            GST_OBJECT_NAME(view), out_w, out_h, request.left, request.right, request.top,
                            request.bottom, in_w, in_h);
        return Error(ErrorCode::InvalidArgument, text);
    }
    plan.geometry = *geometry;
    const std::optional<MemoryDomainKind> in_kind = detail::domain_of(in_caps);
    plan.vulkan = in_kind == MemoryDomainKind::VulkanTexture;
    plan.host_in = in_kind == MemoryDomainKind::System || in_kind == MemoryDomainKind::SystemView;
    if (plan.opaque)
        plan.mode = plan.geometry.is_identity() ? OutputMode::Passthrough : OutputMode::CropMeta;
    else
        plan.mode = output_mode_for_caps(plan.geometry, GST_VIDEO_INFO_FORMAT(&plan.in_info), plan.in_view,
                                         plan.out_view);
    // Nothing writes a platform handle's memory: only a view or the frame itself leaves
    // (refusal_of_input said why not for the request; automatic sides are known only now).
    if (handle_domain_of(in_features) && plan.mode != OutputMode::View &&
        plan.mode != OutputMode::Passthrough) {
        std::optional<std::string> text = handle_refusal(view, src, in_caps, plan.geometry);
        return Error(ErrorCode::InvalidArgument,
                     text ? *text
                          : std::string(GST_OBJECT_NAME(view)) + ": no view or passthrough for " +
                                feature_text(in_features) + " frames under this crop");
    }
    return plan;
}

Result<ViewPlan> plan_for_allocation(GstElement *view, const ViewPlan &plan, GstQuery *query)
{
    ViewPlan refined = plan;
    if (plan.opaque) {
        if (plan.mode == OutputMode::CropMeta &&
            !gst_query_find_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr)) {
            GstCaps *caps = nullptr;
            gst_query_parse_allocation(query, &caps, nullptr);
            const std::string memory = caps ? feature_text(gst_caps_get_features(caps, 0)) : "such";
            return Error(ErrorCode::InvalidArgument,
                         std::string(GST_OBJECT_NAME(view)) + " can crop " + memory +
                             " frames only as a GstVideoCropMeta (it has no view of that memory), and "
                             "downstream reads none; give it a consumer that reads GstVideoCropMeta, or "
                             "convert the frames to system memory before " +
                             GST_OBJECT_NAME(view));
        }
        return refined;
    }
    refined.mode = output_mode_for_allocation(plan.mode, plan.geometry, plan.in_view, query);
    return refined;
}

} // namespace g2g::element
