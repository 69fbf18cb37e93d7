// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for pipelines in other processes: a scratch folder, and a gst-launch-1.0 (or any
// shell command) run as a child process, waited for or killed.
#pragma once

#include <string>

#include <glib.h>

namespace g2g::test {

// A folder of the test's own under /tmp, removed with it.
class Scratch {
public:
    explicit Scratch(const char *prefix = "g2g-test");
    ~Scratch();
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    std::string path(const std::string &name) const { return dir_ + "/" + name; }

private:
    std::string dir_;
};

// `sh -c script` as a child process (its own process group: kill() reaches what it runs).
class ChildProcess {
public:
    explicit ChildProcess(const std::string &script);
    ~ChildProcess(); // kills it if it still runs, and waits
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    bool started() const { return started_; }
    GPid pid() const { return pid_; }
    // Its exit status: -1 when it did not start or did not exit normally (killed).
    int wait();
    // SIGKILL to its process group; waits for it.
    void kill();

private:
    GPid pid_ = 0;
    bool started_ = false;
};

// A script that waits (up to 10 s) for the socket file `socket`, then runs gst-launch-1.0 `options`
// `pipeline` with the registry `registry`, its stdout and stderr to `log`, for at most 60 s.
std::string launch_when_socket(const std::string &socket, const std::string &pipeline,
                               const std::string &registry, const std::string &log,
                               const std::string &options = "-q");

// A script that runs gst-launch-1.0 `options` `pipeline` likewise, at once (-q prints errors only;
// "" prints warnings too, -m every message).
std::string launch(const std::string &pipeline, const std::string &registry, const std::string &log,
                   const std::string &options = "-q");

// Why GStreamer's unixfdsink and unixfdsrc cannot be peers of a test that compares frame by frame
// ("" when they can): 1.22 has none (they came in 1.24), and 1.24's unixfdsink cannot wait for
// its receiver (wait-for-connection came in 1.26), so it drops the frames before it connects.
std::string unixfd_peers_missing();

// The whole file at `path` ("" when none).
std::string read_file(const std::string &path);

} // namespace g2g::test
