// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA-BUF frames through the library's API on this machine's backend (sealed memfds where there is
// no dma-heap or udmabuf): the allocator's memory, the pool's layouts and DRM formats, frames over
// an application's fds (one fd for every plane, one per plane) and what wrap() refuses, tiled
// frames no CPU reads, system frames and views exported, make_shareable keeping what a memory says
// of its bytes, and the C API.
#include <g2g/classify.h>
#include <g2g/dmabuf.h>
#include <g2g/g2g.h>
#include <g2g/memory-domain.h>
#include <g2g/tensor-view-meta.h>

#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "buffers.h"
#include "dmabuf-pool-frames.h"
#include "frames.h"
#include "log-capture.h"
#include "memfd-dmabuf.h"
#include "open-fds.h"
#include "reference-frames.h"

namespace dmabuf = g2g::dmabuf;
using g2g::BufferRef;
using g2g::CapsRef;
using g2g::MemoryRef;
using g2g::Ref;
using K = g2g::MemoryDomainKind;
using g2g::test::compare_frames;
using g2g::test::dmabuf_pool;
using g2g::test::dmabuf_pool_frame;
using g2g::test::fd_is_open;
using g2g::test::open_fd_count;
using g2g::test::random_frame;
using g2g::test::video_info;

namespace {

// A DRM fourcc from its four characters, as drm_fourcc.h's fourcc_code() makes it.
constexpr std::uint32_t fourcc(std::string_view code)
{
    return static_cast<std::uint32_t>(code[0]) | static_cast<std::uint32_t>(code[1]) << 8 |
           static_cast<std::uint32_t>(code[2]) << 16 | static_cast<std::uint32_t>(code[3]) << 24;
}

// drm_fourcc.h's I915_FORMAT_MOD_X_TILED: a layout of Intel's vendor no CPU reads as rows.
constexpr std::uint64_t kIntelXTiled = 0x0100000000000001ULL;

// An fd the test owns, closed when it goes.
class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd()
    {
        if (fd_ >= 0)
            close(fd_);
    }
    Fd(Fd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

// A memfd of `size` pseudo-random bytes (from `seed`), and the bytes.
struct FilledMemfd {
    Fd fd;
    std::vector<guint8> bytes;
};

FilledMemfd filled_memfd(gsize size, guint32 seed)
{
    FilledMemfd filled{Fd(g2g::test::make_memfd(size)), std::vector<guint8>(size)};
    std::mt19937 random(seed);
    for (guint8 &byte : filled.bytes)
        byte = static_cast<guint8>(random());
    EXPECT_EQ(pwrite(filled.fd.get(), filled.bytes.data(), size, 0), static_cast<ssize_t>(size));
    return filled;
}

// "" when every visible byte of `frame` (read through its GstVideoMeta, as `info`'s format) is the
// byte `layout` puts there in its fds, whose bytes `contents` holds plane by plane; else the first
// that differs.
std::string compare_with_fds(GstBuffer *frame, const GstVideoInfo &info, const dmabuf::FrameLayout &layout,
                             const std::vector<const std::vector<guint8> *> &contents)
{
    GstVideoFrame mapped;
    if (!gst_video_frame_map(&mapped, const_cast<GstVideoInfo *>(&info), frame, GST_MAP_READ))
        return "the frame does not map for reading";
    std::string where;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&mapped) && where.empty(); ++p) {
        gint components[GST_VIDEO_MAX_COMPONENTS];
        gst_video_format_info_component(info.finfo, p, components);
        const guint rows = GST_VIDEO_FRAME_COMP_HEIGHT(&mapped, components[0]);
        const guint row_bytes = GST_VIDEO_FRAME_COMP_WIDTH(&mapped, components[0]) *
                                GST_VIDEO_FRAME_COMP_PSTRIDE(&mapped, components[0]);
        const dmabuf::Plane &plane = layout.planes[p];
        for (guint y = 0; y < rows; ++y) {
            const auto *got = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&mapped, p)) +
                              static_cast<gsize>(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&mapped, p);
            const guint8 *want = contents[p]->data() + plane.offset + static_cast<gsize>(y) * plane.stride;
            if (std::memcmp(got, want, row_bytes) != 0) {
                where = "plane " + std::to_string(p) + " row " + std::to_string(y) + " differs";
                break;
            }
        }
    }
    gst_video_frame_unmap(&mapped);
    return where;
}

// The device (st_dev) and inode of the object behind `fd`: equal for two fds of one DMA-BUF.
std::pair<dev_t, ino_t> object_of(int fd)
{
    struct stat st {};
    EXPECT_EQ(fstat(fd, &st), 0) << std::strerror(errno);
    return {st.st_dev, st.st_ino};
}

// The fds of each memory of `frame`, in order.
std::vector<int> fds_of(GstBuffer *frame)
{
    std::vector<int> fds;
    for (guint i = 0; i < gst_buffer_n_memory(frame); ++i)
        fds.push_back(gst_dmabuf_memory_get_fd(gst_buffer_peek_memory(frame, i)));
    return fds;
}

// wrap()'s refusal of `layout` (its error text; "" when it wrapped), checking that the refusal
// left no fd open.
std::string wrap_refusal(const dmabuf::FrameLayout &layout)
{
    const int before = open_fd_count();
    g2g::Result<BufferRef> frame = dmabuf::wrap(layout);
    if (frame)
        return "";
    EXPECT_EQ(frame.error().code(), g2g::ErrorCode::InvalidArgument) << frame.error().message();
    EXPECT_EQ(open_fd_count(), before) << "a refused wrap left an fd open: " << frame.error().message();
    return frame.error().message();
}

} // namespace

// dma-heap, then udmabuf, then memfd: what this machine has decides (memfd here: no /dev/dri, no
// dma-heap, no udmabuf), and a memfd's size is sealed, so that what is mapped stays backed.
TEST(DmaBufAllocator, TakesTheBestSourceThisMachineHasAndSealsItsMemfds)
{
    const bool heap = access("/dev/dma_heap/system", R_OK | W_OK) == 0;
    const bool udmabuf = !heap && access("/dev/udmabuf", R_OK | W_OK) == 0;
    const dmabuf::Backend want = heap      ? dmabuf::Backend::DmaHeap
                                 : udmabuf ? dmabuf::Backend::Udmabuf
                                           : dmabuf::Backend::Memfd;
    EXPECT_EQ(dmabuf::backend(), want) << dmabuf::backend_name(dmabuf::backend());
    if (dmabuf::backend() != dmabuf::Backend::Memfd)
        GTEST_SKIP() << "this machine's DMA-BUFs are " << dmabuf::backend_name(dmabuf::backend())
                     << ", not sealed memfds";
    EXPECT_EQ(dmabuf::backend_name(dmabuf::backend()), "memfd");
    const MemoryRef memory = MemoryRef::adopt(gst_allocator_alloc(dmabuf::allocator(), 1000, nullptr));
    ASSERT_TRUE(memory);
    const int fd = gst_dmabuf_memory_get_fd(memory.get());
    const int seals = fcntl(fd, F_GET_SEALS);
    ASSERT_NE(seals, -1) << "not a memfd: " << std::strerror(errno);
    EXPECT_EQ(seals & (F_SEAL_SHRINK | F_SEAL_GROW), F_SEAL_SHRINK | F_SEAL_GROW);
    EXPECT_NE(ftruncate(fd, 10), 0) << "the memfd shrank under its mapping";
    struct stat st {};
    ASSERT_EQ(fstat(fd, &st), 0);
    EXPECT_EQ(st.st_size, 1000);
}

TEST(DmaBufAllocator, ItsMemoryIsDmaBufMemoryThatClassifiesDmaBufAndMapsTheFdsBytes)
{
    MemoryRef memory = MemoryRef::adopt(gst_allocator_alloc(dmabuf::allocator(), 4096, nullptr));
    ASSERT_TRUE(memory);
    EXPECT_TRUE(gst_is_dmabuf_memory(memory.get()));
    EXPECT_STREQ(memory->allocator->mem_type, GST_ALLOCATOR_DMABUF);
    EXPECT_TRUE(GST_IS_DMABUF_ALLOCATOR(dmabuf::allocator()));
    const g2g::Result<K> memory_kind = g2g::classify_memory(memory.get());
    ASSERT_TRUE(memory_kind.ok()) << memory_kind.error().message();
    EXPECT_EQ(*memory_kind, K::DmaBuf);

    GstMapInfo map;
    ASSERT_TRUE(gst_memory_map(memory.get(), &map, GST_MAP_WRITE));
    for (gsize i = 0; i < map.size; ++i)
        map.data[i] = static_cast<guint8>(i * 7);
    gst_memory_unmap(memory.get(), &map);
    // The mapping is the fd's bytes.
    std::vector<guint8> read_back(4096);
    ASSERT_EQ(pread(gst_dmabuf_memory_get_fd(memory.get()), read_back.data(), read_back.size(), 0), 4096);
    for (gsize i = 0; i < read_back.size(); ++i)
        ASSERT_EQ(read_back[i], static_cast<guint8>(i * 7)) << "byte " << i;

    BufferRef buffer = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(), memory.release());
    g2g::Result<g2g::MemoryDomain> domain = g2g::MemoryDomain::from_buffer(buffer.get());
    ASSERT_TRUE(domain.ok()) << domain.error().message();
    EXPECT_EQ(domain->kind(), K::DmaBuf);
    g2g::Result<g2g::SystemBytes> bytes = domain->require_system_bytes("reader");
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    EXPECT_TRUE(bytes->borrowed()) << "a mappable DMA-BUF is read in place";
    ASSERT_EQ(bytes->size(), 4096u);
    EXPECT_EQ(std::memcmp(bytes->data(), read_back.data(), 4096), 0);
}

namespace {

struct PoolCase {
    const char *format;
    int width, height;
    const char *drm; // the DRM fourcc GStreamer 1.24 pairs with the format
};

// GStreamer names formats by bytes in memory, DRM by a little-endian word: RGBA is ABGR8888 ('AB24').
const PoolCase kPoolCases[] = {
    {"NV12", 33, 17, "NV12"}, {"NV12", 64, 48, "NV12"}, {"I420", 37, 23, "YU12"},
    {"RGBA", 33, 17, "AB24"}, {"YUY2", 35, 19, "YUYV"}, {"BGRx", 21, 9, "XR24"},
};

class DmaBufPool : public testing::TestWithParam<PoolCase> {};

} // namespace

TEST_P(DmaBufPool, FramesAreOneDmaBufLaidOutAsGstVideoInfoWithTheirDrmFormat)
{
    const PoolCase c = GetParam();
    const GstVideoInfo info = video_info(gst_video_format_from_string(c.format), c.width, c.height);
    EXPECT_EQ(dmabuf::drm_fourcc_of(GST_VIDEO_INFO_FORMAT(&info)), fourcc(c.drm));
    EXPECT_EQ(dmabuf::video_format_of(dmabuf::drm_fourcc_of(GST_VIDEO_INFO_FORMAT(&info))),
              GST_VIDEO_INFO_FORMAT(&info));
    Ref<GstBufferPool> pool = dmabuf_pool(info);
    ASSERT_TRUE(pool);
    BufferRef frame;
    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), frame.out(), nullptr), GST_FLOW_OK);

    ASSERT_EQ(gst_buffer_n_memory(frame.get()), 1u) << "one DMA-BUF holds every plane";
    GstMemory *memory = gst_buffer_peek_memory(frame.get(), 0);
    EXPECT_TRUE(gst_is_dmabuf_memory(memory));
    EXPECT_EQ(memory->allocator, dmabuf::allocator());
    EXPECT_GE(gst_buffer_get_size(frame.get()), GST_VIDEO_INFO_SIZE(&info));
    const g2g::Result<K> kind = g2g::classify_buffer(frame.get());
    ASSERT_TRUE(kind.ok()) << kind.error().message();
    EXPECT_EQ(*kind, K::DmaBuf);
    EXPECT_TRUE(dmabuf::is_mappable(frame.get()));

    const GstVideoMeta *meta = gst_buffer_get_video_meta(frame.get());
    ASSERT_NE(meta, nullptr) << "importers need the planes";
    EXPECT_EQ(meta->format, GST_VIDEO_INFO_FORMAT(&info));
    EXPECT_EQ(meta->width, static_cast<guint>(c.width));
    EXPECT_EQ(meta->height, static_cast<guint>(c.height));
    ASSERT_EQ(meta->n_planes, GST_VIDEO_INFO_N_PLANES(&info));
    for (guint p = 0; p < meta->n_planes; ++p) {
        EXPECT_EQ(meta->offset[p], GST_VIDEO_INFO_PLANE_OFFSET(&info, p)) << "plane " << p;
        EXPECT_EQ(meta->stride[p], GST_VIDEO_INFO_PLANE_STRIDE(&info, p)) << "plane " << p;
    }

    const g2g::Result<dmabuf::FrameLayout> layout = dmabuf::layout_of(frame.get());
    ASSERT_TRUE(layout.ok()) << layout.error().message();
    EXPECT_EQ(layout->format.fourcc, fourcc(c.drm));
    EXPECT_EQ(layout->format.modifier, dmabuf::kModifierLinear);
    EXPECT_EQ(layout->format.to_string(), c.drm);
    EXPECT_EQ(layout->width, static_cast<guint>(c.width));
    EXPECT_EQ(layout->height, static_cast<guint>(c.height));
    ASSERT_EQ(layout->planes.size(), GST_VIDEO_INFO_N_PLANES(&info));
    for (guint p = 0; p < layout->planes.size(); ++p) {
        EXPECT_EQ(layout->planes[p].fd, gst_dmabuf_memory_get_fd(memory)) << "plane " << p;
        EXPECT_EQ(layout->planes[p].offset, GST_VIDEO_INFO_PLANE_OFFSET(&info, p)) << "plane " << p;
        EXPECT_EQ(layout->planes[p].stride, GST_VIDEO_INFO_PLANE_STRIDE(&info, p)) << "plane " << p;
    }
    frame.reset();
    EXPECT_TRUE(gst_buffer_pool_set_active(pool.get(), FALSE));
}

INSTANTIATE_TEST_SUITE_P(OddAndEvenSizes, DmaBufPool, testing::ValuesIn(kPoolCases),
                         [](const testing::TestParamInfo<PoolCase> &info) {
                             return std::string(info.param.format) + "_" + std::to_string(info.param.width) +
                                    "x" + std::to_string(info.param.height);
                         });

TEST(DmaBufPoolLimits, EachFrameIsItsOwnFdAndMaxBuffersBoundsThem)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 33, 17);
    const int before = open_fd_count();
    {
        Ref<GstBufferPool> pool = dmabuf_pool(info, 2, 2);
        ASSERT_TRUE(pool);
        BufferRef a, b, none;
        ASSERT_EQ(g2g::test::try_acquire(pool.get(), a), GST_FLOW_OK);
        ASSERT_EQ(g2g::test::try_acquire(pool.get(), b), GST_FLOW_OK);
        EXPECT_EQ(g2g::test::try_acquire(pool.get(), none), GST_FLOW_EOS);
        EXPECT_NE(fds_of(a.get()), fds_of(b.get()));
        EXPECT_NE(object_of(fds_of(a.get())[0]), object_of(fds_of(b.get())[0]));
    }
    EXPECT_EQ(open_fd_count(), before) << "a pool dropped closes its frames' fds";
}

TEST(DmaBufPoolLimits, AFormatWithoutADrmFourccGetsNoPool)
{
    for (GstVideoFormat format :
         {GST_VIDEO_FORMAT_v210, GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_GRAY16_BE}) {
        EXPECT_EQ(dmabuf::drm_fourcc_of(format), 0u) << gst_video_format_to_string(format);
        const GstVideoInfo info = video_info(format, 32, 16);
        const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
        Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(dmabuf::pool_new(caps.get()));
        EXPECT_FALSE(pool) << gst_video_format_to_string(format);
    }
    const CapsRef audio =
        CapsRef::adopt(gst_caps_from_string("audio/x-raw,format=S16LE,rate=48000,channels=2"));
    EXPECT_FALSE(Ref<GstBufferPool>::adopt(dmabuf::pool_new(audio.get())));
}

// An application's NV12 in one fd, planes at offsets and strides of its own.
TEST(DmaBufWrap, OneFdForEveryPlaneReadsAndWritesTheFdsBytes)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 33, 17);
    FilledMemfd memfd = filled_memfd(2000, 1);
    const dmabuf::FrameLayout layout{{fourcc("NV12"), dmabuf::kModifierLinear},
                                     33,
                                     17,
                                     {{memfd.fd.get(), 128, 64}, {memfd.fd.get(), 1280, 64}}};
    g2g::Result<BufferRef> frame = dmabuf::wrap(layout);
    ASSERT_TRUE(frame.ok()) << frame.error().message();
    ASSERT_EQ(gst_buffer_n_memory(frame->get()), 1u) << "planes sharing an fd share a memory";
    GstMemory *memory = gst_buffer_peek_memory(frame->get(), 0);
    EXPECT_TRUE(gst_is_dmabuf_memory(memory));
    EXPECT_NE(gst_dmabuf_memory_get_fd(memory), memfd.fd.get()) << "the frame holds a dup of the fd";
    EXPECT_EQ(object_of(gst_dmabuf_memory_get_fd(memory)), object_of(memfd.fd.get()));
    EXPECT_TRUE(dmabuf::is_mappable(frame->get()));
    const GstVideoMeta *meta = gst_buffer_get_video_meta(frame->get());
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->offset[0], 128u);
    EXPECT_EQ(meta->offset[1], 1280u);
    EXPECT_EQ(meta->stride[0], 64);
    EXPECT_EQ(meta->stride[1], 64);
    EXPECT_EQ(compare_with_fds(frame->get(), info, layout, {&memfd.bytes, &memfd.bytes}), "");

    const g2g::Result<dmabuf::FrameLayout> read = dmabuf::layout_of(frame->get());
    ASSERT_TRUE(read.ok()) << read.error().message();
    EXPECT_EQ(read->format, layout.format);
    ASSERT_EQ(read->planes.size(), 2u);
    for (guint p = 0; p < 2; ++p) {
        EXPECT_EQ(read->planes[p].fd, gst_dmabuf_memory_get_fd(memory));
        EXPECT_EQ(read->planes[p].offset, layout.planes[p].offset);
        EXPECT_EQ(read->planes[p].stride, layout.planes[p].stride);
    }

    // Zero copy: a write through the frame is a write to the application's fd.
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(frame->get(), &map, GST_MAP_WRITE));
    map.data[128] = static_cast<guint8>(~memfd.bytes[128]);
    gst_buffer_unmap(frame->get(), &map);
    guint8 byte = 0;
    ASSERT_EQ(pread(memfd.fd.get(), &byte, 1, 128), 1);
    EXPECT_EQ(byte, static_cast<guint8>(~memfd.bytes[128]));
}

// An application's I420 in three fds (one per plane), each plane at an offset of its own.
TEST(DmaBufWrap, OneFdPerPlaneIsOneMemoryPerPlane)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 37, 23);
    const gsize offsets[] = {0, 16, 8};
    const gint strides[] = {40, 24, 20};
    const guint rows[] = {23, 12, 12};
    std::vector<FilledMemfd> memfds;
    dmabuf::FrameLayout layout{{fourcc("YU12"), dmabuf::kModifierLinear}, 37, 23, {}};
    for (guint p = 0; p < 3; ++p) {
        memfds.push_back(filled_memfd(offsets[p] + static_cast<gsize>(strides[p]) * rows[p] + 5, 10 + p));
        layout.planes.push_back({memfds.back().fd.get(), offsets[p], strides[p]});
    }
    g2g::Result<BufferRef> frame = dmabuf::wrap(layout);
    ASSERT_TRUE(frame.ok()) << frame.error().message();
    ASSERT_EQ(gst_buffer_n_memory(frame->get()), 3u);
    EXPECT_EQ(
        compare_with_fds(frame->get(), info, layout, {&memfds[0].bytes, &memfds[1].bytes, &memfds[2].bytes}),
        "");
    const g2g::Result<dmabuf::FrameLayout> read = dmabuf::layout_of(frame->get());
    ASSERT_TRUE(read.ok()) << read.error().message();
    EXPECT_EQ(read->format.to_string(), "YU12");
    ASSERT_EQ(read->planes.size(), 3u);
    const std::vector<int> own = fds_of(frame->get());
    for (guint p = 0; p < 3; ++p) {
        EXPECT_EQ(read->planes[p].fd, own[p]) << "plane " << p;
        EXPECT_EQ(object_of(own[p]), object_of(memfds[p].fd.get())) << "plane " << p;
        EXPECT_EQ(read->planes[p].offset, offsets[p]) << "plane " << p;
        EXPECT_EQ(read->planes[p].stride, strides[p]) << "plane " << p;
    }
}

TEST(DmaBufWrap, TheCallersFdsStayOpenAndTheFramesDupsCloseAfterItsLastShare)
{
    std::vector<FilledMemfd> memfds;
    dmabuf::FrameLayout layout{{fourcc("YU12"), dmabuf::kModifierLinear}, 16, 8, {}};
    for (guint p = 0; p < 3; ++p) {
        memfds.push_back(filled_memfd(256, 20 + p));
        layout.planes.push_back({memfds.back().fd.get(), 0, p == 0 ? 16 : 8});
    }
    const int before = open_fd_count();
    std::vector<int> own;
    {
        g2g::Result<BufferRef> frame = dmabuf::wrap(layout);
        ASSERT_TRUE(frame.ok()) << frame.error().message();
        EXPECT_EQ(open_fd_count(), before + 3) << "one dup per fd";
        own = fds_of(frame->get());
        for (guint p = 0; p < 3; ++p)
            EXPECT_NE(own[p], memfds[p].fd.get());
        // A share of the memories (what a branch's copy of the buffer holds) keeps the dups.
        BufferRef share = BufferRef::adopt(gst_buffer_copy(frame->get()));
        frame->reset();
        EXPECT_EQ(open_fd_count(), before + 3);
        for (int fd : own)
            EXPECT_TRUE(fd_is_open(fd));
    }
    EXPECT_EQ(open_fd_count(), before) << "the frame's dups close with its last share";
    for (int fd : own)
        EXPECT_FALSE(fd_is_open(fd));
    for (FilledMemfd &memfd : memfds) {
        ASSERT_TRUE(fd_is_open(memfd.fd.get()));
        const guint8 byte = 0xa5;
        EXPECT_EQ(pwrite(memfd.fd.get(), &byte, 1, 3), 1) << "the caller's fd is still usable";
        guint8 read = 0;
        EXPECT_EQ(pread(memfd.fd.get(), &read, 1, 3), 1);
        EXPECT_EQ(read, byte);
    }
}

TEST(DmaBufWrap, RefusesWhatItCannotWrapSayingWhy)
{
    FilledMemfd memfd = filled_memfd(300, 2);
    const int fd = memfd.fd.get();
    const std::string fd_text = std::to_string(fd);
    const dmabuf::DrmFormat nv12{fourcc("NV12"), dmabuf::kModifierLinear};
    const std::vector<dmabuf::Plane> nv12_16x8 = {{fd, 0, 16}, {fd, 128, 16}};

    EXPECT_EQ(wrap_refusal({nv12, 16, 8, nv12_16x8}), "") << "the layout the refusals vary";

    const int closed = g2g::test::make_memfd(4096);
    close(closed);
    EXPECT_EQ(wrap_refusal({nv12, 16, 8, {{closed, 0, 16}, {closed, 128, 16}}}),
              "plane 0's fd " + std::to_string(closed) + " is not an open DMA-BUF with a size");
    EXPECT_EQ(wrap_refusal({nv12, 16, 8, {{-1, 0, 16}, {-1, 128, 16}}}),
              "plane 0's fd -1 is not an open DMA-BUF with a size");
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const Fd pipe_read(pipe_fds[0]), pipe_write(pipe_fds[1]);
    EXPECT_EQ(wrap_refusal({nv12, 16, 8, {{pipe_read.get(), 0, 16}, {pipe_read.get(), 128, 16}}}),
              "plane 0's fd " + std::to_string(pipe_read.get()) + " is not an open DMA-BUF with a size");

    // Plane 0 fits and is dup'ed before plane 1 is refused: wrap_refusal sees that dup closed.
    EXPECT_EQ(wrap_refusal({nv12, 16, 16, {{fd, 0, 16}, {fd, 256, 16}}}),
              "plane 1 ends at byte 384 but plane 1's fd " + fd_text + " holds 300 bytes");
    EXPECT_EQ(wrap_refusal({nv12, 16, 8, {{fd, 200, 16}, {fd, 128, 16}}}),
              "plane 0 ends at byte 328 but plane 0's fd " + fd_text + " holds 300 bytes");

    EXPECT_EQ(wrap_refusal({{fourcc("C8  "), dmabuf::kModifierLinear}, 16, 8, {{fd, 0, 16}}}),
              "the DRM fourcc 'C8  ' has no GStreamer video format");
    EXPECT_EQ(
        wrap_refusal({{fourcc("NV12"), 0x7f00000000000001ULL}, 16, 8, nv12_16x8}),
        "the DRM format modifier 0x7f00000000000001 is of vendor 0x000000000000007f, which drm_fourcc.h "
        "does not know");
    EXPECT_EQ(
        wrap_refusal({{fourcc("NV12"), dmabuf::kModifierInvalid}, 16, 8, nv12_16x8}),
        "the modifier is DRM_FORMAT_MOD_INVALID, which names no layout: ask the producer for the frame's "
        "real modifier");
    EXPECT_EQ(wrap_refusal({nv12, 16, 8, {{fd, 0, 16}}}), "NV12 has 2 planes, the layout gives 1");
    EXPECT_EQ(wrap_refusal({{fourcc("YU12"), dmabuf::kModifierLinear}, 16, 8, nv12_16x8}),
              "I420 has 3 planes, the layout gives 2");
    EXPECT_EQ(wrap_refusal({{fourcc("AB24"), dmabuf::kModifierLinear}, 33, 2, {{fd, 0, 100}}}),
              "plane 0's stride 100 is below its row of 132 bytes");
    EXPECT_EQ(wrap_refusal({nv12, 16, 8, {{fd, 0, 16}, {fd, 128, 15}}}),
              "plane 1's stride 15 is below its row of 16 bytes");
    EXPECT_EQ(wrap_refusal({{fourcc("AB24"), dmabuf::kModifierLinear}, 8, 2, {{fd, 64, -32}}}),
              "plane 0's stride is -32: a DMA-BUF plane's rows go down");
    EXPECT_EQ(wrap_refusal({nv12, 0, 0, nv12_16x8}), "a DMA-BUF frame of 0x0 pixels has no pixels");
    EXPECT_EQ(wrap_refusal({nv12, 16, 0, nv12_16x8}), "a DMA-BUF frame of 16x0 pixels has no pixels");
}

// A tiled layout (Intel's X tiles) is carried, never read as rows.
TEST(DmaBufWrap, ANonLinearModifierWrapsButNoCpuReadsIt)
{
    FilledMemfd memfd = filled_memfd(8192, 3);
    const dmabuf::FrameLayout layout{
        {fourcc("NV12"), kIntelXTiled}, 64, 32, {{memfd.fd.get(), 0, 512}, {memfd.fd.get(), 4096, 512}}};
    g2g::Result<BufferRef> frame = dmabuf::wrap(layout);
    ASSERT_TRUE(frame.ok()) << frame.error().message();
    EXPECT_FALSE(dmabuf::is_mappable(frame->get()));
    GstMemory *memory = gst_buffer_peek_memory(frame->get(), 0);
    EXPECT_TRUE(GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NOT_MAPPABLE));
    GstMapInfo map;
    EXPECT_FALSE(gst_memory_map(memory, &map, GST_MAP_READ)) << "a CPU mapped tiles as rows";
    const g2g::Result<dmabuf::FrameLayout> read = dmabuf::layout_of(frame->get());
    ASSERT_TRUE(read.ok()) << read.error().message();
    EXPECT_EQ(read->format.modifier, kIntelXTiled);
    EXPECT_EQ(read->format.to_string(), "NV12:0x0100000000000001");

    g2g::Result<g2g::MemoryDomain> domain = g2g::MemoryDomain::from_buffer(frame->get());
    ASSERT_TRUE(domain.ok()) << domain.error().message();
    EXPECT_EQ(domain->kind(), K::DmaBuf);
    EXPECT_FALSE(domain->as_system_slice());
    g2g::Result<g2g::SystemBytes> bytes = domain->require_system_bytes("cpureader");
    ASSERT_FALSE(bytes.ok());
    EXPECT_EQ(bytes.error().code(), g2g::ErrorCode::UnsupportedDomain);
    EXPECT_EQ(
        bytes.error().message(),
        "cpureader reads system memory but received a DmaBuf frame: insert glupload ! gldownload before "
        "it, or let caps negotiation settle on system memory (its DRM format NV12:0x0100000000000001 is "
        "not linear: its bytes are tiles, not rows, and g2g never reads them through a mapping)");
}

namespace {

// Timestamps and offsets a frame carries, to see them copied.
void stamp(GstBuffer *frame)
{
    GST_BUFFER_PTS(frame) = 40 * GST_MSECOND;
    GST_BUFFER_DTS(frame) = 20 * GST_MSECOND;
    GST_BUFFER_DURATION(frame) = 33 * GST_MSECOND;
    GST_BUFFER_OFFSET(frame) = 7;
}

void expect_stamped(GstBuffer *frame)
{
    EXPECT_EQ(GST_BUFFER_PTS(frame), 40 * GST_MSECOND);
    EXPECT_EQ(GST_BUFFER_DTS(frame), 20 * GST_MSECOND);
    EXPECT_EQ(GST_BUFFER_DURATION(frame), 33 * GST_MSECOND);
    EXPECT_EQ(GST_BUFFER_OFFSET(frame), 7u);
}

// The checks every exported frame passes: g2g's DMA-BUF memory, one of it, the fourcc recorded.
void expect_exported(GstBuffer *exported, GstVideoFormat format)
{
    ASSERT_EQ(gst_buffer_n_memory(exported), 1u);
    EXPECT_EQ(gst_buffer_peek_memory(exported, 0)->allocator, dmabuf::allocator());
    const g2g::Result<dmabuf::FrameLayout> layout = dmabuf::layout_of(exported);
    ASSERT_TRUE(layout.ok()) << layout.error().message();
    EXPECT_EQ(layout->format.fourcc, dmabuf::drm_fourcc_of(format));
    EXPECT_TRUE(layout->format.linear());
}

} // namespace

TEST(DmaBufExport, ASystemFrameIsCopiedOnceWithItsPixelsAndTimestamps)
{
    for (GstVideoFormat format :
         {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_YUY2}) {
        SCOPED_TRACE(gst_video_format_to_string(format));
        const GstVideoInfo info = video_info(format, 33, 17);
        BufferRef frame = random_frame(info, 4);
        stamp(frame.get());
        g2g::Result<BufferRef> exported = dmabuf::export_frame(frame.get(), info);
        ASSERT_TRUE(exported.ok()) << exported.error().message();
        expect_exported(exported->get(), format);
        expect_stamped(exported->get());
        EXPECT_EQ(compare_frames(info, exported->get(), info, frame.get()), "");
    }
}

// A stream's copies go into the frames of one pool (g2gdmabufupload's); a pool of frames of
// another size is refused by name, never written past.
TEST(DmaBufExport, IntoAPoolTheCopiesReuseItsFramesAndAnotherSizeIsRefused)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 33, 17);
    CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    Ref<GstBufferPool> pool = Ref<GstBufferPool>::adopt(dmabuf::pool_new(caps.get(), 1, 1));
    ASSERT_TRUE(pool);
    ASSERT_TRUE(gst_buffer_pool_set_active(pool.get(), TRUE));
    GstMemory *first_memory = nullptr;
    for (int i = 0; i < 3; ++i) {
        BufferRef frame = random_frame(info, static_cast<guint>(i + 1));
        g2g::Result<BufferRef> exported = dmabuf::export_frame(frame.get(), info, pool.get());
        ASSERT_TRUE(exported.ok()) << exported.error().message();
        expect_exported(exported->get(), GST_VIDEO_FORMAT_NV12);
        EXPECT_EQ(compare_frames(info, exported->get(), info, frame.get()), "");
        if (i == 0)
            first_memory = gst_buffer_peek_memory(exported->get(), 0);
        EXPECT_EQ(gst_buffer_peek_memory(exported->get(), 0), first_memory) << "the pool's one frame, again";
    }
    const GstVideoInfo other = video_info(GST_VIDEO_FORMAT_NV12, 32, 16);
    BufferRef frame = random_frame(other, 9);
    g2g::Result<BufferRef> refused = dmabuf::export_frame(frame.get(), other, pool.get());
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message(), "the DMA-BUF pool's frames are not NV12 32x16");
    EXPECT_TRUE(gst_buffer_pool_set_active(pool.get(), FALSE));
}

TEST(DmaBufExport, AFrameWithPaddedStridesIsWrittenDensely)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 33, 17);
    gsize offsets[GST_VIDEO_MAX_PLANES] = {64, 64 + 48 * 17 + 16};
    gint strides[GST_VIDEO_MAX_PLANES] = {48, 80};
    const gsize size = offsets[1] + 80 * 9;
    GstVideoInfo whole;
    gst_video_info_set_format(&whole, GST_VIDEO_FORMAT_GRAY8, static_cast<guint>(size), 1);
    BufferRef frame = random_frame(whole, 5);
    gst_buffer_add_video_meta_full(frame.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 33, 17, 2,
                                   offsets, strides);
    stamp(frame.get());
    g2g::Result<BufferRef> exported = dmabuf::export_frame(frame.get(), info);
    ASSERT_TRUE(exported.ok()) << exported.error().message();
    expect_exported(exported->get(), GST_VIDEO_FORMAT_NV12);
    expect_stamped(exported->get());
    const GstVideoMeta *meta = gst_buffer_get_video_meta(exported->get());
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->stride[0], GST_VIDEO_INFO_PLANE_STRIDE(&info, 0));
    EXPECT_EQ(meta->offset[1], GST_VIDEO_INFO_PLANE_OFFSET(&info, 1));
    EXPECT_EQ(compare_frames(info, exported->get(), info, frame.get()), "");
}

// A view (meta:G2gTensorView) is exported as the frame it shows: rotated, cropped, dense.
TEST(DmaBufExport, AViewIsExportedAsTheFrameItShows)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 33, 17);
    BufferRef frame = random_frame(info, 6);
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(frame.get(), info);
    ASSERT_TRUE(view.ok()) << view.error().message();
    view->orient(GST_VIDEO_ORIENTATION_90R);
    ASSERT_TRUE(view->crop(2, 4, 10, 8).ok());
    g2g::test::ReferenceView reference(info, frame.get());
    reference.orient(GST_VIDEO_ORIENTATION_90R);
    reference.crop(2, 4, 10, 8);

    BufferRef viewed = BufferRef::adopt(gst_buffer_copy(frame.get()));
    const GstVideoInfo shown = view->info();
    g2g::attach_tensor_view(viewed.get(), std::move(*view));
    stamp(viewed.get());
    const g2g::Result<K> kind = g2g::classify_buffer(viewed.get());
    ASSERT_TRUE(kind.ok());
    ASSERT_EQ(*kind, K::SystemView);

    g2g::Result<BufferRef> exported = dmabuf::export_frame(viewed.get(), info);
    ASSERT_TRUE(exported.ok()) << exported.error().message();
    expect_exported(exported->get(), GST_VIDEO_FORMAT_NV12);
    expect_stamped(exported->get());
    EXPECT_EQ(g2g::tensor_view_of(exported->get()), nullptr) << "the export is dense";
    const GstVideoMeta *meta = gst_buffer_get_video_meta(exported->get());
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->width, 10u);
    EXPECT_EQ(meta->height, 8u);
    EXPECT_EQ(
        g2g::test::first_difference(g2g::test::dense_planes(shown, exported->get()), reference.planes()), "");
}

namespace {

// `frame` (adopted) with its memory flagged NO_SHARE (as v4l2's and capture pools hand theirs
// out), made shareable: the frame make_shareable gives.
BufferRef made_shareable(GstBuffer *frame)
{
    GST_MINI_OBJECT_FLAG_SET(gst_buffer_peek_memory(frame, 0), GST_MEMORY_FLAG_NO_SHARE);
    g2g::Result<g2g::MemoryDomain> domain = g2g::MemoryDomain::adopt(frame);
    EXPECT_TRUE(domain.ok());
    if (!domain)
        return {};
    EXPECT_FALSE(domain->is_shareable());
    domain->make_shareable();
    EXPECT_TRUE(domain->is_shareable());
    return domain->buffer_ref();
}

} // namespace

TEST(DmaBufShare, MakeShareableOfNoSharePoolMemoryKeepsItsDrmFormatAndTheFd)
{
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 33, 17);
    Ref<GstBufferPool> pool = dmabuf_pool(info, 1, 1);
    ASSERT_TRUE(pool);
    BufferRef content = random_frame(info, 7);
    BufferRef pooled = dmabuf_pool_frame(pool.get(), content.get());
    ASSERT_TRUE(pooled);
    GstBuffer *pooled_buffer = pooled.get();
    const int pooled_fd = fds_of(pooled_buffer)[0];
    const int before = open_fd_count();
    {
        BufferRef shared = made_shareable(pooled.release());
        ASSERT_TRUE(shared);
        EXPECT_NE(shared.get(), pooled_buffer);
        EXPECT_EQ(open_fd_count(), before + 1) << "one dup of the fd, no bytes copied";
        GstMemory *memory = gst_buffer_peek_memory(shared.get(), 0);
        EXPECT_TRUE(gst_is_dmabuf_memory(memory));
        EXPECT_FALSE(GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NO_SHARE));
        EXPECT_EQ(object_of(gst_dmabuf_memory_get_fd(memory)), object_of(pooled_fd));
        const g2g::Result<dmabuf::FrameLayout> layout = dmabuf::layout_of(shared.get());
        ASSERT_TRUE(layout.ok()) << layout.error().message();
        EXPECT_EQ(layout->format.to_string(), "NV12");
        EXPECT_EQ(layout->planes[1].offset, GST_VIDEO_INFO_PLANE_OFFSET(&info, 1));
        EXPECT_TRUE(dmabuf::is_mappable(shared.get()));
        EXPECT_EQ(compare_frames(info, shared.get(), info, content.get()), "");
        BufferRef none;
        EXPECT_EQ(g2g::test::try_acquire(pool.get(), none), GST_FLOW_EOS)
            << "the share holds the pool's frame";
    }
    EXPECT_EQ(open_fd_count(), before) << "the dup closes with the last share";
    BufferRef again;
    ASSERT_EQ(g2g::test::try_acquire(pool.get(), again), GST_FLOW_OK);
    EXPECT_EQ(again.get(), pooled_buffer) << "the pool got its frame back";
    GST_MINI_OBJECT_FLAG_UNSET(gst_buffer_peek_memory(again.get(), 0), GST_MEMORY_FLAG_NO_SHARE);
    again.reset();
    EXPECT_TRUE(gst_buffer_pool_set_active(pool.get(), FALSE));
}

TEST(DmaBufShare, MakeShareableOfATiledFrameKeepsItsModifierAndStaysUnmappable)
{
    FilledMemfd memfd = filled_memfd(8192, 8);
    g2g::Result<BufferRef> frame = dmabuf::wrap(
        {{fourcc("NV12"), kIntelXTiled}, 64, 32, {{memfd.fd.get(), 0, 512}, {memfd.fd.get(), 4096, 512}}});
    ASSERT_TRUE(frame.ok()) << frame.error().message();
    BufferRef shared = made_shareable(frame->release());
    ASSERT_TRUE(shared);
    GstMemory *memory = gst_buffer_peek_memory(shared.get(), 0);
    EXPECT_TRUE(GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NOT_MAPPABLE));
    EXPECT_FALSE(dmabuf::is_mappable(shared.get()));
    GstMapInfo map;
    EXPECT_FALSE(gst_memory_map(memory, &map, GST_MAP_READ)) << "a share of tiles mapped as rows";
    const g2g::Result<dmabuf::FrameLayout> layout = dmabuf::layout_of(shared.get());
    ASSERT_TRUE(layout.ok()) << layout.error().message();
    EXPECT_EQ(layout->format.modifier, kIntelXTiled);
    EXPECT_EQ(layout->planes[1].offset, 4096u);
}

TEST(DmaBufCApi, WrapLayoutAndExportRoundTrip)
{
    FilledMemfd memfd = filled_memfd(1024, 9);
    const G2gDmaBufPlane planes[] = {{memfd.fd.get(), 0, 32}, {memfd.fd.get(), 512, 32}};
    GError *error = nullptr;
    BufferRef frame = BufferRef::adopt(
        g2g_dmabuf_wrap(fourcc("NV12"), G2G_DRM_FORMAT_MOD_LINEAR, 32, 16, 2, planes, &error));
    ASSERT_TRUE(frame) << error->message;
    guint32 code = 0;
    guint64 modifier = 1;
    G2gDmaBufPlane read[4] = {};
    ASSERT_EQ(g2g_dmabuf_get_layout(frame.get(), &code, &modifier, read, &error), 2u);
    EXPECT_EQ(code, fourcc("NV12"));
    EXPECT_EQ(modifier, G2G_DRM_FORMAT_MOD_LINEAR);
    for (guint p = 0; p < 2; ++p) {
        EXPECT_EQ(read[p].fd, gst_dmabuf_memory_get_fd(gst_buffer_peek_memory(frame.get(), 0)));
        EXPECT_EQ(read[p].offset, planes[p].offset);
        EXPECT_EQ(read[p].stride, planes[p].stride);
    }

    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 17, 9);
    BufferRef system = random_frame(info, 10);
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    BufferRef exported = BufferRef::adopt(g2g_dmabuf_export(system.get(), caps.get(), &error));
    ASSERT_TRUE(exported) << error->message;
    ASSERT_EQ(g2g_dmabuf_get_layout(exported.get(), &code, &modifier, read, &error), 1u);
    EXPECT_EQ(code, fourcc("AB24"));
    EXPECT_EQ(read[0].stride, GST_VIDEO_INFO_PLANE_STRIDE(&info, 0));
    EXPECT_EQ(compare_frames(info, exported.get(), info, system.get()), "");
}

TEST(DmaBufCApi, BadInputIsAGError)
{
    const auto expect_error = [](GError *error, const std::string &text) {
        ASSERT_NE(error, nullptr);
        EXPECT_EQ(error->domain, G2G_ERROR);
        EXPECT_EQ(error->code, G2G_ERROR_INVALID_ARGUMENT);
        EXPECT_EQ(error->message, text);
        g_error_free(error);
    };
    GError *error = nullptr;
    const int closed = g2g::test::make_memfd(64);
    close(closed);
    const G2gDmaBufPlane planes[] = {{closed, 0, 64}};
    EXPECT_EQ(g2g_dmabuf_wrap(fourcc("AB24"), G2G_DRM_FORMAT_MOD_LINEAR, 16, 1, 1, planes, &error), nullptr);
    expect_error(error, "plane 0's fd " + std::to_string(closed) + " is not an open DMA-BUF with a size");
    error = nullptr;
    EXPECT_EQ(g2g_dmabuf_wrap(fourcc("AB24"), G2G_DRM_FORMAT_MOD_LINEAR, 16, 1, 0, planes, &error), nullptr);
    expect_error(error, "g2g_dmabuf_wrap takes 1 to 4 planes, got 0");

    error = nullptr;
    BufferRef system = BufferRef::adopt(gst_buffer_new_allocate(nullptr, 64, nullptr));
    EXPECT_EQ(g2g_dmabuf_get_layout(system.get(), nullptr, nullptr, nullptr, &error), 0u);
    expect_error(error, "memory 0 of the frame is SystemMemory memory, not a DMA-BUF");
    error = nullptr;
    EXPECT_EQ(g2g_dmabuf_export(system.get(), nullptr, &error), nullptr);
    expect_error(error, "g2g_dmabuf_export needs raw video caps, got none");
    // Caps that are not fixed: refused by the same reading as g2g_frame_new's, with no
    // GStreamer-CRITICAL on the way (gst_video_info_from_caps asserts fixed caps).
    g2g::test::LogCapture criticals({"GStreamer", "GStreamer-Video", "GLib", "GLib-GObject"});
    error = nullptr;
    const CapsRef any = CapsRef::adopt(gst_caps_new_any());
    EXPECT_EQ(g2g_dmabuf_export(system.get(), any.get(), &error), nullptr);
    expect_error(
        error,
        "g2g_dmabuf_export needs fixed raw video caps (one structure, one value per field), got caps ANY");
    EXPECT_EQ(criticals.said(), std::vector<std::string>{});
}

// An offset near G_MAXSIZE: offset + stride x rows wraps past 2^64 to a small number, which an
// unchecked sum lets through the "ends past its fd" test (the frame then spanned, it said, bytes
// 18446744073709551515..27). The sum is checked and the plane refused, naming it and the fd's size.
TEST(DmaBufCApi, APlaneWhoseEndWrapsPast2To64IsRefused)
{
    const int fd = g2g::test::make_memfd(4096);
    ASSERT_GE(fd, 0);
    const std::string fd_text = std::to_string(fd);
    GError *error = nullptr;
    const G2gDmaBufPlane planes[] = {{fd, G_MAXSIZE - 100, 64}};
    EXPECT_EQ(g2g_dmabuf_wrap(fourcc("AB24"), G2G_DRM_FORMAT_MOD_LINEAR, 16, 8, 1, planes, &error), nullptr);
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(error->message, ("plane 0 starts at byte 18446744073709551515 but plane 0's fd " + fd_text +
                                  " holds 4096 bytes")
                                     .c_str());
    g_clear_error(&error);
    // The same through the C++ API, and a tiled plane (whose extent is its first byte: offset + 1,
    // which wrapped to 0 at G_MAXSIZE).
    g2g::Result<BufferRef> wrapped =
        g2g::dmabuf::wrap({{fourcc("AB24"), 0}, 16, 8, {{fd, G_MAXSIZE - 100, 64}}});
    ASSERT_FALSE(wrapped.ok());
    EXPECT_EQ(wrapped.error().message(), "plane 0 starts at byte 18446744073709551515 but plane 0's fd " +
                                             fd_text + " holds 4096 bytes");
    wrapped = g2g::dmabuf::wrap({{fourcc("AB24"), kIntelXTiled}, 16, 8, {{fd, G_MAXSIZE, 64}}});
    ASSERT_FALSE(wrapped.ok());
    EXPECT_EQ(wrapped.error().message(), "plane 0 starts at byte 18446744073709551615 but plane 0's fd " +
                                             fd_text + " holds 4096 bytes");
    close(fd);
}

namespace {

// g2g_dmabuf_export of `frame` under `info`'s caps: the copy, or a failure naming the GError.
BufferRef export_through_c_api(GstBuffer *frame, const GstVideoInfo &info)
{
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    GError *error = nullptr;
    BufferRef exported = BufferRef::adopt(g2g_dmabuf_export(frame, caps.get(), &error));
    if (error) {
        ADD_FAILURE() << error->message;
        g_error_free(error);
    }
    return exported;
}

// A GstVideoCropMeta of (x, y, width, height) on `frame`.
void add_crop_meta(GstBuffer *frame, guint x, guint y, guint width, guint height)
{
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(frame);
    crop->x = x;
    crop->y = y;
    crop->width = width;
    crop->height = height;
}

// A GstVideoMeta on `frame` saying `layout`'s format, size, offsets and strides.
void add_own_video_meta(GstBuffer *frame, const GstVideoInfo &layout)
{
    gst_buffer_add_video_meta_full(frame, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&layout),
                                   GST_VIDEO_INFO_WIDTH(&layout), GST_VIDEO_INFO_HEIGHT(&layout),
                                   GST_VIDEO_INFO_N_PLANES(&layout), const_cast<gsize *>(layout.offset),
                                   const_cast<gint *>(layout.stride));
}

} // namespace

// The formats a frame view cannot describe (NV16 among them: `a frame view cannot describe format
// NV16` before) are exported plane by plane, as g2gdmabufupload copies them; odd widths included.
TEST(DmaBufCApi, ExportCopiesFormatsNoFrameViewDescribes)
{
    for (GstVideoFormat format :
         {GST_VIDEO_FORMAT_NV16, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_VYUY, GST_VIDEO_FORMAT_Y210,
          GST_VIDEO_FORMAT_YUV9, GST_VIDEO_FORMAT_RGB16, GST_VIDEO_FORMAT_P016_LE}) {
        SCOPED_TRACE(gst_video_format_to_string(format));
        const GstVideoInfo info = video_info(format, 33, 17);
        BufferRef system = random_frame(info, 11);
        stamp(system.get());
        BufferRef exported = export_through_c_api(system.get(), info);
        ASSERT_TRUE(exported);
        expect_exported(exported.get(), format);
        expect_stamped(exported.get());
        EXPECT_EQ(compare_frames(info, exported.get(), info, system.get()), "");
    }
}

// A GstVideoCropMeta and a GstVideoMeta larger than the caps are read as g2gdmabufupload reads
// them: a crop meta inside a frame of the caps' size travels with the whole frame; under a larger
// video meta (videocrop's form) the caps' frame is copied from the crop's x and y; a larger video
// meta alone gives its top left, as gst_video_frame_map reads it.
TEST(DmaBufCApi, ExportReadsCropAndLargerVideoMetasAsGStreamerDoes)
{
    {
        SCOPED_TRACE("a crop meta on a frame of the caps' size");
        const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 20, 10);
        BufferRef system = random_frame(info, 12);
        add_own_video_meta(system.get(), info);
        add_crop_meta(system.get(), 3, 2, 11, 5);
        BufferRef exported = export_through_c_api(system.get(), info);
        ASSERT_TRUE(exported);
        expect_exported(exported.get(), GST_VIDEO_FORMAT_RGBA);
        const GstVideoMeta *meta = gst_buffer_get_video_meta(exported.get());
        ASSERT_NE(meta, nullptr);
        EXPECT_EQ(meta->width, 20u);
        EXPECT_EQ(meta->height, 10u);
        EXPECT_EQ(compare_frames(info, exported.get(), info, system.get()), "");
        const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(exported.get());
        ASSERT_NE(crop, nullptr) << "the crop meta did not travel";
        EXPECT_EQ(crop->x, 3u);
        EXPECT_EQ(crop->y, 2u);
        EXPECT_EQ(crop->width, 11u);
        EXPECT_EQ(crop->height, 5u);
    }
    {
        SCOPED_TRACE("videocrop's form: NV12 40x24 in the video meta, caps 20x10 at x=6 y=4");
        const GstVideoInfo whole = video_info(GST_VIDEO_FORMAT_NV12, 40, 24);
        const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 20, 10);
        BufferRef system = random_frame(whole, 13);
        add_own_video_meta(system.get(), whole);
        add_crop_meta(system.get(), 6, 4, 20, 10);
        BufferRef exported = export_through_c_api(system.get(), info);
        ASSERT_TRUE(exported);
        expect_exported(exported.get(), GST_VIDEO_FORMAT_NV12);
        EXPECT_EQ(gst_buffer_get_video_crop_meta(exported.get()), nullptr) << "the crop is spent";
        // The expected frame: the same bytes, a video meta of the caps' size starting at x=6 y=4
        // (the chroma plane at x/2, y/2).
        BufferRef region = BufferRef::adopt(gst_buffer_copy(system.get()));
        gst_buffer_remove_meta(region.get(),
                               reinterpret_cast<GstMeta *>(gst_buffer_get_video_meta(region.get())));
        gsize offsets[GST_VIDEO_MAX_PLANES] = {
            GST_VIDEO_INFO_PLANE_OFFSET(&whole, 0) + 4 * GST_VIDEO_INFO_PLANE_STRIDE(&whole, 0) + 6,
            GST_VIDEO_INFO_PLANE_OFFSET(&whole, 1) + 2 * GST_VIDEO_INFO_PLANE_STRIDE(&whole, 1) + 3 * 2};
        gst_buffer_add_video_meta_full(region.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 20, 10,
                                       2, offsets, const_cast<gint *>(whole.stride));
        EXPECT_EQ(compare_frames(info, exported.get(), info, region.get()), "");
    }
    {
        SCOPED_TRACE("a decoder's coded size: NV16 48x32 in the video meta, caps 37x23");
        const GstVideoInfo whole = video_info(GST_VIDEO_FORMAT_NV16, 48, 32);
        const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV16, 37, 23);
        BufferRef system = random_frame(whole, 14);
        add_own_video_meta(system.get(), whole);
        BufferRef exported = export_through_c_api(system.get(), info);
        ASSERT_TRUE(exported);
        expect_exported(exported.get(), GST_VIDEO_FORMAT_NV16);
        const GstVideoMeta *meta = gst_buffer_get_video_meta(exported.get());
        ASSERT_NE(meta, nullptr);
        EXPECT_EQ(meta->width, 37u);
        EXPECT_EQ(meta->height, 23u);
        // gst_video_frame_map of the 48x32 frame under the 37x23 caps reads its top left.
        EXPECT_EQ(compare_frames(info, exported.get(), info, system.get()), "");
    }
}

TEST(DmaBufCApi, ExportRefusesAVideoMetaSmallerThanTheCapsNamingBoth)
{
    const GstVideoInfo small = video_info(GST_VIDEO_FORMAT_RGBA, 10, 5);
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 20, 10);
    BufferRef system = random_frame(small, 15);
    add_own_video_meta(system.get(), small);
    const CapsRef caps = CapsRef::adopt(gst_video_info_to_caps(&info));
    GError *error = nullptr;
    EXPECT_EQ(g2g_dmabuf_export(system.get(), caps.get(), &error), nullptr);
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->domain, G2G_ERROR);
    EXPECT_EQ(error->code, G2G_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(error->message,
                 "g2g_dmabuf_export: the frame's GstVideoMeta says RGBA 10x5, smaller than its caps' RGBA "
                 "20x10: a video meta smaller than the caps cannot hold the caps' frame (the producer's "
                 "video meta or its caps are wrong)");
    g_error_free(error);
}
