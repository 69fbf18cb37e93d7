// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without the dmabuf feature: DMABuf frames are still recognised (by memory type name),
// but their NO_SHARE memory stays as it is.
#include "platform/platform.h"

namespace g2g::platform::dmabuf {

GstMemory *share_fd(GstBuffer *, GstMemory *)
{
    return nullptr;
}

} // namespace g2g::platform::dmabuf
