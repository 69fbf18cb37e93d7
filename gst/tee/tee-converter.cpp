// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-converter.h"

#include <g2g/converters.h>

namespace g2g::tee {
namespace {

// A private pad of a converter, owned by it alone (never parented).
Ref<GstPad> private_pad(const char *name, GstPadDirection direction, Converter *converter)
{
    Ref<GstPad> pad = Ref<GstPad>::adopt(GST_PAD(gst_object_ref_sink(gst_pad_new(name, direction))));
    GST_PAD_ELEMENT_PRIVATE(pad.get()) = converter;
    return pad;
}

} // namespace

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

    g_autoptr(GError) error = nullptr;
    GstElement *chain = gst_parse_bin_from_description_full(description.c_str(), TRUE, nullptr,
                                                            GST_PARSE_FLAG_NO_SINGLE_ELEMENT_BINS, &error);
    if (!chain)
        return Error(ErrorCode::UnsupportedDomain,
                     "cannot create " + description + ": " + (error ? error->message : "unknown error"));
    // A warning (a missing optional property, say) leaves `error` set and is not fatal.
    g_autofree gchar *child_name =
        g_strdup_printf("convert-%s-to-%s", std::string(nick(from)).c_str(), std::string(nick(to)).c_str());
    gst_element_set_name(chain, child_name);
    converter->chain_ = ElementRef::adopt(GST_ELEMENT(gst_object_ref_sink(chain)));

    converter->feeder_ = private_pad("feeder", GST_PAD_SRC, converter.get());
    converter->collector_ = private_pad("collector", GST_PAD_SINK, converter.get());
    GstPad *feeder = converter->feeder();
    GstPad *collector = converter->collector();
    gst_pad_set_query_function(feeder, functions.feeder_query);
    gst_pad_set_event_function(feeder, functions.feeder_event);
    gst_pad_set_chain_function(collector, functions.collector_chain);
    gst_pad_set_event_function(collector, functions.collector_event);
    gst_pad_set_query_function(collector, functions.collector_query);
    gst_pad_set_active(feeder, TRUE);
    gst_pad_set_active(collector, TRUE);

    if (!gst_bin_add(tee, converter->chain_.get()))
        return Error(ErrorCode::InvalidArgument, "cannot add " + description + " to the tee");
    const Ref<GstPad> chain_sink =
        Ref<GstPad>::adopt(gst_element_get_static_pad(converter->chain_.get(), "sink"));
    const Ref<GstPad> chain_src =
        Ref<GstPad>::adopt(gst_element_get_static_pad(converter->chain_.get(), "src"));
    const bool linked =
        chain_sink && chain_src &&
        gst_pad_link_full(feeder, chain_sink.get(), GST_PAD_LINK_CHECK_NOTHING) == GST_PAD_LINK_OK &&
        gst_pad_link_full(chain_src.get(), collector, GST_PAD_LINK_CHECK_NOTHING) == GST_PAD_LINK_OK;
    if (!linked)
        return Error(ErrorCode::InvalidArgument, description + " has no single sink and src pad to link");
    // Linked first, so the chain's context queries (made when it goes to READY) find upstream.
    if (!gst_element_sync_state_with_parent(converter->chain_.get()))
        return Error(ErrorCode::UnsupportedDomain, description + " failed to start");
    return converter;
}

Converter::~Converter()
{
    if (chain_) {
        // Locked first: a state change of the tee meanwhile (a pipeline re-committing PLAYING
        // when a new branch's sink prerolls) would otherwise set the chain to PAUSED again
        // between its NULL and its removal, and it would be disposed out of NULL.
        gst_element_set_locked_state(chain_.get(), TRUE);
        gst_element_set_state(chain_.get(), GST_STATE_NULL);
        if (GST_OBJECT_PARENT(chain_.get()) == GST_OBJECT(tee_))
            gst_bin_remove(tee_, chain_.get());
        chain_.reset();
    }
    for (Ref<GstPad> *pad : {&feeder_, &collector_}) {
        if (!*pad)
            continue;
        if (const Ref<GstPad> peer = Ref<GstPad>::adopt(gst_pad_get_peer(pad->get()))) {
            if (GST_PAD_IS_SRC(pad->get()))
                gst_pad_unlink(pad->get(), peer.get());
            else
                gst_pad_unlink(peer.get(), pad->get());
        }
        gst_pad_set_active(pad->get(), FALSE);
        GST_PAD_ELEMENT_PRIVATE(pad->get()) = nullptr;
        pad->reset();
    }
}

} // namespace g2g::tee
