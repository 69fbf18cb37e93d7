// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda-external.h"

#include <gst/cuda/gstcudaloader.h>

#include <dlfcn.h>

#include <cstdio>

#include <g2g/cuda-view.h>

namespace g2g::cuda_vulkan {

namespace {

template <typename Function> bool load(void *library, const char *name, Function &function)
{
    function = reinterpret_cast<Function>(dlsym(library, name));
    return function != nullptr;
}

} // namespace

Error cuda_failure(const char *what, CUresult result)
{
    const char *name = nullptr;
    CuGetErrorName(result, &name);
    return Error(ErrorCode::MapFailed,
                 std::string(what) + " failed: " + (name ? name : "unknown CUDA error"));
}

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
        // Already loaded by GStreamer's CUDA loader: this only finds it.
        void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        CudaExternal &c = result.calls;
        const std::pair<bool, const char *> found[] = {
            {library && load(library, "cuImportExternalMemory", c.import_memory), "cuImportExternalMemory"},
            {library && load(library, "cuExternalMemoryGetMappedBuffer", c.mapped_buffer),
             "cuExternalMemoryGetMappedBuffer"},
            {library && load(library, "cuDestroyExternalMemory", c.destroy_memory),
             "cuDestroyExternalMemory"},
            {library && load(library, "cuDeviceGetUuid_v2", c.device_uuid), "cuDeviceGetUuid_v2"},
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

namespace {

gint device_id_of(GstCudaContext *context)
{
    guint id = 0;
    g_object_get(context, "cuda-device-id", &id, nullptr);
    return static_cast<gint>(id);
}

} // namespace

Result<Uuid> uuid_of(GstCudaContext *context)
{
    Result<const CudaExternal *> calls = cuda_external();
    if (!calls)
        return calls.error();
    CUdevice device = 0;
    if (CUresult r = CuDeviceGet(&device, device_id_of(context)); r != CUDA_SUCCESS)
        return cuda_failure("cuDeviceGet", r);
    CUuuid uuid{};
    if (CUresult r = (*calls)->device_uuid(&uuid, device); r != CUDA_SUCCESS)
        return cuda_failure("cuDeviceGetUuid", r);
    Uuid bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<std::uint8_t>(uuid.bytes[i]);
    return bytes;
}

std::string describe(GstCudaContext *context)
{
    const gint id = device_id_of(context);
    char name[256] = "";
    CUdevice device = 0;
    if (CuDeviceGet(&device, id) == CUDA_SUCCESS)
        CuDeviceGetName(name, sizeof name, device);
    return "CUDA device " + std::to_string(id) + " '" + name + "'";
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
