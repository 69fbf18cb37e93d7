// SPDX-License-Identifier: LGPL-2.1-or-later
// main() for every g2g test program: GStreamer up, GoogleTest, GStreamer down. With
// GST_TRACERS=leaks the leaks tracer reports at gst_deinit(); a report fails the program.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstring>

namespace {

bool leaks_reported = false;

void watch_for_leak_report(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
    if (message && std::strstr(message, "Leaks detected"))
        leaks_reported = true;
    g_log_default_handler(domain, level, message, data);
}

} // namespace

int main(int argc, char **argv)
{
    testing::InitGoogleTest(&argc, argv);
    gst_init(&argc, &argv);
    g_log_set_default_handler(watch_for_leak_report, nullptr);
    int status = RUN_ALL_TESTS();
    gst_deinit();
    if (leaks_reported) {
        std::fprintf(stderr, "FAILED: the GStreamer leaks tracer reported leaked objects\n");
        status = 1;
    }
    return status;
}
