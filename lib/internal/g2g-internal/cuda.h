// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA part of the plugin's contract with the library (plugin-interface.h says what the
// contract is): internal, never installed, no ABI promise. It includes GStreamer's CUDA library,
// so only code built with the cuda feature includes it (gst/ipc/ipc-cuda.cpp).
#pragma once

// CUDA memory across processes by the driver's IPC handles: cuda::export_memory, IpcOpened
// (g2gipcsink's and g2gipcsrc's CUDA route).
#include "../../src/platform/cuda/cuda-ipc.h"
