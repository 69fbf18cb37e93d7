// SPDX-License-Identifier: LGPL-2.1-or-later
// The C API (g2g/g2g.h) over the C++ one.
#include <g2g/g2g.h>

#include <g2g/classify.h>
#include <g2g/dmabuf.h>
#include <g2g/frame-view.h>
#include <g2g/memory-domain.h>
#include <g2g/tensor-view-meta.h>

#include <array>
#include <string>
#include <string_view>

#include "core/c-api-error.h"
#include "core/caps-video-info.h"
#include "view/layout-check.h"

namespace {

using g2g::kAllMemoryDomainKinds;
using g2g::kMemoryDomainKindCount;
using g2g::detail::set_error;

bool valid(G2gMemoryDomainKind kind)
{
    return static_cast<unsigned>(kind) < kMemoryDomainKindCount;
}

// GEnumValue/GFlagsValue tables built once from the C++ names, so the two never disagree: the
// value names are the C enums' identifiers (G2G_MEMORY_DOMAIN_SYSTEM_VIEW, ..._KINDS_SYSTEM_VIEW),
// as GObject Introspection pairs them, the nicks the kinds' kebab-case names.
template <typename Value> const Value *value_table(bool flags)
{
    static std::array<std::string, kMemoryDomainKindCount> names;
    static std::array<Value, kMemoryDomainKindCount + 1> values = [flags] {
        std::array<Value, kMemoryDomainKindCount + 1> made{};
        for (std::size_t i = 0; i < kMemoryDomainKindCount; ++i) {
            const g2g::MemoryDomainKind kind = kAllMemoryDomainKinds[i];
            names[i] = flags ? "G2G_MEMORY_DOMAIN_KINDS_" : "G2G_MEMORY_DOMAIN_";
            for (char c : g2g::nick(kind))
                names[i] += c == '-' ? '_' : g_ascii_toupper(c);
            made[i].value = flags ? (1u << i) : static_cast<int>(i);
            made[i].value_name = names[i].c_str();
            // The nicks are string literals of the domain table (NUL-terminated).
            made[i].value_nick = g2g::nick(kind).data();
        }
        return made;
    }();
    return values.data();
}

void release_system_bytes(gpointer data)
{
    delete static_cast<g2g::SystemBytes *>(data);
}

} // namespace

extern "C" {

GType g2g_memory_domain_kind_get_type(void)
{
    static GType type = g_enum_register_static("G2gMemoryDomainKind", value_table<GEnumValue>(false));
    return type;
}

GType g2g_memory_domain_kinds_get_type(void)
{
    static GType type = g_flags_register_static("G2gMemoryDomainKinds", value_table<GFlagsValue>(true));
    return type;
}

GType g2g_error_get_type(void)
{
    static const GEnumValue values[] = {
        {G2G_ERROR_UNSUPPORTED_DOMAIN, "G2G_ERROR_UNSUPPORTED_DOMAIN", "unsupported-domain"},
        {G2G_ERROR_UNKNOWN_MEMORY, "G2G_ERROR_UNKNOWN_MEMORY", "unknown-memory"},
        {G2G_ERROR_MAP_FAILED, "G2G_ERROR_MAP_FAILED", "map-failed"},
        {G2G_ERROR_INVALID_ARGUMENT, "G2G_ERROR_INVALID_ARGUMENT", "invalid-argument"},
        {0, nullptr, nullptr},
    };
    static GType type = g_enum_register_static("G2gError", values);
    return type;
}

GQuark g2g_error_quark(void)
{
    return g_quark_from_static_string("g2g-error-quark");
}

const gchar *g2g_memory_domain_kind_name(G2gMemoryDomainKind kind)
{
    return valid(kind) ? g2g::name(static_cast<g2g::MemoryDomainKind>(kind)).data() : nullptr;
}

const gchar *g2g_memory_domain_kind_caps_feature(G2gMemoryDomainKind kind)
{
    return valid(kind) ? g2g::caps_feature(static_cast<g2g::MemoryDomainKind>(kind)).data() : nullptr;
}

gboolean g2g_buffer_get_memory_domain(GstBuffer *buffer, G2gMemoryDomainKind *kind, GError **error)
{
    g2g::Result<g2g::MemoryDomainKind> classified = g2g::classify_buffer(buffer);
    if (!classified)
        return set_error(error, classified.error());
    if (kind)
        *kind = static_cast<G2gMemoryDomainKind>(*classified);
    return TRUE;
}

GBytes *g2g_buffer_require_system_bytes(GstBuffer *buffer, const gchar *category, GError **error)
{
    g2g::Result<g2g::MemoryDomain> domain = g2g::MemoryDomain::from_buffer(buffer);
    if (!domain) {
        set_error(error, domain.error());
        return nullptr;
    }
    g2g::Result<g2g::SystemBytes> bytes = domain->require_system_bytes(category ? category : "g2g");
    if (!bytes) {
        set_error(error, bytes.error());
        return nullptr;
    }
    // The GBytes owns the mapping: zero-copy for host memory, released with the GBytes.
    auto *held = new g2g::SystemBytes(std::move(*bytes));
    return g_bytes_new_with_free_func(held->data(), held->size(), release_system_bytes, held);
}

} // extern "C"

GstBuffer *g2g_dmabuf_wrap(guint32 fourcc, guint64 modifier, guint width, guint height, guint n_planes,
                           const G2gDmaBufPlane *planes, GError **error)
{
    if (!planes || n_planes == 0 || n_planes > GST_VIDEO_MAX_PLANES) {
        set_error(error, g2g::Error(g2g::ErrorCode::InvalidArgument,
                                    "g2g_dmabuf_wrap takes 1 to 4 planes, got " + std::to_string(n_planes)));
        return nullptr;
    }
    g2g::dmabuf::FrameLayout layout{{fourcc, modifier}, width, height, {}};
    for (guint p = 0; p < n_planes; ++p)
        layout.planes.push_back({planes[p].fd, planes[p].offset, planes[p].stride});
    g2g::Result<g2g::BufferRef> frame = g2g::dmabuf::wrap(layout);
    if (!frame) {
        set_error(error, frame.error());
        return nullptr;
    }
    return frame->release();
}

GstBuffer *g2g_dmabuf_export(GstBuffer *frame, const GstCaps *caps, GError **error)
{
    g2g::Result<GstVideoInfo> info = g2g::detail::video_info_of_caps("g2g_dmabuf_export", caps);
    if (!info) {
        set_error(error, info.error());
        return nullptr;
    }
    g2g::Result<g2g::BufferRef> exported =
        g2g::dmabuf::export_frame(frame, *info, nullptr, "g2g_dmabuf_export");
    if (!exported) {
        set_error(error, exported.error());
        return nullptr;
    }
    return exported->release();
}

guint g2g_dmabuf_get_layout(GstBuffer *frame, guint32 *fourcc, guint64 *modifier, G2gDmaBufPlane planes[4],
                            GError **error)
{
    g2g::Result<g2g::dmabuf::FrameLayout> layout = g2g::dmabuf::layout_of(frame);
    if (!layout) {
        set_error(error, layout.error());
        return 0;
    }
    if (fourcc)
        *fourcc = layout->format.fourcc;
    if (modifier)
        *modifier = layout->format.modifier;
    for (std::size_t p = 0; planes && p < layout->planes.size(); ++p)
        planes[p] = {layout->planes[p].fd, layout->planes[p].offset, layout->planes[p].stride};
    return static_cast<guint>(layout->planes.size());
}

// ---- Frame views ----

gboolean g2g_buffer_materialize_into(GstBuffer *buffer, const GstVideoInfo *info, guint8 *const dst[],
                                     const gint dst_stride[], guint n_threads, GError **error)
{
    using g2g::ErrorCode;
    constexpr std::string_view caller = "g2g_buffer_materialize_into";
    if (!buffer || !info || !dst || !dst_stride)
        return set_error(error, g2g::Error(ErrorCode::InvalidArgument,
                                           "g2g_buffer_materialize_into needs a buffer, its video info, and "
                                           "a destination and a stride for each plane"));
    // A GstVideoInfo never filled in ({0}): reading its format would dereference NULL.
    if (!info->finfo)
        return set_error(error,
                         g2g::Error(ErrorCode::InvalidArgument,
                                    "g2g_buffer_materialize_into: the video info was never filled in (its "
                                    "format info is NULL): fill it with gst_video_info_from_caps or "
                                    "gst_video_info_set_format"));
    // The checks FrameView::materialize_into makes, in this function's name, and in the frame
    // API's order: the domain, the view, the destination.
    if (g2g::Result<void> readable = g2g::detail::check_host_readable(caller, buffer); !readable)
        return set_error(error, readable.error());
    g2g::Result<g2g::FrameView> view = g2g::view_of_frame(buffer, *info);
    if (!view)
        return set_error(error, g2g::detail::for_caller(caller, view.error()));
    if (g2g::Result<void> fits = g2g::detail::check_destination(
            caller, view->info(), reinterpret_cast<const void *const *>(dst), dst_stride, nullptr);
        !fits)
        return set_error(error, fits.error());
    g2g::Result<void> written = view->materialize_into(buffer, dst, dst_stride, n_threads);
    if (!written)
        return set_error(error, g2g::detail::for_caller(caller, written.error()));
    return TRUE;
}
