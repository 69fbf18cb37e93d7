// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-handles.h"

#include <g2g/converters.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/tensor-view-meta.h>

#include <gst/video/video.h>

#include "view-caps.h"
#include <g2g-internal/plugin-interface.h>

namespace g2g::element {
namespace {

using detail::HandleViews;

HandleViews views_of(MemoryDomainKind kind)
{
    return detail::domain_info(kind).handle_views;
}

// True when the peer of `src` names views in `kind`'s memory: a structure with both its memory
// feature and meta:G2gTensorView. Asked without a filter, and ANY does not count (a peer that
// takes anything reads no view), as for every view g2g hands on.
bool peer_takes_views_of(GstPad *src, MemoryDomainKind kind)
{
    const CapsRef peer = CapsRef::adopt(gst_pad_peer_query_caps(src, nullptr));
    if (!peer || gst_caps_is_any(peer.get()))
        return false;
    const std::string memory(memory_caps_feature(kind));
    for (guint i = 0; i < gst_caps_get_size(peer.get()); ++i) {
        GstCapsFeatures *features = gst_caps_get_features(peer.get(), i);
        if (caps::has_view_feature(features) && gst_caps_features_contains(features, memory.c_str()))
            return true;
    }
    return false;
}

std::string peer_name(GstPad *src)
{
    const Ref<GstPad> peer = Ref<GstPad>::adopt(gst_pad_get_peer(src));
    const ElementRef element = ElementRef::adopt(peer ? gst_pad_get_parent_element(peer.get()) : nullptr);
    return element ? GST_OBJECT_NAME(element.get()) : "(no peer)";
}

std::string direction_nick(GstVideoOrientationMethod method)
{
    const GEnumValue *value = g_enum_get_value(
        static_cast<GEnumClass *>(g_type_class_peek(GST_TYPE_VIDEO_ORIENTATION_METHOD)), method);
    return value ? value->value_nick : "?";
}

std::string settings_of(const Geometry &g)
{
    g_autofree gchar *text =
        g_strdup_printf("video-direction=%s left=%u right=%u top=%u bottom=%u",
                        direction_nick(g.method).c_str(), g.left, g.right, g.top, g.bottom);
    return text;
}

} // namespace

GstCaps *handle_template_caps()
{
    const std::string formats = detail::format_list(detail::cpu_view_backend());
    GstCaps *caps = gst_caps_new_empty();
    for (const detail::DomainInfo &row : detail::domain_table()) {
        if (row.handle_views != HandleViews::None)
            caps = gst_caps_merge(caps, caps::domain_caps(row.kind, formats, true, true));
    }
    return caps;
}

std::optional<MemoryDomainKind> handle_domain_of(const GstCapsFeatures *features)
{
    if (!features || gst_caps_features_is_any(features))
        return std::nullopt;
    const std::optional<MemoryDomainKind> kind = detail::domain_of(features);
    if (!kind || views_of(*kind) == HandleViews::None)
        return std::nullopt;
    return kind;
}

void append_handle_forms(GstCaps *caps, const GstStructure *mapped, MemoryDomainKind kind,
                         bool source_is_view, bool forward, const Geometry &g)
{
    // The sink side may be a view or a dense frame; the src side a view of either, or the dense
    // input itself under the identity: a dense frame of a crop would need writing. So from the src
    // side a dense frame maps only to itself under the identity. The src side still says the dense
    // form of everything (after the view), so that a consumer that reads no view links and the caps
    // event says why no frame can go to it (handle_refusal); none ever leaves in it.
    const bool view = forward || source_is_view;
    const bool dense = forward || source_is_view || g.is_identity();
    const std::string memory(memory_caps_feature(kind));
    if (view)
        gst_caps_append_structure_full(
            caps, gst_structure_copy(mapped),
            gst_caps_features_new(memory.c_str(), G2G_CAPS_FEATURE_META_TENSOR_VIEW, nullptr));
    if (dense)
        gst_caps_append_structure_full(caps, gst_structure_copy(mapped),
                                       gst_caps_features_new_single(memory.c_str()));
}

std::optional<std::string> handle_refusal(GstElement *view, GstPad *src, GstCaps *caps, const Geometry &g)
{
    if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps))
        return std::nullopt;
    GstCapsFeatures *features = gst_caps_get_features(caps, 0);
    const std::optional<MemoryDomainKind> kind = handle_domain_of(features);
    if (!kind)
        return std::nullopt;
    const bool in_view = caps::has_view_feature(features);
    // The frame as it came, passed through: nothing to carry.
    if (g.is_identity() && !in_view)
        return std::nullopt;

    const std::string self = GST_OBJECT_NAME(view);
    const std::string kind_name(name(*kind));
    if (g.method != GST_VIDEO_ORIENTATION_IDENTITY && views_of(*kind) == HandleViews::Crops)
        return self + " cannot flip or rotate " + kind_name + " frames (" + settings_of(g) +
               "): a view of a buffer is an offset into it with the buffer's own forward strides, which "
               "carries crops only, and nothing writes " +
               kind_name +
               " memory to orient the frame into; crop only, or orient the frames before they reach " +
               kind_name + " memory";
    GstVideoInfo info;
    if (gst_video_info_from_caps(&info, caps) &&
        !FrameView::keeps_strides(GST_VIDEO_INFO_FORMAT(&info), g.method, g.left))
        return self + " cannot give " + GST_VIDEO_INFO_NAME(&info) + " " + kind_name + " frames " +
               settings_of(g) +
               " as a view: packed 4:2:2 under a horizontal flip, a rotation or an odd left crop has no "
               "stride form, and nothing writes " +
               kind_name + " memory to materialize it";
    if (peer_takes_views_of(src, *kind))
        return std::nullopt;
    const std::string to_system = converter_between(*kind, MemoryDomainKind::System);
    return self + " can hand " + kind_name + " frames on only as views (" +
           std::string(memory_caps_feature(*kind)) + ", " G2G_CAPS_FEATURE_META_TENSOR_VIEW "), and " +
           peer_name(src) + " takes none: nothing writes " + kind_name +
           " memory, so there is no dense frame to make of a crop or an orientation; give " + self +
           " a consumer that reads the view" +
           (to_system.empty()
                ? ", or have the producer output system memory (no GStreamer element converts " + kind_name +
                      " frames)"
                : ", or crop in system memory: insert " + to_system + " before " + self);
}

} // namespace g2g::element
