/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* G2gFrame, the C API's frame for applications (the C++ side: g2g/tensor-frame.h): a buffer
 * classified and mapped once, its view (a flip, rotation or crop g2gview composed, or the frame as
 * its caps lay it out) per plane as a tensor (shape, byte strides, offset, address), its dense copy,
 * and materialize into caller memory. Introspectable (G2g-1.0.gir). DLPack export: g2g/dlpack.h.
 * Compiles as C11 and C++. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

/* G2gMemoryDomainKind and G2G_ERROR; g2g.h includes this header at its end, past them. */
#include <g2g/g2g.h>

G_BEGIN_DECLS

/**
 * G2gDeviceType:
 * @G2G_DEVICE_TYPE_CPU: host memory: the address is a CPU pointer
 * @G2G_DEVICE_TYPE_CUDA: CUDA device memory: the address is a CUdeviceptr on device @device_id
 *
 * Where a plane's address points; the values are DLPack's DLDeviceType (kDLCPU, kDLCUDA).
 */
typedef enum {
    G2G_DEVICE_TYPE_CPU = 1,
    G2G_DEVICE_TYPE_CUDA = 2,
} G2gDeviceType;

GType g2g_device_type_get_type(void);
#define G2G_TYPE_DEVICE_TYPE (g2g_device_type_get_type())

/**
 * G2gPlaneLayout:
 * @data: the address of element (0, 0): a CPU address, or a CUDA device pointer
 * @device_type: where @data points
 * @device_id: the CUDA device ordinal (0 on the CPU)
 * @rows: the plane's height in elements
 * @columns: the plane's width in elements
 * @components: values per element: 4 for RGBA, 2 for NV12's chroma pairs, 1 for a luma plane
 * @component_size: bytes per value: 1 for 8-bit formats, 2 for 16-bit and 10-bit ones
 * @little_endian: the byte order of 2-byte values (GRAY16_BE's are big-endian)
 * @row_stride: bytes from a row to the next; negative when the view runs the rows backwards
 * @column_stride: bytes from an element to the next in a row; may be negative too
 * @memory_index: which memory of the buffer holds the plane
 * @offset: the byte offset of element (0, 0) in that memory
 *
 * One plane of a frame as a tensor: @rows x @columns (x @components when more than 1) unsigned
 * integers of @component_size bytes. Element (r, c), value k is at
 * @data + r * @row_stride + c * @column_stride + k * @component_size.
 */
typedef struct {
    guintptr data;
    G2gDeviceType device_type;
    gint device_id;
    guint rows;
    guint columns;
    guint components;
    guint component_size;
    gboolean little_endian;
    gint64 row_stride;
    gint64 column_stride;
    guint memory_index;
    gint64 offset;
} G2gPlaneLayout;

GType g2g_plane_layout_get_type(void);
#define G2G_TYPE_PLANE_LAYOUT (g2g_plane_layout_get_type())

/**
 * G2gFrame:
 *
 * A frame for an application: a #GstBuffer (one reference held), its memory mapped for reading
 * (CUDA memory for its device pointer) until the last reference to the frame, or to a tensor made
 * of it, is gone. Reference counted; a boxed type.
 */
typedef struct _G2gFrame G2gFrame;

GType g2g_frame_get_type(void);
#define G2G_TYPE_FRAME (g2g_frame_get_type())

/**
 * g2g_frame_new:
 * @buffer: a frame of raw video
 * @caps: the caps @buffer was negotiated with (a view's caps for g2gview's output under
 *   meta:G2gTensorView: the view the buffer carries is then the frame)
 * @error: return location for a #GError
 *
 * Classifies and maps @buffer. Fails (#G2G_ERROR) for memory no tensor can address (Vulkan
 * images, platform handles, tiled DMA-BUFs, CUDA memory where CUDA does not run: the message
 * names the domain and the converter to insert), for caps that are not fixed raw video (DMA_DRM
 * caps are raw video), have no pixels or do not describe @buffer (a view it carries included), and
 * for formats a frame view cannot describe.
 *
 * Returns: (transfer full) (nullable): the frame, or %NULL with @error set
 */
G2gFrame *g2g_frame_new(GstBuffer *buffer, GstCaps *caps, GError **error);

/**
 * g2g_frame_ref:
 * @frame: a frame
 *
 * Returns: (transfer full): @frame
 */
G2gFrame *g2g_frame_ref(G2gFrame *frame);

/**
 * g2g_frame_unref:
 * @frame: (transfer full): a frame
 *
 * Drops a reference; the last one unmaps the memory and releases the buffer, unless a tensor of
 * the frame still lives.
 */
void g2g_frame_unref(G2gFrame *frame);

/**
 * g2g_frame_get_buffer:
 * @frame: a frame
 *
 * Returns: (transfer none): the buffer
 */
GstBuffer *g2g_frame_get_buffer(G2gFrame *frame);

/**
 * g2g_frame_get_memory_domain:
 * @frame: a frame
 *
 * Returns: the domain the frame's memory lives in
 */
G2gMemoryDomainKind g2g_frame_get_memory_domain(G2gFrame *frame);

/**
 * g2g_frame_get_format:
 * @frame: a frame
 *
 * Returns: the format of the frame (of the view, for a view)
 */
GstVideoFormat g2g_frame_get_format(G2gFrame *frame);

/**
 * g2g_frame_get_width:
 * @frame: a frame
 *
 * Returns: the width of the frame (of the view: a rotation's is the source's height)
 */
guint g2g_frame_get_width(G2gFrame *frame);

/**
 * g2g_frame_get_height:
 * @frame: a frame
 *
 * Returns: the height of the frame
 */
guint g2g_frame_get_height(G2gFrame *frame);

/**
 * g2g_frame_get_n_planes:
 * @frame: a frame
 *
 * Returns: the number of planes of the frame's format
 */
guint g2g_frame_get_n_planes(G2gFrame *frame);

/**
 * g2g_frame_is_strided:
 * @frame: a frame
 *
 * Returns: %FALSE for a view that only a copy can read (packed 4:2:2 moved sideways): its planes
 *   exist only in g2g_frame_dense()
 */
gboolean g2g_frame_is_strided(G2gFrame *frame);

/**
 * g2g_frame_is_copy:
 * @frame: a frame
 *
 * Returns: %TRUE for a frame g2g_frame_dense() wrote
 */
gboolean g2g_frame_is_copy(G2gFrame *frame);

/**
 * g2g_frame_get_plane:
 * @frame: a frame
 * @plane: a plane index, below g2g_frame_get_n_planes()
 * @layout: (out caller-allocates): the plane as a tensor
 * @error: return location for a #GError
 *
 * The plane over the frame's own memory, valid while @frame lives.
 *
 * Returns: (skip): %FALSE with @error set for a plane the frame does not have, or one of a frame that is
 *   not strided
 */
gboolean g2g_frame_get_plane(G2gFrame *frame, guint plane, G2gPlaneLayout *layout, GError **error);

/**
 * g2g_frame_dense:
 * @frame: a frame
 * @error: return location for a #GError
 *
 * The frame written densely, on its device (system memory by the CPU, CUDA memory by a kernel),
 * once: later calls return the same copy. A dense frame's planes have no negative stride. A copy
 * is its own dense frame.
 *
 * Returns: (transfer full) (nullable): the dense frame, or %NULL with @error set
 */
G2gFrame *g2g_frame_dense(G2gFrame *frame, GError **error);

/**
 * g2g_frame_materialize_into:
 * @frame: a frame
 * @dst: (array length=n_planes): the address of each plane's first row: CPU memory for a frame in
 *   host memory, device memory on the frame's GPU (CUdeviceptr) for a CUDA frame
 * @dst_stride: (array length=n_planes): the bytes from one row of each plane to the next
 * @dst_size: (array length=n_planes): the bytes available at each of @dst
 * @n_planes: the number of entries of @dst, @dst_stride and @dst_size: the frame's plane count
 * @n_threads: as the view elements' n-threads for a CPU write: 1 the calling thread alone, 0 one
 *   per processor (threads g2g keeps); a GPU's write is one kernel per plane either way
 * @error: return location for a #GError
 *
 * Writes the frame densely into caller memory (an application's tensor): a view's flip, rotation
 * and crop and the copy out are one pass.
 *
 * Returns: (skip): %FALSE with @error set, nothing written, when @n_planes is not the frame's plane count
 *   or a plane does not fit its destination (rows longer than its stride, more bytes than its
 *   size); %FALSE with @error set when the write fails
 */
gboolean g2g_frame_materialize_into(G2gFrame *frame, const guintptr *dst, const gint *dst_stride,
                                    const gsize *dst_size, guint n_planes, guint n_threads, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(G2gFrame, g2g_frame_unref)

G_END_DECLS
