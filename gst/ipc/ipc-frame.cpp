// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-frame.h"

#include <gst/allocators/allocators.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>

#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include "ipc-view.h"

namespace g2g::ipc {

namespace {

Error refused(std::uint64_t id, const std::string &what)
{
    return Error(ErrorCode::InvalidArgument, "NEW_BUFFER " + std::to_string(id) + " " + what);
}

// The allocator whose memories wrap what arrived (fd memory, or DMA-BUF memory): made once and
// registered, so GStreamer owns it (gst_deinit frees it, and the leaks tracer sees no stray one).
Ref<GstAllocator> allocator_for(MemoryKind kind)
{
    static constexpr const char *kFd = "G2gIpcFdMemory", *kDmaBuf = "G2gIpcDmaBufMemory";
    static std::once_flag registered;
    std::call_once(registered, [] {
        gst_allocator_register(kFd, gst_fd_allocator_new());
        gst_allocator_register(kDmaBuf, gst_dmabuf_allocator_new());
    });
    return Ref<GstAllocator>::adopt(gst_allocator_find(kind == MemoryKind::DmaBuf ? kDmaBuf : kFd));
}

// The layout `frame`'s GstVideoMeta says, else `info`'s.
GstVideoInfo layout_of(GstBuffer *frame, const GstVideoInfo &info)
{
    GstVideoInfo layout = info;
    if (const GstVideoMeta *meta = gst_buffer_get_video_meta(frame)) {
        gst_video_info_set_format(&layout, meta->format, meta->width, meta->height);
        for (guint p = 0; p < meta->n_planes; ++p) {
            layout.offset[p] = meta->offset[p];
            layout.stride[p] = meta->stride[p];
        }
    }
    return layout;
}

// Whether `fd`'s file keeps every page a mapping of it reads for as long as this process maps it:
// a DMA-BUF's size is fixed, and a file sealed against shrinking (F_SEAL_SHRINK: g2g's memfds,
// GStreamer's unixfdsink's) cannot lose pages. Any other file, its sender could truncate under a
// reader of this process (SIGBUS).
bool keeps_its_pages(int fd)
{
    constexpr long kDmaBufMagic = 0x444d4142; // linux/magic.h's DMA_BUF_MAGIC
    struct statfs filesystem {};
    if (::fstatfs(fd, &filesystem) == 0 && static_cast<long>(filesystem.f_type) == kDmaBufMagic)
        return true;
    const int seals = ::fcntl(fd, F_GET_SEALS);
    return seals >= 0 && (seals & F_SEAL_SHRINK) != 0;
}

} // namespace

NewBuffer message_of(GstBuffer *frame, std::uint64_t id)
{
    NewBuffer message;
    message.id = id;
    message.pts = GST_BUFFER_PTS(frame);
    message.dts = GST_BUFFER_DTS(frame);
    message.duration = GST_BUFFER_DURATION(frame);
    message.offset = GST_BUFFER_OFFSET(frame);
    message.offset_end = GST_BUFFER_OFFSET_END(frame);
    message.flags = GST_BUFFER_FLAGS(frame);
    return message;
}

void set_fields(GstBuffer *frame, const NewBuffer &message)
{
    GST_BUFFER_PTS(frame) = message.pts;
    GST_BUFFER_DTS(frame) = message.dts;
    GST_BUFFER_DURATION(frame) = message.duration;
    GST_BUFFER_OFFSET(frame) = message.offset;
    GST_BUFFER_OFFSET_END(frame) = message.offset_end;
    GST_BUFFER_FLAGS(frame) = message.flags;
}

std::uint64_t file_number(GstMemory *memory)
{
    static const GQuark quark = g_quark_from_static_string("g2g-ipc-file-number");
    static std::atomic<std::uint64_t> next{1};
    GstMemory *owner = memory;
    while (owner->parent)
        owner = owner->parent;
    auto *mini = GST_MINI_OBJECT_CAST(owner);
    if (auto *number = static_cast<std::uint64_t *>(gst_mini_object_get_qdata(mini, quark)))
        return *number;
    auto *number = new std::uint64_t(next++);
    gst_mini_object_set_qdata(mini, quark, number,
                              [](gpointer data) { delete static_cast<std::uint64_t *>(data); });
    return *number;
}

Result<OutgoingFrame> describe_frame(GstBuffer *frame, std::uint64_t id)
{
    OutgoingFrame out;
    out.message = message_of(frame, id);
    NewBuffer &message = out.message;
    const guint n = gst_buffer_n_memory(frame);
    if (n > kMaxMemories)
        return Error(ErrorCode::InvalidArgument, "a frame of " + std::to_string(n) +
                                                     " memories: a message carries " +
                                                     std::to_string(kMaxMemories));
    std::size_t dmabufs = 0;
    for (guint i = 0; i < n; ++i) {
        GstMemory *memory = gst_buffer_peek_memory(frame, i);
        if (!gst_is_fd_memory(memory))
            return Error(ErrorCode::UnsupportedDomain,
                         "memory " + std::to_string(i) + " of the frame is " +
                             (memory->allocator ? memory->allocator->mem_type : "of no allocator") +
                             ", not fd memory: only memfd and DMA-BUF memory cross by descriptor");
        dmabufs += gst_is_dmabuf_memory(memory) ? 1 : 0;
        out.fds.push_back(gst_fd_memory_get_fd(memory));
        out.file_numbers.push_back(file_number(memory));
        message.memories.push_back(
            {static_cast<std::uint64_t>(memory->size), static_cast<std::uint64_t>(memory->offset)});
    }
    if (dmabufs != 0 && dmabufs != n)
        return Error(ErrorCode::UnsupportedDomain,
                     "the frame mixes DMA-BUF and other fd memory: a message carries one kind");
    message.kind = dmabufs ? MemoryKind::DmaBuf : MemoryKind::Fd;
    if (const FrameView *view = tensor_view_of(frame)) {
        message.metas.push_back(encode_video_meta(video_meta_of(view->source_layout())));
        message.metas.push_back(encode_view(*view));
    } else if (const GstVideoMeta *meta = gst_buffer_get_video_meta(frame)) {
        GstVideoInfo layout;
        gst_video_info_set_format(&layout, meta->format, meta->width, meta->height);
        for (guint p = 0; p < meta->n_planes; ++p) {
            layout.offset[p] = meta->offset[p];
            layout.stride[p] = meta->stride[p];
        }
        message.metas.push_back(encode_video_meta(video_meta_of(layout)));
    }
    return out;
}

FilesSent::Addressed FilesSent::address(const OutgoingFrame &frame)
{
    Addressed out;
    for (std::size_t i = 0; i < frame.file_numbers.size(); ++i) {
        const std::uint64_t number = frame.file_numbers[i];
        const auto kept = std::find(kept_.begin(), kept_.end(), number);
        const bool attached = kept == kept_.end();
        if (attached)
            out.fds.push_back(frame.fds[i]);
        else
            kept_.erase(kept);
        kept_.push_back(number);
        out.files.push_back({number, attached});
    }
    const auto named_now = [&](std::uint64_t number) {
        return std::find(frame.file_numbers.begin(), frame.file_numbers.end(), number) !=
               frame.file_numbers.end();
    };
    while (kept_.size() > kMaxNamedFiles) {
        const auto oldest = std::find_if_not(kept_.begin(), kept_.end(), named_now);
        out.forget.push_back(*oldest);
        kept_.erase(oldest);
    }
    return out;
}

Result<void> planes_inside(const GstVideoInfo &layout, std::uint64_t size)
{
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&layout); ++p) {
        const std::uint64_t offset = GST_VIDEO_INFO_PLANE_OFFSET(&layout, p);
        const gint stride = GST_VIDEO_INFO_PLANE_STRIDE(&layout, p);
        guint c = 0; // the first component the plane holds
        while (c + 1 < GST_VIDEO_INFO_N_COMPONENTS(&layout) &&
               GST_VIDEO_FORMAT_INFO_PLANE(layout.finfo, c) != p)
            ++c;
        const std::uint64_t rows = GST_VIDEO_INFO_COMP_HEIGHT(&layout, c);
        std::uint64_t span = 0, end = 0;
        if (stride < 0 || __builtin_mul_overflow(std::uint64_t(stride), rows, &span) ||
            __builtin_add_overflow(offset, span, &end) || end > size)
            return Error(ErrorCode::InvalidArgument,
                         "plane " + std::to_string(p) + " (" + std::to_string(rows) + " rows of " +
                             std::to_string(stride) + " bytes from " + std::to_string(offset) +
                             ") lies outside the " + std::to_string(size) + "-byte frame");
    }
    return {};
}

struct ReceivedMemories::Kept {
    struct File {
        dev_t device;
        ino_t inode;
        MemoryKind kind;
        GstMemory *whole;     // one reference: the file's descriptor, mapped once read
        std::uint64_t number; // the producer's, or 0
    };
    std::deque<File> files; // the most recent last

    void forget(std::deque<File>::iterator file)
    {
        gst_memory_unref(file->whole);
        files.erase(file);
    }
    std::deque<File>::iterator numbered(std::uint64_t number)
    {
        return std::find_if(files.begin(), files.end(),
                            [&](const File &file) { return file.number == number; });
    }
};

namespace {

Result<GstMemory *> share_of(GstMemory *whole, std::uint64_t offset, std::uint64_t size)
{
    // Read-only, as every share is: the consumer reads the producer's pages, never writes them.
    return gst_memory_share(whole, static_cast<gssize>(offset), static_cast<gssize>(size));
}

} // namespace

ReceivedMemories::ReceivedMemories() : kept_(std::make_unique<Kept>())
{
}

ReceivedMemories::~ReceivedMemories()
{
    clear();
}

void ReceivedMemories::clear()
{
    while (!kept_->files.empty())
        kept_->forget(kept_->files.begin());
}

Result<GstMemory *> ReceivedMemories::named(MemoryKind kind, std::uint64_t number, std::uint64_t offset,
                                            std::uint64_t size)
{
    auto kept = kept_->numbered(number);
    if (kept == kept_->files.end())
        return Error(ErrorCode::InvalidArgument, "names file " + std::to_string(number) +
                                                     ", which its producer did not send (or said to forget)");
    if (kept->kind != kind)
        return Error(ErrorCode::InvalidArgument,
                     "names file " + std::to_string(number) + " as another kind of memory");
    if (offset > kept->whole->size || size > kept->whole->size - offset)
        return Error(ErrorCode::InvalidArgument, "names bytes " + std::to_string(offset) + ".." +
                                                     std::to_string(offset + size) +
                                                     ", past the end of file " + std::to_string(number) +
                                                     " (" + std::to_string(kept->whole->size) + " bytes)");
    return share_of(kept->whole, offset, size);
}

Result<void> ReceivedMemories::forget(std::uint64_t number)
{
    auto kept = kept_->numbered(number);
    if (kept == kept_->files.end())
        return Error(ErrorCode::InvalidArgument,
                     "forgets file " + std::to_string(number) + ", which it did not send");
    kept_->forget(kept);
    return {};
}

namespace {

// The whole file of `fd` (taken once wrapped), read-only, kept mapped from its first map on.
// Refused: a file whose sender could shrink it under a mapping.
Result<GstMemory *> whole_file(MemoryKind kind, UniqueFd &fd, std::uint64_t file_size)
{
    if (!keeps_its_pages(fd.get()))
        return Error(ErrorCode::InvalidArgument,
                     "a file its producer could shrink under this process's reads (neither a DMA-BUF nor "
                     "sealed with F_SEAL_SHRINK, as g2gipcsink's and unixfdsink's memfds are)");
    GstMemory *whole = gst_fd_allocator_alloc(allocator_for(kind).get(), fd.get(),
                                              static_cast<gsize>(file_size), GST_FD_MEMORY_FLAG_KEEP_MAPPED);
    if (!whole)
        return Error(ErrorCode::InvalidArgument, "a descriptor that cannot be wrapped");
    fd.release(); // the memory owns it now
    GST_MINI_OBJECT_FLAG_SET(whole, GST_MEMORY_FLAG_READONLY);
    return whole;
}

} // namespace

Result<GstMemory *> ReceivedMemories::wrap(MemoryKind kind, UniqueFd fd, std::uint64_t offset,
                                           std::uint64_t size, std::uint64_t file_size, std::uint64_t number)
{
    auto &files = kept_->files;
    const auto unnumbered = [](const Kept::File &file) { return file.number == 0; };
    if (number != 0) {
        if (kept_->numbered(number) != files.end())
            return Error(ErrorCode::InvalidArgument,
                         "sends file " + std::to_string(number) + " again, which it sent before");
        if (files.size() - std::count_if(files.begin(), files.end(), unnumbered) >= kMaxNamedFiles)
            return Error(ErrorCode::InvalidArgument, "sends a file past the " +
                                                         std::to_string(kMaxNamedFiles) +
                                                         " a consumer keeps, forgetting none");
        Result<GstMemory *> whole = whole_file(kind, fd, file_size);
        if (!whole)
            return whole;
        files.push_back({0, 0, kind, *whole, number});
        return share_of(*whole, offset, size);
    }
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0)
        return Error(ErrorCode::InvalidArgument,
                     std::string("a descriptor that does not stat (") + std::strerror(errno) + ")");
    auto kept = std::find_if(files.begin(), files.end(), [&](const Kept::File &file) {
        return file.number == 0 && file.device == status.st_dev && file.inode == status.st_ino &&
               file.kind == kind;
    });
    // A file that grew since it was kept is wrapped again, at its new size.
    if (kept != files.end() && offset + size > kept->whole->size) {
        kept_->forget(kept);
        kept = files.end();
    }
    if (kept != files.end()) {
        Kept::File again = *kept;
        files.erase(kept);
        files.push_back(again); // fd closes here: the kept descriptor is the same file
    } else {
        Result<GstMemory *> whole = whole_file(kind, fd, file_size);
        if (!whole)
            return whole;
        files.push_back({status.st_dev, status.st_ino, kind, *whole, 0});
        // The oldest goes, never the one just kept (kKeptFiles > 1).
        if (static_cast<std::size_t>(std::count_if(files.begin(), files.end(), unnumbered)) > kKeptFiles)
            kept_->forget(std::find_if(files.begin(), files.end(), unnumbered));
    }
    return share_of(files.back().whole, offset, size);
}

Result<BufferRef> build_frame(const NewBuffer &message, std::vector<UniqueFd> fds, const GstVideoInfo &info,
                              bool view_caps, ReceivedMemories &memories)
{
    const bool numbered = !message.files.empty();
    const std::size_t expected =
        numbered ? static_cast<std::size_t>(std::count_if(message.files.begin(), message.files.end(),
                                                          [](const FileRef &file) { return file.attached; }))
                 : message.memories.size();
    if (fds.size() != expected)
        return refused(message.id, "came with " + std::to_string(fds.size()) + " descriptors for " +
                                       std::to_string(expected) +
                                       (numbered ? " attached files" : " memories"));
    for (std::uint64_t number : message.forget)
        if (Result<void> forgotten = memories.forget(number); !forgotten)
            return refused(message.id, forgotten.error().message());
    BufferRef frame = BufferRef::adopt(gst_buffer_new());
    std::size_t next_fd = 0;
    for (std::size_t i = 0; i < message.memories.size(); ++i) {
        const WireMemory &memory = message.memories[i];
        if (numbered && !message.files[i].attached) {
            Result<GstMemory *> named =
                memories.named(message.kind, message.files[i].number, memory.offset, memory.size);
            if (!named)
                return refused(message.id, "memory " + std::to_string(i) + " " + named.error().message());
            gst_buffer_append_memory(frame.get(), *named);
            continue;
        }
        UniqueFd &fd = fds[next_fd++];
        // The descriptor's size (lseek answers for memfds and DMA-BUFs alike, where fstat may not).
        const off_t end = ::lseek(fd.get(), 0, SEEK_END);
        if (end < 0)
            return refused(message.id, "memory " + std::to_string(i) + ": its descriptor has no size (" +
                                           std::strerror(errno) + ")");
        if (memory.offset > static_cast<std::uint64_t>(end) ||
            memory.size > static_cast<std::uint64_t>(end) - memory.offset)
            return refused(message.id,
                           "memory " + std::to_string(i) + " (bytes " + std::to_string(memory.offset) + ".." +
                               std::to_string(memory.offset + memory.size) + ") lies past the end of its " +
                               std::to_string(end) + "-byte descriptor");
        Result<GstMemory *> wrapped =
            memories.wrap(message.kind, std::move(fd), memory.offset, memory.size,
                          static_cast<std::uint64_t>(end), numbered ? message.files[i].number : 0);
        if (!wrapped)
            return refused(message.id, "memory " + std::to_string(i) + ": " + wrapped.error().message());
        gst_buffer_append_memory(frame.get(), *wrapped);
    }
    set_fields(frame.get(), message);

    const MetaRecord *layout = nullptr;
    const MetaRecord *view = nullptr;
    for (const MetaRecord &record : message.metas) {
        if (record.name == kVideoMetaName)
            layout = &record;
        else if (record.name == kViewRecordName)
            view = &record;
        // Other metas are skipped, as unixfdsrc skips those it does not know.
    }
    if (layout) {
        Result<WireVideoMeta> decoded = decode_video_meta(*layout);
        if (!decoded)
            return refused(message.id, decoded.error().message());
        if (decoded->format != GST_VIDEO_INFO_FORMAT(&info))
            return refused(message.id,
                           std::string("lays out ") +
                               gst_video_format_to_string(static_cast<GstVideoFormat>(decoded->format)) +
                               " in a stream of " + gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
        add_video_meta(frame.get(), *decoded);
    }
    if (view_caps && !view)
        return refused(message.id, "arrived in view caps (meta:G2gTensorView) without its view");
    // A view travels only in caps that say so: a reader of these caps would read the source's bytes.
    if (view && !view_caps)
        return refused(message.id, "carries a view in caps without meta:G2gTensorView");
    if (view) {
        Result<FrameView> decoded = decode_view(*view, frame.get(), info, info);
        if (!decoded)
            return refused(message.id, decoded.error().message());
        attach_tensor_view(frame.get(), std::move(*decoded));
        return frame;
    }
    // The layout a reader will read: checked now, against the memories that came (FrameView's
    // check where a view can describe the format, else each plane's extent).
    if (FrameView::supports_format(GST_VIDEO_INFO_FORMAT(&info))) {
        if (Result<FrameView> readable = FrameView::of_frame(frame.get(), info); !readable)
            return refused(message.id, readable.error().message());
    } else if (Result<void> inside =
                   planes_inside(layout_of(frame.get(), info), gst_buffer_get_size(frame.get()));
               !inside) {
        return refused(message.id, inside.error().message());
    }
    return frame;
}

} // namespace g2g::ipc
