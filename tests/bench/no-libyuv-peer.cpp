// SPDX-License-Identifier: LGPL-2.1-or-later
// A build of bench-view without libyuv (its peer section says so and is skipped).
#include "libyuv-peer.h"

namespace g2g::bench::libyuv_peer {

const char *missing()
{
    return "this build of bench-view has no libyuv (apt-get install libyuv-dev, then meson setup "
           "--reconfigure)";
}

int version()
{
    return 0;
}

const char *equivalent(GstVideoFormat, GstVideoOrientationMethod)
{
    return nullptr;
}

void run(GstVideoFormat, GstVideoOrientationMethod, const Planes &)
{
}

} // namespace g2g::bench::libyuv_peer
