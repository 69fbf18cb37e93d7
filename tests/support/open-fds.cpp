// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for fd lifetimes (see open-fds.h).
#include "open-fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

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

int open_frame_fd_count()
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return -1;
    int count = 0;
    while (const dirent *entry = readdir(dir)) {
        if (entry->d_name[0] == '.')
            continue;
        char target[256] = "";
        const std::string link = std::string("/proc/self/fd/") + entry->d_name;
        const ssize_t length = readlink(link.c_str(), target, sizeof target - 1);
        if (length <= 0)
            continue;
        const std::string what(target, static_cast<std::size_t>(length));
        if (what.rfind("/memfd:", 0) == 0 || what.find("dmabuf") != std::string::npos)
            ++count;
    }
    closedir(dir);
    return count;
}

bool fd_is_open(int fd)
{
    return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

} // namespace g2g::test
