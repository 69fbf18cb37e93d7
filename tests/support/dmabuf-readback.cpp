// SPDX-License-Identifier: LGPL-2.1-or-later
// Reading DMA-BUFs back as their consumers would (see dmabuf-readback.h).
#include "dmabuf-readback.h"
#include "open-fds.h"

#include "g2g-config.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>

#if G2G_HAVE_DMABUF
#include <linux/dma-buf.h>
#endif

#if G2G_HAVE_CUDA
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>

#include "platform/cuda/cuda-driver.h"
#endif

#if G2G_HAVE_VULKAN
#include <vulkan/vulkan.h>
#endif

namespace g2g::test {
namespace {

std::string errno_text(const char *call, int error)
{
    return std::string(call) + ": errno " + std::to_string(error) + " (" + std::strerror(error) + ")";
}

// The fd's bytes through mmap; "" when read, else what failed.
std::string mmap_read(int fd, gsize size, std::vector<guint8> &out)
{
    void *mapped = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED)
        return errno_text("mmap(PROT_READ, MAP_SHARED)", errno);
    std::string said;
#if G2G_HAVE_DMABUF
    // As the kernel asks of every CPU read of a device's buffer (an fd without it says ENOTTY).
    struct dma_buf_sync sync = {DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ};
    if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0 && errno != ENOTTY)
        said = errno_text("DMA_BUF_IOCTL_SYNC(START)", errno);
#endif
    if (said.empty()) {
        out.assign(static_cast<const guint8 *>(mapped), static_cast<const guint8 *>(mapped) + size);
#if G2G_HAVE_DMABUF
        sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
        ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
#endif
    }
    munmap(mapped, size);
    return said;
}

#if G2G_HAVE_CUDA
struct CudaImport {
    CUresult (*import)(CUexternalMemory *, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *) = nullptr;
    CUresult (*mapped)(CUdeviceptr *, CUexternalMemory, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *) = nullptr;
    CUresult (*destroy)(CUexternalMemory) = nullptr;
    CUresult (*download)(void *, CUdeviceptr, size_t) = nullptr;
    CUresult (*free)(CUdeviceptr) = nullptr;
};

const CudaImport *cuda_import()
{
    static const CudaImport calls = [] {
        CudaImport c;
        using g2g::cuda::load_driver_symbol;
        const bool all = load_driver_symbol("cuImportExternalMemory", c.import) &&
                         load_driver_symbol("cuExternalMemoryGetMappedBuffer", c.mapped) &&
                         load_driver_symbol("cuDestroyExternalMemory", c.destroy) &&
                         load_driver_symbol("cuMemcpyDtoH_v2", c.download) &&
                         load_driver_symbol("cuMemFree_v2", c.free);
        if (!all)
            c.import = nullptr;
        return c;
    }();
    return calls.import ? &calls : nullptr;
}

std::string cuda_name(const char *call, CUresult result)
{
    const char *name = nullptr;
    CuGetErrorName(result, &name);
    return std::string(call) + ": " + (name ? name : std::to_string(static_cast<int>(result)));
}

// The fd's bytes through CUDA's import as `type`; "" when read, else what failed.
std::string cuda_read(gpointer context, int fd, gsize size, int type, std::vector<guint8> &out)
{
    const CudaImport *calls = cuda_import();
    if (!context)
        return "no CUDA context to import into";
    if (!calls)
        return "the CUDA driver lacks the external-memory calls";
    if (!gst_cuda_context_push(GST_CUDA_CONTEXT(context)))
        return "cannot make the CUDA context current";
    std::string said;
    const int own = dup(fd); // CUDA takes the fd it imports
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc{};
    desc.type = static_cast<CUexternalMemoryHandleType>(type);
    desc.handle.fd = own;
    desc.size = size;
    CUexternalMemory memory = nullptr;
    if (CUresult r = calls->import(&memory, &desc); r != CUDA_SUCCESS) {
        close(own);
        said = cuda_name("cuImportExternalMemory", r);
    } else {
        CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer{};
        buffer.size = size;
        CUdeviceptr data = 0;
        if (CUresult m = calls->mapped(&data, memory, &buffer); m != CUDA_SUCCESS) {
            said = cuda_name("cuExternalMemoryGetMappedBuffer", m);
        } else {
            out.resize(size);
            if (CUresult d = calls->download(out.data(), data, size); d != CUDA_SUCCESS)
                said = cuda_name("cuMemcpyDtoH", d);
            calls->free(data);
        }
        calls->destroy(memory);
    }
    CUcontext popped = nullptr;
    gst_cuda_context_pop(&popped);
    return said;
}
#else
std::string cuda_read(gpointer, int, gsize, int, std::vector<guint8> &)
{
    return "this build has no CUDA";
}
#endif

// CUexternalMemoryHandleType's values (CUDA 13's cuda.h), spelled out for older headers.
constexpr int kCudaOpaqueFd = 1; // CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD
constexpr int kCudaDmaBufFd = 9; // CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD

} // namespace

DmaBufReader::DmaBufReader(gpointer cuda_context)
    : cuda_(cuda_context ? gst_object_ref(GST_OBJECT(cuda_context)) : nullptr)
{
}

DmaBufReader::~DmaBufReader()
{
    if (cuda_)
        gst_object_unref(GST_OBJECT(cuda_));
}

bool DmaBufReader::failed(const std::string &importer) const
{
    for (const ImportOutcome &outcome : outcomes_) {
        if (outcome.importer == importer)
            return !outcome.worked;
    }
    return false;
}

void DmaBufReader::record(const std::string &importer, bool worked, const std::string &said, int fds_left)
{
    for (const ImportOutcome &outcome : outcomes_) {
        if (outcome.importer == importer)
            return;
    }
    outcomes_.push_back({importer, worked, said, fds_left});
}

std::optional<std::vector<guint8>> DmaBufReader::read(int fd, gsize size)
{
    using Importer = std::function<std::string(std::vector<guint8> &)>;
    const std::pair<const char *, Importer> importers[] = {
        {"mmap", [&](std::vector<guint8> &out) { return mmap_read(fd, size, out); }},
        {"cuda-dmabuf",
         [&](std::vector<guint8> &out) { return cuda_read(cuda_, fd, size, kCudaDmaBufFd, out); }},
        {"cuda-opaque",
         [&](std::vector<guint8> &out) { return cuda_read(cuda_, fd, size, kCudaOpaqueFd, out); }},
    };
    for (const auto &[name, importer] : importers) {
        if (failed(name))
            continue;
        std::vector<guint8> bytes;
        const int fds_before = open_fd_count();
        const std::string said = importer(bytes);
        record(name, said.empty(), said.empty() ? "read " + std::to_string(size) + " bytes" : said,
               open_fd_count() - fds_before);
        if (said.empty()) {
            importer_ = name;
            return bytes;
        }
    }
    return std::nullopt;
}

std::string DmaBufReader::report() const
{
    std::string text;
    for (const ImportOutcome &outcome : outcomes_)
        text += (text.empty() ? "" : "; ") + outcome.importer + ": " + outcome.said +
                (outcome.fds_left ? " (and left " + std::to_string(outcome.fds_left) + " fds open)" : "");
    return text.empty() ? "no importer tried" : text;
}

std::map<std::string, std::string> fd_info(int fd)
{
    std::map<std::string, std::string> fields;
    std::ifstream file("/proc/self/fdinfo/" + std::to_string(fd));
    for (std::string line; std::getline(file, line);) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        const std::size_t value = line.find_first_not_of(" \t", colon + 1);
        fields[line.substr(0, colon)] = value == std::string::npos ? "" : line.substr(value);
    }
    return fields;
}

std::string vulkan_dma_buf_import_support()
{
#if G2G_HAVE_VULKAN
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    create.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    if (vkCreateInstance(&create, nullptr, &instance) != VK_SUCCESS)
        return "no Vulkan instance opens here";
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    vkEnumeratePhysicalDevices(instance, &count, devices.data());
    std::string text;
    for (VkPhysicalDevice device : devices) {
        VkPhysicalDeviceProperties properties{};
        vkGetPhysicalDeviceProperties(device, &properties);
        uint32_t n = 0;
        vkEnumerateDeviceExtensionProperties(device, nullptr, &n, nullptr);
        std::vector<VkExtensionProperties> extensions(n);
        vkEnumerateDeviceExtensionProperties(device, nullptr, &n, extensions.data());
        bool offered = false;
        for (const VkExtensionProperties &extension : extensions)
            offered = offered || std::strcmp(extension.extensionName, "VK_EXT_external_memory_dma_buf") == 0;
        text += (text.empty() ? "" : "; ") + std::string(properties.deviceName) +
                (offered ? ": offered" : ": not offered");
    }
    vkDestroyInstance(instance, nullptr);
    return text.empty() ? "no Vulkan device" : "VK_EXT_external_memory_dma_buf: " + text;
#else
    return "this build has no Vulkan";
#endif
}

} // namespace g2g::test
