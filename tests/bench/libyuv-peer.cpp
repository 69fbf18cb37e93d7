// SPDX-License-Identifier: LGPL-2.1-or-later
// libyuv's rotations and flips (see libyuv-peer.h). The methods it has no call for: the diagonal
// flips of RGBA (no 4-byte transpose in its API), NV12's ul-lr (no public 16-bit transpose for the
// chroma pairs), and ur-ll everywhere (an anti-transpose would be two of its passes).
#include "libyuv-peer.h"

#include <libyuv.h>

#include <cstdint>

namespace g2g::bench::libyuv_peer {
namespace {

using Method = GstVideoOrientationMethod;

// videoflip's rotations as libyuv's (clockwise) modes; kRotate0 for the others.
libyuv::RotationMode rotation(Method method)
{
    switch (method) {
    case GST_VIDEO_ORIENTATION_90R:
        return libyuv::kRotate90;
    case GST_VIDEO_ORIENTATION_180:
        return libyuv::kRotate180;
    case GST_VIDEO_ORIENTATION_90L:
        return libyuv::kRotate270;
    default:
        return libyuv::kRotate0;
    }
}

// NV12's chroma plane as libyuv's 16-bit elements (one U, V pair each; strides in elements).
const std::uint16_t *pairs(const guint8 *plane)
{
    return reinterpret_cast<const std::uint16_t *>(plane);
}
std::uint16_t *pairs(guint8 *plane)
{
    return reinterpret_cast<std::uint16_t *>(plane);
}

} // namespace

const char *missing()
{
    return nullptr;
}

int version()
{
    return LIBYUV_VERSION;
}

const char *equivalent(GstVideoFormat format, Method method)
{
    const bool rotates = rotation(method) != libyuv::kRotate0;
    switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
        if (rotates)
            return method == GST_VIDEO_ORIENTATION_90R   ? "ARGBRotate(kRotate90)"
                   : method == GST_VIDEO_ORIENTATION_180 ? "ARGBRotate(kRotate180)"
                                                         : "ARGBRotate(kRotate270)";
        if (method == GST_VIDEO_ORIENTATION_HORIZ)
            return "ARGBMirror";
        if (method == GST_VIDEO_ORIENTATION_VERT)
            return "ARGBCopy(-height)";
        return nullptr;
    case GST_VIDEO_FORMAT_I420:
        if (rotates)
            return method == GST_VIDEO_ORIENTATION_90R   ? "I420Rotate(kRotate90)"
                   : method == GST_VIDEO_ORIENTATION_180 ? "I420Rotate(kRotate180)"
                                                         : "I420Rotate(kRotate270)";
        if (method == GST_VIDEO_ORIENTATION_HORIZ)
            return "I420Mirror";
        if (method == GST_VIDEO_ORIENTATION_VERT)
            return "I420Copy(-height)";
        if (method == GST_VIDEO_ORIENTATION_UL_LR)
            return "TransposePlane x3";
        return nullptr;
    case GST_VIDEO_FORMAT_NV12:
        if (rotates)
            return method == GST_VIDEO_ORIENTATION_90R   ? "RotatePlane + RotatePlane_16 (kRotate90)"
                   : method == GST_VIDEO_ORIENTATION_180 ? "RotatePlane + RotatePlane_16 (kRotate180)"
                                                         : "RotatePlane + RotatePlane_16 (kRotate270)";
        if (method == GST_VIDEO_ORIENTATION_HORIZ)
            return "NV12Mirror";
        if (method == GST_VIDEO_ORIENTATION_VERT)
            return "NV12Copy(-height)";
        return nullptr;
    default:
        return nullptr;
    }
}

void run(GstVideoFormat format, Method method, const Planes &p)
{
    const int w = p.width, h = p.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    const libyuv::RotationMode mode = rotation(method);
    switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
        if (mode != libyuv::kRotate0)
            libyuv::ARGBRotate(p.src[0], p.src_stride[0], p.dst[0], p.dst_stride[0], w, h, mode);
        else if (method == GST_VIDEO_ORIENTATION_HORIZ)
            libyuv::ARGBMirror(p.src[0], p.src_stride[0], p.dst[0], p.dst_stride[0], w, h);
        else
            libyuv::ARGBCopy(p.src[0], p.src_stride[0], p.dst[0], p.dst_stride[0], w, -h);
        return;
    case GST_VIDEO_FORMAT_I420:
        if (mode != libyuv::kRotate0) {
            libyuv::I420Rotate(p.src[0], p.src_stride[0], p.src[1], p.src_stride[1], p.src[2],
                               p.src_stride[2], p.dst[0], p.dst_stride[0], p.dst[1], p.dst_stride[1],
                               p.dst[2], p.dst_stride[2], w, h, mode);
        } else if (method == GST_VIDEO_ORIENTATION_HORIZ) {
            libyuv::I420Mirror(p.src[0], p.src_stride[0], p.src[1], p.src_stride[1], p.src[2],
                               p.src_stride[2], p.dst[0], p.dst_stride[0], p.dst[1], p.dst_stride[1],
                               p.dst[2], p.dst_stride[2], w, h);
        } else if (method == GST_VIDEO_ORIENTATION_VERT) {
            libyuv::I420Copy(p.src[0], p.src_stride[0], p.src[1], p.src_stride[1], p.src[2], p.src_stride[2],
                             p.dst[0], p.dst_stride[0], p.dst[1], p.dst_stride[1], p.dst[2], p.dst_stride[2],
                             w, -h);
        } else {
            libyuv::TransposePlane(p.src[0], p.src_stride[0], p.dst[0], p.dst_stride[0], w, h);
            libyuv::TransposePlane(p.src[1], p.src_stride[1], p.dst[1], p.dst_stride[1], cw, ch);
            libyuv::TransposePlane(p.src[2], p.src_stride[2], p.dst[2], p.dst_stride[2], cw, ch);
        }
        return;
    case GST_VIDEO_FORMAT_NV12:
        if (mode != libyuv::kRotate0) {
            libyuv::RotatePlane(p.src[0], p.src_stride[0], p.dst[0], p.dst_stride[0], w, h, mode);
            libyuv::RotatePlane_16(pairs(p.src[1]), p.src_stride[1] / 2, pairs(p.dst[1]), p.dst_stride[1] / 2,
                                   cw, ch, mode);
        } else if (method == GST_VIDEO_ORIENTATION_HORIZ) {
            libyuv::NV12Mirror(p.src[0], p.src_stride[0], p.src[1], p.src_stride[1], p.dst[0],
                               p.dst_stride[0], p.dst[1], p.dst_stride[1], w, h);
        } else {
            libyuv::NV12Copy(p.src[0], p.src_stride[0], p.src[1], p.src_stride[1], p.dst[0], p.dst_stride[0],
                             p.dst[1], p.dst_stride[1], w, -h);
        }
        return;
    default:
        return;
    }
}

} // namespace g2g::bench::libyuv_peer
