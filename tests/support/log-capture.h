// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: the GLib log messages of some domains while it lives, from any thread: a test
// asserts that what it ran raised no warning or critical (g_return_if_fail, "Trying to dispose
// element ...", GObject's "value is out of range"), or exactly the ones a peer raises. While it
// lives the messages are kept, not printed.
#pragma once

#include <glib.h>

#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

namespace g2g::test {

class LogCapture {
public:
    // The domains GStreamer's and GLib's own complaints are logged in.
    static constexpr std::initializer_list<const char *> kGStreamerAndGLib = {"GStreamer", "GLib-GObject",
                                                                              "GLib"};

    explicit LogCapture(std::initializer_list<const char *> domains = kGStreamerAndGLib,
                        GLogLevelFlags levels = static_cast<GLogLevelFlags>(G_LOG_LEVEL_CRITICAL |
                                                                            G_LOG_LEVEL_WARNING));
    ~LogCapture();
    LogCapture(const LogCapture &) = delete;
    LogCapture &operator=(const LogCapture &) = delete;

    // The messages so far, in order (their text only, as GLib formatted it).
    std::vector<std::string> said() const;
    // The same, forgetting them.
    std::vector<std::string> take();

private:
    static void keep(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer self);

    std::vector<std::pair<const char *, guint>> handlers_;
    mutable std::mutex lock_;
    std::vector<std::string> said_;
};

} // namespace g2g::test
