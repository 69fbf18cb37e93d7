// SPDX-License-Identifier: LGPL-2.1-or-later
#include "processes.h"

#include <gst/gst.h>

#include "pipeline.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace g2g::test {

Scratch::Scratch(const char *prefix)
{
    std::string pattern = std::string("/tmp/") + prefix + "-XXXXXX";
    dir_ = g_mkdtemp(pattern.data()) ? pattern : "";
}

Scratch::~Scratch()
{
    if (!dir_.empty())
        std::system(("rm -rf '" + dir_ + "'").c_str());
}

namespace {

void own_process_group(gpointer)
{
    setpgid(0, 0);
}

} // namespace

ChildProcess::ChildProcess(const std::string &script)
{
    gchar *argv[] = {const_cast<gchar *>("sh"), const_cast<gchar *>("-c"),
                     const_cast<gchar *>(script.c_str()), nullptr};
    started_ = g_spawn_async(nullptr, argv, nullptr,
                             static_cast<GSpawnFlags>(G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD),
                             own_process_group, nullptr, &pid_, nullptr);
}

ChildProcess::~ChildProcess()
{
    if (started_)
        kill();
}

int ChildProcess::wait()
{
    if (!started_)
        return -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    g_spawn_close_pid(pid_);
    started_ = false;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void ChildProcess::kill()
{
    if (!started_)
        return;
    ::kill(-pid_, SIGKILL);
    wait();
}

namespace {

// In the sanitizer build the plugin a child's gst-launch-1.0 loads needs the sanitizers' runtimes
// first in the process (gst-launch-1.0 is not built with them): preloaded, as the compiler names
// them. LeakSanitizer is left to the test programs: a gst-launch-1.0 ends with GStreamer's own
// allocations still held.
#ifdef G2G_SANITIZED_BUILD
constexpr const char *kChildRuntime =
    "LD_PRELOAD=\"$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)\" "
    "ASAN_OPTIONS=detect_leaks=0 ";
#else
constexpr const char *kChildRuntime = "";
#endif

} // namespace

std::string launch(const std::string &pipeline, const std::string &registry, const std::string &log,
                   const std::string &options)
{
    return "GST_REGISTRY='" + registry + "' " + kChildRuntime + "exec timeout 60 gst-launch-1.0 " + options +
           " " + pipeline + " > '" + log + "' 2>&1";
}

std::string launch_when_socket(const std::string &socket, const std::string &pipeline,
                               const std::string &registry, const std::string &log,
                               const std::string &options)
{
    return "i=0; while [ ! -S '" + socket + "' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; " +
           launch(pipeline, registry, log, options);
}

std::string unixfd_peers_missing()
{
    if (!have_element("unixfdsink") || !have_element("unixfdsrc"))
        return gstreamer_version() + " has no unixfdsink / unixfdsrc (they came in 1.24)";
    GstElement *sink = gst_element_factory_make("unixfdsink", nullptr);
    const bool waits = g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "wait-for-connection");
    gst_object_unref(gst_object_ref_sink(sink));
    if (!waits)
        return gstreamer_version() +
               "'s unixfdsink has no wait-for-connection (1.26 added it): it drops the frames it gets before "
               "the receiver connects, so no run can be compared frame by frame";
    return {};
}

std::string read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace g2g::test
