// SPDX-License-Identifier: LGPL-2.1-or-later
// Messages of ipc-wire on a unix stream socket: the header sent with the message's file
// descriptors (SCM_RIGHTS, as unixfdsink sends them), then the payload; received the same way.
// Every descriptor that arrives is owned at once (closed with its message, on any refusal too).
#pragma once

#include <sys/un.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <g2g/error.h>

#include "ipc-wire.h"

namespace g2g::ipc {

// A file descriptor, closed when its owner goes.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
    UniqueFd &operator=(UniqueFd &&other) noexcept;
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    ~UniqueFd();

    int get() const { return fd_; }
    int release();
    explicit operator bool() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

struct Message {
    Header header;
    std::vector<std::uint8_t> payload;
    std::vector<UniqueFd> fds;
};

// Sends one message; `fds` (not taken) travel with its header.
Result<void> send_message(int socket, MessageType type, std::span<const std::uint8_t> payload,
                          std::span<const int> fds = {});

// Receives one message, waiting for it. Refused: a peer that closed the connection (its text says
// so: "the peer closed the connection"), a header ipc-wire refuses, descriptors the kernel had to
// drop (more than kMaxMemories came), a payload cut short by the connection's end.
Result<Message> receive_message(int socket);

// The address of the socket file at `path`; refused: an empty path, or one longer than an address
// holds.
Result<sockaddr_un> socket_address(const std::string &path);

// A connection to the stream socket at `path`.
Result<UniqueFd> connect_to(const std::string &path);
// What is at `path` where it is not a socket ("a folder", "a file that is not a socket", "a
// symbolic link"); empty where nothing is there or a socket is: no producer ever listens where a
// file or a folder is. `follow`: a symbolic link is taken for what it points to (a consumer
// connects through one), else for itself (a producer never replaces one).
std::string not_a_socket_at(const std::string &path, bool follow);

} // namespace g2g::ipc
