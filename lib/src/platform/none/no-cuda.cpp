// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without the cuda feature: CUDA frames are still recognised by GstCudaMemory's type
// name (the domain table's), so they are named and pointed at cudadownload; nothing runs on a GPU.
#include <g2g/cuda-view.h>

#include "platform/platform.h"

namespace g2g {
namespace cuda {

bool available()
{
    return false;
}

bool is_device_frame(GstBuffer *)
{
    return false;
}

Result<void> materialize_into(const FrameView &, GstBuffer *, GstBuffer *, bool)
{
    return Error(ErrorCode::UnsupportedDomain, "g2g was built without the cuda feature");
}

Result<void> materialize_into_planes(const FrameView &, GstBuffer *, gpointer, const std::uint64_t[],
                                     const gint[], bool)
{
    return Error(ErrorCode::UnsupportedDomain, "g2g was built without the cuda feature");
}

} // namespace cuda

namespace platform::cuda {

bool recognises(GstMemory *)
{
    return false;
}

const detail::ViewBackend *view_backend()
{
    return nullptr;
}

bool map_device_pointer(GstMemory *, GstMapInfo *)
{
    return false;
}

int device_ordinal(GstMemory *)
{
    return -1;
}

Result<BufferRef> dense_frame(const FrameView &, GstBuffer *)
{
    return Error(ErrorCode::UnsupportedDomain, "g2g was built without the cuda feature");
}

Result<void> materialize_into_device(const FrameView &, GstBuffer *, void *const[], const gint[])
{
    return Error(ErrorCode::UnsupportedDomain, "g2g was built without the cuda feature");
}

} // namespace platform::cuda
} // namespace g2g
