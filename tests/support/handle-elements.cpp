// SPDX-License-Identifier: LGPL-2.1-or-later
// Registers the test-only handle elements (see handle-elements.h).
#include "handle-elements.h"

#include <mutex>

namespace g2g::test {

void register_handle_elements()
{
    static std::once_flag once;
    std::call_once(once, [] {
        // No plugin: the factories live in the registry of this process only.
        gst_element_register(nullptr, "g2gtesthandlesrc", GST_RANK_NONE, g2g_test_handle_src_get_type());
        gst_element_register(nullptr, "g2gtesthandlesink", GST_RANK_NONE, g2g_test_handle_sink_get_type());
    });
}

} // namespace g2g::test
