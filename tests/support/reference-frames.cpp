// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: the plain reference of frame views (see reference-frames.h).
#include "reference-frames.h"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>

namespace g2g::test {
namespace {

bool is_packed_422(GstVideoFormat format)
{
    return format == GST_VIDEO_FORMAT_YUY2 || format == GST_VIDEO_FORMAT_UYVY ||
           format == GST_VIDEO_FORMAT_YVYU;
}

// Where output (x, y) of an out_w x out_h result of `method` reads an in_w x in_h input.
std::pair<std::int64_t, std::int64_t> oriented_source(GstVideoOrientationMethod method, std::int64_t x,
                                                      std::int64_t y, std::int64_t in_w, std::int64_t in_h)
{
    switch (method) {
    case GST_VIDEO_ORIENTATION_90R:
        return {y, in_h - 1 - x};
    case GST_VIDEO_ORIENTATION_90L:
        return {in_w - 1 - y, x};
    case GST_VIDEO_ORIENTATION_180:
        return {in_w - 1 - x, in_h - 1 - y};
    case GST_VIDEO_ORIENTATION_HORIZ:
        return {in_w - 1 - x, y};
    case GST_VIDEO_ORIENTATION_VERT:
        return {x, in_h - 1 - y};
    case GST_VIDEO_ORIENTATION_UL_LR:
        return {y, x};
    case GST_VIDEO_ORIENTATION_UR_LL:
        return {in_w - 1 - y, in_h - 1 - x};
    default:
        return {x, y};
    }
}

bool transposes(GstVideoOrientationMethod method)
{
    return method == GST_VIDEO_ORIENTATION_90R || method == GST_VIDEO_ORIENTATION_90L ||
           method == GST_VIDEO_ORIENTATION_UL_LR || method == GST_VIDEO_ORIENTATION_UR_LL;
}

} // namespace

std::vector<DensePlane> dense_planes(const GstVideoInfo &info, GstBuffer *buffer)
{
    GstVideoFrame frame;
    std::vector<DensePlane> planes;
    if (!gst_video_frame_map(&frame, const_cast<GstVideoInfo *>(&info), buffer, GST_MAP_READ)) {
        ADD_FAILURE() << "cannot map a " << GST_VIDEO_INFO_NAME(&info) << " frame for reading";
        return planes;
    }
    const bool packed422 = is_packed_422(GST_VIDEO_INFO_FORMAT(&info));
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
        guint c = 0;
        while (GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, c) != p)
            ++c;
        DensePlane plane;
        plane.w = packed422 ? (GST_VIDEO_FRAME_WIDTH(&frame) + 1) / 2 : GST_VIDEO_FRAME_COMP_WIDTH(&frame, c);
        plane.h = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, c);
        plane.e = packed422 ? 4 : GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c);
        plane.ws = packed422 ? 1 : GST_VIDEO_FORMAT_INFO_W_SUB(info.finfo, c);
        plane.hs = packed422 ? 0 : GST_VIDEO_FORMAT_INFO_H_SUB(info.finfo, c);
        for (std::uint32_t y = 0; y < plane.h; ++y) {
            const auto *row = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p)) +
                              y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
            plane.bytes.insert(plane.bytes.end(), row, row + plane.w * plane.e);
        }
        planes.push_back(std::move(plane));
    }
    gst_video_frame_unmap(&frame);
    return planes;
}

DensePlane reference_orient(const DensePlane &in, GstVideoOrientationMethod method)
{
    DensePlane out = in;
    if (transposes(method)) {
        std::swap(out.w, out.h);
        std::swap(out.ws, out.hs);
    }
    for (std::int64_t y = 0; y < out.h; ++y) {
        for (std::int64_t x = 0; x < out.w; ++x) {
            const auto [sx, sy] = oriented_source(method, x, y, in.w, in.h);
            std::memcpy(&out.bytes[(y * out.w + x) * out.e], in.at(sx, sy), in.e);
        }
    }
    return out;
}

DensePlane reference_crop(const DensePlane &in, std::uint32_t x, std::uint32_t y, std::uint32_t w,
                          std::uint32_t h)
{
    DensePlane out = in;
    const std::uint32_t px = x >> in.ws, py = y >> in.hs;
    out.w = GST_VIDEO_SUB_SCALE(in.ws, w);
    out.h = GST_VIDEO_SUB_SCALE(in.hs, h);
    out.bytes.clear();
    for (std::uint32_t r = 0; r < out.h; ++r)
        out.bytes.insert(out.bytes.end(), in.at(px, py + r), in.at(px, py + r) + out.w * out.e);
    return out;
}

ReferenceView::ReferenceView(const GstVideoInfo &info, GstBuffer *frame)
    : format_(GST_VIDEO_INFO_FORMAT(&info)), width_(GST_VIDEO_INFO_WIDTH(&info)),
      height_(GST_VIDEO_INFO_HEIGHT(&info)), planes_(dense_planes(info, frame))
{
    if (!is_packed_422(format_))
        return;
    for (std::int64_t y = 0; y < height_; ++y)
        for (std::int64_t x = 0; x < width_; ++x)
            pixels_.emplace_back(x, y);
}

void ReferenceView::orient(GstVideoOrientationMethod method)
{
    if (!is_packed_422(format_)) {
        for (auto &plane : planes_)
            plane = reference_orient(plane, method);
    } else {
        const std::uint32_t w = transposes(method) ? height_ : width_;
        const std::uint32_t h = transposes(method) ? width_ : height_;
        std::vector<std::pair<std::int64_t, std::int64_t>> moved;
        for (std::int64_t y = 0; y < h; ++y) {
            for (std::int64_t x = 0; x < w; ++x) {
                const auto [sx, sy] = oriented_source(method, x, y, width_, height_);
                moved.push_back(pixels_[sy * width_ + sx]);
            }
        }
        pixels_ = std::move(moved);
        if (method != GST_VIDEO_ORIENTATION_IDENTITY && method != GST_VIDEO_ORIENTATION_VERT)
            whole_macropixels_ = false;
    }
    if (transposes(method))
        std::swap(width_, height_);
}

void ReferenceView::crop(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h)
{
    if (!is_packed_422(format_)) {
        for (auto &plane : planes_)
            plane = reference_crop(plane, x, y, w, h);
    } else {
        std::vector<std::pair<std::int64_t, std::int64_t>> kept;
        for (std::uint32_t r = 0; r < h; ++r)
            for (std::uint32_t c = 0; c < w; ++c)
                kept.push_back(pixels_[static_cast<std::size_t>(y + r) * width_ + x + c]);
        pixels_ = std::move(kept);
        if (x & 1)
            whole_macropixels_ = false;
    }
    width_ = w;
    height_ = h;
}

std::vector<DensePlane> ReferenceView::planes() const
{
    if (!is_packed_422(format_))
        return planes_;
    const DensePlane &source = planes_[0];
    const GstVideoFormatInfo *finfo = gst_video_format_get_info(format_);
    const unsigned y_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 0);
    const unsigned u_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 1);
    const unsigned v_off = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 2);
    auto macropixel = [&](std::pair<std::int64_t, std::int64_t> at) {
        return source.at(static_cast<std::uint32_t>(at.first / 2), static_cast<std::uint32_t>(at.second));
    };
    auto luma = [&](std::pair<std::int64_t, std::int64_t> at) {
        return macropixel(at)[y_off + (at.first & 1) * 2];
    };

    DensePlane out = source;
    out.w = (width_ + 1) / 2;
    out.h = height_;
    out.bytes.assign(static_cast<std::size_t>(out.w) * out.h * 4, 0);
    for (std::uint32_t y = 0; y < height_; ++y) {
        for (std::uint32_t x = 0; x < width_; x += 2) {
            const auto first = pixels_[static_cast<std::size_t>(y) * width_ + x];
            guint8 *o = &out.bytes[(static_cast<std::size_t>(y) * out.w + x / 2) * 4];
            if (whole_macropixels_) {
                std::memcpy(o, macropixel(first), 4);
                continue;
            }
            const bool pair = x + 1 < width_;
            const auto second = pair ? pixels_[static_cast<std::size_t>(y) * width_ + x + 1] : first;
            unsigned u = macropixel(first)[u_off], v = macropixel(first)[v_off];
            if (second.second != first.second) {
                u = (u + macropixel(second)[u_off]) >> 1;
                v = (v + macropixel(second)[v_off]) >> 1;
            }
            o[u_off] = static_cast<guint8>(u);
            o[v_off] = static_cast<guint8>(v);
            o[y_off] = luma(first);
            o[y_off + 2] = luma(second);
        }
    }
    return {out};
}

void ReferenceView::rebase()
{
    if (!is_packed_422(format_))
        return;
    planes_ = planes();
    pixels_.clear();
    for (std::int64_t y = 0; y < height_; ++y)
        for (std::int64_t x = 0; x < width_; ++x)
            pixels_.emplace_back(x, y);
    whole_macropixels_ = true;
}

std::string first_difference(const std::vector<DensePlane> &a, const std::vector<DensePlane> &b)
{
    if (a.size() != b.size())
        return std::to_string(a.size()) + " planes vs " + std::to_string(b.size());
    for (std::size_t p = 0; p < a.size(); ++p) {
        if (a[p].w != b[p].w || a[p].h != b[p].h || a[p].e != b[p].e)
            return "plane " + std::to_string(p) + " is " + std::to_string(a[p].w) + "x" +
                   std::to_string(a[p].h) + " vs " + std::to_string(b[p].w) + "x" + std::to_string(b[p].h);
        for (std::size_t i = 0; i < a[p].bytes.size(); ++i) {
            if (a[p].bytes[i] != b[p].bytes[i]) {
                const std::size_t row = a[p].w * a[p].e;
                return "plane " + std::to_string(p) + " row " + std::to_string(i / row) + " byte " +
                       std::to_string(i % row) + ": " + std::to_string(a[p].bytes[i]) + " vs " +
                       std::to_string(b[p].bytes[i]);
            }
        }
    }
    return "";
}

} // namespace g2g::test
