// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gipcsink and g2gipcsrc: frames across processes, their memory by descriptor (issue 33).
//
// gst/ipc/ holds them:
//   g2gipcsink    the producer's end: a sink that serves any number of consumer processes
//   g2gipcsrc     a consumer's end: a live source reading one producer
//   ipc-routes    what each consumer takes and each frame's form for it, made once per route
//   ipc-server    the producer's socket: consumers joining and leaving, the frames each holds
//   ipc-clock     NEW_BUFFER's clock times, unixfd's formula
//   ipc-control   g2g's messages beside unixfd's (HELLO, REFUSED, SEGMENT, flushes, stream times)
//   ipc-frame     a frame as a message and its descriptors, and back (ipc-view: a view's record)
//   ipc-wire      unixfdsink's wire format; ipc-socket: its messages on a socket
#pragma once

#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define G2G_TYPE_IPC_SINK (g2g_ipc_sink_get_type())
G_DECLARE_FINAL_TYPE(G2gIpcSink, g2g_ipc_sink, G2G, IPC_SINK, GstBaseSink)

G_END_DECLS
