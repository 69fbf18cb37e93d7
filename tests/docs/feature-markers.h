// SPDX-License-Identifier: LGPL-2.1-or-later
// The markers around the parts of an element page that a build shows only with an optional
// feature. check-element-pages.py reads the same two lines: a build without the feature drops
// what they enclose from the checked-in page before comparing, and says so.
#pragma once

#include <string>

namespace g2g::docs {

inline std::string feature_begin(const std::string &feature)
{
    return "<!-- only in builds with: " + feature + " -->\n";
}

inline std::string feature_end(const std::string &feature)
{
    return "<!-- end of: " + feature + " -->\n";
}

} // namespace g2g::docs
