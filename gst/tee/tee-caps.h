// SPDX-License-Identifier: LGPL-2.1-or-later
// Caps arithmetic of g2gtee's per-branch domains: which memory domain a caps structure selects,
// the same caps in another domain, and what a branch can be fed once g2gtee's own conversions
// into system memory are counted in. memory:DMABuf caps come in GStreamer 1.22's form and 1.24's
// DMA_DRM form (g2g/dmabuf.h): the tee answers in both and restates one as the other.
#pragma once

#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>

#include <gst/gst.h>

#include <optional>

namespace g2g::tee {

// The domain the features select: System for plain or system-memory features, SystemView with
// meta:G2gTensorView, the kind whose memory feature they carry otherwise. nullopt for ANY
// features and for memory types no seed kind names (memory:VulkanBuffer, memory:GLMemory).
std::optional<MemoryDomainKind> domain_of(const GstCapsFeatures *features);

// The domain of a fixed caps' (first) structure; nullopt as domain_of.
std::optional<MemoryDomainKind> domain_of(const GstCaps *caps);

// True when g2gtee turns frames of `from` into system-memory frames itself, as the domain
// table says: DmaBuf mapped in place (no copy), and every kind whose to-system elements exist
// here (SystemView by g2gmaterialize, VulkanTexture by g2gmaterialize, Cuda by cudadownload).
bool converts_to_system(MemoryDomainKind from);

// True when an element converts frames of `from` to `to` on the device itself (the domain table's
// device routes: CUDA and Vulkan through g2gconvert) and exists here.
bool converts_on_device(MemoryDomainKind from, MemoryDomainKind to);
// A copy of `caps` whose every structure has the caps features of `kind`. DMA_DRM is
// memory:DMABuf's alone: in another domain DMA_DRM structures take 1.22's form (those 1.22 cannot
// say are left out), and in DmaBuf every structure comes in both forms.
CapsRef in_domain(const GstCaps *caps, MemoryDomainKind kind);

// The other form of fixed memory:DMABuf caps (BranchRoute::Restated's caps): 1.22's `format=NV12` for
// DMA_DRM's `drm-format=NV12`, and the reverse. Null where there is none: other memory, a
// non-linear modifier or a fourcc GStreamer has no format for (those travel only as they are).
CapsRef restated(const GstCaps *caps);

// What a branch whose peer takes `peer_caps` can be fed through g2gtee: those caps, and after
// them every system-memory structure again in each domain g2gtee converts to system memory, and
// every structure of a device domain again in each domain converted to it on the device, DMABuf
// structures in both forms (ANY stays ANY).
CapsRef feedable(const GstCaps *peer_caps);

// What g2gtee can give a branch when upstream can produce `upstream_caps`: those caps (DMABuf
// structures in both forms), and after them every structure of a domain g2gtee converts to system
// memory, again in system memory, and again in each domain it converts to on the device (ANY
// stays ANY).
CapsRef producible(const GstCaps *upstream_caps);

// What a branch of g2gtee links to when upstream can produce `upstream_caps`: producible(), then,
// last, the same caps in every domain no conversion reaches. The element takes any domain; the plan
// refuses such a branch by name at the caps event (fan-out-policy), whatever the order the pipeline
// was linked in (gst-launch-1.0 links a branch written after the source with the source's caps
// known: without them there, it said only `could not link queue1 to fakesink1`).
CapsRef linkable(const GstCaps *upstream_caps);

// `caps` best first: structures some branch takes as they are (`direct`)
// before those that need a conversion, each group in DomainSet's GPU-first order; structures
// of one rank keep their order. ANY stays ANY.
CapsRef ordered_for_upstream(const GstCaps *caps, const GstCaps *direct);

// gst_caps_merge() of two owned caps into the first.
inline void merge(CapsRef &into, CapsRef more)
{
    into.reset(gst_caps_merge(into.release(), more.release()));
}

} // namespace g2g::tee
