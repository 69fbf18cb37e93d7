// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: what a consumer of a DMA-BUF fd sees (its size, what the kernel says of it in
// /proc/self/fdinfo) and its bytes read back through whatever importer this machine has, in order:
//   mmap          mmap(PROT_READ, MAP_SHARED) of the fd, read between DMA_BUF_IOCTL_SYNC brackets
//   cuda-dmabuf   cuImportExternalMemory with CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD, mapped as a
//                 device buffer and copied down (CUDA 13's cuda.h documents it for Tegra only)
//   cuda-opaque   the same as CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD (Vulkan's own fds: a
//                 DMA-BUF is not one, tried so the answer is on record)
// Each importer's first outcome is kept word for word (the errno, the CUresult's name), so a test
// can print exactly why none could read the bytes, with the fds the attempt left open in the process
// (on the H200, a failed cuImportExternalMemory leaves driver fds behind: a lifetime test that
// counts fds must not import). An importer that failed is not tried again.
#pragma once

#include <gst/gst.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace g2g::test {

struct ImportOutcome {
    std::string importer; // "mmap", "cuda-dmabuf", "cuda-opaque"
    bool worked = false;
    std::string said; // "read 3317760 bytes", "mmap: errno 524 (Unknown error 524)", "CUDA_ERROR_..."
    int fds_left = 0; // fds open after the attempt that were not before it
};

class DmaBufReader {
public:
    // `cuda_context` (a GstCudaContext, or nullptr: no CUDA importer): where CUDA imports the fds.
    explicit DmaBufReader(gpointer cuda_context = nullptr);
    ~DmaBufReader();
    DmaBufReader(const DmaBufReader &) = delete;
    DmaBufReader &operator=(const DmaBufReader &) = delete;

    // The first `size` bytes of `fd` through the first importer that works; nullopt when none does.
    std::optional<std::vector<guint8>> read(int fd, gsize size);
    // The first outcome of each importer tried, in order.
    const std::vector<ImportOutcome> &outcomes() const { return outcomes_; }
    // The importer that read bytes last; "" when none has.
    const std::string &importer() const { return importer_; }
    // "mmap: ...; cuda-dmabuf: ...; cuda-opaque: ...".
    std::string report() const;

private:
    bool failed(const std::string &importer) const;
    void record(const std::string &importer, bool worked, const std::string &said, int fds_left);

    gpointer cuda_ = nullptr; // GstCudaContext, one reference
    std::vector<ImportOutcome> outcomes_;
    std::string importer_;
};

// /proc/self/fdinfo/<fd>'s lines, key to value ("size", "exp_name", "ino", "count", ...).
std::map<std::string, std::string> fd_info(int fd);

// Whether each Vulkan device here offers VK_EXT_external_memory_dma_buf, the extension a Vulkan
// consumer imports a DMA-BUF with: "VK_EXT_external_memory_dma_buf: NVIDIA H200: not offered;
// llvmpipe (...): not offered" ("this build has no Vulkan", "no Vulkan device" where none opens).
std::string vulkan_dma_buf_import_support();

} // namespace g2g::test
