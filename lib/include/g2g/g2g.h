/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* g2g C API: the memory domain of a GStreamer buffer, for C and Python (ctypes/GI-free) apps.
 * Compiles as C11 and C++. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <g2g/handle-payloads.h>

G_BEGIN_DECLS

/* The seed's MemoryDomainKind, same order as g2g::MemoryDomainKind. */
typedef enum {
    G2G_MEMORY_DOMAIN_SYSTEM = 0,
    G2G_MEMORY_DOMAIN_SYSTEM_VIEW = 1,
    G2G_MEMORY_DOMAIN_DMA_BUF = 2,
    G2G_MEMORY_DOMAIN_VULKAN_TEXTURE = 3,
    G2G_MEMORY_DOMAIN_WEB_GPU_BUFFER = 4,
    G2G_MEMORY_DOMAIN_CUDA = 5,
    G2G_MEMORY_DOMAIN_D3D11_TEXTURE = 6,
    G2G_MEMORY_DOMAIN_CV_PIXEL_BUFFER = 7,
    G2G_MEMORY_DOMAIN_WEB_GPU_EXTERNAL_TEXTURE = 8,
    G2G_MEMORY_DOMAIN_WGPU_TEXTURE = 9,
    G2G_MEMORY_DOMAIN_WGPU_BUFFER = 10,
} G2gMemoryDomainKind;

#define G2G_MEMORY_DOMAIN_KIND_COUNT 11

/* A set of kinds: bit (1 << kind). Registered as a GFlags type whose nicks are the kinds in
 * kebab case (system, system-view, dma-buf, ..., wgpu-buffer), e.g. "system+system-view". */
typedef guint G2gMemoryDomainKinds;

GType g2g_memory_domain_kind_get_type(void);
#define G2G_TYPE_MEMORY_DOMAIN_KIND (g2g_memory_domain_kind_get_type())
GType g2g_memory_domain_kinds_get_type(void);
#define G2G_TYPE_MEMORY_DOMAIN_KINDS (g2g_memory_domain_kinds_get_type())

/* Errors: G2G_ERROR domain, codes as g2g::ErrorCode. */
typedef enum {
    G2G_ERROR_UNSUPPORTED_DOMAIN = 1,
    G2G_ERROR_UNKNOWN_MEMORY = 2,
    G2G_ERROR_MAP_FAILED = 3,
    G2G_ERROR_INVALID_ARGUMENT = 4,
} G2gError;

GQuark g2g_error_quark(void);
#define G2G_ERROR (g2g_error_quark())

/* The seed's name of a kind ("System", "Cuda"); NULL for a value out of range. */
const gchar *g2g_memory_domain_kind_name(G2gMemoryDomainKind kind);

/* The caps features of a kind ("memory:CUDAMemory"); NULL for a value out of range. */
const gchar *g2g_memory_domain_kind_caps_feature(G2gMemoryDomainKind kind);

/* Classifies @buffer. Returns FALSE and sets @error (G2G_ERROR_UNKNOWN_MEMORY, naming the
 * memory type) for memory g2g does not know. */
gboolean g2g_buffer_get_memory_domain(GstBuffer *buffer, G2gMemoryDomainKind *kind, GError **error);

/* The CPU-readable bytes of @buffer: borrowed (zero-copy, the buffer stays mapped until the
 * GBytes is freed) for host memory, materialized once for a SystemView. Returns NULL and sets
 * @error (G2G_ERROR_UNSUPPORTED_DOMAIN, naming @category, the domain and the converter to
 * insert) for device memory. */
GBytes *g2g_buffer_require_system_bytes(GstBuffer *buffer, const gchar *category, GError **error);

/* DMA-BUF frames (the C++ side: g2g/dmabuf.h). One plane of a frame: its fd, the byte offset of
 * its first row in that fd, and the bytes from one row to the next. */
typedef struct {
    gint fd;
    gsize offset;
    gint stride;
} G2gDmaBufPlane;

/* DRM_FORMAT_MOD_LINEAR (drm_fourcc.h): rows, as a CPU reads them. */
#define G2G_DRM_FORMAT_MOD_LINEAR G_GUINT64_CONSTANT(0)

/* A frame over @n_planes DMA-BUF planes (planes may share an fd) of DRM format @fourcc and
 * @modifier, @width x @height pixels, with a GstVideoMeta. Each fd is dup'ed: the caller keeps
 * and closes its own. A non-linear @modifier gives a frame no CPU maps. Returns NULL and sets
 * @error (G2G_ERROR_INVALID_ARGUMENT) for an fd that is not open, a plane past its fd's end, a
 * fourcc GStreamer has no format for, a modifier drm_fourcc.h does not know. Transfer full. */
GstBuffer *g2g_dmabuf_wrap(guint32 fourcc, guint64 modifier, guint width, guint height, guint n_planes,
                           const G2gDmaBufPlane *planes, GError **error);

/* A DMA-BUF copy of @frame, a system frame (or a view of one) of raw video @caps: one copy into
 * g2g's allocator (dma-heap, udmabuf or memfd, whichever this machine has). Transfer full; NULL
 * and @error set when it cannot be done. */
GstBuffer *g2g_dmabuf_export(GstBuffer *frame, const GstCaps *caps, GError **error);

/* The DRM format and planes of a DMA-BUF @frame: fills @fourcc, @modifier and the first
 * returned-count entries of @planes (whose fds stay the frame's). Returns the plane count, or 0
 * with @error set for a frame that is not DMA-BUF or has no known layout. */
guint g2g_dmabuf_get_layout(GstBuffer *frame, guint32 *fourcc, guint64 *modifier, G2gDmaBufPlane planes[4],
                            GError **error);

/* Platform-handle frames (the C++ side: g2g/platform-handles.h; the payloads: g2g/handle-payloads.h).
 * A GstMemory of the payload's kind, @size bytes (the frame's size as its caps describe it), that
 * holds @user_data until its last share is gone and then calls @release(@user_data) once: COM's
 * Release for D3D11, CFRelease for a CVPixelBuffer, the application's own otherwise. The caller
 * takes the reference @release gives back before the call (AddRef, CFRetain). Returns NULL and
 * sets @error (G2G_ERROR_INVALID_ARGUMENT, naming the field) for a NULL handle, a NULL @release,
 * and the other refusals of g2g::handles::wrap; @release is then not called. Transfer full. */
GstMemory *g2g_d3d11_texture_memory_new(const G2gD3D11Texture *payload, gsize size, G2gHandleRelease release,
                                        gpointer user_data, GError **error);
GstMemory *g2g_cv_pixel_buffer_memory_new(const G2gCvPixelBuffer *payload, gsize size,
                                          G2gHandleRelease release, gpointer user_data, GError **error);
GstMemory *g2g_web_gpu_buffer_memory_new(const G2gWebGPUBuffer *payload, gsize size, G2gHandleRelease release,
                                         gpointer user_data, GError **error);
GstMemory *g2g_web_gpu_external_texture_memory_new(const G2gWebGPUExternalTexture *payload, gsize size,
                                                   G2gHandleRelease release, gpointer user_data,
                                                   GError **error);
GstMemory *g2g_wgpu_texture_memory_new(const G2gWgpuTexture *payload, gsize size, G2gHandleRelease release,
                                       gpointer user_data, GError **error);
GstMemory *g2g_wgpu_buffer_memory_new(const G2gWgpuBuffer *payload, gsize size, G2gHandleRelease release,
                                      gpointer user_data, GError **error);

/* The payload of @memory, copied into @payload, when @memory is a memory of that payload's kind
 * (or a share of one); FALSE, @payload untouched, for memory of any other kind or type. */
gboolean g2g_memory_get_d3d11_texture(GstMemory *memory, G2gD3D11Texture *payload);
gboolean g2g_memory_get_cv_pixel_buffer(GstMemory *memory, G2gCvPixelBuffer *payload);
gboolean g2g_memory_get_web_gpu_buffer(GstMemory *memory, G2gWebGPUBuffer *payload);
gboolean g2g_memory_get_web_gpu_external_texture(GstMemory *memory, G2gWebGPUExternalTexture *payload);
gboolean g2g_memory_get_wgpu_texture(GstMemory *memory, G2gWgpuTexture *payload);
gboolean g2g_memory_get_wgpu_buffer(GstMemory *memory, G2gWgpuBuffer *payload);

/* The user data a platform-handle @memory was made with by g2g_*_memory_new (the keep-alive's
 * object); NULL for any other memory, and for memory made by the C++ API with its own keep-alive. */
gpointer g2g_memory_get_handle_user_data(GstMemory *memory);

/* ---- Frame views (the C++ side: g2g/frame-view.h, g2g/worker-pool.h) ---- */

/* Writes the frame @buffer holds densely into caller memory (an application's tensor): the view it
 * carries (g2gview's output under meta:G2gTensorView caps), else the frame as its GstVideoMeta,
 * GstVideoCropMeta or @info lay it out. @info is the buffer's caps' video info: the view's format
 * and size must be its. @dst and @dst_stride hold one entry per plane of that format, rows
 * @dst_stride bytes apart. @n_threads as the view elements' n-threads: 1 the calling thread alone,
 * 0 one per processor, n at most n (and at most 64), in row bands on threads g2g starts at the
 * first such call and keeps for the process; the bytes written are the same either way. Returns
 * FALSE and sets @error (G2G_ERROR_INVALID_ARGUMENT) for a view that does not fit @info or the
 * buffer's memory, G2G_ERROR_MAP_FAILED when the buffer cannot be read. */
gboolean g2g_buffer_materialize_into(GstBuffer *buffer, const GstVideoInfo *info, guint8 *const dst[],
                                     const gint dst_stride[], guint n_threads, GError **error);

G_END_DECLS
