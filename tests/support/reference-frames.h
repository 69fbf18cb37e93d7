// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: the plain reference of frame views. Each plane as dense elements, each crop and
// orientation applied the slow obvious way (videoflip's and videocrop's formulas, per plane,
// with the plane's own geometry); packed 4:2:2 as a map of source pixels with videoflip's chroma
// rule. The oracle for bytes no peer writes or for formats no peer has (P010_10LE).
#pragma once

#include <gst/video/video.h>

#include <cstdint>
#include <string>
#include <vector>

namespace g2g::test {

// One plane's visible bytes, rows packed: w elements of e bytes per row. Packed 4:2:2 planes are
// macropixels (e = 4, w = ceil(width / 2)), padding luma included.
struct DensePlane {
    std::uint32_t w = 0, h = 0, e = 0;
    guint ws = 0, hs = 0; // subsampling along the current x and y axes
    std::vector<guint8> bytes;
    const guint8 *at(std::uint32_t x, std::uint32_t y) const
    {
        return &bytes[(static_cast<std::size_t>(y) * w + x) * e];
    }
};

// The visible bytes of each plane of `buffer` laid out as `info` (or its GstVideoMeta).
std::vector<DensePlane> dense_planes(const GstVideoInfo &info, GstBuffer *buffer);

// out(x, y) = in(f(x, y)) for videoflip's f of `method`, on the plane's own grid.
DensePlane reference_orient(const DensePlane &in, GstVideoOrientationMethod method);

// The plane's part of a w x h crop at (x, y): from x >> ws, ceil(w / 2^ws) samples wide.
DensePlane reference_crop(const DensePlane &in, std::uint32_t x, std::uint32_t y, std::uint32_t w,
                          std::uint32_t h);

// A view of a frame built step by step the plain way; planes() is what materializing it must give,
// byte for byte. Packed 4:2:2 (YUY2, UYVY, YVYU): luma per pixel; chroma of an output macropixel
// from the source macropixel of its first pixel, averaged with its second pixel's where the two
// lie in different source rows (videoflip's rule); the padding luma of an odd-width row's last
// macropixel repeats its pixel's luma, except where every step keeps macropixels whole (identity
// and vertical flips, crops at even columns): then whole source macropixels are copied, padding
// included.
class ReferenceView {
public:
    ReferenceView(const GstVideoInfo &info, GstBuffer *frame);
    void orient(GstVideoOrientationMethod method);
    void crop(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h);
    std::uint32_t width() const { return width_; }
    std::uint32_t height() const { return height_; }
    std::vector<DensePlane> planes() const;
    // Starts again from the frame planes() describes (what an element that materializes hands
    // on; the next steps compose over it).
    void rebase();

private:
    GstVideoFormat format_;
    std::uint32_t width_, height_;
    std::vector<DensePlane> planes_; // planar formats: the planes so far; packed 4:2:2: the source
    // Packed 4:2:2: the source pixel (x, y) of each view pixel, row by row.
    std::vector<std::pair<std::int64_t, std::int64_t>> pixels_;
    bool whole_macropixels_ = true;
};

// "" when a and b (dense planes of the same geometry) hold the same bytes; else the first byte
// that differs.
std::string first_difference(const std::vector<DensePlane> &a, const std::vector<DensePlane> &b);

} // namespace g2g::test
