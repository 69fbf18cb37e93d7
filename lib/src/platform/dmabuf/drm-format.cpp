// SPDX-License-Identifier: LGPL-2.1-or-later
// DRM formats: the fourcc of each GStreamer video format (GStreamer 1.24's table, for the formats
// 1.22 has and their linear layout), drm-format strings, and the modifiers drm_fourcc.h knows.
#include <g2g/dmabuf.h>

#include <drm_fourcc.h>

#include <array>
#include <charconv>
#include <cstdio>

namespace g2g::dmabuf {
namespace {

struct FourccRow {
    GstVideoFormat format;
    std::uint32_t fourcc;
};

// GStreamer names formats by bytes in memory, DRM by a little-endian word: GStreamer's RGBA is
// DRM's ABGR8888. The same pairs as GStreamer 1.24's video-info-dma.c, so that the DMA_DRM caps
// g2g writes read the same in 1.24.
constexpr FourccRow kFourccs[] = {
    // The formats most producers and displays share first: an element listing formats from this
    // table (g2gdmabufupload's caps) has its first choice among them.
    {GST_VIDEO_FORMAT_NV12, DRM_FORMAT_NV12},
    {GST_VIDEO_FORMAT_I420, DRM_FORMAT_YUV420},
    {GST_VIDEO_FORMAT_YV12, DRM_FORMAT_YVU420},
    {GST_VIDEO_FORMAT_NV21, DRM_FORMAT_NV21},
    {GST_VIDEO_FORMAT_YUY2, DRM_FORMAT_YUYV},
    {GST_VIDEO_FORMAT_UYVY, DRM_FORMAT_UYVY},
    {GST_VIDEO_FORMAT_RGBA, DRM_FORMAT_ABGR8888},
    {GST_VIDEO_FORMAT_BGRA, DRM_FORMAT_ARGB8888},
    {GST_VIDEO_FORMAT_RGBx, DRM_FORMAT_XBGR8888},
    {GST_VIDEO_FORMAT_BGRx, DRM_FORMAT_XRGB8888},
    {GST_VIDEO_FORMAT_P010_10LE, DRM_FORMAT_P010},
    {GST_VIDEO_FORMAT_GRAY8, DRM_FORMAT_R8},
    {GST_VIDEO_FORMAT_YVYU, DRM_FORMAT_YVYU},
    {GST_VIDEO_FORMAT_VYUY, DRM_FORMAT_VYUY},
    {GST_VIDEO_FORMAT_VUYA, DRM_FORMAT_AYUV},
    {GST_VIDEO_FORMAT_NV16, DRM_FORMAT_NV16},
    {GST_VIDEO_FORMAT_NV61, DRM_FORMAT_NV61},
    {GST_VIDEO_FORMAT_NV24, DRM_FORMAT_NV24},
    {GST_VIDEO_FORMAT_YUV9, DRM_FORMAT_YUV410},
    {GST_VIDEO_FORMAT_YVU9, DRM_FORMAT_YVU410},
    {GST_VIDEO_FORMAT_Y41B, DRM_FORMAT_YUV411},
    {GST_VIDEO_FORMAT_Y42B, DRM_FORMAT_YUV422},
    {GST_VIDEO_FORMAT_Y444, DRM_FORMAT_YUV444},
    {GST_VIDEO_FORMAT_RGB15, DRM_FORMAT_XRGB1555},
    {GST_VIDEO_FORMAT_RGB16, DRM_FORMAT_RGB565},
    {GST_VIDEO_FORMAT_BGR16, DRM_FORMAT_BGR565},
    {GST_VIDEO_FORMAT_RGB, DRM_FORMAT_BGR888},
    {GST_VIDEO_FORMAT_BGR, DRM_FORMAT_RGB888},
    {GST_VIDEO_FORMAT_ARGB, DRM_FORMAT_BGRA8888},
    {GST_VIDEO_FORMAT_xRGB, DRM_FORMAT_BGRX8888},
    {GST_VIDEO_FORMAT_ABGR, DRM_FORMAT_RGBA8888},
    {GST_VIDEO_FORMAT_xBGR, DRM_FORMAT_RGBX8888},
    {GST_VIDEO_FORMAT_Y410, DRM_FORMAT_Y410},
    {GST_VIDEO_FORMAT_Y210, DRM_FORMAT_Y210},
    {GST_VIDEO_FORMAT_P012_LE, DRM_FORMAT_P012},
    {GST_VIDEO_FORMAT_P016_LE, DRM_FORMAT_P016},
    {GST_VIDEO_FORMAT_BGR10A2_LE, DRM_FORMAT_ARGB2101010},
    {GST_VIDEO_FORMAT_RGB10A2_LE, DRM_FORMAT_ABGR2101010},
    {GST_VIDEO_FORMAT_GRAY16_LE, DRM_FORMAT_R16},
};

// The vendors drm_fourcc.h names (DRM_FORMAT_MOD_VENDOR_*), NONE through the newest it has.
constexpr std::uint64_t kLastKnownVendor = DRM_FORMAT_MOD_VENDOR_AMLOGIC;

} // namespace

std::vector<GstVideoFormat> drm_video_formats()
{
    std::vector<GstVideoFormat> formats;
    for (const FourccRow &row : kFourccs)
        formats.push_back(row.format);
    return formats;
}

std::uint32_t drm_fourcc_of(GstVideoFormat format)
{
    for (const FourccRow &row : kFourccs) {
        if (row.format == format)
            return row.fourcc;
    }
    return 0;
}

GstVideoFormat video_format_of(std::uint32_t fourcc)
{
    for (const FourccRow &row : kFourccs) {
        if (row.fourcc == fourcc)
            return row.format;
    }
    return GST_VIDEO_FORMAT_UNKNOWN;
}

bool modifier_known(std::uint64_t modifier)
{
    return modifier != DRM_FORMAT_MOD_INVALID && (modifier >> 56) <= kLastKnownVendor;
}

std::string DrmFormat::to_string() const
{
    std::string text;
    for (int shift = 0; shift < 32; shift += 8)
        text += static_cast<char>((fourcc >> shift) & 0xff);
    if (!linear()) {
        std::array<char, 24> hex{};
        std::snprintf(hex.data(), hex.size(), ":0x%016llx", static_cast<unsigned long long>(modifier));
        text += hex.data();
    }
    return text;
}

std::optional<DrmFormat> DrmFormat::parse(std::string_view text)
{
    if (text.size() < 4)
        return std::nullopt;
    DrmFormat format;
    for (int i = 0; i < 4; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c > 0x7e)
            return std::nullopt;
        format.fourcc |= static_cast<std::uint32_t>(c) << (8 * i);
    }
    std::string_view rest = text.substr(4);
    if (rest.empty())
        return format;
    if (!rest.starts_with(":0x") && !rest.starts_with(":0X"))
        return std::nullopt;
    rest.remove_prefix(3);
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), format.modifier, 16);
    if (error != std::errc{} || end != rest.data() + rest.size() || rest.empty())
        return std::nullopt;
    return format;
}

} // namespace g2g::dmabuf
