// SPDX-License-Identifier: LGPL-2.1-or-later
// What a consumer of CUDA frames exported as DMA-BUFs sees on this machine, printed (a probe, not a
// test; test-cuda-dmabuf asserts it):
//   device       the driver's version and the device's CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
//   allocations  memories of frame sizes as GStreamer 1.22's CUDA allocator makes them
//                (cuMemAllocPitch, 16-byte elements) and as cuMemAlloc makes them: where the driver
//                puts them (their offset into a host page, the allocation cuMemGetAddressRange
//                names), whether their exact range and their pages export, and what the fd says of
//                itself (lseek's size, /proc fdinfo, mmap)
//   pipeline     the frames of nvh264dec (or of cudaupload) through g2gconvert as a consumer of the
//                fds sees them: size, planes, first bytes, which importer read them and what every
//                importer answered, the exports per frame
//   vulkan       whether a Vulkan device here offers VK_EXT_external_memory_dma_buf
//
//   cuda-dmabuf-probe [stream.h264]     (GST_PLUGIN_PATH: this build's plugin unless set)
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/gst.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <g2g/cuda-view.h>

#include "dmabuf-consumer.h"
#include "dmabuf-readback.h"
#include "pipeline.h"
#include "platform/cuda-dmabuf/cuda-dmabuf.h"
#include "platform/cuda/cuda-driver.h"
#include "platform/dmabuf/dmabuf-memory.h"

namespace {

using g2g::cuda_dmabuf::export_range;
using g2g::cuda_dmabuf::ExportRange;

CUresult (*handle_for_range)(void *, CUdeviceptr, size_t, int, unsigned long long) = nullptr;
CUresult (*address_range)(CUdeviceptr *, size_t *, CUdeviceptr) = nullptr;

std::string result_name(CUresult result)
{
    const char *name = nullptr;
    CuGetErrorName(result, &name);
    return name ? name : std::to_string(static_cast<int>(result));
}

// One export attempt of [begin, begin + size): its result, and what the fd says.
std::string try_export(CUdeviceptr begin, std::uint64_t size)
{
    int fd = -1;
    const CUresult r = handle_for_range(&fd, begin, size, 1 /* CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD */, 0);
    if (r != CUDA_SUCCESS)
        return result_name(r);
    std::string said = "fd of " + std::to_string(g2g::dmabuf::detail::fd_size(fd)) + " bytes";
    const auto info = g2g::test::fd_info(fd);
    if (auto name = info.find("exp_name"); name != info.end())
        said += ", exporter " + name->second;
    void *mapped = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED) {
        const int error = errno;
        said += ", mmap errno " + std::to_string(error) + " (" + std::strerror(error) + ")";
    } else {
        said += ", mmap works";
        munmap(mapped, size);
    }
    close(fd);
    return said;
}

void probe_allocation(const char *what, CUdeviceptr data, std::uint64_t size)
{
    static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    CUdeviceptr base = 0;
    size_t bytes = 0;
    std::string allocation = "cuMemGetAddressRange: ";
    if (CUresult r = address_range ? address_range(&base, &bytes, data) : CUDA_ERROR_NOT_SUPPORTED;
        r == CUDA_SUCCESS)
        allocation += std::to_string(bytes) + " bytes from " + std::to_string(data - base) + " before it";
    else
        allocation += result_name(r);
    const ExportRange range = export_range(data, size, page);
    std::printf("  %-34s %9llu bytes at page offset %5llu (%s)\n", what,
                static_cast<unsigned long long>(size), static_cast<unsigned long long>(data % page),
                allocation.c_str());
    std::printf("    exact range:  %s\n", try_export(data, size).c_str());
    std::printf("    its pages:    %s (%llu bytes from %llu before it)\n",
                try_export(range.begin, range.size).c_str(), static_cast<unsigned long long>(range.size),
                static_cast<unsigned long long>(range.offset));
}

void probe_driver()
{
    if (!g2g::cuda::available()) {
        std::printf("device: the CUDA driver does not load here\n");
        return;
    }
    g2g::cuda::load_driver_symbol("cuMemGetHandleForAddressRange", handle_for_range);
    g2g::cuda::load_driver_symbol("cuMemGetAddressRange_v2", address_range);
    int version = 0;
    CuDriverGetVersion(&version);
    GstCudaContext *context = gst_cuda_context_new(0);
    if (!context) {
        std::printf("device: no CUDA context on device 0\n");
        return;
    }
    CUdevice device = 0;
    CuDeviceGet(&device, 0);
    int supported = -1, host_supported = -1;
    const CUresult a = CuDeviceGetAttribute(&supported, static_cast<CUdevice_attribute>(124), device);
    const CUresult h = CuDeviceGetAttribute(&host_supported, static_cast<CUdevice_attribute>(146), device);
    std::printf("device: %s, driver API %d, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED %s, "
                "CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED %s, cuMemGetHandleForAddressRange %s\n",
                g2g::cuda::describe(context).c_str(), version,
                a == CUDA_SUCCESS ? std::to_string(supported).c_str() : result_name(a).c_str(),
                h == CUDA_SUCCESS ? std::to_string(host_supported).c_str() : result_name(h).c_str(),
                handle_for_range ? "present" : "missing");
    const g2g::Result<void> exports = g2g::cuda_dmabuf::check_device(0);
    std::printf("g2g: %s\n", exports ? "device 0 exports DMA-BUFs" : exports.error().message().c_str());
    if (!handle_for_range || !gst_cuda_context_push(context)) {
        gst_object_unref(context);
        return;
    }
    std::printf("allocations:\n");
    struct Frame {
        const char *name;
        size_t row_bytes, rows;
    };
    // NV12 frames as gst_cuda_allocator_alloc asks for them (width bytes, 1.5 x height rows).
    const Frame frames[] = {{"NV12 1920x1080 (cuMemAllocPitch)", 1920, 1620},
                            {"NV12 3840x2160", 3840, 3240},
                            {"NV12 1280x720", 1280, 1080},
                            {"NV12 318x242", 318, 363},
                            {"NV12 64x48", 64, 72},
                            {"NV12 1x1", 1, 2},
                            {"RGBA 1920x1080", 7680, 1080}};
    CUdeviceptr kept[2] = {}; // the first allocations stay while the next are probed, as a pool's would
    int n = 0;
    for (const Frame &frame : frames) {
        CUdeviceptr data = 0;
        size_t pitch = 0;
        if (CUresult r = CuMemAllocPitch(&data, &pitch, frame.row_bytes, frame.rows, 16); r != CUDA_SUCCESS) {
            std::printf("  %s: cuMemAllocPitch %s\n", frame.name, result_name(r).c_str());
            continue;
        }
        probe_allocation((std::string(frame.name) + ", pitch " + std::to_string(pitch)).c_str(), data,
                         pitch * frame.rows);
        if (n < 2)
            kept[n++] = data;
        else
            CuMemFree(data);
    }
    for (size_t size : {size_t{1000}, size_t{36864}, size_t{1} << 20}) {
        CUdeviceptr data = 0;
        if (CuMemAlloc(&data, size) != CUDA_SUCCESS)
            continue;
        probe_allocation(("cuMemAlloc(" + std::to_string(size) + ")").c_str(), data, size);
        CuMemFree(data);
    }
    for (CUdeviceptr data : kept) {
        if (data)
            CuMemFree(data);
    }
    CUcontext popped = nullptr;
    gst_cuda_context_pop(&popped);
    gst_object_unref(context);
}

void probe_pipeline(const char *stream)
{
    const std::string source =
        stream && g2g::test::have_element("nvh264dec")
            ? std::string("filesrc location=") + stream + " ! h264parse ! nvh264dec"
            : "videotestsrc num-buffers=30 pattern=ball ! video/x-raw,format=NV12,width=1920,height=1080 ! "
              "cudaupload";
    std::printf("pipeline: %s ! g2gconvert ! video/x-raw(memory:DMABuf) ! fakesink\n", source.c_str());
    g2g::test::DmaBufConsumer consumer;
    guint64 exports = 0;
    const g2g::test::PipelineRun run =
        g2g::test::run_pipeline(source + " ! video/x-raw(memory:CUDAMemory) ! g2gconvert name=convert ! "
                                         "video/x-raw(memory:DMABuf) ! identity "
                                         "name=tap ! fakesink sync=false",
                                consumer.tap(), 120 * GST_SECOND, [&](GstBin *bin) {
                                    if (GstElement *convert = gst_bin_get_by_name(bin, "convert")) {
                                        g_object_get(convert, "dmabuf-exports", &exports, nullptr);
                                        gst_object_unref(convert);
                                    }
                                });
    if (!run.error.empty())
        std::printf("  error: %s: %s\n", run.error_source.c_str(), run.error.c_str());
    std::printf("  frame 0: %s\n", consumer.first.empty() ? "(none)" : consumer.first.c_str());
    std::printf("  first bytes of plane 0: %s\n", consumer.first_bytes.empty()
                                                      ? "not read: no importer here reads them"
                                                      : consumer.first_bytes.c_str());
    std::printf("  importers: %s\n", consumer.reader ? consumer.reader->report().c_str() : "none tried");
    std::printf("  %llu frames, %llu DMA-BUFs exported, %zu distinct DMA-BUFs, checks: %s\n",
                static_cast<unsigned long long>(consumer.frames), static_cast<unsigned long long>(exports),
                consumer.dmabufs.size(), consumer.problem.empty() ? "all passed" : consumer.problem.c_str());
}

} // namespace

int main(int argc, char **argv)
{
    if (!g_getenv("GST_PLUGIN_PATH"))
        g_setenv("GST_PLUGIN_PATH", G2G_PLUGIN_DIR, TRUE);
    gst_init(&argc, &argv);
    probe_driver();
    probe_pipeline(argc > 1 ? argv[1] : nullptr);
    std::printf("vulkan: %s\n", g2g::test::vulkan_dma_buf_import_support().c_str());
    return 0;
}
