// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for fd lifetimes (see open-fds.h).
#include "open-fds.h"

#include <dirent.h>
#include <fcntl.h>

namespace g2g::test {

int open_fd_count()
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return -1;
    int count = 0;
    while (const dirent *entry = readdir(dir)) {
        if (entry->d_name[0] != '.')
            ++count;
    }
    closedir(dir);
    return count - 1; // the directory's own fd
}

bool fd_is_open(int fd)
{
    return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

} // namespace g2g::test
