// SPDX-License-Identifier: LGPL-2.1-or-later
// A frame of fd memory (System frames in memfds, DMA-BUFs) as it crosses a process boundary
// (issue 33): what NEW_BUFFER says of it, and the frame the consumer makes again from that
// message and the descriptors that came with it. The memory is never copied: the consumer's
// frame maps the producer's pages. What a view reads crosses as its layout (a GstVideoMeta
// record) and the view as g2g's record (ipc-view); both are checked, in the consumer, by the same
// code as a frame made in its own process.
#pragma once

#include <gst/video/video.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

#include "ipc-socket.h"
#include "ipc-wire.h"

namespace g2g::ipc {

// What crosses for a frame: its message, and its memories' descriptors in order (borrowed from
// the frame's memories: valid while the frame lives); for fd memory, the number of each one's file
// (file_number), which lets the server send a consumer each file's descriptor once.
struct OutgoingFrame {
    NewBuffer message;
    std::vector<int> fds;
    std::vector<std::uint64_t> file_numbers; // one per fd, or none
};

// The number of `memory`'s file in this process: given the first time a frame of it is described,
// kept on the memory that owns the descriptor (a share's parent) for as long as that lives, never
// given again. A pool's memfds keep theirs frame after frame; a file made anew gets a new one.
std::uint64_t file_number(GstMemory *memory);

// NEW_BUFFER's fields of `frame` (its times, offsets and flags), id `id`, no memory or meta yet;
// and the same fields put back on a frame that arrived.
NewBuffer message_of(GstBuffer *frame, std::uint64_t id);
void set_fields(GstBuffer *frame, const NewBuffer &message);

// The message of `frame` (caps `info`), id `id`. Its metas: the layout of the memory it reads
// (the view's source layout, or the frame's GstVideoMeta; none where the caps' layout is the
// memory's) and the view it carries. Refused: memory that is not fd memory (named, as the element
// has to make it so), DMA-BUF memory beside other fd memory, more memories than a message carries.
Result<OutgoingFrame> describe_frame(GstBuffer *frame, std::uint64_t id);

// Each plane of `layout` (its offsets and strides) ends inside `size` bytes, in exact arithmetic:
// for the formats a FrameView does not describe, and memory no FrameView maps (CUDA's).
Result<void> planes_inside(const GstVideoInfo &layout, std::uint64_t size);

// The files one consumer keeps, as its producer counts them: a frame's message for that consumer
// names each file it keeps by number and attaches the others (kept from then on), and has it
// forget the least recently named where it would keep more than kMaxNamedFiles (never one the
// frame names: a frame has at most 16 memories). ReceivedMemories does the same on the other side.
class FilesSent {
public:
    // What `frame`'s message says of its files for this consumer (with_files), and the descriptors
    // that go with it.
    struct Addressed {
        std::vector<FileRef> files;
        std::vector<std::uint64_t> forget;
        std::vector<int> fds;
    };
    Addressed address(const OutgoingFrame &frame);
    void clear() { kept_.clear(); }

private:
    std::deque<std::uint64_t> kept_; // the most recently named last
};

// The memories a consumer wrapped, kept mapped by file. A producer's pool sends the same memfds
// (and DMA-BUFs) frame after frame: a memory wrapped anew for each arrival is mapped anew when it is
// read, a page fault for every page of every frame. So each file is wrapped once (kept mapped from
// its first map on) and each frame's memory is a share of it (the same pages, read-only). A file
// g2gipcsink numbered (FileRef) is kept under its number until the producer says to forget it, at
// most kMaxNamedFiles; unixfdsink's come with a descriptor every frame, and one of a file already
// kept is closed at once (a kept file stays open, so it stays that file: its st_dev and st_ino
// name it), the last kKeptFiles kept. clear() lets go of every file (a new stream's caps, which
// the producer sends after it forgot what it numbered for this consumer).
class ReceivedMemories {
public:
    ReceivedMemories();
    ~ReceivedMemories();
    ReceivedMemories(const ReceivedMemories &) = delete;
    ReceivedMemories &operator=(const ReceivedMemories &) = delete;
    // A read-only memory of bytes [offset, offset + size) of `fd`'s file (taken), `file_size` bytes
    // long (checked by the caller to hold the range), as DMA-BUF memory where `kind` says so.
    // Refused: a file whose sender could shrink it under a mapping (a SIGBUS for its reader):
    // neither a DMA-BUF nor sealed with F_SEAL_SHRINK.
    // `number`: the producer's number of the file (0: none), kept under it.
    Result<GstMemory *> wrap(MemoryKind kind, UniqueFd fd, std::uint64_t offset, std::uint64_t size,
                             std::uint64_t file_size, std::uint64_t number = 0);
    // A read-only memory of bytes [offset, offset + size) of the file kept as `number`. Refused: a
    // number not kept, a range past the file's end, a file of another kind.
    Result<GstMemory *> named(MemoryKind kind, std::uint64_t number, std::uint64_t offset,
                              std::uint64_t size);
    // Lets go of the file kept as `number` (frames out keep their memories); refused where none is.
    Result<void> forget(std::uint64_t number);
    void clear();

    static constexpr std::size_t kKeptFiles = 32; // more than a producer's pool holds

private:
    struct Kept;
    std::unique_ptr<Kept> kept_;
};

// The frame `message` describes, its memories wrapping `fds` (taken; each owned by its memory
// once wrapped, through `memories`), read-only, laid out by the GstVideoMeta record where there is one,
// carrying the view where there is one. `info`: the stream's caps; `view_caps`: they carry meta:G2gTensorView
// (a frame without its view record is refused there). Refused before anything is read: a memory
// past the end of its descriptor, a layout outside the memories (FrameView::of_frame's check), a
// view record decode_view refuses.
Result<BufferRef> build_frame(const NewBuffer &message, std::vector<UniqueFd> fds, const GstVideoInfo &info,
                              bool view_caps, ReceivedMemories &memories);

} // namespace g2g::ipc
