// SPDX-License-Identifier: LGPL-2.1-or-later
// What to insert in a pipeline to move a frame from one memory domain to another, and the
// one-line error an element raises when a frame arrives in a domain it cannot take.
#pragma once

#include <string>
#include <string_view>

#include <g2g/domain-set.h>
#include <g2g/error.h>
#include <g2g/memory-domain-kind.h>

namespace g2g {

// The gst-launch fragment that converts from -> to ("cudadownload", "g2gmaterialize",
// "g2gconvert" for CUDA to Vulkan on the GPU where this build has it, "d3d11download !
// vulkanupload"), or an empty string where GStreamer has no such element. from == to is the
// empty string too.
std::string converter_between(MemoryDomainKind from, MemoryDomainKind to);

// True when converter_between(from, to) goes through system memory between two other domains
// (a download, then an upload: a host round trip per frame).
bool converts_through_host(MemoryDomainKind from, MemoryDomainKind to);

// "<category> reads system memory but received a Cuda frame: insert cudadownload before it,
// or let caps negotiation settle on system memory". category is the element's name; accepted
// the domains it takes (a host-memory set reads as "reads system memory", another as
// "requires Cuda or VulkanTexture"). Where no converter exists the line says so.
Error wrong_domain_error(std::string_view category, DomainSet accepted, MemoryDomainKind arrived);

} // namespace g2g
