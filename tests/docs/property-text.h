// SPDX-License-Identifier: LGPL-2.1-or-later
// Properties and signals of a GType as an element page writes them: the type's own (not those it
// inherits from GStreamer's base classes), each with its type, flags, range, default and, for
// enums and flags, every value.
#pragma once

#include <glib-object.h>

#include <string>

namespace g2g::docs {

// "### `name`" sections of the properties `type` itself installs or overrides, by name; "None.\n"
// when it has none. `instance_name` names the type in signatures ("g2gview", "pad").
std::string properties_markdown(GType type);

// Signals `type` itself defines, split by whether they are action signals.
std::string signals_markdown(GType type, const std::string &instance_name, bool actions);

} // namespace g2g::docs
