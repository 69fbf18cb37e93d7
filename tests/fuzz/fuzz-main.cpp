// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fuzz-main.h"

#include <gst/gst.h>

namespace g2g::fuzz {

void init_gstreamer(int *, char ***)
{
    if (!gst_is_initialized())
        gst_init(nullptr, nullptr);
}

FatalWarnings::FatalWarnings()
    : previous_(g_log_set_always_fatal(
          static_cast<GLogLevelFlags>(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)))
{
}

FatalWarnings::~FatalWarnings()
{
    g_log_set_always_fatal(previous_);
}

} // namespace g2g::fuzz
