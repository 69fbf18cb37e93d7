// SPDX-License-Identifier: LGPL-2.1-or-later
#include "log-private.h"

namespace g2g::detail {

GstDebugCategory *debug_category()
{
    static GstDebugCategory *category = [] {
        GstDebugCategory *cat = nullptr;
        GST_DEBUG_CATEGORY_INIT(cat, "g2g", 0, "g2g memory domains");
        return cat;
    }();
    return category;
}

} // namespace g2g::detail
