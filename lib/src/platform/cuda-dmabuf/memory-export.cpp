// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memory-export.h"

#include <gst/cuda/gstcudaloader.h>

#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <g2g/cuda-view.h>

#include "platform/cuda/cuda-driver.h"

namespace g2g::cuda_dmabuf {
namespace {

// CUDA 11.7's values, spelled out so that an older toolkit's cuda.h still builds this: whether
// the driver has them is found at run time.
constexpr int kDmaBufSupported = 124; // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
constexpr int kDmaBufFd = 1;          // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD

// The driver calls GStreamer 1.22's CUDA loader does not load.
struct Driver {
    CUresult (*handle_for_range)(void *handle, CUdeviceptr data, size_t size, int type,
                                 unsigned long long flags) = nullptr;
    CUresult (*address_range)(CUdeviceptr *base, size_t *size, CUdeviceptr data) = nullptr;
};

Error unsupported(std::string message)
{
    return Error(ErrorCode::UnsupportedDomain, std::move(message));
}

Result<const Driver *> driver()
{
    if (!cuda::available())
        return unsupported("the NVIDIA driver's CUDA library does not load on this machine");
    static const Driver loaded = [] {
        Driver calls;
        cuda::load_driver_symbol("cuMemGetHandleForAddressRange", calls.handle_for_range);
        cuda::load_driver_symbol("cuMemGetAddressRange_v2", calls.address_range);
        return calls;
    }();
    if (!loaded.handle_for_range)
        return unsupported("the CUDA driver has no cuMemGetHandleForAddressRange (exporting device memory as "
                           "a DMA-BUF needs a driver of CUDA 11.7 or later)");
    return &loaded;
}

// Whether device `id` exports its memory as DMA-BUFs: asked of the driver once per device. An
// empty optional is a yes.
std::optional<Error> refusal_of_device(gint id)
{
    static std::mutex lock;
    static std::map<gint, std::optional<Error>> known;
    const std::lock_guard guard(lock);
    if (auto found = known.find(id); found != known.end())
        return found->second;
    std::optional<Error> refusal;
    CUdevice device = 0;
    int supported = 0;
    if (CUresult r = CuDeviceGet(&device, id); r != CUDA_SUCCESS) {
        refusal = cuda::failure(("cuDeviceGet of CUDA device " + std::to_string(id)).c_str(), r);
    } else if (CUresult a = CuDeviceGetAttribute(&supported,
                                                 static_cast<CUdevice_attribute>(kDmaBufSupported), device);
               a != CUDA_SUCCESS) {
        refusal = unsupported(
            cuda::describe_device(id) + " cannot say whether it exports DMA-BUFs: " +
            cuda::failure("cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)", a).message() +
            " (drivers older than CUDA 11.7 do not know the attribute)");
    } else if (!supported) {
        refusal =
            unsupported(cuda::describe_device(id) +
                        " does not export its memory as DMA-BUFs (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED "
                        "is 0 there): its CUDA frames cannot be memory:DMABuf frames; download them "
                        "instead (cudadownload)");
    }
    known.emplace(id, refusal);
    return refusal;
}

std::string hex(std::uint64_t value)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

// What the driver says of the allocation `data` lies in, for an export it refused.
std::string allocation_of(const Driver &calls, CUdeviceptr data)
{
    CUdeviceptr base = 0;
    size_t size = 0;
    if (!calls.address_range)
        return "";
    if (calls.address_range(&base, &size, data) != CUDA_SUCCESS)
        return "; cuMemGetAddressRange does not know the address either: it is not memory CUDA allocated";
    return "; they lie in the allocation of " + std::to_string(size) + " bytes at " + hex(base);
}

void close_export(gpointer data)
{
    auto *exported = static_cast<MemoryExport *>(data);
    close(exported->fd);
    delete exported;
}

} // namespace

Result<void> check_device(gint id)
{
    if (Result<const Driver *> calls = driver(); !calls)
        return calls.error();
    if (std::optional<Error> refusal = refusal_of_device(id))
        return *refusal;
    return {};
}

Result<const MemoryExport *> export_memory(GstCudaMemory *memory, CUdeviceptr data, bool &made)
{
    static const GQuark quark = g_quark_from_static_string("g2g-cuda-dmabuf-export");
    // Two streams exporting one memory at once (two converters behind a tee) export it once.
    // Taken before refusal_of_device's lock, never after it.
    static std::mutex lock;
    const std::lock_guard guard(lock);
    made = false;
    if (auto *kept =
            static_cast<const MemoryExport *>(gst_mini_object_get_qdata(GST_MINI_OBJECT(memory), quark)))
        return kept;
    if (Result<void> device = check_device(cuda::device_id_of(memory->context)); !device)
        return device.error();
    Result<const Driver *> calls = driver();

    static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    const gsize bytes = GST_MEMORY_CAST(memory)->maxsize;
    const ExportRange range = export_range(data, bytes, page);
    if (!gst_cuda_context_push(memory->context))
        return Error(ErrorCode::MapFailed, "cannot make the CUDA context of " +
                                               cuda::describe(memory->context) +
                                               " current to export its frame");
    int fd = -1;
    const CUresult r = (*calls)->handle_for_range(&fd, range.begin, range.size, kDmaBufFd, 0);
    const std::string allocation = r == CUDA_SUCCESS ? "" : allocation_of(**calls, data);
    gst_cuda_context_pop(nullptr);
    if (r != CUDA_SUCCESS)
        return Error(ErrorCode::UnsupportedDomain,
                     cuda::failure("cuMemGetHandleForAddressRange (CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)", r)
                             .message() +
                         " for the " + std::to_string(bytes) + " bytes of a CUDA frame at " + hex(data) +
                         " on " + cuda::describe(memory->context) + " (exported as the pages " +
                         hex(range.begin) + " + " + std::to_string(range.size) + " bytes)" + allocation);
    auto *exported = new MemoryExport{fd, range};
    gst_mini_object_set_qdata(GST_MINI_OBJECT(memory), quark, exported, close_export);
    made = true;
    return exported;
}

} // namespace g2g::cuda_dmabuf
