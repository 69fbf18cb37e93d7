// SPDX-License-Identifier: LGPL-2.1-or-later
// One element's page (docs/elements/<element>.md) written from what the loaded plugin declares:
// metadata, hierarchy, pad templates, properties, signals; merged with the element's hand-written
// part (docs/elements/examples/<element>.md). Nothing in it depends on the machine or on the
// GStreamer version: no paths, no version, the documentation URI written relative to the doc-url
// option.
#pragma once

#include <gst/gst.h>

#include <string>

namespace g2g::docs {

// The hand-written part of a page, from its source's sections ("<!-- section: NAME -->" lines).
struct HandWritten {
    std::string pad_templates; // what each group of the pad templates is for
    std::string examples;      // gst-launch-1.0 examples, with what they show
};

HandWritten parse_hand_written(const std::string &source);

// The page of `factory` (its plugin loaded). `registered_in` says which builds register the
// element ("every build", or the features it needs).
std::string element_page(GstElementFactory *factory, const HandWritten &hand,
                         const std::string &registered_in, const std::string &hand_written_path);

} // namespace g2g::docs
