// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-lane.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>

#include "ipc-wire.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010 // Linux 5.1
#endif

namespace g2g::ipc {

namespace {

Error refused(const std::string &what)
{
    return Error(ErrorCode::InvalidArgument, what);
}

Error failed(const std::string &what, int error)
{
    return Error(ErrorCode::InvalidArgument, what + ": " + std::strerror(error));
}

constexpr std::size_t padded(std::size_t size)
{
    return (size + 7) & ~std::size_t(7);
}

// Copies between the ring and a buffer, the ring's end wrapping to its start.
void copy_in(std::uint8_t *ring, std::uint64_t position, const std::uint8_t *from, std::size_t size)
{
    if (size == 0)
        return; // an empty payload's data may be null, which memcpy may not be given
    const std::size_t at = position % kLaneBytes;
    const std::size_t first = std::min(size, kLaneBytes - at);
    std::memcpy(ring + at, from, first);
    std::memcpy(ring, from + first, size - first);
}

void copy_out(const std::uint8_t *ring, std::uint64_t position, std::uint8_t *to, std::size_t size)
{
    if (size == 0)
        return;
    const std::size_t at = position % kLaneBytes;
    const std::size_t first = std::min(size, kLaneBytes - at);
    std::memcpy(to, ring + at, first);
    std::memcpy(to + first, ring, size - first);
}

long futex(const void *word, int op, std::uint32_t value, const timespec *timeout)
{
    return ::syscall(SYS_futex, word, op, value, timeout, nullptr, 0);
}

} // namespace

SharedPages::SharedPages(SharedPages &&other) noexcept
    : fd_(std::move(other.fd_)), data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0))
{
}

SharedPages &SharedPages::operator=(SharedPages &&other) noexcept
{
    if (this != &other) {
        if (data_)
            ::munmap(data_, size_);
        fd_ = std::move(other.fd_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

SharedPages::~SharedPages()
{
    if (data_)
        ::munmap(data_, size_);
}

Result<SharedPages> SharedPages::create(const char *name, std::size_t size, bool read_only_for_others)
{
    SharedPages pages;
    pages.fd_ = UniqueFd(::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!pages.fd_)
        return failed(std::string("cannot make the ") + name + " memfd", errno);
    if (::ftruncate(pages.fd_.get(), static_cast<off_t>(size)) < 0)
        return failed(std::string("cannot size the ") + name + " memfd", errno);
    void *data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, pages.fd_.get(), 0);
    if (data == MAP_FAILED)
        return failed(std::string("cannot map the ") + name + " memfd", errno);
    pages.data_ = data;
    pages.size_ = size;
    // Sealed after this process's writable mapping: the future-write seal keeps only later ones out.
    const int seals = F_SEAL_SHRINK | F_SEAL_GROW | (read_only_for_others ? F_SEAL_FUTURE_WRITE : 0);
    if (::fcntl(pages.fd_.get(), F_ADD_SEALS, seals) < 0)
        return failed(std::string("cannot seal the ") + name + " memfd", errno);
    return pages;
}

Result<SharedPages> SharedPages::map(UniqueFd fd, std::size_t size, bool writable, const char *what)
{
    struct stat status {};
    if (::fstat(fd.get(), &status) < 0)
        return failed(std::string("cannot read the ") + what, errno);
    if (!S_ISREG(status.st_mode) || static_cast<std::uint64_t>(status.st_size) != size)
        return refused(std::string("the ") + what + " is " + std::to_string(status.st_size) + " bytes, not " +
                       std::to_string(size));
    const int seals = ::fcntl(fd.get(), F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK))
        return refused(std::string("the ") + what + " is not sealed against shrinking");
    void *data = ::mmap(nullptr, size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd.get(), 0);
    if (data == MAP_FAILED)
        return failed(std::string("cannot map the ") + what, errno);
    SharedPages pages;
    pages.fd_ = std::move(fd);
    pages.data_ = data;
    pages.size_ = size;
    return pages;
}

Result<LaneWriter> LaneWriter::create()
{
    Result<SharedPages> pages = SharedPages::create("g2g-lane", sizeof(LaneLayout), false);
    if (!pages)
        return pages.error();
    LaneWriter writer;
    writer.pages_ = std::move(*pages);
    LaneLayout *lane = writer.layout();
    lane->magic = kLaneMagic;
    lane->version = kLaneVersion;
    lane->bytes = kLaneBytes;
    lane->releases = kLaneReleases;
    return writer;
}

bool LaneWriter::write(std::uint32_t type, std::span<const std::uint8_t> payload, std::uint32_t descriptors)
{
    LaneLayout *lane = layout();
    const std::uint64_t read = lane->read.load(std::memory_order_acquire);
    const std::size_t size = kLaneRecordHeader + padded(payload.size());
    // A read position past what was written is the consumer's lie: it gets no room.
    if (read > written_ || written_ - read + size > kLaneBytes || payload.size() > kMaxPayload)
        return false;
    const std::uint32_t header[4] = {type, static_cast<std::uint32_t>(payload.size()), descriptors, 0};
    copy_in(lane->records, written_, reinterpret_cast<const std::uint8_t *>(header), sizeof header);
    copy_in(lane->records, written_ + kLaneRecordHeader, payload.data(), payload.size());
    written_ += size;
    lane->written.store(written_, std::memory_order_release);
    return true;
}

Result<void> LaneWriter::take_releases(std::vector<std::uint64_t> &ids)
{
    LaneLayout *lane = layout();
    const std::uint64_t released = lane->released.load(std::memory_order_acquire);
    if (released < reaped_ || released - reaped_ > kLaneReleases)
        return refused("its lane's release count went from " + std::to_string(reaped_) + " to " +
                       std::to_string(released));
    for (; reaped_ < released; ++reaped_)
        ids.push_back(lane->ids[reaped_ % kLaneReleases]);
    lane->reaped.store(reaped_, std::memory_order_release);
    return {};
}

Result<LaneReader> LaneReader::map(UniqueFd fd)
{
    Result<SharedPages> pages = SharedPages::map(std::move(fd), sizeof(LaneLayout), true, "lane");
    if (!pages)
        return pages.error();
    LaneReader reader;
    reader.pages_ = std::move(*pages);
    const LaneLayout *lane = reader.layout();
    if (lane->magic != kLaneMagic || lane->version != kLaneVersion || lane->bytes != kLaneBytes ||
        lane->releases != kLaneReleases)
        return refused("the lane is not of this version (magic " + std::to_string(lane->magic) +
                       ", version " + std::to_string(lane->version) + ")");
    // A lane is given at its start: anything written before is a producer's mistake, found at next().
    reader.read_ = lane->read.load(std::memory_order_relaxed);
    reader.released_ = lane->released.load(std::memory_order_relaxed);
    return reader;
}

bool LaneReader::pending() const
{
    return layout()->written.load(std::memory_order_acquire) != read_;
}

Result<std::optional<LaneRecord>> LaneReader::next()
{
    LaneLayout *lane = layout();
    const std::uint64_t written = lane->written.load(std::memory_order_acquire);
    if (written == read_)
        return std::optional<LaneRecord>();
    if (written < read_ || written - read_ > kLaneBytes)
        return refused("its lane says " + std::to_string(written) + " bytes were written where " +
                       std::to_string(read_) + " were read");
    const std::uint64_t available = written - read_;
    if (available < kLaneRecordHeader)
        return refused("its lane holds " + std::to_string(available) + " bytes, less than a record's header");
    std::uint32_t header[4];
    copy_out(lane->records, read_, reinterpret_cast<std::uint8_t *>(header), sizeof header);
    if (header[1] >= kMaxPayload || kLaneRecordHeader + padded(header[1]) > available)
        return refused("its lane's record of " + std::to_string(header[1]) + " bytes is past the " +
                       std::to_string(available) + " written");
    if (header[2] > kMaxMemories)
        return refused("its lane's record names " + std::to_string(header[2]) + " descriptors, more than " +
                       std::to_string(kMaxMemories));
    LaneRecord record;
    record.type = header[0];
    record.descriptors = header[2];
    record.payload.resize(header[1]);
    copy_out(lane->records, read_ + kLaneRecordHeader, record.payload.data(), header[1]);
    read_ += kLaneRecordHeader + padded(header[1]);
    lane->read.store(read_, std::memory_order_release);
    return std::optional<LaneRecord>(std::move(record));
}

bool LaneReader::release(std::uint64_t id)
{
    LaneLayout *lane = layout();
    const std::uint64_t reaped = lane->reaped.load(std::memory_order_acquire);
    if (released_ - reaped >= kLaneReleases || reaped > released_)
        return false;
    lane->ids[released_ % kLaneReleases] = id;
    ++released_;
    lane->released.store(released_, std::memory_order_release);
    return true;
}

Result<void> check_doorbell(int fd)
{
    char target[64] = {};
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
    if (length < 0 || std::string(target, static_cast<std::size_t>(length)) != "anon_inode:[eventfd]")
        return refused("its doorbell is " +
                       (length < 0 ? std::string("no file") : std::string(target, length)) +
                       ", not an eventfd");
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return failed("cannot make its doorbell non-blocking", errno);
    return {};
}

Result<Bell> Bell::create()
{
    Result<SharedPages> pages = SharedPages::create("g2g-bell", 4096, true);
    if (!pages)
        return pages.error();
    Bell bell;
    bell.pages_ = std::move(*pages);
    return bell;
}

Result<Bell> Bell::map(UniqueFd fd)
{
    Result<SharedPages> pages = SharedPages::map(std::move(fd), 4096, false, "bell");
    if (!pages)
        return pages.error();
    Bell bell;
    bell.pages_ = std::move(*pages);
    return bell;
}

std::uint32_t Bell::value() const
{
    return word()->load(std::memory_order_acquire);
}

std::int64_t Bell::rang_ns() const
{
    return page()->rang_ns.load(std::memory_order_acquire);
}

void Bell::ring()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    page()->rang_ns.store(std::int64_t(now.tv_sec) * 1000000000 + now.tv_nsec, std::memory_order_relaxed);
    word()->fetch_add(1, std::memory_order_release);
    wake_all();
}

void Bell::wake_all()
{
    // Not FUTEX_PRIVATE_FLAG: the waiters are other processes, the word found by its page.
    futex(word(), FUTEX_WAKE, INT_MAX, nullptr);
}

bool Bell::wait_ns(std::uint32_t seen, std::int64_t timeout_ns) const
{
    const timespec timeout{static_cast<time_t>(timeout_ns / 1000000000),
                           static_cast<long>(timeout_ns % 1000000000)};
    return futex(word(), FUTEX_WAIT, seen, &timeout) == 0 || errno != ETIMEDOUT;
}

} // namespace g2g::ipc
