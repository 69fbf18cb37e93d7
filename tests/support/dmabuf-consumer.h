// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: a consumer of CUDA frames exported as DMA-BUFs (g2gconvert's memory:DMABuf
// output), as a pipeline's element "tap" sees them: each frame checked as it comes and dropped, so
// the pool's memory goes back to its producer as it would without the test. The checks: one
// DMA-BUF memory, classified DmaBuf, not mappable (gst_memory_map fails), linear DRM format of the
// frame's format, its planes the CUDA memory's (same fd, the CUDA pitch, the CUDA offsets moved by
// where the fd's first page puts the memory), the fd's size its pages' (lseek SEEK_END) and enough
// for every plane; the bytes read back (dmabuf-readback.h) equal a peer's frame where an importer
// reads them.
#pragma once

#include <gst/video/video.h>

#include <g2g/gst-ref.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>

#include "dmabuf-readback.h"
#include "pipeline.h"

namespace g2g::test {

class DmaBufConsumer {
public:
    // `peer`, when given: the same frames as system memory (cudadownload's, say), laid out as
    // `peer_info`, that each frame's bytes must equal once read back.
    explicit DmaBufConsumer(const std::vector<BufferRef> *peer = nullptr, GstVideoInfo peer_info = {});

    // For run_pipeline's element "tap" (runs in the streaming thread; read the results after).
    BufferTap tap();

    guint64 frames = 0;
    guint64 compared = 0;      // frames whose bytes were read back and matched the peer's
    std::string problem;       // the first thing wrong, "frame N: ..."
    std::set<ino_t> dmabufs;   // the DMA-BUFs seen (their inodes)
    std::set<int> fds;         // their fds
    std::string first;         // the first frame as a consumer of its fd sees it
    std::string first_bytes;   // its first bytes of plane 0, where an importer read them
    std::size_t fds_at_50 = 0; // fds open in the process at frame 50, and at the last frame
    std::size_t fds_at_last = 0;
    std::unique_ptr<DmaBufReader> reader; // made at the first frame, on its CUDA context
    // false: the reader gets no CUDA context, so only mmap tries the fds. For tests that count
    // the process's fds: a failed CUDA import leaves driver fds open (see dmabuf-readback.h).
    bool import_through_cuda = true;

private:
    void take(GstBuffer *frame);
    std::string check(GstBuffer *frame, guint64 index);

    const std::vector<BufferRef> *peer_;
    GstVideoInfo peer_info_;
};

} // namespace g2g::test
