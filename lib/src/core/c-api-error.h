// SPDX-License-Identifier: LGPL-2.1-or-later
// A g2g::Error as the C API's GError (G2G_ERROR, the same code): for every file of the C API.
#pragma once

#include <g2g/error.h>
#include <g2g/g2g.h>

namespace g2g::detail {

// Sets `error` (when asked for) and returns FALSE, for `return set_error(...)` in gboolean calls.
inline gboolean set_error(GError **error, const Error &failure)
{
    g_set_error_literal(error, G2G_ERROR, static_cast<int>(failure.code()), failure.message().c_str());
    return FALSE;
}

} // namespace g2g::detail
