#include "tee-converter.h"

#include <g2g/converters.h>

namespace g2g::tee {

Converter::Converter(GstBin *tee, MemoryDomainKind from, MemoryDomainKind to, std::string description)
    : tee_(tee), from_(from), to_(to), description_(std::move(description)),
      pair_(std::string(name(from)) + "-to-" + std::string(name(to)))
{
}

Result<std::unique_ptr<Converter>> Converter::create(GstBin *tee, MemoryDomainKind from, MemoryDomainKind to,
                                                     const ConverterPadFunctions &functions)
{
    std::string description = converter_between(from, to);
    if (description.empty())
        return Error(ErrorCode::UnsupportedDomain, "no GStreamer element converts " +
                                                       std::string(name(from)) + " frames to " +
                                                       std::string(name(to)));
    std::unique_ptr<Converter> converter(new Converter(tee, from, to, description));

    GError *error = nullptr;
    GstElement *chain = gst_parse_bin_from_description_full(description.c_str(), TRUE, nullptr,
                                                            GST_PARSE_FLAG_NO_SINGLE_ELEMENT_BINS, &error);
    if (!chain) {
        std::string message =
            "cannot create " + description + ": " + (error ? error->message : "unknown error");
        g_clear_error(&error);
        return Error(ErrorCode::UnsupportedDomain, std::move(message));
    }
    g_clear_error(&error); // a warning about a missing optional property is not fatal
    gchar *child_name =
        g_strdup_printf("convert-%s-to-%s", std::string(nick(from)).c_str(), std::string(nick(to)).c_str());
    gst_element_set_name(chain, child_name);
    g_free(child_name);
    converter->chain_ = GST_ELEMENT(gst_object_ref_sink(chain));

    converter->feeder_ = GST_PAD(gst_object_ref_sink(gst_pad_new("feeder", GST_PAD_SRC)));
    converter->collector_ = GST_PAD(gst_object_ref_sink(gst_pad_new("collector", GST_PAD_SINK)));
    GST_PAD_ELEMENT_PRIVATE(converter->feeder_) = converter.get();
    GST_PAD_ELEMENT_PRIVATE(converter->collector_) = converter.get();
    gst_pad_set_query_function(converter->feeder_, functions.feeder_query);
    gst_pad_set_event_function(converter->feeder_, functions.feeder_event);
    gst_pad_set_chain_function(converter->collector_, functions.collector_chain);
    gst_pad_set_event_function(converter->collector_, functions.collector_event);
    gst_pad_set_query_function(converter->collector_, functions.collector_query);
    gst_pad_set_active(converter->feeder_, TRUE);
    gst_pad_set_active(converter->collector_, TRUE);

    if (!gst_bin_add(tee, converter->chain_))
        return Error(ErrorCode::InvalidArgument, "cannot add " + description + " to the tee");
    GstPad *chain_sink = gst_element_get_static_pad(converter->chain_, "sink");
    GstPad *chain_src = gst_element_get_static_pad(converter->chain_, "src");
    const bool linked =
        chain_sink && chain_src &&
        gst_pad_link_full(converter->feeder_, chain_sink, GST_PAD_LINK_CHECK_NOTHING) == GST_PAD_LINK_OK &&
        gst_pad_link_full(chain_src, converter->collector_, GST_PAD_LINK_CHECK_NOTHING) == GST_PAD_LINK_OK;
    if (chain_sink)
        gst_object_unref(chain_sink);
    if (chain_src)
        gst_object_unref(chain_src);
    if (!linked)
        return Error(ErrorCode::InvalidArgument, description + " has no single sink and src pad to link");
    // Linked first, so the chain's context queries (made when it goes to READY) find upstream.
    if (!gst_element_sync_state_with_parent(converter->chain_))
        return Error(ErrorCode::UnsupportedDomain, description + " failed to start");
    return converter;
}

Converter::~Converter()
{
    if (chain_) {
        gst_element_set_state(chain_, GST_STATE_NULL);
        if (GST_OBJECT_PARENT(chain_) == GST_OBJECT(tee_))
            gst_bin_remove(tee_, chain_);
        gst_object_unref(chain_);
    }
    for (GstPad *pad : {feeder_, collector_}) {
        if (!pad)
            continue;
        GstPad *peer = gst_pad_get_peer(pad);
        if (peer) {
            if (GST_PAD_IS_SRC(pad))
                gst_pad_unlink(pad, peer);
            else
                gst_pad_unlink(peer, pad);
            gst_object_unref(peer);
        }
        gst_pad_set_active(pad, FALSE);
        GST_PAD_ELEMENT_PRIVATE(pad) = nullptr;
        gst_object_unref(pad);
    }
}

} // namespace g2g::tee
