// SPDX-License-Identifier: LGPL-2.1-or-later
#include "upstream-thread.h"

#include <g2g/gst-ref.h>

#include <cstring>

#include "object-lock.h"

namespace g2g::element {

namespace {

// The one sink pad of `element` (a reference), or nothing for a source or a muxer.
Ref<GstPad> only_sink_pad(GstElement *element)
{
    const ObjectLock lock(element);
    if (element->numsinkpads == 1)
        return Ref<GstPad>::borrow(GST_PAD(element->sinkpads->data));
    return {};
}

} // namespace

bool runs_upstream_in_thread(GstElement *element, const char *factory)
{
    ElementRef current = ElementRef::borrow(element);
    // A pipeline is not deeper than this in one thread; a loop of pads (impossible when linked
    // as GStreamer links) ends here too.
    for (int hops = 0; current && hops < 64; ++hops) {
        const Ref<GstPad> sink = only_sink_pad(current.get());
        const Ref<GstPad> peer = sink ? Ref<GstPad>::adopt(gst_pad_get_peer(sink.get())) : Ref<GstPad>();
        if (!peer)
            return false;
        if (GST_PAD_TASK(peer.get()))
            return false; // a queue's source pad, a source's: another thread feeds us
        ElementRef upstream = ElementRef::adopt(gst_pad_get_parent_element(peer.get()));
        if (!upstream) {
            // A private pad of the bin we are in (g2gtee feeds its conversions so): the bin's
            // own sink pad is where our frames come from.
            current = ElementRef::adopt(GST_ELEMENT(gst_object_get_parent(GST_OBJECT(current.get()))));
            continue;
        }
        GstElementFactory *made_by = gst_element_get_factory(upstream.get());
        if (made_by && std::strcmp(GST_OBJECT_NAME(made_by), factory) == 0)
            return true;
        current = std::move(upstream);
    }
    return false;
}

} // namespace g2g::element
