// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe's `require` as people write it: the kind names g2gprobe prints (last-domain:
// "DmaBuf", "VulkanTexture") as well as the flags' nicks ("dma-buf", "vulkan-texture"), in any
// case, hyphens and underscores optional, joined by '+' (or '|'); `vulkan` names VulkanTexture
// (GStreamer's family name for it: vulkanupload, vulkansink). The property stays a GFlags type
// (G2gMemoryDomainKinds: gst-inspect-1.0 lists its flags); a GstValueTable registered for that
// type makes gst_value_deserialize, gst_util_set_object_arg and gst_parse_launch (gst-launch-1.0)
// read it so.
#pragma once

#include <g2g/domain-set.h>

#include <gst/gst.h>

#include <optional>
#include <string>
#include <string_view>

GST_DEBUG_CATEGORY_EXTERN(g2g_probe_debug);

namespace g2g::probe {

// The domains `text` names, or nullopt where a name is none of them. Empty names between
// separators are skipped ("" and "system+" as GStreamer reads them); a number (GStreamer's own
// form: "0", "0x5") is read as the flags' bits.
std::optional<DomainSet> parse_require(std::string_view text);

// The names parse_require takes, for the warning a bad one gets: "System (system), SystemView
// (system-view), ..., or vulkan for VulkanTexture".
std::string accepted_require_names();

// Registers the GstValueTable of G2gMemoryDomainKinds (serialize: the canonical nicks joined by
// '+', as GStreamer's flags; deserialize: parse_require). Once, from g2gprobe's class_init: the
// table is global and static.
void register_require_parser();

} // namespace g2g::probe
