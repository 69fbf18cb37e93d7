// SPDX-License-Identifier: LGPL-2.1-or-later
// An element's settings (its properties as the application set them), guarded by the object
// lock and only ever copied in or out: negotiation takes a snapshot for make_plan (plan-slot.h),
// set_property changes them and says whether the change needs a new plan (then marks the src pad
// for reconfigure, outside the lock: videoflip's proposed, then active at the next negotiation).
#pragma once

#include <gst/gst.h>

#include <utility>

#include "object-lock.h"

namespace g2g::element {

template <typename Settings> class SettingsSlot {
public:
    // A copy, for one decision or one get_property. Any thread.
    Settings snapshot(gpointer object) const
    {
        const ObjectLock lock(object);
        return settings_;
    }

    // Runs `change(Settings &)` under the object lock and returns what it returns (e.g. whether a
    // new plan is needed). `change` only assigns: it posts, notifies and calls out to nothing.
    template <typename Change> auto update(gpointer object, Change &&change)
    {
        const ObjectLock lock(object);
        return std::forward<Change>(change)(settings_);
    }

private:
    Settings settings_; // under the object lock
};

} // namespace g2g::element
