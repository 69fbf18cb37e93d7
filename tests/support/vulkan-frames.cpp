// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for frames through GStreamer's Vulkan elements (see vulkan-frames.h).
#include "vulkan-frames.h"

#include <cstring>

#include "g2g-config.h"
#if G2G_HAVE_VULKAN
#include "compat/vulkan-upload-compat.h"
#endif

#include "reference-frames.h"
#include <vector>

namespace g2g::test {
namespace {

// Bytes of one row of plane `p` as GStreamer's Vulkan copies count it: the width of component p
// (what gstvkupload.c passes as bufferRowLength) in texels of the plane's image.
gsize packed_row(const GstVideoInfo &info, guint p)
{
    guint c = 0;
    while (GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, c) != p)
        ++c;
    return static_cast<gsize>(GST_VIDEO_INFO_COMP_WIDTH(&info, p)) * GST_VIDEO_INFO_COMP_PSTRIDE(&info, c);
}

guint plane_rows(const GstVideoInfo &info, guint p)
{
    return static_cast<guint>(GST_VIDEO_INFO_COMP_HEIGHT(&info, p));
}

BufferRef new_frame(const GstVideoInfo &info)
{
    return BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
}

// `frame` (laid out as `info`, or as its GstVideoMeta says) in `info`'s default layout.
BufferRef in_default_layout(const GstVideoInfo &info, GstBuffer *frame)
{
    GstVideoInfo layout = info;
    gst_video_info_set_format(&layout, GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_INFO_WIDTH(&info),
                              GST_VIDEO_INFO_HEIGHT(&info));
    BufferRef out = new_frame(layout);
    GstVideoFrame in, copy;
    if (!gst_video_frame_map(&in, const_cast<GstVideoInfo *>(&info), frame, GST_MAP_READ))
        return {};
    const bool mapped = gst_video_frame_map(&copy, &layout, out.get(), GST_MAP_WRITE);
    const bool copied = mapped && gst_video_frame_copy(&copy, &in);
    if (mapped)
        gst_video_frame_unmap(&copy);
    gst_video_frame_unmap(&in);
    return copied ? out : BufferRef{};
}

} // namespace

bool vulkan_copies_shear_padded_planes()
{
#if G2G_HAVE_VULKAN
    return compat::vulkanupload_shears_padded_planes();
#else
    return true; // no Vulkan here: the model of the versions that shear, unused
#endif
}

StoredFrame as_vulkanupload_stores(const GstVideoInfo &info, GstBuffer *frame)
{
    if (!vulkan_copies_shear_padded_planes()) {
        StoredFrame stored{in_default_layout(info, frame), new_frame(info)};
        gst_buffer_memset(stored.known.get(), 0, 0xFF, GST_VIDEO_INFO_SIZE(&info));
        return stored.frame ? std::move(stored) : StoredFrame{};
    }
    GstVideoFrame in;
    if (!gst_video_frame_map(&in, const_cast<GstVideoInfo *>(&info), frame, GST_MAP_READ))
        return {};
    StoredFrame stored{new_frame(info), new_frame(info)};
    GstMapInfo bytes, known;
    gst_buffer_map(stored.frame.get(), &bytes, GST_MAP_WRITE);
    gst_buffer_map(stored.known.get(), &known, GST_MAP_WRITE);
    std::memset(bytes.data, 0, bytes.size);
    std::memset(known.data, 0, known.size);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        // The plane as the Vulkan buffer pool lays it out (default strides), then read in packed rows.
        const gsize stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, p);
        const gsize row = packed_row(info, p);
        const guint rows = plane_rows(info, p);
        std::vector<guint8> linear(stride * rows, 0), linear_known(stride * rows, 0);
        const auto *src = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&in, p));
        for (guint y = 0; y < rows; ++y) {
            std::memcpy(&linear[y * stride], src + y * GST_VIDEO_FRAME_PLANE_STRIDE(&in, p), row);
            std::memset(&linear_known[y * stride], 0xFF, row);
        }
        const gsize offset = GST_VIDEO_INFO_PLANE_OFFSET(&info, p);
        for (guint y = 0; y < rows; ++y) {
            std::memcpy(bytes.data + offset + y * stride, &linear[y * row], row);
            std::memcpy(known.data + offset + y * stride, &linear_known[y * row], row);
        }
    }
    gst_buffer_unmap(stored.known.get(), &known);
    gst_buffer_unmap(stored.frame.get(), &bytes);
    gst_video_frame_unmap(&in);
    return stored;
}

std::string compare_known_bytes(const GstVideoInfo &want_info, GstBuffer *want, GstBuffer *known,
                                const GstVideoInfo &got_info, GstBuffer *got)
{
    if (GST_VIDEO_INFO_FORMAT(&want_info) != GST_VIDEO_INFO_FORMAT(&got_info) ||
        GST_VIDEO_INFO_WIDTH(&want_info) != GST_VIDEO_INFO_WIDTH(&got_info) ||
        GST_VIDEO_INFO_HEIGHT(&want_info) != GST_VIDEO_INFO_HEIGHT(&got_info))
        return std::string("geometry differs: want ") + GST_VIDEO_INFO_NAME(&want_info) + " " +
               std::to_string(GST_VIDEO_INFO_WIDTH(&want_info)) + "x" +
               std::to_string(GST_VIDEO_INFO_HEIGHT(&want_info)) + ", got " + GST_VIDEO_INFO_NAME(&got_info) +
               " " + std::to_string(GST_VIDEO_INFO_WIDTH(&got_info)) + "x" +
               std::to_string(GST_VIDEO_INFO_HEIGHT(&got_info));
    const std::vector<DensePlane> a = dense_planes(want_info, want);
    const std::vector<DensePlane> mask = dense_planes(want_info, known);
    const std::vector<DensePlane> b = dense_planes(got_info, got);
    if (a.size() != b.size() || a.size() != mask.size())
        return "the frames have different planes";
    for (std::size_t p = 0; p < a.size(); ++p) {
        if (a[p].bytes.size() != b[p].bytes.size())
            return "plane " + std::to_string(p) + " has another size";
        const std::size_t row = static_cast<std::size_t>(a[p].w) * a[p].e;
        for (std::size_t i = 0; i < a[p].bytes.size(); ++i) {
            if (mask[p].bytes[i] != 0xFF)
                continue;
            if (a[p].bytes[i] != b[p].bytes[i])
                return "plane " + std::to_string(p) + " row " + std::to_string(i / row) + " byte " +
                       std::to_string(i % row) + ": want " + std::to_string(a[p].bytes[i]) + ", got " +
                       std::to_string(b[p].bytes[i]);
        }
    }
    // Nothing known (a crop that keeps only bytes the images got from padding: GRAY8 2x2's second
    // row) compares nothing: the other cases of the frame judge it.
    return "";
}

BufferRef from_vulkandownload(const GstVideoInfo &info, GstBuffer *buffer)
{
    if (!vulkan_copies_shear_padded_planes())
        return in_default_layout(info, buffer);
    if (gst_buffer_n_memory(buffer) != GST_VIDEO_INFO_N_PLANES(&info))
        return {};
    BufferRef out = new_frame(info);
    GstMapInfo dst;
    gst_buffer_map(out.get(), &dst, GST_MAP_WRITE);
    std::memset(dst.data, 0, dst.size);
    bool fits = true;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info) && fits; ++p) {
        const gsize row = packed_row(info, p);
        const guint rows = plane_rows(info, p);
        GstMapInfo src;
        if (!gst_memory_map(gst_buffer_peek_memory(buffer, p), &src, GST_MAP_READ)) {
            fits = false;
            break;
        }
        fits = src.size >= row * rows;
        for (guint y = 0; fits && y < rows; ++y)
            std::memcpy(dst.data + GST_VIDEO_INFO_PLANE_OFFSET(&info, p) +
                            y * GST_VIDEO_INFO_PLANE_STRIDE(&info, p),
                        src.data + y * row, row);
        gst_memory_unmap(gst_buffer_peek_memory(buffer, p), &src);
    }
    gst_buffer_unmap(out.get(), &dst);
    return fits ? out : BufferRef{};
}

std::set<std::string> vulkan_image_formats(const char *factory_name)
{
    std::set<std::string> formats;
    GstElementFactory *factory = gst_element_factory_find(factory_name);
    if (!factory)
        return formats;
    for (const GList *l = gst_element_factory_get_static_pad_templates(factory); l; l = l->next) {
        auto *templ = static_cast<GstStaticPadTemplate *>(l->data);
        if (templ->direction != GST_PAD_SINK)
            continue;
        GstCaps *caps = gst_static_caps_get(&templ->static_caps);
        for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
            GstCapsFeatures *features = gst_caps_get_features(caps, i);
            if (!features || gst_caps_features_is_any(features) ||
                !gst_caps_features_contains(features, "memory:VulkanImage"))
                continue;
            const GValue *value = gst_structure_get_value(gst_caps_get_structure(caps, i), "format");
            if (value && G_VALUE_HOLDS_STRING(value))
                formats.insert(g_value_get_string(value));
            else if (value && GST_VALUE_HOLDS_LIST(value))
                for (guint k = 0; k < gst_value_list_get_size(value); ++k)
                    formats.insert(g_value_get_string(gst_value_list_get_value(value, k)));
        }
        gst_caps_unref(caps);
    }
    gst_object_unref(factory);
    return formats;
}

} // namespace g2g::test
