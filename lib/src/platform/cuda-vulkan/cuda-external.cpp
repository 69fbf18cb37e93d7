// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda-external.h"

#include <gst/cuda/gstcudaloader.h>

#include <cstdio>

#include <g2g/cuda-view.h>

namespace g2g::cuda_vulkan {

Result<const CudaExternal *> cuda_external()
{
    struct Loaded {
        CudaExternal calls;
        std::string missing;
    };
    static const Loaded loaded = [] {
        Loaded result;
        if (!g2g::cuda::available()) {
            result.missing = "the NVIDIA driver's CUDA library does not load on this machine";
            return result;
        }
        using cuda::load_driver_symbol;
        CudaExternal &c = result.calls;
        const std::pair<bool, const char *> found[] = {
            {load_driver_symbol("cuImportExternalMemory", c.import_memory), "cuImportExternalMemory"},
            {load_driver_symbol("cuExternalMemoryGetMappedBuffer", c.mapped_buffer),
             "cuExternalMemoryGetMappedBuffer"},
            {load_driver_symbol("cuDestroyExternalMemory", c.destroy_memory), "cuDestroyExternalMemory"},
            {load_driver_symbol("cuDeviceGetUuid_v2", c.device_uuid), "cuDeviceGetUuid_v2"},
        };
        for (const auto &[ok, name] : found) {
            if (!ok) {
                result.missing = std::string("the CUDA driver has no ") + name +
                                 " (sharing memory with Vulkan needs a driver of CUDA 11.4 or later)";
                break;
            }
        }
        return result;
    }();
    if (!loaded.missing.empty())
        return Error(ErrorCode::UnsupportedDomain, loaded.missing);
    return &loaded.calls;
}

Result<Uuid> uuid_of(GstCudaContext *context)
{
    Result<const CudaExternal *> calls = cuda_external();
    if (!calls)
        return calls.error();
    CUdevice device = 0;
    if (CUresult r = CuDeviceGet(&device, cuda::device_id_of(context)); r != CUDA_SUCCESS)
        return cuda_failure("cuDeviceGet", r);
    CUuuid uuid{};
    if (CUresult r = (*calls)->device_uuid(&uuid, device); r != CUDA_SUCCESS)
        return cuda_failure("cuDeviceGetUuid", r);
    Uuid bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<std::uint8_t>(uuid.bytes[i]);
    return bytes;
}

std::string uuid_text(const Uuid &uuid)
{
    std::string text;
    for (std::size_t i = 0; i < uuid.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            text += '-';
        char digits[3];
        std::snprintf(digits, sizeof digits, "%02x", uuid[i]);
        text += digits;
    }
    return text;
}

} // namespace g2g::cuda_vulkan
