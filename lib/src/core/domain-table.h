// SPDX-License-Identifier: LGPL-2.1-or-later
// The domain table: every fact of a memory domain kind, one row per kind. Classification,
// names, caps features, DomainSet's preference order, the converter lookup, make_shareable,
// g2gtee's conversions and the error texts all read it; adding a domain is one row here plus
// its platform folder (lib/src/platform/<name>/).
//
// lib/src/core/ holds the domain model:
//   domain-table      this table
//   memory-domain-kind, domain-set   names, nicks, caps features, sets and preference (read the table)
//   classify          which row a GstMemory / GstBuffer / caps structure belongs to
//   memory-domain, system-bytes, make-shareable   the seed's MemoryDomain over a GstBuffer
//   converters        what to insert between two domains, and the wrong-domain error
//   c-api, log        the C API (g2g/g2g.h) and the "g2g" debug category
#pragma once

#include <gst/gst.h>

#include <optional>
#include <span>
#include <string_view>

#include <g2g/memory-domain-kind.h>

namespace g2g::detail {

// How a CPU reads a frame of the kind.
enum class HostRead {
    InPlace,      // mapped as it is (System)
    Materialized, // through its view, densely copied once (SystemView)
    WhenMappable, // mapped in place when the memory maps (DmaBuf); an importer otherwise
    Download,     // only through a download element (VulkanTexture, Cuda, D3D11Texture)
    Never,        // no element reads it on the host (the handles of foreign platforms)
};

// Which views of a frame of a handle kind travel: g2gview hands them on as views alone, for the
// consumer to apply as it reads the frame. Nothing writes the memory of these kinds, so there is
// no dense frame to fall back on, and a view the payload cannot carry is refused.
enum class HandleViews {
    None,                 // not a handle kind: views go through a view backend (view-backend.h)
    Crops,                // a buffer: a crop is an offset with the buffer's own forward strides
    CropsAndOrientations, // a texture: a GPU samples any rectangle of it, flipped or rotated
};

// How make_shareable turns memory flagged NO_SHARE into memory every copy of the frame shares.
// Returns the new memory (holding `frame` alive), or nullptr where it stays as it is.
using MakeShareable = GstMemory *(*)(GstBuffer *frame, GstMemory *memory);

// A conversion to another domain on the device itself, by an element of this build.
struct DeviceRoute {
    MemoryDomainKind to;
    std::string_view converter; // the gst-launch fragment
    bool (*built)();            // whether this build has it (platform hooks)
};

struct DomainInfo {
    MemoryDomainKind kind;
    std::string_view name; // the seed's
    std::string_view nick; // kebab case: GFlags nicks, element properties
    // The caps features a stream of the kind negotiates, and their memory part alone.
    std::string_view caps_feature;
    std::string_view memory_caps_feature;
    // GstAllocator mem_type names whose memory is of this kind (compared as strings, so a build
    // without the platform's SDK still names GStreamer's own memories right).
    std::span<const std::string_view> memory_types;
    // Memory of this kind that its type name alone does not show (allocators derived from
    // GStreamer's, seen through the platform's SDK); nullptr: the type names say it all.
    bool (*recognises)(GstMemory *memory) = nullptr;
    // A view kind: frames of kind `views` whose buffer carries a G2gTensorView meta.
    std::optional<MemoryDomainKind> views = std::nullopt;
    HostRead host_read;
    // GStreamer's memory of the kind maps to the host by downloading itself (GstCudaMemory), and
    // its own download element hands it on under system-memory caps as it is when downstream
    // reads GstVideoMeta (cudadownload on 1.22; on 1.26 too unless it came from NVDEC's pool): a
    // host reader with system caps then reads it through that mapping (detail::host_copy_of).
    bool maps_under_system_caps = false;
    // Carried as g2g's handle memory (platform/handles/), whose allocator registers
    // memory_types[0]: the handles of platforms g2g never links.
    bool handle_memory = false;
    HandleViews handle_views = HandleViews::None;
    MakeShareable make_shareable = nullptr;
    // gst-launch fragments that bring a frame of this kind to dense system memory and back;
    // empty where GStreamer has no such element.
    std::string_view to_system = {};
    std::string_view from_system = {};
    // Conversions to other device domains that stay on the device (no round trip through host
    // memory); others go through system memory (to_system, then the target's from_system).
    std::span<const DeviceRoute> device_routes = {};
    // Position in the GPU-first preference (0 is best): a frame that can stay on a device should.
    unsigned preference;
};

// The row of `kind`.
const DomainInfo &domain_info(MemoryDomainKind kind);

// Every row, in MemoryDomainKind order.
std::span<const DomainInfo, kMemoryDomainKindCount> domain_table();

} // namespace g2g::detail
