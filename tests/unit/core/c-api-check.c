// SPDX-License-Identifier: LGPL-2.1-or-later
/* Compiled as C11 with -pedantic: the C header is valid C. The functions are called from
 * test-c-api.cpp. */
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
