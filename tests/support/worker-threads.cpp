// SPDX-License-Identifier: LGPL-2.1-or-later
#include "worker-threads.h"

#include <glib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace g2g::test {

unsigned worker_threads()
{
    unsigned count = 0;
    std::error_code failed;
    for (const auto &task : std::filesystem::directory_iterator("/proc/self/task", failed)) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        if (std::getline(comm, name) && name == "g2g-worker")
            ++count;
    }
    return count;
}

unsigned worker_threads_settled(unsigned expected)
{
    unsigned now = worker_threads();
    for (int i = 0; i < 100 && now != expected; ++i) {
        g_usleep(10000);
        now = worker_threads();
    }
    return now;
}

} // namespace g2g::test
