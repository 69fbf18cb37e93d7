// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames as tensors, for applications: each plane of a frame, a view's included (flipped,
// rotated, cropped: negative strides and all), as a strided tensor over the frame's own memory,
// on the CPU or on its CUDA device, and exported as DLPack with no copy.
//
//   auto frame = g2g::TensorFrame::of(buffer, info);     // maps the frame once, holds a ref
//   g2g::PlaneTensor luma = *(*frame)->plane(0);         // shape, byte strides, data pointer
//   DLManagedTensor *t = *(*frame)->to_dlpack(0);       // its deleter lets the frame go
//
// A tensor keeps its frame (the buffer and its mappings) alive exactly as long as it lives.
// Frames in memory a consumer cannot address (Vulkan images, platform handles, tiled DMA-BUFs)
// are refused by name with the converter to insert. Consumers that cannot take negative strides
// (PyTorch) get the plane materialized (on the frame's device) unless they ask otherwise.
#pragma once

#include <gst/video/video.h>

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include <g2g/dlpack-versioned.h>
#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

namespace g2g {

// Where a tensor's data pointer points: DLPack's device types.
enum class TensorDevice : std::uint8_t {
    Cpu = kDLCPU,
    Cuda = kDLCUDA,
};

// One plane as a tensor of unsigned integers: rows x columns (x components, for planes whose
// elements have several: RGBA's 4, NV12's chroma pair, a packed 4:2:2 macropixel's 4).
struct PlaneTensor {
    // Element (0, 0, 0): a CPU address, or a CUDA device pointer (CUdeviceptr).
    void *data = nullptr;
    TensorDevice device = TensorDevice::Cpu;
    int device_id = 0; // the CUDA device ordinal; 0 on the CPU
    std::uint32_t rows = 0;
    std::uint32_t columns = 0;
    std::uint32_t components = 1;     // per element; a third axis when more than 1
    std::uint32_t component_size = 1; // bytes: 1 (8-bit formats) or 2 (16-bit, 10-bit in 16)
    bool little_endian = true;        // byte order of 2-byte components (GRAY16_BE's are not)
    std::int64_t row_stride = 0;      // bytes from one row to the next (negative: rows run backwards)
    std::int64_t column_stride = 0;   // bytes from one element to the next in a row
    std::uint32_t memory_index = 0;   // the GstMemory of the buffer that holds the plane
    std::int64_t offset = 0;          // byte offset of element (0, 0) in that memory

    unsigned ndim() const { return components > 1 ? 3 : 2; }
    bool has_negative_strides() const { return row_stride < 0 || column_stride < 0; }
};

// How a plane goes out as DLPack.
struct TensorExport {
    enum class Copy : std::uint8_t {
        // The frame's own memory when the consumer can read it in place (no negative stride, or
        // negative strides allowed), else a dense copy made once per frame on its device.
        IfNeeded,
        // The frame's own memory or an error: what a consumer says with DLPack's copy=False.
        Never,
        // A dense copy of the tensor's own, shared with no other export (so a consumer may write
        // it): DLPack's copy=True.
        Always,
    };
    Copy copy = Copy::IfNeeded;
    // Hand negative strides to the consumer as they are. DLPack's strides are signed, and NumPy
    // and CuPy read them; PyTorch (1.13 and 2.x) aborts the process on them, so they are off
    // unless the application knows its consumer.
    bool keep_negative_strides = false;
};

class TensorFrame : public std::enable_shared_from_this<TensorFrame> {
public:
    // The frame `buffer` holds, laid out as `info` (its caps) or as the view it carries
    // (meta:G2gTensorView), its memory mapped for reading until the last holder (this frame's
    // shared_ptr, or a tensor made of it) is gone. Fails, naming `category`, the domain and the
    // converter to insert, for memory no tensor can address; and for views of formats a frame
    // view cannot describe, or caps that do not describe the buffer.
    static Result<std::shared_ptr<TensorFrame>> of(GstBuffer *buffer, const GstVideoInfo &info,
                                                   std::string_view category = "g2g tensor frame");

    ~TensorFrame();
    TensorFrame(const TensorFrame &) = delete;
    TensorFrame &operator=(const TensorFrame &) = delete;

    MemoryDomainKind kind() const { return kind_; }
    GstBuffer *buffer() const { return buffer_.get(); }
    // The frame's view: format, size and per-plane geometry (the identity view of a dense frame).
    const FrameView &view() const { return view_; }
    unsigned n_planes() const { return view_.n_planes(); }
    // False for views only a copy can read (packed 4:2:2 after a horizontal move): their planes
    // exist only in dense().
    bool strided() const { return view_.strided(); }
    // True for a frame dense() made.
    bool is_copy() const { return is_copy_; }

    // Plane `index` as a tensor over the frame's own memory.
    Result<PlaneTensor> plane(unsigned index) const;

    // The frame written densely, once (later calls return the same frame), on the frame's
    // device: into system memory by the CPU, into CUDA memory by a kernel. A dense frame is its
    // own dense().
    Result<std::shared_ptr<const TensorFrame>> dense() const;

    // Writes the frame densely into caller planes with caller strides, `dst_size[p]` bytes at
    // `dst[p]`: CPU memory for a frame in host memory (on `n_threads` threads, as
    // FrameView::materialize_into), device pointers on the frame's GPU for a CUDA frame. A plane
    // whose rows do not fit its stride, or whose rows do not fit its size, is refused unwritten.
    Result<void> materialize_into(void *const dst[], const gint dst_stride[], const gsize dst_size[],
                                  unsigned n_threads) const;

    // Plane `index` as DLPack 0.6 (DLManagedTensor) or 1.0 (its versioned layout, marked read-only
    // unless it is a copy of its own, and marked copied when it is one), per `options`. The tensor holds this
    // frame (or its dense copy) until its deleter is called. Fails for a plane no DLPack consumer can read as
    // it is (a big-endian component; a negative stride under Copy::Never) with what to do instead.
    Result<DLManagedTensor *> to_dlpack(unsigned index, const TensorExport &options = {}) const;
    Result<G2gDLManagedTensorVersioned *> to_dlpack_versioned(unsigned index,
                                                              const TensorExport &options = {}) const;

private:
    // The frame a plane goes out of, and what it is to this frame.
    struct Export {
        std::shared_ptr<const TensorFrame> frame;
        enum class Source : std::uint8_t { Frame, SharedCopy, OwnCopy } source;
    };

    TensorFrame(BufferRef buffer, MemoryDomainKind kind, FrameView view, bool is_copy);
    // The frame whose plane `index` goes out under `options`: this one, dense(), or a new copy.
    Result<Export> exported_frame(unsigned index, const TensorExport &options) const;
    // A new dense copy of the frame (what dense() keeps).
    Result<std::shared_ptr<const TensorFrame>> write_dense() const;

    BufferRef buffer_;
    MemoryDomainKind kind_;
    FrameView view_;
    bool is_copy_;
    // One read mapping per memory of the buffer (a CUDA memory mapped for its device pointer).
    std::vector<GstMapInfo> maps_;
    int device_id_ = 0;

    mutable std::mutex dense_lock_; // guards dense_
    mutable std::shared_ptr<const TensorFrame> dense_;
};

} // namespace g2g
