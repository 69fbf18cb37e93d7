// SPDX-License-Identifier: LGPL-2.1-or-later
// What crosses to another process for CUDA memory it opens (cuda-ipc.h), in plain integers: the
// IPC wire (gst/ipc/ipc-cuda-record) carries it in builds without CUDA too.
#pragma once

#include <array>
#include <cstdint>

namespace g2g::cuda {

// One CUDA memory of another process: its allocation's IPC handle (CUipcMemHandle, 64 bytes),
// where the memory starts in that allocation, and its size.
struct IpcHandle {
    std::array<std::uint8_t, 64> handle{};
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    bool operator==(const IpcHandle &) const = default;
};

} // namespace g2g::cuda
