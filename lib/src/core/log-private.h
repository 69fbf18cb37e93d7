// SPDX-License-Identifier: LGPL-2.1-or-later
// The library's debug category ("g2g"), registered on first use.
#pragma once

#include <gst/gst.h>

namespace g2g::detail {
GstDebugCategory *debug_category();
}

#define G2G_CAT (::g2g::detail::debug_category())
