/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application of an installed g2g, built as a user builds one:
 *   cc classify.c $(pkg-config --cflags --libs g2g-1.0)
 * It classifies the frames of videotestsrc (fakesink's handoff: GStreamer's core alone) and prints
 * each one's domain, as "System (memory:SystemMemory)"; run-install-test.sh compares the output. */
#include <g2g/g2g.h>

static void on_handoff(GstElement *sink, GstBuffer *buffer, GstPad *pad, gpointer user_data)
{
    (void)sink;
    (void)pad;
    (void)user_data;
    G2gMemoryDomainKind kind;
    GError *error = NULL;
    if (g2g_buffer_get_memory_domain(buffer, &kind, &error)) {
        g_print("%s (%s)\n", g2g_memory_domain_kind_name(kind), g2g_memory_domain_kind_caps_feature(kind));
    } else {
        g_print("refused: %s\n", error->message);
        g_error_free(error);
    }
}

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    GError *error = NULL;
    GstElement *pipeline =
        gst_parse_launch("videotestsrc num-buffers=2 ! fakesink name=sink signal-handoffs=true", &error);
    if (pipeline == NULL) {
        g_printerr("classify: %s\n", error->message);
        return 1;
    }
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), NULL);
    gst_object_unref(sink);

    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message =
        gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    int status = message != NULL && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS ? 0 : 1;
    if (status != 0)
        g_printerr("classify: the pipeline did not reach its end\n");
    if (message != NULL)
        gst_message_unref(message);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return status;
}
