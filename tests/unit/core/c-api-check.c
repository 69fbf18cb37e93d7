// SPDX-License-Identifier: LGPL-2.1-or-later
/* Compiled as C11 with -pedantic: the C header is valid C. The functions are called from
 * test-c-api.cpp. */
#include <g2g/dlpack.h>
#include <g2g/g2g.h>

#include <string.h>

int c_api_check_names(void)
{
    return strcmp(g2g_memory_domain_kind_name(G2G_MEMORY_DOMAIN_CUDA), "Cuda") == 0 &&
           strcmp(g2g_memory_domain_kind_caps_feature(G2G_MEMORY_DOMAIN_CUDA), "memory:CUDAMemory") == 0 &&
           g2g_memory_domain_kind_name((G2gMemoryDomainKind)G2G_MEMORY_DOMAIN_KIND_COUNT) == NULL;
}

int c_api_check_system_buffer(void)
{
    GstBuffer *buffer = gst_buffer_new_allocate(NULL, 32, NULL);
    G2gMemoryDomainKind kind = G2G_MEMORY_DOMAIN_CUDA;
    GError *error = NULL;
    GBytes *bytes;
    GstMapInfo map;
    int ok;

    gst_buffer_memset(buffer, 0, 0x11, 32);
    ok = g2g_buffer_get_memory_domain(buffer, &kind, &error) && kind == G2G_MEMORY_DOMAIN_SYSTEM;
    bytes = g2g_buffer_require_system_bytes(buffer, "capp", &error);
    ok = ok && bytes != NULL && error == NULL && g_bytes_get_size(bytes) == 32;
    /* zero-copy: the GBytes points at the buffer's own memory */
    gst_buffer_map(buffer, &map, GST_MAP_READ);
    ok = ok && g_bytes_get_data(bytes, NULL) == (gconstpointer)map.data;
    gst_buffer_unmap(buffer, &map);
    g_bytes_unref(bytes);
    gst_buffer_unref(buffer);
    return ok;
}

/* Returns the error message for @buffer (caller frees), or NULL when it was readable. */
gchar *c_api_require_error(GstBuffer *buffer, const gchar *category, gint *code)
{
    GError *error = NULL;
    GBytes *bytes = g2g_buffer_require_system_bytes(buffer, category, &error);
    gchar *message;
    if (bytes) {
        g_bytes_unref(bytes);
        return NULL;
    }
    *code = error->domain == G2G_ERROR ? error->code : -1;
    message = g_strdup(error->message);
    g_error_free(error);
    return message;
}

/* A platform object's stand-in for the handle API: how often its release ran. */
static void count_release(void *user_data)
{
    ++*(int *)user_data;
}

/* A D3D11 texture frame made, shared, recovered by type and dropped through the C API: its
 * release runs once, after the last share, with the user data it was given. */
int c_api_check_handle_lifetime(void)
{
    int releases = 0;
    int texture = 0, device = 0;
    G2gD3D11Texture payload = {&texture, 3, 1920, 1080, 103, &device};
    G2gD3D11Texture back;
    G2gWgpuTexture wrong;
    GError *error = NULL;
    GstMemory *memory = g2g_d3d11_texture_memory_new(&payload, 4096, count_release, &releases, &error);
    GstMemory *share;
    G2gMemoryDomainKind kind = G2G_MEMORY_DOMAIN_SYSTEM;
    GstBuffer *buffer;
    int ok = memory != NULL && error == NULL;

    if (!ok)
        return 0;
    memset(&back, 0, sizeof back);
    ok = ok && g2g_memory_get_d3d11_texture(memory, &back) && back.texture == &texture &&
         back.subresource == 3 && back.width == 1920 && back.height == 1080 && back.dxgi_format == 103 &&
         back.device == &device;
    /* another kind's payload type: nothing */
    ok = ok && !g2g_memory_get_wgpu_texture(memory, &wrong) && !g2g_memory_get_cv_pixel_buffer(memory, NULL);
    ok = ok && g2g_memory_get_handle_user_data(memory) == &releases;
    share = gst_memory_share(memory, 0, -1);
    ok = ok && g2g_memory_get_d3d11_texture(share, &back) && back.texture == &texture;
    buffer = gst_buffer_new();
    gst_buffer_append_memory(buffer, memory);
    ok = ok && g2g_buffer_get_memory_domain(buffer, &kind, NULL) && kind == G2G_MEMORY_DOMAIN_D3D11_TEXTURE;
    gst_buffer_unref(buffer);
    ok = ok && releases == 0; /* the share still holds it */
    gst_memory_unref(share);
    return ok && releases == 1;
}

/* The refusal of a CvPixelBuffer whose pixel buffer is NULL (@which 0) or whose release function
 * is NULL (@which 1): the message (caller frees), with *@released the times release ran. */
gchar *c_api_handle_refusal(int which, int *released)
{
    G2gCvPixelBuffer payload = {NULL, 64, 48, 0x34323076, 1};
    GError *error = NULL;
    GstMemory *memory;
    gchar *message;
    int object = 0;

    *released = 0;
    if (which == 1)
        payload.pixel_buffer = &object;
    memory =
        g2g_cv_pixel_buffer_memory_new(&payload, 4608, which == 1 ? NULL : count_release, released, &error);
    if (memory) {
        gst_memory_unref(memory);
        return NULL;
    }
    message = g_strdup(error->code == G2G_ERROR_INVALID_ARGUMENT ? error->message : "(another error code)");
    g_error_free(error);
    return message;
}

/* Frame views: g2g_buffer_materialize_into from C. Returns the error message (caller frees) and
 * its code, or NULL when the frame was written. */
gchar *c_api_materialize(GstBuffer *buffer, const GstVideoInfo *info, guint8 *const dst[],
                         const gint stride[], guint n_threads, gint *code)
{
    GError *error = NULL;
    gchar *message;
    if (g2g_buffer_materialize_into(buffer, info, dst, stride, n_threads, &error))
        return NULL;
    *code = error->domain == G2G_ERROR ? error->code : -1;
    message = g_strdup(error->message);
    g_error_free(error);
    return message;
}

static void note_freed(gpointer data, GstMiniObject *object)
{
    (void)object;
    *(int *)data = 1;
}

/* A G2gFrame from C: an NV12 frame's chroma plane as a layout and as a DLPack tensor that outlives
 * the frame and holds its buffer until its deleter runs; flags that contradict each other refused.
 * Returns 1 when all of it holds. */
int c_api_check_frame(void)
{
    GstVideoInfo info;
    GstBuffer *buffer;
    GstCaps *caps;
    G2gFrame *frame;
    G2gPlaneLayout layout;
    DLManagedTensor *tensor;
    GError *error = NULL;
    int freed = 0;
    int ok;

    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 64, 48);
    buffer = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&info), NULL);
    gst_mini_object_weak_ref(GST_MINI_OBJECT(buffer), note_freed, &freed);
    caps = gst_video_info_to_caps(&info);
    frame = g2g_frame_new(buffer, caps, &error);
    gst_caps_unref(caps);
    gst_buffer_unref(buffer);
    if (!frame)
        return 0;
    ok = g2g_frame_get_memory_domain(frame) == G2G_MEMORY_DOMAIN_SYSTEM &&
         g2g_frame_get_n_planes(frame) == 2 && g2g_frame_get_format(frame) == GST_VIDEO_FORMAT_NV12 &&
         g2g_frame_get_width(frame) == 64 && g2g_frame_is_strided(frame) && !g2g_frame_is_copy(frame);
    ok = ok && g2g_frame_get_plane(frame, 1, &layout, &error) && layout.rows == 24 && layout.columns == 32 &&
         layout.components == 2 && layout.component_size == 1 && layout.row_stride == 64 &&
         layout.column_stride == 2 && layout.offset == 64 * 48 && layout.device_type == G2G_DEVICE_TYPE_CPU;
    tensor = g2g_frame_plane_to_dlpack(frame, 1, G2G_TENSOR_EXPORT_DEFAULT, &error);
    ok = ok && tensor && tensor->dl_tensor.data == (void *)layout.data && tensor->dl_tensor.ndim == 3 &&
         tensor->dl_tensor.shape[0] == 24 && tensor->dl_tensor.shape[1] == 32 &&
         tensor->dl_tensor.shape[2] == 2 && tensor->dl_tensor.strides[0] == 64 &&
         tensor->dl_tensor.strides[1] == 2 && tensor->dl_tensor.device.device_type == kDLCPU &&
         tensor->dl_tensor.dtype.bits == 8;
    ok = ok &&
         !g2g_frame_plane_to_dlpack_versioned(
             frame, 0, G2G_TENSOR_EXPORT_NEVER_COPY | G2G_TENSOR_EXPORT_ALWAYS_COPY, &error) &&
         error && error->code == G2G_ERROR_INVALID_ARGUMENT;
    g_clear_error(&error);
    g2g_frame_unref(frame);
    ok = ok && !freed; /* the tensor holds the buffer */
    if (tensor)
        tensor->deleter(tensor);
    return ok && freed;
}

/* README's C view example, as C: a 90r view of a 16x8 RGBA frame cropped by 2 rows at its top and
 * bottom, written into application memory with a padded stride. View pixel (x, y) is pixel
 * (y, 3 - x) of the cropped 16x4 frame (videoflip's 90r), pixel (y, 5 - x) of the frame, whose
 * bytes are row * 16 + column. The view shares the frame's memory. Returns 1 when all of it holds. */
int c_api_check_make_view(void)
{
    GstVideoInfo info, *view_info = NULL;
    GstBuffer *buffer, *view;
    GError *error = NULL;
    GstMapInfo map;
    guint8 app_pixels[16 * 24];
    guint8 *planes[1];
    gint strides[1];
    guint x, y;
    int ok;

    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, 16, 8);
    buffer = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&info), NULL);
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    for (y = 0; y < 8; ++y)
        for (x = 0; x < 16; ++x)
            memset(map.data + y * 64 + x * 4, (int)(y * 16 + x), 4);
    gst_buffer_unmap(buffer, &map);

    view = g2g_buffer_make_view(buffer, &info, GST_VIDEO_ORIENTATION_90R, 0, 0, 2, 2, &view_info, &error);
    if (!view) {
        g_error_free(error);
        gst_buffer_unref(buffer);
        return 0;
    }
    ok = GST_VIDEO_INFO_WIDTH(view_info) == 4 && GST_VIDEO_INFO_HEIGHT(view_info) == 16 &&
         gst_buffer_peek_memory(view, 0) == gst_buffer_peek_memory(buffer, 0);
    memset(app_pixels, 0xee, sizeof app_pixels);
    planes[0] = app_pixels;
    strides[0] = 24; /* 4 pixels of 4 bytes, 8 bytes of the app's padding */
    ok = ok && g2g_buffer_materialize_into(view, view_info, planes, strides, 1, &error);
    for (y = 0; ok && y < 16; ++y) {
        for (x = 0; x < 4; ++x)
            ok = ok && app_pixels[y * 24 + x * 4] == (guint8)((5 - x) * 16 + y);
        ok = ok && app_pixels[y * 24 + 16] == 0xee; /* the padding untouched */
    }
    g_clear_error(&error);
    gst_video_info_free(view_info);
    gst_buffer_unref(view);
    gst_buffer_unref(buffer);
    return ok;
}
