// SPDX-License-Identifier: LGPL-2.1-or-later
// The C API's views (g2g/g2g.h: g2g_buffer_make_view): what FrameView composes, for C
// applications and, through the typelib, Python. The view rides on a new buffer over the same
// memories, as g2gview's output does, so every reader of views (g2g_buffer_materialize_into,
// g2g_frame_new, g2gmaterialize downstream of an appsrc) reads it.
#include <g2g/g2g.h>

#include <g2g/classify.h>
#include <g2g/converters.h>
#include <g2g/domain-set.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>
#include <g2g/tensor-view-meta.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/c-api-error.h"
#include "core/domain-table.h"
#include "layout-check.h"
#include "view-backend.h"
#include "view-buffer.h"

namespace {

using g2g::Error;
using g2g::ErrorCode;
using g2g::MemoryDomainKind;
using g2g::Result;
using g2g::detail::HandleViews;

constexpr std::string_view kCaller = "g2g_buffer_make_view";
constexpr std::string_view kUnfilledInfo =
    "the video info was never filled in (its format info is NULL): fill it with gst_video_info_from_caps or "
    "gst_video_info_set_format";

Error invalid(std::string message)
{
    return Error(ErrorCode::InvalidArgument, std::string(kCaller) + ": " + std::move(message));
}

// videoflip's fixed methods: auto and custom take their direction from a stream's tags or a
// matrix this call has neither of.
Result<void> check_method(GstVideoOrientationMethod method)
{
    if (method >= GST_VIDEO_ORIENTATION_IDENTITY && method <= GST_VIDEO_ORIENTATION_UR_LL)
        return {};
    std::string named = std::to_string(static_cast<int>(method));
    auto *methods = static_cast<GEnumClass *>(g_type_class_ref(GST_TYPE_VIDEO_ORIENTATION_METHOD));
    if (const GEnumValue *value = g_enum_get_value(methods, method))
        named += std::string(" (") + value->value_nick + ")";
    g_type_class_unref(methods);
    return invalid("orientation method " + named +
                   " is none of videoflip's fixed ones (identity, 90r, 180, 90l, horiz, vert, ul-lr, ur-ll): "
                   "auto follows a stream's orientation tag and custom a transform, neither of which a "
                   "frame alone has");
}

// The sides of a crop, added without wrapping, against the frame they crop: FrameView::crop
// takes a rectangle, and left + right past the width would wrap into one.
Result<void> check_crop(std::uint32_t width, std::uint32_t height, guint left, guint right, guint top,
                        guint bottom)
{
    auto leaves = [](std::uint32_t size, guint a, guint b) { return std::uint64_t{a} + b < size; };
    if (!leaves(width, left, right))
        return invalid("the crop (left " + std::to_string(left) + ", right " + std::to_string(right) +
                       ") leaves no column of the " + std::to_string(width) + "-pixel-wide frame");
    if (!leaves(height, top, bottom))
        return invalid("the crop (top " + std::to_string(top) + ", bottom " + std::to_string(bottom) +
                       ") leaves no row of the " + std::to_string(height) + "-pixel-high frame");
    return {};
}

// Whether views of `buffer`'s domain exist: a domain with a view backend in this build (host
// memory, CUDA, Vulkan images), or a platform handle whose payload carries this view (g2gview's
// rules: textures take crops and orientations, buffers crops). Memory of a type g2g does not
// know is viewed through a mapping, as view_backend_of reads it.
Result<void> check_domain(GstBuffer *buffer, GstVideoFormat format, GstVideoOrientationMethod method,
                          guint left)
{
    const Result<MemoryDomainKind> kind = g2g::classify_buffer(buffer);
    if (!kind)
        return {};
    const g2g::detail::DomainInfo &row = g2g::detail::domain_info(*kind);
    const std::string name(g2g::name(*kind));
    if (row.handle_views == HandleViews::Crops && method != GST_VIDEO_ORIENTATION_IDENTITY)
        return Error(ErrorCode::UnsupportedDomain,
                     std::string(kCaller) + ": " + name +
                         " frames take crops only, no orientation: a view of a buffer is an offset into it "
                         "with the buffer's own forward strides, and nothing writes " +
                         name + " memory to orient the frame into");
    if (row.handle_views != HandleViews::None) {
        if (!g2g::FrameView::keeps_strides(format, method, left))
            return Error(
                ErrorCode::UnsupportedDomain,
                std::string(kCaller) + ": " + gst_video_format_to_string(format) + " " + name +
                    " frames have no view under this orientation or crop: packed 4:2:2 under a "
                    "horizontal flip, a rotation or an odd left crop has no stride form, and nothing "
                    "writes " +
                    name + " memory to materialize it");
        return {};
    }
    // Host memory a CPU cannot map (a tiled DMA-BUF) has no rows for a view to stride through:
    // refused as every host reader refuses it, saying why.
    if (g2g::is_host_domain(*kind))
        return g2g::detail::check_host_readable(kCaller, buffer);
    if (g2g::detail::view_backend(*kind))
        return {};
    g2g::DomainSet viewed;
    for (MemoryDomainKind domain : g2g::detail::view_domains())
        viewed.insert(domain);
    return g2g::wrong_domain_error(kCaller, viewed, *kind);
}

// The view's geometry as a dense frame, with what of `info` a crop and an orientation keep (as
// videoflip's caps: the pixel aspect ratio turns with the frame).
GstVideoInfo view_info(const g2g::FrameView &view, const GstVideoInfo &info, GstVideoOrientationMethod method)
{
    GstVideoInfo out = view.info();
    out.fps_n = info.fps_n;
    out.fps_d = info.fps_d;
    out.par_n = info.par_n;
    out.par_d = info.par_d;
    if (g2g::orientation_transposes(method))
        std::swap(out.par_n, out.par_d);
    out.colorimetry = info.colorimetry;
    out.chroma_site = info.chroma_site;
    return out;
}

Result<g2g::BufferRef> make_view(GstBuffer *buffer, const GstVideoInfo &info,
                                 GstVideoOrientationMethod method, guint left, guint right, guint top,
                                 guint bottom, GstVideoInfo **out_info)
{
    // A GstVideoInfo never filled in ({0}) has no format to read: every GST_VIDEO_INFO_* would
    // dereference NULL.
    if (!info.finfo)
        return invalid(std::string(kUnfilledInfo));
    if (Result<void> known = check_method(method); !known)
        return known.error();
    // Before the view: a frame of a domain without views has no layout worth reading.
    if (Result<void> viewed = check_domain(buffer, GST_VIDEO_INFO_FORMAT(&info), method, left); !viewed)
        return viewed.error();
    // The view the buffer carries, else its identity view as `info` lays it out (its video meta
    // and crop meta read): the frame the buffer shows, which the crop's sides are counted in.
    Result<g2g::FrameView> view = g2g::view_of_frame(buffer, info);
    if (!view)
        return g2g::detail::for_caller(kCaller, view.error());
    if (Result<void> fits = check_crop(view->width(), view->height(), left, right, top, bottom); !fits)
        return fits.error();
    if (left || right || top || bottom) {
        Result<void> cropped =
            view->crop(left, top, view->width() - left - right, view->height() - top - bottom);
        if (!cropped)
            return g2g::detail::for_caller(kCaller, cropped.error());
    }
    view->orient(method);
    if (out_info) {
        const GstVideoInfo made = view_info(*view, info, method);
        *out_info = gst_video_info_copy(&made);
    }
    g2g::BufferRef output = g2g::detail::buffer_over_memories(buffer);
    g2g::attach_tensor_view(output.get(), std::move(*view));
    return output;
}

} // namespace

extern "C" GstBuffer *g2g_buffer_make_view(GstBuffer *buffer, const GstVideoInfo *info,
                                           GstVideoOrientationMethod method, guint left, guint right,
                                           guint top, guint bottom, GstVideoInfo **out_info, GError **error)
{
    if (!buffer || !info) {
        g2g::detail::set_error(error, Error(ErrorCode::InvalidArgument,
                                            std::string(kCaller) + " needs a buffer and its video info"));
        return nullptr;
    }
    Result<g2g::BufferRef> made = make_view(buffer, *info, method, left, right, top, bottom, out_info);
    if (!made) {
        g2g::detail::set_error(error, made.error());
        return nullptr;
    }
    return made->release();
}
