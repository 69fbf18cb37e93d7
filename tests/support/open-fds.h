// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for fd lifetimes: how many fds the process holds, and whether one is open, so that
// a test of DMA-BUF frames can tell an fd closed once, after its last share, from one leaked or
// closed early.
#pragma once

namespace g2g::test {

// The entries of /proc/self/fd, not counting the one this count opens to read it.
int open_fd_count();

// The fds of this process that hold frame memory: memfds ("/memfd:...") and DMA-BUFs
// ("anon_inode:dmabuf", "/dmabuf:..."). What a pipeline test counts: GStreamer's own fds (a bus's
// poll, a task's eventfd) may close a moment after the pipeline is gone, frames' may not.
int open_frame_fd_count();

// True when `fd` is an open fd of this process (fcntl F_GETFD answers).
bool fd_is_open(int fd);

} // namespace g2g::test
