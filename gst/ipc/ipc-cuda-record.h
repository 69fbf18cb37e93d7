// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA memory across processes (issue 33): a NEW_BUFFER of memory kind CudaIpc carries no
// descriptor; this record of g2g's own in its meta list holds each memory's IPC handle, where it
// starts in the handle's allocation and its size (cuda-ipc-handle.h), beside the GstVideoMeta
// record of its layout. Decoded here, checked where the allocation is opened.
#pragma once

#include <vector>

#include <g2g/error.h>
#include <g2g-internal/plugin-interface.h>

#include "ipc-wire.h"

namespace g2g::ipc {

inline constexpr const char *kCudaRecordName = "G2gCudaIpc";
inline constexpr std::uint8_t kCudaRecordVersion = 1;

MetaRecord encode_cuda_handles(const std::vector<cuda::IpcHandle> &handles);
// Refused: another version, a length that is not whole handles, no handle or more than a buffer
// holds.
Result<std::vector<cuda::IpcHandle>> decode_cuda_handles(const MetaRecord &record);

} // namespace g2g::ipc
