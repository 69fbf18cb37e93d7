// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: g2gtee's stats property, read field by field.
#pragma once

#include <gst/gst.h>

#include <string>

namespace g2g::test {

// A guint64 field of the tee's stats ("frames", "shares", "conversions", ...); 0 when absent.
guint64 tee_stat(GstElement *tee, const char *field);

// Frames converted for one domain pair ("VulkanTexture-to-System"); 0 when none were.
guint64 tee_conversions(GstElement *tee, const char *pair);

// Shares of frames in one domain ("D3D11Texture"); 0 when none were shared.
guint64 tee_shares(GstElement *tee, const char *domain);

// The element the tee converts one domain pair with ("Cuda-to-DmaBuf": "g2gconvert"); "" when none.
std::string tee_converter(GstElement *tee, const char *pair);

} // namespace g2g::test
