// SPDX-License-Identifier: LGPL-2.1-or-later
// One conversion g2gtee runs for a target domain: the element chain converter_between() names
// (vulkandownload, cudadownload, g2gmaterialize), a child of the tee, fed synchronously through
// a private src pad (the feeder) and drained through a private sink pad (the collector), so a
// frame is converted once however many branches take the result.
#pragma once

#include <g2g/converters.h>
#include <g2g/error.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

#include <gst/gst.h>

#include <memory>
#include <string>

namespace g2g::tee {

// The pad functions of the tee that serve a converter's private pads. Each receives the
// converter through GST_PAD_ELEMENT_PRIVATE of its pad.
struct ConverterPadFunctions {
    GstPadQueryFunction feeder_query;    // queries the chain sends upstream (caps, contexts)
    GstPadEventFunction feeder_event;    // events the chain sends upstream (QoS, reconfigure)
    GstPadChainFunction collector_chain; // converted frames
    GstPadEventFunction collector_event; // the chain's output events (caps, segment, EOS)
    GstPadQueryFunction collector_query; // the chain's downstream queries (caps, allocation)
};

class Converter {
public:
    // Builds converter_between(from, to) inside `tee` (a GstBin), links it between the private
    // pads and brings it to the tee's state. The chain's context queries reach upstream through
    // the feeder, so it uses the producer's Vulkan device or CUDA context.
    static Result<std::unique_ptr<Converter>> create(GstBin *tee, MemoryDomainKind from, MemoryDomainKind to,
                                                     const ConverterPadFunctions &functions);
    ~Converter(); // stops the chain and removes it from the tee

    Converter(const Converter &) = delete;
    Converter &operator=(const Converter &) = delete;

    MemoryDomainKind from() const { return from_; }
    MemoryDomainKind to() const { return to_; }
    const std::string &description() const { return description_; } // "vulkandownload"
    const std::string &pair() const { return pair_; }               // "VulkanTexture-to-System"
    // A download and an upload between two device domains ("cudadownload ! vulkanupload").
    bool through_host() const { return converts_through_host(from_, to_); }
    GstPad *feeder() const { return feeder_.get(); }
    GstPad *collector() const { return collector_.get(); }
    GstElement *tee() const { return GST_ELEMENT(tee_); }

private:
    Converter(GstBin *tee, MemoryDomainKind from, MemoryDomainKind to, std::string description);

    GstBin *tee_; // owns this converter
    MemoryDomainKind from_;
    MemoryDomainKind to_;
    std::string description_;
    std::string pair_;
    ElementRef chain_;      // a child of the tee; the extra reference outlives its removal
    Ref<GstPad> feeder_;    // ours, unparented
    Ref<GstPad> collector_; // ours, unparented
};

// The Converter a private pad belongs to.
inline Converter *converter_of(GstPad *pad)
{
    return static_cast<Converter *>(GST_PAD_ELEMENT_PRIVATE(pad));
}

} // namespace g2g::tee
