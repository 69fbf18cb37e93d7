// SPDX-License-Identifier: LGPL-2.1-or-later
// What every fuzz target shares: GStreamer's start (with this build's plugin) and GLib
// criticals and warnings made fatal while an input runs, so that a g_return_if_fail that an
// input trips is a crash the fuzzer keeps, not a line in a log.
#pragma once

#include <glib.h>

namespace g2g::fuzz {

// gst_init without the fuzzer's arguments (GStreamer's option parser must not see or change
// them), once.
void init_gstreamer(int *argc, char ***argv);

// While alive, GLib criticals and warnings abort (the previous fatal mask comes back after).
class FatalWarnings {
public:
    FatalWarnings();
    ~FatalWarnings();
    FatalWarnings(const FatalWarnings &) = delete;
    FatalWarnings &operator=(const FatalWarnings &) = delete;

private:
    GLogLevelFlags previous_;
};

} // namespace g2g::fuzz
