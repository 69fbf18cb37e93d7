// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda-ipc.h"

#include <gst/cuda/gstcudamemory.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "compat/cuda-compat.h"
#include "cuda-driver.h"

namespace g2g::cuda {

namespace {

// CUipcMemHandle's layout (cuda.h: 64 reserved bytes, passed by value), without needing a cuda.h
// that declares it (GStreamer 1.22's stub does not).
struct RawHandle {
    char reserved[64];
};

// CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: another GPU's memory is opened with peer access.
constexpr unsigned kLazyPeerAccess = 0x1;

// The driver calls GStreamer's loader does not load, from the library it loaded.
struct IpcCalls {
    CUresult (*get_handle)(RawHandle *, CUdeviceptr) = nullptr;
    CUresult (*open_handle)(CUdeviceptr *, RawHandle, unsigned) = nullptr;
    CUresult (*close_handle)(CUdeviceptr) = nullptr;
    CUresult (*address_range)(CUdeviceptr *, size_t *, CUdeviceptr) = nullptr;
};

Result<const IpcCalls *> ipc_calls()
{
    static const IpcCalls calls = [] {
        IpcCalls loaded;
        load_driver_symbol("cuIpcGetMemHandle", loaded.get_handle);
        if (!load_driver_symbol("cuIpcOpenMemHandle_v2", loaded.open_handle))
            load_driver_symbol("cuIpcOpenMemHandle", loaded.open_handle);
        load_driver_symbol("cuIpcCloseMemHandle", loaded.close_handle);
        load_driver_symbol("cuMemGetAddressRange_v2", loaded.address_range);
        return loaded;
    }();
    if (!calls.get_handle || !calls.open_handle || !calls.close_handle || !calls.address_range)
        return Error(
            ErrorCode::UnsupportedDomain,
            "CUDA's driver does not load here, or has no IPC calls (cuIpcGetMemHandle, cuIpcOpenMemHandle, "
            "cuMemGetAddressRange)");
    return &calls;
}

// The context made current for the calls of one scope.
class Current {
public:
    explicit Current(GstCudaContext *context) : pushed_(gst_cuda_context_push(context)) {}
    ~Current()
    {
        if (pushed_) {
            CUcontext popped = nullptr;
            gst_cuda_context_pop(&popped);
        }
    }
    explicit operator bool() const { return pushed_; }

private:
    bool pushed_;
};

} // namespace

Result<IpcHandle> export_memory(GstMemory *memory)
{
    if (!memory || !gst_is_cuda_memory(memory))
        return Error(ErrorCode::UnsupportedDomain,
                     std::string("memory of ") +
                         (memory && memory->allocator ? memory->allocator->mem_type : "no allocator") +
                         ", not CUDA memory, has no CUDA IPC handle");
    Result<const IpcCalls *> calls = ipc_calls();
    if (!calls)
        return calls.error();
    GstCudaMemory *cuda_memory = GST_CUDA_MEMORY_CAST(memory);
    GstMapInfo map;
    // Waits for the stream that writes it (1.24 on): the consumer reads it as soon as it comes.
    if (!compat::cuda_map_for_reading(memory, &map))
        return Error(ErrorCode::MapFailed, "the CUDA memory does not map for reading on the device");
    const CUdeviceptr data = reinterpret_cast<CUdeviceptr>(map.data);
    gst_memory_unmap(memory, &map);
    const Current current(cuda_memory->context);
    if (!current)
        return Error(ErrorCode::MapFailed,
                     "cannot make the CUDA context of " + describe(cuda_memory->context) + " current");
    CUdeviceptr base = 0;
    size_t size = 0;
    if (CUresult r = (*calls)->address_range(&base, &size, data); r != CUDA_SUCCESS)
        return failure("cuMemGetAddressRange of a CUDA frame", r);
    RawHandle raw{};
    if (CUresult r = (*calls)->get_handle(&raw, base); r != CUDA_SUCCESS)
        return failure(
            "cuIpcGetMemHandle of a CUDA frame's allocation (memory of a stream-ordered or virtual-memory "
            "pool has none)",
            r);
    IpcHandle handle;
    std::memcpy(handle.handle.data(), raw.reserved, handle.handle.size());
    handle.offset = data - base;
    handle.size = memory->size;
    return handle;
}

// One allocation of another process, opened here until the last memory over it goes.
struct IpcOpened::Allocation {
    std::array<std::uint8_t, 64> handle{};
    GstCudaContext *context = nullptr; // one reference
    CUdeviceptr base = 0;
    size_t size = 0;

    ~Allocation()
    {
        if (base) {
            const Current current(context);
            if (current)
                (*ipc_calls())->close_handle(base);
        }
        gst_object_unref(context);
    }
};

IpcOpened::IpcOpened(GstCudaContext *context)
    : context_(static_cast<GstCudaContext *>(gst_object_ref(context)))
{
}

IpcOpened::~IpcOpened()
{
    opened_.clear();
    gst_object_unref(context_);
}

// More than a producer's frames in flight: an allocation it sends again is never opened twice.
constexpr std::size_t kKept = 32;

Result<GstMemory *> IpcOpened::memory(const IpcHandle &handle, const GstVideoInfo &layout)
{
    Result<const IpcCalls *> calls = ipc_calls();
    if (!calls)
        return calls.error();
    auto known = std::find_if(opened_.begin(), opened_.end(), [&](const std::shared_ptr<Allocation> &a) {
        return a->handle == handle.handle;
    });
    std::shared_ptr<Allocation> allocation;
    if (known != opened_.end()) {
        allocation = *known;
        opened_.erase(known);
    } else {
        allocation = std::make_shared<Allocation>();
        allocation->handle = handle.handle;
        allocation->context = static_cast<GstCudaContext *>(gst_object_ref(context_));
        const Current current(context_);
        if (!current)
            return Error(ErrorCode::MapFailed,
                         "cannot make the CUDA context of " + describe(context_) + " current");
        RawHandle raw{};
        std::memcpy(raw.reserved, handle.handle.data(), handle.handle.size());
        if (CUresult r = (*calls)->open_handle(&allocation->base, raw, kLazyPeerAccess); r != CUDA_SUCCESS) {
            allocation->base = 0;
            return failure("cuIpcOpenMemHandle of the producer's allocation", r);
        }
        CUdeviceptr base = 0;
        if (CUresult r = (*calls)->address_range(&base, &allocation->size, allocation->base);
            r != CUDA_SUCCESS)
            return failure("cuMemGetAddressRange of the producer's allocation", r);
    }
    opened_.push_back(allocation);
    if (opened_.size() > kKept)
        opened_.pop_front();
    const std::uint64_t needed = GST_VIDEO_INFO_SIZE(&layout);
    if (handle.offset > allocation->size || needed > allocation->size - handle.offset)
        return Error(ErrorCode::InvalidArgument, "a CUDA memory of " + std::to_string(needed) +
                                                     " bytes from " + std::to_string(handle.offset) +
                                                     " lies past the end of the producer's " +
                                                     std::to_string(allocation->size) + "-byte allocation");
    auto *hold = new std::shared_ptr<Allocation>(allocation);
    GstMemory *memory =
        compat::cuda_wrap(context_, layout, allocation->base + handle.offset, hold,
                          [](gpointer data) { delete static_cast<std::shared_ptr<Allocation> *>(data); });
    if (!memory) {
        delete hold;
        return Error(ErrorCode::MapFailed, "the producer's CUDA memory cannot be wrapped");
    }
    return memory;
}

} // namespace g2g::cuda
