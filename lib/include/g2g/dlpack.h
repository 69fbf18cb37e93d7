/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plane of a G2gFrame as a DLPack tensor, for C apps and language bindings (python/g2g calls
 * these; the C++ side: g2g/tensor-frame.h). Not introspectable: DLPack's structs are its own ABI.
 *
 *   DLManagedTensor *luma = g2g_frame_plane_to_dlpack (frame, 0, G2G_TENSOR_EXPORT_DEFAULT, &error);
 *   ... hand it to a consumer, which calls luma->deleter (luma) when done with it ...
 *
 * The tensor points into the frame's memory (or its dense copy) and holds the frame until its
 * deleter runs: the frame's buffer and mappings are released when the last tensor and the last
 * G2gFrame reference are gone. Shape (rows, columns[, components]), strides in elements, dtype
 * kDLUInt of 8 or 16 bits, device kDLCPU or kDLCUDA with the device ordinal, byte_offset 0.
 *
 * Read-only: DLPack 0.6's DLManagedTensor (Debian's dlpack.h) has no way to say it; a consumer
 * that writes into it writes into a frame other branches may be reading. DLPack 1.0's versioned
 * tensor carries G2G_DLPACK_FLAG_READ_ONLY (g2g/dlpack-versioned.h). Compiles as C11 and C++. */
#pragma once

#include <g2g/dlpack-versioned.h>
#include <g2g/frame.h>

G_BEGIN_DECLS

/* How a plane goes out (flags):
 * G2G_TENSOR_EXPORT_DEFAULT: the frame's own memory when the consumer can read it in place, else
 *   (a negative stride, a view of packed 4:2:2 moved sideways) the frame's dense copy, made once.
 * G2G_TENSOR_EXPORT_KEEP_NEGATIVE_STRIDES: negative strides go out as they are (NumPy and CuPy
 *   read them; PyTorch aborts the process on them).
 * G2G_TENSOR_EXPORT_NEVER_COPY: the frame's own memory or an error (DLPack's copy=False).
 * G2G_TENSOR_EXPORT_ALWAYS_COPY: a dense copy of the tensor's own, writable (DLPack's copy=True). */
typedef enum {
    G2G_TENSOR_EXPORT_DEFAULT = 0,
    G2G_TENSOR_EXPORT_KEEP_NEGATIVE_STRIDES = 1 << 0,
    G2G_TENSOR_EXPORT_NEVER_COPY = 1 << 1,
    G2G_TENSOR_EXPORT_ALWAYS_COPY = 1 << 2,
} G2gTensorExportFlags;

/* Plane @plane of @frame as DLPack 0.6. Returns NULL with @error set (G2G_ERROR_INVALID_ARGUMENT)
 * for a plane the frame does not have, big-endian components (DLPack has no byte order), a copy
 * needed under NEVER_COPY, NEVER_COPY with ALWAYS_COPY; a failed copy's own error. */
DLManagedTensor *g2g_frame_plane_to_dlpack(G2gFrame *frame, guint plane, G2gTensorExportFlags flags,
                                           GError **error);

/* The same as DLPack 1.0's versioned tensor (what a consumer passing max_version >= (1, 0) gets),
 * flagged read-only unless it is a copy of its own (ALWAYS_COPY), and flagged copied when it is a copy. */
G2gDLManagedTensorVersioned *g2g_frame_plane_to_dlpack_versioned(G2gFrame *frame, guint plane,
                                                                 G2gTensorExportFlags flags, GError **error);

G_END_DECLS
