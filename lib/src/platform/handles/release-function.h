// SPDX-License-Identifier: LGPL-2.1-or-later
// The keep-alive made of a release function and its user data (handles::keep_alive, and every
// C API memory): the C API reads its user data back (g2g_memory_get_handle_user_data).
#pragma once

#include <g2g/platform-handles.h>

namespace g2g::handles::detail {

class ReleaseFunction final : public KeepAlive {
public:
    ReleaseFunction(void *user_data, G2gHandleRelease release) : user_data_(user_data), release_(release) {}
    // The one release: the keep-alive is shared by every share of its memory and dies with the last.
    ~ReleaseFunction() override { release_(user_data_); }
    ReleaseFunction(const ReleaseFunction &) = delete;
    ReleaseFunction &operator=(const ReleaseFunction &) = delete;

    void *user_data() const { return user_data_; }

private:
    void *user_data_;
    G2gHandleRelease release_;
};

} // namespace g2g::handles::detail
