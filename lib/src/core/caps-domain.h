// SPDX-License-Identifier: LGPL-2.1-or-later
// Which memory domain caps select (classify.cpp): read from the domain table's caps features.
#pragma once

#include <gst/gst.h>

#include <optional>

#include <g2g/memory-domain-kind.h>

namespace g2g::detail {

// The domain the features select: System for plain or system-memory features, a view kind
// (SystemView) with meta:G2gTensorView over its memory, the kind whose memory feature they
// carry otherwise. nullopt for ANY features and for memory types no seed kind names
// (memory:VulkanBuffer, memory:GLMemory).
std::optional<MemoryDomainKind> domain_of(const GstCapsFeatures *features);

// The domain of a fixed caps' (first) structure; nullopt for ANY, empty or no caps, and as above.
std::optional<MemoryDomainKind> domain_of(const GstCaps *caps);

} // namespace g2g::detail
