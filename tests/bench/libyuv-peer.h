// SPDX-License-Identifier: LGPL-2.1-or-later
// libyuv as bench-view's peer for rotations and flips: its calls for the methods it has an
// equivalent of, on frames of the formats it has them for (RGBA as libyuv's 4-byte ARGB, I420,
// NV12 as its planes). libyuv-peer.cpp calls it; no-libyuv-peer.cpp (meson picks) answers that this
// build has none, so the benchmark builds and runs without it.
#pragma once

#include <gst/video/video.h>

namespace g2g::bench::libyuv_peer {

// Why this build has no libyuv, or nullptr when it has.
const char *missing();

// libyuv's version (LIBYUV_VERSION), or 0 without it.
int version();

// The libyuv call(s) equivalent to `method` on a `format` frame ("ARGBRotate(kRotate90)"), or
// nullptr when libyuv has none (or this build has no libyuv).
const char *equivalent(GstVideoFormat format, GstVideoOrientationMethod method);

// The planes of a source frame (width x height pixels) and of the destination it is written to.
struct Planes {
    const guint8 *src[GST_VIDEO_MAX_PLANES];
    int src_stride[GST_VIDEO_MAX_PLANES];
    guint8 *dst[GST_VIDEO_MAX_PLANES];
    int dst_stride[GST_VIDEO_MAX_PLANES];
    int width, height;
};

// Runs equivalent(format, method). Only where it is not nullptr.
void run(GstVideoFormat format, GstVideoOrientationMethod method, const Planes &planes);

} // namespace g2g::bench::libyuv_peer
