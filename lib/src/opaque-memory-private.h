#pragma once

#include <gst/gst.h>

#include <optional>

#include <g2g/memory-domain-kind.h>

namespace g2g::detail {
// The kind of memory made by wrap_opaque_handle, else nullopt.
std::optional<MemoryDomainKind> opaque_memory_kind(GstMemory *memory);
} // namespace g2g::detail
