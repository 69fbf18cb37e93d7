// SPDX-License-Identifier: LGPL-2.1-or-later
// Fuzz target: what a peer may send g2gipcsrc or g2gipcsink (issue 33): a NEW_BUFFER payload and
// the number of descriptors that came with it (the input's first byte, 0 to 20; the rest is the
// payload), through the one decoder of gst/ipc/ipc-wire.
//
// Oracle: the payload is an exact-size allocation (AddressSanitizer reports a read past it), and
//  - an accepted message has exactly one descriptor per memory (none for CUDA IPC handles; one per
//    attached file where g2g's files record numbers them, one number per memory), none of whose
//    ends wraps past 2^64;
//  - the decoder is strict, so what it accepts encodes back to the very bytes that came (a field
//    read from the wrong place, or bytes skipped, would show there);
//  - the same holds for each GstVideoMeta, G2gVulkanImages and G2gCudaIpc record it accepts.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz-main.h"
#include "ipc-cuda-record.h"
#include "ipc-view.h"
#include "ipc-vulkan-record.h"
#include "ipc-wire.h"

namespace {

[[noreturn]] void fail(const std::string &what)
{
    std::fprintf(stderr, "fuzz-ipc-wire: %s\n", what.c_str());
    std::abort();
}

} // namespace

// Nothing to start: the wire's decoder calls no GStreamer.
extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const g2g::fuzz::FatalWarnings fatal;
    if (size == 0)
        return 0;
    const std::size_t fds = data[0] % 21;
    // A copy of exactly the payload's size, so that a read past it is a read past an allocation.
    const std::size_t length = size - 1;
    std::unique_ptr<std::uint8_t[]> payload(new std::uint8_t[length ? length : 1]);
    std::memcpy(payload.get(), data + 1, length);
    const std::span<const std::uint8_t> bytes(payload.get(), length);

    g2g::Result<g2g::ipc::NewBuffer> frame = g2g::ipc::decode_new_buffer(bytes, fds);
    if (!frame) {
        if (frame.error().message().empty())
            fail("a refusal without a text");
        return 0;
    }
    // A descriptor per memory, or per file the files record says came with it; none for CUDA.
    const std::size_t attached =
        frame->files.empty()
            ? frame->memories.size()
            : static_cast<std::size_t>(std::count_if(frame->files.begin(), frame->files.end(),
                                                     [](const auto &file) { return file.attached; }));
    if (frame->kind == g2g::ipc::MemoryKind::CudaIpc ? fds != 0 : attached != fds)
        fail("accepted " + std::to_string(frame->memories.size()) + " memories with " + std::to_string(fds) +
             " descriptors");
    if (!frame->files.empty() && frame->files.size() != frame->memories.size())
        fail("accepted a files record of another count than the memories'");
    for (const g2g::ipc::WireMemory &memory : frame->memories)
        if (memory.offset > UINT64_MAX - memory.size)
            fail("accepted a memory whose end wraps past 2^64");
    if (g2g::ipc::encode(*frame) != std::vector<std::uint8_t>(bytes.begin(), bytes.end()))
        fail("an accepted NEW_BUFFER does not encode back to the bytes that came");
    for (const g2g::ipc::MetaRecord &record : frame->metas) {
        if (record.name == g2g::ipc::kVideoMetaName) {
            g2g::Result<g2g::ipc::WireVideoMeta> video = g2g::ipc::decode_video_meta(record);
            if (video && g2g::ipc::encode_video_meta(*video).payload != record.payload)
                fail("an accepted GstVideoMeta record does not encode back to its bytes");
        } else if (record.name == g2g::ipc::kVulkanRecordName) {
            g2g::Result<g2g::ipc::VulkanImages> images = g2g::ipc::decode_vulkan_images(record);
            if (images && g2g::ipc::encode_vulkan_images(*images).payload != record.payload)
                fail("an accepted G2gVulkanImages record does not encode back to its bytes");
        } else if (record.name == g2g::ipc::kVideoProfileRecordName) {
            g2g::Result<std::string> caps = g2g::ipc::decode_video_profile(record);
            if (caps && (caps->empty() || caps->size() > g2g::ipc::kMaxVideoProfileBytes ||
                         g2g::ipc::encode_video_profile(*caps).payload != record.payload))
                fail("an accepted G2gVulkanVideoProfile record is not its bytes as 1 to 1024 characters");
            if (caps && std::any_of(caps->begin(), caps->end(), [](char c) { return c < 0x20 || c > 0x7e; }))
                fail("an accepted G2gVulkanVideoProfile record holds a byte that is not printable");
        } else if (record.name == g2g::ipc::kViewRecordName) {
            // Read for a stream of NV12 64x48: a view it accepts is of that size, and its steps are
            // those of a crop and an orientation (one unit along one axis each, not the same axis).
            GstVideoInfo stream;
            gst_video_info_set_format(&stream, GST_VIDEO_FORMAT_NV12, 64, 48);
            g2g::Result<g2g::ipc::ViewRecord> view = g2g::ipc::read_view(record, stream);
            if (view && (view->pixels.width != 64 || view->pixels.height != 48))
                fail("accepted a view of another size than its stream's caps");
            if (view && (std::abs(view->pixels.col.x) + std::abs(view->pixels.col.y) != 1 ||
                         std::abs(view->pixels.row.x) + std::abs(view->pixels.row.y) != 1 ||
                         (view->pixels.col.x == 0) == (view->pixels.row.x == 0)))
                fail("accepted a view whose steps are no crop and orientation");
        } else if (record.name == g2g::ipc::kCudaRecordName) {
            g2g::Result<std::vector<g2g::cuda::IpcHandle>> handles = g2g::ipc::decode_cuda_handles(record);
            if (handles && g2g::ipc::encode_cuda_handles(*handles).payload != record.payload)
                fail("an accepted G2gCudaIpc record does not encode back to its bytes");
        }
    }
    return 0;
}
