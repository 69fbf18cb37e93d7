/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* g2g C API: the memory domain of a GStreamer buffer, frames as tensors (g2g/frame.h, included at
 * the end), for C apps and, through GObject Introspection (G2g-1.0), Python and other languages.
 * The comments in gtk-doc form carry the introspection annotations. Compiles as C11 and C++. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <g2g/handle-payloads.h>

G_BEGIN_DECLS

/**
 * G2gMemoryDomainKind:
 * @G2G_MEMORY_DOMAIN_SYSTEM: system memory
 * @G2G_MEMORY_DOMAIN_SYSTEM_VIEW: system memory read through a tensor view (meta:G2gTensorView)
 * @G2G_MEMORY_DOMAIN_DMA_BUF: a DMA-BUF
 * @G2G_MEMORY_DOMAIN_VULKAN_TEXTURE: a Vulkan image
 * @G2G_MEMORY_DOMAIN_WEB_GPU_BUFFER: a WebGPU buffer
 * @G2G_MEMORY_DOMAIN_CUDA: CUDA device memory
 * @G2G_MEMORY_DOMAIN_D3D11_TEXTURE: a Direct3D 11 texture
 * @G2G_MEMORY_DOMAIN_CV_PIXEL_BUFFER: a CoreVideo pixel buffer
 * @G2G_MEMORY_DOMAIN_WEB_GPU_EXTERNAL_TEXTURE: a browser VideoFrame for a WebGPU external texture
 * @G2G_MEMORY_DOMAIN_WGPU_TEXTURE: a wgpu texture
 * @G2G_MEMORY_DOMAIN_WGPU_BUFFER: a wgpu buffer
 *
 * Where a frame's bytes live: the seed's MemoryDomainKind, in the order of g2g::MemoryDomainKind.
 */
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

/**
 * G2gMemoryDomainKinds:
 * @G2G_MEMORY_DOMAIN_KINDS_SYSTEM: #G2G_MEMORY_DOMAIN_SYSTEM
 * @G2G_MEMORY_DOMAIN_KINDS_SYSTEM_VIEW: #G2G_MEMORY_DOMAIN_SYSTEM_VIEW
 * @G2G_MEMORY_DOMAIN_KINDS_DMA_BUF: #G2G_MEMORY_DOMAIN_DMA_BUF
 * @G2G_MEMORY_DOMAIN_KINDS_VULKAN_TEXTURE: #G2G_MEMORY_DOMAIN_VULKAN_TEXTURE
 * @G2G_MEMORY_DOMAIN_KINDS_WEB_GPU_BUFFER: #G2G_MEMORY_DOMAIN_WEB_GPU_BUFFER
 * @G2G_MEMORY_DOMAIN_KINDS_CUDA: #G2G_MEMORY_DOMAIN_CUDA
 * @G2G_MEMORY_DOMAIN_KINDS_D3D11_TEXTURE: #G2G_MEMORY_DOMAIN_D3D11_TEXTURE
 * @G2G_MEMORY_DOMAIN_KINDS_CV_PIXEL_BUFFER: #G2G_MEMORY_DOMAIN_CV_PIXEL_BUFFER
 * @G2G_MEMORY_DOMAIN_KINDS_WEB_GPU_EXTERNAL_TEXTURE: #G2G_MEMORY_DOMAIN_WEB_GPU_EXTERNAL_TEXTURE
 * @G2G_MEMORY_DOMAIN_KINDS_WGPU_TEXTURE: #G2G_MEMORY_DOMAIN_WGPU_TEXTURE
 * @G2G_MEMORY_DOMAIN_KINDS_WGPU_BUFFER: #G2G_MEMORY_DOMAIN_WGPU_BUFFER
 *
 * A set of kinds: bit (1 << kind). Its nicks are the kinds in kebab case, joined with "+" in a
 * string ("system+system-view"), as g2gprobe's require property reads them.
 */
typedef enum /*< flags >*/ {
    G2G_MEMORY_DOMAIN_KINDS_SYSTEM = 1 << 0,
    G2G_MEMORY_DOMAIN_KINDS_SYSTEM_VIEW = 1 << 1,
    G2G_MEMORY_DOMAIN_KINDS_DMA_BUF = 1 << 2,
    G2G_MEMORY_DOMAIN_KINDS_VULKAN_TEXTURE = 1 << 3,
    G2G_MEMORY_DOMAIN_KINDS_WEB_GPU_BUFFER = 1 << 4,
    G2G_MEMORY_DOMAIN_KINDS_CUDA = 1 << 5,
    G2G_MEMORY_DOMAIN_KINDS_D3D11_TEXTURE = 1 << 6,
    G2G_MEMORY_DOMAIN_KINDS_CV_PIXEL_BUFFER = 1 << 7,
    G2G_MEMORY_DOMAIN_KINDS_WEB_GPU_EXTERNAL_TEXTURE = 1 << 8,
    G2G_MEMORY_DOMAIN_KINDS_WGPU_TEXTURE = 1 << 9,
    G2G_MEMORY_DOMAIN_KINDS_WGPU_BUFFER = 1 << 10,
} G2gMemoryDomainKinds;

GType g2g_memory_domain_kind_get_type(void);
#define G2G_TYPE_MEMORY_DOMAIN_KIND (g2g_memory_domain_kind_get_type())
GType g2g_memory_domain_kinds_get_type(void);
#define G2G_TYPE_MEMORY_DOMAIN_KINDS (g2g_memory_domain_kinds_get_type())

/**
 * G2gError:
 * @G2G_ERROR_UNSUPPORTED_DOMAIN: a frame arrived in a domain the caller cannot read (the message
 *   names the converter to insert)
 * @G2G_ERROR_UNKNOWN_MEMORY: memory of a type g2g does not know (the message names it)
 * @G2G_ERROR_MAP_FAILED: memory of a known kind could not be mapped, or written
 * @G2G_ERROR_INVALID_ARGUMENT: an argument the call cannot work with
 *
 * The codes of the #G2G_ERROR domain, as g2g::ErrorCode.
 */
typedef enum {
    G2G_ERROR_UNSUPPORTED_DOMAIN = 1,
    G2G_ERROR_UNKNOWN_MEMORY = 2,
    G2G_ERROR_MAP_FAILED = 3,
    G2G_ERROR_INVALID_ARGUMENT = 4,
} G2gError;

GType g2g_error_get_type(void);
#define G2G_TYPE_ERROR (g2g_error_get_type())

GQuark g2g_error_quark(void);
#define G2G_ERROR (g2g_error_quark())

/**
 * g2g_memory_domain_kind_name:
 * @kind: a kind
 *
 * Returns: (nullable): the seed's name of @kind ("System", "Cuda"); %NULL for a value out of range
 */
const gchar *g2g_memory_domain_kind_name(G2gMemoryDomainKind kind);

/**
 * g2g_memory_domain_kind_caps_feature:
 * @kind: a kind
 *
 * Returns: (nullable): the caps features of @kind ("memory:CUDAMemory"; SystemView's are
 *   "memory:SystemMemory, meta:G2gTensorView"); %NULL for a value out of range
 */
const gchar *g2g_memory_domain_kind_caps_feature(G2gMemoryDomainKind kind);

/**
 * g2g_buffer_get_memory_domain:
 * @buffer: a buffer
 * @kind: (out) (optional): the domain @buffer's memory lives in
 * @error: return location for a #GError
 *
 * Classifies @buffer, made by any element.
 *
 * Returns: (skip): %FALSE with @error set (#G2G_ERROR_UNKNOWN_MEMORY, naming the memory type) for memory
 *   g2g does not know
 */
gboolean g2g_buffer_get_memory_domain(GstBuffer *buffer, G2gMemoryDomainKind *kind, GError **error);

/**
 * g2g_buffer_require_system_bytes:
 * @buffer: a buffer
 * @category: (nullable): the caller's name, for the error
 * @error: return location for a #GError
 *
 * The CPU-readable bytes of @buffer: borrowed (zero-copy, the buffer stays mapped until the
 * #GBytes is freed) for host memory, materialized once for a SystemView.
 *
 * Returns: (transfer full) (nullable): the bytes, or %NULL with @error set
 *   (#G2G_ERROR_UNSUPPORTED_DOMAIN, naming @category, the domain and the converter to insert)
 *   for device memory
 */
GBytes *g2g_buffer_require_system_bytes(GstBuffer *buffer, const gchar *category, GError **error);

/**
 * G2gDmaBufPlane:
 * @fd: the DMA-BUF's file descriptor
 * @offset: the byte offset of the plane's first row in @fd
 * @stride: the bytes from one row to the next
 *
 * One plane of a DMA-BUF frame (the C++ side: g2g/dmabuf.h).
 */
typedef struct {
    gint fd;
    gsize offset;
    gint stride;
} G2gDmaBufPlane;

/* DRM_FORMAT_MOD_LINEAR (drm_fourcc.h): rows, as a CPU reads them. */
#define G2G_DRM_FORMAT_MOD_LINEAR G_GUINT64_CONSTANT(0)

/**
 * g2g_dmabuf_wrap:
 * @fourcc: the DRM format
 * @modifier: the DRM format modifier (#G2G_DRM_FORMAT_MOD_LINEAR for rows)
 * @width: the frame's width in pixels
 * @height: the frame's height in pixels
 * @n_planes: the number of entries of @planes
 * @planes: (array length=n_planes): the planes (several may share an fd)
 * @error: return location for a #GError
 *
 * A frame over DMA-BUF planes, with a GstVideoMeta. Each fd is dup'ed: the caller keeps and closes
 * its own. A non-linear @modifier gives a frame no CPU maps.
 *
 * Returns: (transfer full) (nullable): the frame, or %NULL with @error set
 *   (#G2G_ERROR_INVALID_ARGUMENT) for an fd that is not open, a plane past its fd's end, a fourcc
 *   GStreamer has no format for, a modifier drm_fourcc.h does not know
 */
GstBuffer *g2g_dmabuf_wrap(guint32 fourcc, guint64 modifier, guint width, guint height, guint n_planes,
                           const G2gDmaBufPlane *planes, GError **error);

/**
 * g2g_dmabuf_export:
 * @frame: a system frame, or a view of one
 * @caps: @frame's raw video caps
 * @error: return location for a #GError
 *
 * A DMA-BUF copy of @frame: one copy into g2g's allocator (dma-heap, udmabuf or memfd, whichever
 * this machine has), in every format with a DRM fourcc. A view is written as the frame it shows;
 * any other frame is the frame @caps describe, its GstVideoMeta and GstVideoCropMeta read as
 * GStreamer's elements read them (g2g/dmabuf.h's export_frame says how; g2gdmabufupload copies the
 * same way).
 *
 * Returns: (transfer full) (nullable): the copy, or %NULL with @error set when it cannot be made
 *   (#G2G_ERROR_INVALID_ARGUMENT, opening with "g2g_dmabuf_export: ", for a GstVideoMeta smaller
 *   than @caps or of another format, a crop meta past the frame, bytes that cannot hold the frame)
 */
GstBuffer *g2g_dmabuf_export(GstBuffer *frame, const GstCaps *caps, GError **error);

/**
 * g2g_dmabuf_get_layout:
 * @frame: a DMA-BUF frame
 * @fourcc: (out) (optional): its DRM format
 * @modifier: (out) (optional): its DRM format modifier
 * @planes: (out caller-allocates) (array fixed-size=4) (optional): its planes (whose fds stay
 *   the frame's), the first return-value entries filled
 * @error: return location for a #GError
 *
 * Returns: the plane count, or 0 with @error set for a frame that is not DMA-BUF or has no known
 *   layout
 */
guint g2g_dmabuf_get_layout(GstBuffer *frame, guint32 *fourcc, guint64 *modifier, G2gDmaBufPlane planes[4],
                            GError **error);

/* Platform-handle frames (the C++ side: g2g/platform-handles.h; the payloads: g2g/handle-payloads.h).
 * A GstMemory of the payload's kind, @size bytes (the frame's size as its caps describe it), that
 * holds @user_data until its last share is gone and then calls @release(@user_data) once: COM's
 * Release for D3D11, CFRelease for a CVPixelBuffer, the application's own otherwise. The caller
 * takes the reference @release gives back before the call (AddRef, CFRetain). Returns NULL and
 * sets @error (G2G_ERROR_INVALID_ARGUMENT, naming the field) for a NULL handle, a NULL @release,
 * and the other refusals of g2g::handles::wrap; @release is then not called. Transfer full.
 * Not introspectable: their producers are native code holding the platform's own objects. */

/**
 * g2g_d3d11_texture_memory_new: (skip)
 */
GstMemory *g2g_d3d11_texture_memory_new(const G2gD3D11Texture *payload, gsize size, G2gHandleRelease release,
                                        gpointer user_data, GError **error);
/**
 * g2g_cv_pixel_buffer_memory_new: (skip)
 */
GstMemory *g2g_cv_pixel_buffer_memory_new(const G2gCvPixelBuffer *payload, gsize size,
                                          G2gHandleRelease release, gpointer user_data, GError **error);
/**
 * g2g_web_gpu_buffer_memory_new: (skip)
 */
GstMemory *g2g_web_gpu_buffer_memory_new(const G2gWebGPUBuffer *payload, gsize size, G2gHandleRelease release,
                                         gpointer user_data, GError **error);
/**
 * g2g_web_gpu_external_texture_memory_new: (skip)
 */
GstMemory *g2g_web_gpu_external_texture_memory_new(const G2gWebGPUExternalTexture *payload, gsize size,
                                                   G2gHandleRelease release, gpointer user_data,
                                                   GError **error);
/**
 * g2g_wgpu_texture_memory_new: (skip)
 */
GstMemory *g2g_wgpu_texture_memory_new(const G2gWgpuTexture *payload, gsize size, G2gHandleRelease release,
                                       gpointer user_data, GError **error);
/**
 * g2g_wgpu_buffer_memory_new: (skip)
 */
GstMemory *g2g_wgpu_buffer_memory_new(const G2gWgpuBuffer *payload, gsize size, G2gHandleRelease release,
                                      gpointer user_data, GError **error);

/* The payload of @memory, copied into @payload, when @memory is a memory of that payload's kind
 * (or a share of one); FALSE, @payload untouched, for memory of any other kind or type. Not
 * introspectable: the payloads are the platforms' raw pointers. */

/**
 * g2g_memory_get_d3d11_texture: (skip)
 */
gboolean g2g_memory_get_d3d11_texture(GstMemory *memory, G2gD3D11Texture *payload);
/**
 * g2g_memory_get_cv_pixel_buffer: (skip)
 */
gboolean g2g_memory_get_cv_pixel_buffer(GstMemory *memory, G2gCvPixelBuffer *payload);
/**
 * g2g_memory_get_web_gpu_buffer: (skip)
 */
gboolean g2g_memory_get_web_gpu_buffer(GstMemory *memory, G2gWebGPUBuffer *payload);
/**
 * g2g_memory_get_web_gpu_external_texture: (skip)
 */
gboolean g2g_memory_get_web_gpu_external_texture(GstMemory *memory, G2gWebGPUExternalTexture *payload);
/**
 * g2g_memory_get_wgpu_texture: (skip)
 */
gboolean g2g_memory_get_wgpu_texture(GstMemory *memory, G2gWgpuTexture *payload);
/**
 * g2g_memory_get_wgpu_buffer: (skip)
 */
gboolean g2g_memory_get_wgpu_buffer(GstMemory *memory, G2gWgpuBuffer *payload);

/**
 * g2g_memory_get_handle_user_data: (skip)
 * @memory: a memory
 *
 * Returns: the user data a platform-handle @memory was made with by g2g_*_memory_new (the
 *   keep-alive's object); %NULL for any other memory, and for memory made by the C++ API with its
 *   own keep-alive
 */
gpointer g2g_memory_get_handle_user_data(GstMemory *memory);

/**
 * g2g_buffer_make_view:
 * @buffer: a frame: in system memory, or in a domain views live in (CUDA, Vulkan images where this
 *   build has them; the platform-handle textures, and buffers for crops only)
 * @info: the video info of @buffer's caps; for a buffer that carries a view (g2gview's output,
 *   or this function's), the view's: its @out_info
 * @method: the orientation, as videoflip's method: #GST_VIDEO_ORIENTATION_IDENTITY,
 *   #GST_VIDEO_ORIENTATION_90R, #GST_VIDEO_ORIENTATION_180, #GST_VIDEO_ORIENTATION_90L,
 *   #GST_VIDEO_ORIENTATION_HORIZ, #GST_VIDEO_ORIENTATION_VERT, #GST_VIDEO_ORIENTATION_UL_LR or
 *   #GST_VIDEO_ORIENTATION_UR_LL
 * @left: pixels to crop at the left of the frame @buffer shows (as videocrop's left)
 * @right: pixels to crop at its right
 * @top: pixels to crop at its top
 * @bottom: pixels to crop at its bottom
 * @out_info: (out) (optional) (transfer full): the view's video info, to free with
 *   gst_video_info_free(): its format, width and height, the strides a dense copy of it has (what
 *   g2g_buffer_materialize_into() takes; g2g_frame_new() takes its caps, gst_video_info_to_caps()),
 *   @info's frame rate and colorimetry, its pixel aspect ratio swapped by a rotation or a transpose.
 * Allocated by g2g, not by the caller: introspection sizes a GstVideoInfo the caller allocates from
 * GstVideo-1.0's typelib, which says 120 bytes for GStreamer 1.22's 152 (PyGObject's out info was overrun)
 * @error: return location for a #GError
 *
 * A view of the frame @buffer shows, as g2gview makes one: the crop applies to that frame, then
 * the orientation (`videocrop ! videoflip`), composed on the view @buffer carries, if any (a view
 * of a view is one view). Zero bytes are copied: the new buffer holds @buffer's own memories (and
 * @buffer, so that a pool does not recycle them while the view lives), its timestamps and flags,
 * and the view as a G2gTensorViewMeta, the view caps' frame (meta:G2gTensorView). Write it densely
 * into the application's memory with g2g_buffer_materialize_into() (C) or g2g_frame_materialize_into()
 * (introspected) and @out_info.
 *
 * Returns: (transfer full) (nullable): the view, or %NULL with @error set, nothing made:
 *   #G2G_ERROR_INVALID_ARGUMENT, opening with "g2g_buffer_make_view", for a method out of that
 *   list, a crop that leaves no pixel, a frame @info does not describe, a format or a layout a view
 *   cannot describe (planes straddling memories, a stride shorter than a row);
 *   #G2G_ERROR_UNSUPPORTED_DOMAIN for a frame in a domain without views (naming the converter to
 *   insert) and a view a platform handle cannot carry
 */
GstBuffer *g2g_buffer_make_view(GstBuffer *buffer, const GstVideoInfo *info, GstVideoOrientationMethod method,
                                guint left, guint right, guint top, guint bottom, GstVideoInfo **out_info,
                                GError **error);

/**
 * g2g_buffer_materialize_into: (skip)
 * @buffer: a frame
 * @info: the video info of @buffer's caps: the view's format and size must be its
 * @dst: the address of each plane's first row
 * @dst_stride: the bytes from one row of each plane to the next
 * @n_threads: as the view elements' n-threads: 1 the calling thread alone, 0 one per processor,
 *   n at most n (and at most 64), in row bands on threads g2g starts at the first such call and
 *   keeps for the process; the bytes written are the same either way
 * @error: return location for a #GError
 *
 * Writes the frame @buffer holds densely into caller memory (an application's tensor): the view it
 * carries (g2gview's output under meta:G2gTensorView caps), else the frame as its GstVideoMeta,
 * GstVideoCropMeta or @info lay it out. @dst and @dst_stride hold one entry per plane of that
 * format (the C++ side: g2g/frame-view.h, g2g/worker-pool.h; introspected: g2g_frame_materialize_into).
 *
 * Returns: %FALSE with @error set, nothing written: #G2G_ERROR_UNSUPPORTED_DOMAIN for a frame the
 *   CPU cannot read (a Vulkan image, a platform handle: the message names the converter to insert);
 *   #G2G_ERROR_INVALID_ARGUMENT for a view that does not fit @info or the buffer's memory, and for
 *   a plane whose destination is %NULL or whose stride is shorter than its row (the same texts as
 *   g2g_frame_materialize_into's, after this function's name); #G2G_ERROR_MAP_FAILED when the
 *   buffer cannot be read
 */
gboolean g2g_buffer_materialize_into(GstBuffer *buffer, const GstVideoInfo *info, guint8 *const dst[],
                                     const gint dst_stride[], guint n_threads, GError **error);

G_END_DECLS

/* Frames for applications: G2gFrame (after the kinds and errors it uses). */
#include <g2g/frame.h>
