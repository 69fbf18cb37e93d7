// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-cuda-record.h"

#include "ipc-bytes.h"

#include <string>

namespace g2g::ipc {

namespace {

// Per memory, little-endian: the 64-byte handle, its offset and its size (u64).
constexpr std::size_t kPerHandle = 64 + 8 + 8;

Error refused(const std::string &what)
{
    return Error(ErrorCode::InvalidArgument, std::string("a ") + kCudaRecordName + " record " + what);
}

} // namespace

MetaRecord encode_cuda_handles(const std::vector<cuda::IpcHandle> &handles)
{
    MetaRecord record{kCudaRecordName, kCudaRecordVersion, {}};
    for (const cuda::IpcHandle &handle : handles) {
        record.payload.insert(record.payload.end(), handle.handle.begin(), handle.handle.end());
        put_le(record.payload, handle.offset);
        put_le(record.payload, handle.size);
    }
    return record;
}

Result<std::vector<cuda::IpcHandle>> decode_cuda_handles(const MetaRecord &record)
{
    if (record.version != kCudaRecordVersion)
        return refused("of version " + std::to_string(record.version) + " (this g2g reads " +
                       std::to_string(kCudaRecordVersion) + ")");
    const std::size_t n = record.payload.size() / kPerHandle;
    if (record.payload.size() % kPerHandle != 0)
        return refused("of " + std::to_string(record.payload.size()) + " bytes, not whole " +
                       std::to_string(kPerHandle) + "-byte handles");
    if (n == 0 || n > kMaxMemories)
        return refused("of " + std::to_string(n) + " handles (1 to " + std::to_string(kMaxMemories) + ")");
    Reader reader(record.payload);
    std::vector<cuda::IpcHandle> handles(n);
    for (cuda::IpcHandle &handle : handles) {
        for (std::uint8_t &b : handle.handle)
            reader.host(b);
        reader.le(handle.offset);
        reader.le(handle.size);
    }
    return handles;
}

} // namespace g2g::ipc
