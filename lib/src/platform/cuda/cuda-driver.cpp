// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda-driver.h"

#include <gst/cuda/gstcudaloader.h>

#include <dlfcn.h>

#include <g2g/cuda-view.h>

namespace g2g::cuda {

Error failure(const char *what, CUresult result)
{
    const char *name = nullptr;
    CuGetErrorName(result, &name);
    return Error(ErrorCode::MapFailed,
                 std::string(what) + " failed: " + (name ? name : "unknown CUDA error"));
}

gint device_id_of(GstCudaContext *context)
{
    guint id = 0;
    g_object_get(context, "cuda-device-id", &id, nullptr);
    return static_cast<gint>(id);
}

std::string describe_device(gint id)
{
    char name[256] = "";
    CUdevice device = 0;
    if (available() && CuDeviceGet(&device, id) == CUDA_SUCCESS)
        CuDeviceGetName(name, sizeof name, device);
    return "CUDA device " + std::to_string(id) + " '" + name + "'";
}

std::string describe(GstCudaContext *context)
{
    return describe_device(device_id_of(context));
}

void *driver_symbol(const char *name)
{
    if (!available())
        return nullptr;
    // Opened once and never closed: GStreamer's loader holds the library for the process's life.
    static void *const library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    return library ? dlsym(library, name) : nullptr;
}

} // namespace g2g::cuda
