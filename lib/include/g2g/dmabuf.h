// SPDX-License-Identifier: LGPL-2.1-or-later
// DMA-BUF frames: their DRM format (fourcc and modifier), their planes (fd, offset, stride), g2g's
// allocator and buffer pool, frames wrapped from an application's fds, and system frames exported
// into DMA-BUFs. A build without the dmabuf feature answers every call with an error that says so.
//
// Caps: GStreamer 1.22's rule is that `memory:DMABuf` marks frames no CPU can map; frames that
// map travel with system caps (and still classify as DmaBuf). GStreamer 1.24's form,
// `format=DMA_DRM, drm-format=NV12:0x0100000000000001` (the linear modifier omitted), is
// understood and produced next to the 1.22 form (dma-drm-caps below).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

namespace g2g::dmabuf {

// DRM_FORMAT_MOD_LINEAR and DRM_FORMAT_MOD_INVALID (drm_fourcc.h), which this header does not
// include.
inline constexpr std::uint64_t kModifierLinear = 0;
inline constexpr std::uint64_t kModifierInvalid = 0x00ffffffffffffffULL;

// A DRM pixel format: a fourcc and the modifier that says how its pixels are laid out.
struct DrmFormat {
    std::uint32_t fourcc = 0;
    std::uint64_t modifier = kModifierLinear;

    bool operator==(const DrmFormat &) const = default;
    bool linear() const { return modifier == kModifierLinear; }
    // GStreamer 1.24's drm-format string: "NV12" when linear, "NV12:0x0100000000000001" otherwise.
    std::string to_string() const;
    // The reverse; nullopt for text that is not a fourcc (four characters) with an optional
    // ":0x<hex>" modifier.
    static std::optional<DrmFormat> parse(std::string_view text);
};

// The DRM fourcc of a GStreamer video format (0 where DRM has none), and the reverse
// (GST_VIDEO_FORMAT_UNKNOWN where GStreamer has none).
std::uint32_t drm_fourcc_of(GstVideoFormat format);
GstVideoFormat video_format_of(std::uint32_t fourcc);
// Every video format with a DRM fourcc, the formats most producers and displays share first.
std::vector<GstVideoFormat> drm_video_formats();

// True when drm_fourcc.h names the modifier's vendor and the modifier is not DRM_FORMAT_MOD_INVALID.
bool modifier_known(std::uint64_t modifier);

// One plane of a DMA-BUF frame.
struct Plane {
    int fd = -1;
    gsize offset = 0; // bytes from the start of the fd
    gint stride = 0;  // bytes from one row to the next
};

// A DMA-BUF frame: its DRM format, its size in pixels and its planes.
struct FrameLayout {
    DrmFormat format;
    guint width = 0;
    guint height = 0;
    std::vector<Plane> planes;
};

// The layout of a DmaBuf frame: the DRM format g2g recorded on its memory (g2g's allocator, a
// wrapped fd, an exported CUDA frame) or, for other DMABuf memory, the fourcc of its
// GstVideoMeta's format with the linear modifier. Planes from the GstVideoMeta (dense offsets and
// strides of the format when there is none and `info` is given). Fails for memory that is not
// DMA-BUF.
Result<FrameLayout> layout_of(GstBuffer *frame, const GstVideoInfo *info = nullptr);

// True when the frame's memory was marked as not mappable (a non-linear modifier, a device's
// memory exported as a DMA-BUF): no CPU reads it, whatever mmap would say.
bool is_mappable(GstBuffer *frame);

// A frame over an application's DMA-BUF fds (each is dup'ed: the caller keeps its own). Planes
// may share an fd. Refused with an error: an fd that is not open, a plane that ends past its fd's
// size, a fourcc GStreamer has no video format for, a modifier drm_fourcc.h does not know. A
// frame with a non-linear modifier is marked not mappable. The buffer carries a GstVideoMeta.
Result<BufferRef> wrap(const FrameLayout &layout);

// Where g2g's allocator takes its DMA-BUFs from, best first: a dma-heap (/dev/dma_heap/system),
// udmabuf (/dev/udmabuf over a memfd), or a sealed memfd alone (a DMA-BUF in all but name: it
// maps and shares like one, no device imports it).
enum class Backend { DmaHeap, Udmabuf, Memfd };
std::string_view backend_name(Backend backend); // "dma-heap", "udmabuf", "memfd"
// The backend this process's allocator uses (detected once; the "g2g" log says which).
Backend backend();

// g2g's DMA-BUF allocator (derived from GstDmaBufAllocator; its memory is "dmabuf" memory): one
// process-wide instance, transfer none.
GstAllocator *allocator();

// A buffer pool of g2g's allocator for `caps` (a raw video format drm_fourcc_of knows; the
// 1.22 form or DMA_DRM): every frame is one DMA-BUF with the format's planes at
// GstVideoInfo's offsets and strides, a GstVideoMeta, and the DRM format recorded. Configure
// and activate it as any GstBufferPool (transfer full, nullptr for caps it cannot serve).
GstBufferPool *pool_new(const GstCaps *caps, guint min_buffers = 0, guint max_buffers = 0);

// A DMA-BUF copy of a system frame: one copy into a frame of g2g's allocator, written between
// DMA_BUF_IOCTL_SYNC brackets. With `pool` (pool_new's, active, of the frame's format and size) the
// copy goes into one of its frames, which a stream reuses; without, into a new DMA-BUF each call.
// The frame's flags and timestamps go with it.
// - A view (a G2gTensorView meta) is written densely, as the frame it shows.
// - Any other frame is copied plane by plane, in every format with a DRM fourcc: the frame `info`
//   (its caps) describes, read from its GstVideoMeta and GstVideoCropMeta as GStreamer's elements
//   read them. A crop meta inside a frame of the caps' size travels with the copy; under a
//   GstVideoMeta larger than the caps (videocrop's form) the caps' frame is copied from the crop's
//   x and y, and without a crop meta from the top left (a decoder's coded size). Refused: a
//   GstVideoMeta smaller than the caps or of another format, a crop meta past the frame, bytes
//   that cannot hold the caps' frame, memory no CPU reads. These refusals open with `caller`, the
//   function the application called or the element that calls (`g2g_dmabuf_export: the frame's
//   GstVideoMeta says RGBA 10x5, smaller than its caps' RGBA 20x10: ...`).
Result<BufferRef> export_frame(GstBuffer *frame, const GstVideoInfo &info, GstBufferPool *pool = nullptr,
                               std::string_view caller = "g2g::dmabuf::export_frame");

// DMA_DRM caps (GStreamer 1.24's form) and 1.22's form of the same frames. A DMA_DRM structure
// is one whose format is the string DMA_DRM (1.24's gst_video_is_dma_drm_caps); its drm-format is
// one string or a list of them ({ NV12, YU12:0x0100000000000001 }), each a DrmFormat; none means
// any DRM format (1.24's templates). ANY caps stay ANY; every other field travels unchanged.
//
// The 1.22 form of `caps`, for 1.22's parsers (gst_video_info_from_caps fails on DMA_DRM): each
// DMA_DRM structure of memory:DMABuf becomes `format=` the video formats of its linear
// drm-formats (a list stays a list, one entry a string, no drm-format no format field). Dropped,
// since 1.22 has no format for them: drm-formats with a non-linear modifier (tiled or compressed
// pixels are no frame of the linear format; a memory:DMABuf passthrough such as g2gtee or g2gprobe
// carries those structures as they are instead), a fourcc GStreamer has no video format for, text
// that is no drm-format; a structure none of whose drm-formats is left; and DMA_DRM outside
// memory:DMABuf (1.24 knows it nowhere else). Other structures stay as they are, in their order.
// A build without the dmabuf feature drops every DMA_DRM structure.
CapsRef caps_from_dma_drm(const GstCaps *caps);
// `caps` in both forms, for caps queries of elements that take either: after each memory:DMABuf
// structure its twin in the other form where there is one (1.22's `format=NV12` gets
// `format=DMA_DRM, drm-format=NV12`, a list the list of the fourccs DRM has, no format field no
// drm-format field; DMA_DRM gets its 1.22 form, as caps_from_dma_drm). A twin the caps express already is not
// added again. Other structures stay as they are. A build without the dmabuf feature returns a copy.
CapsRef caps_with_dma_drm(const GstCaps *caps);
// The DRM format a (fixed) caps structure names: its drm-format where the format is DMA_DRM (one
// string that parses, modifier not DRM_FORMAT_MOD_INVALID; the fourcc need not have a video
// format), else its format's fourcc with the linear modifier. nullopt where it names neither (a
// list, no format, a format DRM has no fourcc for, text that is no drm-format), and always in a
// build without the dmabuf feature. The structure's features are not looked at.
std::optional<DrmFormat> drm_format_of(const GstStructure *structure);

} // namespace g2g::dmabuf
