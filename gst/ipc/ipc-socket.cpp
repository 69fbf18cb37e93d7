// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ipc-socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace g2g::ipc {

namespace {

Error failed(const std::string &what, int error)
{
    return Error(ErrorCode::InvalidArgument, what + ": " + std::strerror(error));
}

// Room for the most descriptors a message may carry, and one more to notice a peer sending more.
constexpr std::size_t kFdRoom = kMaxMemories + 1;

} // namespace

UniqueFd &UniqueFd::operator=(UniqueFd &&other) noexcept
{
    if (this != &other) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

UniqueFd::~UniqueFd()
{
    if (fd_ >= 0)
        ::close(fd_);
}

int UniqueFd::release()
{
    const int fd = fd_;
    fd_ = -1;
    return fd;
}

Result<void> send_message(int socket, MessageType type, std::span<const std::uint8_t> payload,
                          std::span<const int> fds)
{
    if (fds.size() > kMaxMemories)
        return Error(ErrorCode::InvalidArgument, "a message carries at most " + std::to_string(kMaxMemories) +
                                                     " file descriptors, not " + std::to_string(fds.size()));
    std::vector<std::uint8_t> header =
        encode_header({static_cast<std::uint32_t>(type), static_cast<std::uint32_t>(payload.size())});
    // Header and payload in one sendmsg, the descriptors with them: one system call and one wake-up
    // of the reader. The bytes are unixfd's either way (unixfdsink sends the payload apart from 1.26.7
    // on, and its readers read the header, then the payload, whatever the segmentation).
    iovec parts[2] = {{header.data(), header.size()},
                      {const_cast<std::uint8_t *>(payload.data()), payload.size()}};
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = payload.empty() ? 1 : 2;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxMemories)] = {};
    if (!fds.empty()) {
        message.msg_control = control;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
        cmsghdr *rights = CMSG_FIRSTHDR(&message);
        rights->cmsg_level = SOL_SOCKET;
        rights->cmsg_type = SCM_RIGHTS;
        rights->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(rights), fds.data(), sizeof(int) * fds.size());
    }
    ssize_t sent;
    do
        sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return failed("cannot send a message", errno);
    // What the socket did not take at once (a full buffer: a large payload), sent after.
    std::size_t done = static_cast<std::size_t>(sent);
    const std::size_t total = header.size() + payload.size();
    while (done < total) {
        const bool in_header = done < header.size();
        const std::uint8_t *from = in_header ? header.data() + done : payload.data() + (done - header.size());
        const std::size_t left = in_header ? header.size() - done : total - done;
        const ssize_t n = ::send(socket, from, left, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failed("cannot send a message", errno);
        done += static_cast<std::size_t>(n);
    }
    return {};
}

Result<Message> receive_message(int socket)
{
    Message received;
    std::uint8_t header[kHeaderSize];
    std::size_t got = 0;
    // The descriptors come with the header's first bytes; the rest of the header may follow.
    while (got < kHeaderSize) {
        iovec part{header + got, kHeaderSize - got};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kFdRoom)] = {};
        msghdr message{};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failed("cannot receive a message", errno);
        for (cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (std::size_t i = 0; i < count; ++i) {
                int fd;
                std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                received.fds.emplace_back(fd);
            }
        }
        if (message.msg_flags & MSG_CTRUNC)
            return Error(ErrorCode::InvalidArgument, "a message came with more file descriptors than " +
                                                         std::to_string(kMaxMemories) + ": refused");
        if (n == 0)
            return Error(ErrorCode::InvalidArgument,
                         got == 0 ? "the peer closed the connection"
                                  : "the peer closed the connection inside a message header");
        got += static_cast<std::size_t>(n);
    }
    Result<Header> decoded = decode_header(header);
    if (!decoded)
        return decoded.error();
    received.header = *decoded;
    received.payload.resize(received.header.payload_size);
    std::size_t done = 0;
    while (done < received.payload.size()) {
        const ssize_t n = ::recv(socket, received.payload.data() + done, received.payload.size() - done, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failed("cannot receive a message payload", errno);
        if (n == 0)
            return Error(ErrorCode::InvalidArgument, "the peer closed the connection after " +
                                                         std::to_string(done) + " of a payload's " +
                                                         std::to_string(received.payload.size()) + " bytes");
        done += static_cast<std::size_t>(n);
    }
    return received;
}

Result<sockaddr_un> socket_address(const std::string &path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path)
        return Error(ErrorCode::InvalidArgument, "socket path \"" + path + "\" is empty or longer than " +
                                                     std::to_string(sizeof address.sun_path - 1) + " bytes");
    std::memcpy(address.sun_path, path.c_str(), path.size());
    return address;
}

std::string not_a_socket_at(const std::string &path, bool follow)
{
    struct stat there {};
    if ((follow ? ::stat(path.c_str(), &there) : ::lstat(path.c_str(), &there)) != 0 ||
        S_ISSOCK(there.st_mode))
        return {};
    return S_ISDIR(there.st_mode)   ? "a folder"
           : S_ISLNK(there.st_mode) ? "a symbolic link"
                                    : "a file that is not a socket";
}

Result<UniqueFd> connect_to(const std::string &path)
{
    Result<sockaddr_un> address = socket_address(path);
    if (!address)
        return address.error();
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd)
        return failed("cannot make a socket", errno);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr *>(&*address), sizeof *address) < 0)
        return failed("cannot connect to " + path, errno);
    return fd;
}

} // namespace g2g::ipc
