// SPDX-License-Identifier: LGPL-2.1-or-later
// An element's negotiated plan: made whole by the element's pure make_plan at negotiation (set_caps,
// decide_allocation, a reconfigure), swapped in whole, read by the per-frame path and by any thread.
//
//   Planned<Plan>   what make_plan returns: the plan, or a refusal (its words, or none)
//   PlanSlot<Plan>  the plan in effect: a std::shared_ptr<const Plan> swapped under the object lock
//
// The plan is immutable once made: a reader keeps the one it got (a shared_ptr) for as long as it
// needs it, whatever negotiation swaps in meanwhile, and never sees half of one.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "element-error.h"
#include "object-lock.h"

namespace g2g::element {

template <typename Plan> class Planned {
public:
    Planned(Plan plan) : plan_(std::move(plan)) {} // NOLINT: a plan is a Planned
    // A refusal. Without words it is GstBaseTransform's own not-negotiated (the caps say it all);
    // with them, the element error PlanSlot::take posts.
    static Planned refused(std::string why = {}) { return Planned(std::nullopt, std::move(why)); }

    explicit operator bool() const { return plan_.has_value(); }
    const Plan &operator*() const { return *plan_; }
    const Plan *operator->() const { return &*plan_; }
    std::string_view refusal() const { return refusal_; }

private:
    Planned(std::nullopt_t, std::string why) : refusal_(std::move(why)) {}
    std::optional<Plan> plan_;
    std::string refusal_;
};

template <typename Plan> class PlanSlot {
public:
    using Shared = std::shared_ptr<const Plan>;

    // The plan in effect: nullptr before the first negotiation, after a refusal and after stop.
    // Any thread (it takes the object lock for a shared_ptr copy).
    Shared current(gpointer object) const
    {
        const ObjectLock lock(object);
        return plan_;
    }

    // Swaps `plan` in whole (nullptr: none). The plan it replaces is released after the lock is
    // dropped (its last holder may be another thread, later).
    void swap_in(gpointer object, Shared plan)
    {
        {
            const ObjectLock lock(object);
            plan_.swap(plan);
        } // `plan` now holds the one replaced: released past this point, unlocked
    }

    void clear(gpointer object) { swap_in(object, nullptr); }

    // make_plan's result taken, the one place a refusal is posted: a plan is swapped in and
    // returned; a refusal empties the slot, is posted as `element`'s negotiation error when it
    // has words, and returns nullptr.
    Shared take(GstElement *element, Planned<Plan> planned, SourcePlace where = SourcePlace::current())
    {
        if (!planned) {
            clear(element);
            if (!planned.refusal().empty())
                post_error(element, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, planned.refusal(), {}, where);
            return nullptr;
        }
        Shared plan = std::make_shared<const Plan>(*planned);
        swap_in(element, plan);
        return plan;
    }

private:
    Shared plan_; // under the object lock
};

} // namespace g2g::element
