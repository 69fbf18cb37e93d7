/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DLPack 1.0's versioned tensor, for builds against an older dlpack.h. Debian 12's libdlpack-dev
 * is DLPack 0.6 (DLPACK_VERSION 60): its DLManagedTensor has no version and no flags, so nothing
 * in it can say "read-only". DLPack 1.0 added DLManagedTensorVersioned, which consumers ask for by
 * passing max_version=(1, 0) to __dlpack__ and receive in a "dltensor_versioned" capsule. These
 * are that struct and its flags, field for field (dlpack.h 1.0 and 1.1 lay them out alike), named
 * G2g... so that they never clash with a newer dlpack.h's own. Compiles as C11 and C++. */
#pragma once

#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The DLPack version a versioned tensor declares: 1.0. */
#define G2G_DLPACK_MAJOR_VERSION 1
#define G2G_DLPACK_MINOR_VERSION 0

/* DLPACK_FLAG_BITMASK_READ_ONLY: the consumer must not write the tensor's memory. */
#define G2G_DLPACK_FLAG_READ_ONLY (UINT64_C(1) << 0)
/* DLPACK_FLAG_BITMASK_IS_COPIED: the producer copied the data for this export. */
#define G2G_DLPACK_FLAG_IS_COPIED (UINT64_C(1) << 1)

typedef struct {
    uint32_t major;
    uint32_t minor;
} G2gDLPackVersion;

/* DLManagedTensorVersioned of dlpack.h 1.0: the deleter frees what manager_ctx holds. */
typedef struct G2gDLManagedTensorVersioned {
    G2gDLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct G2gDLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} G2gDLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif
