// SPDX-License-Identifier: LGPL-2.1-or-later
// An element's negotiated plan: made whole by the element's pure make_plan at negotiation (set_caps,
// decide_allocation, a reconfigure), put in effect whole, read by the per-frame path.
//
//   Planned<Plan>   what make_plan returns: the plan, or a refusal (its words, or none)
//   PlanSlot<Plan>  the plan in effect, immutable once made
//
// Negotiation and the frames run on the streaming thread (under the sink pad's stream lock), so
// the plan is replaced and read there, without a lock; the state change that clears it runs once
// streaming has stopped.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "element-error.h"

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
    // For the streaming thread, the one thread that replaces plans (set_caps, decide_allocation and
    // the frames all run there): no lock and no reference per frame.
    const Plan *in_effect() const { return plan_.get(); }

    // None in effect (stop, once streaming has stopped; a refusal).
    void clear() { plan_.reset(); }

    // make_plan's result taken, the one place a refusal is posted: a plan is put in effect whole
    // and returned; a refusal empties the slot, is posted as `element`'s negotiation error when it
    // has words, and returns nullptr.
    Shared take(GstElement *element, Planned<Plan> planned, SourcePlace where = SourcePlace::current())
    {
        if (!planned) {
            clear();
            if (!planned.refusal().empty())
                post_error(element, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, planned.refusal(), {}, where);
            return nullptr;
        }
        plan_ = std::make_shared<const Plan>(*planned);
        return plan_;
    }

private:
    Shared plan_;
};

} // namespace g2g::element
