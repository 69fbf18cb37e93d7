// SPDX-License-Identifier: LGPL-2.1-or-later
// What g2gtee's plan is made of, taken in one go (the settings under the object lock, each branch
// peer's caps asked once), and the swap of the plan make_plan makes of it (tee-plan.h): its
// conversions made or reused, the branches whose route changed given their new source's stream
// events, drop-branch's warnings posted, conversions no branch needs any more stopped.
#pragma once

#include "tee-plan.h"

#include <memory>
#include <optional>

namespace g2g::tee {

struct TeeState;

// Makes the plan for frames of `caps` (the sink pad's current caps when null) and swaps it in; a
// refusal (fan-out-policy=fail or copy-budget) leaves the plan before in place. Streaming thread,
// under the sink pad's stream lock. `in_caps_event`: called before the sink pad stores `caps`
// (new conversions then get the stream's events with `caps` in place of the stored ones: the
// segment too, which upstream sent before and does not send again at a caps change).
[[nodiscard]] std::optional<Refusal> replan(G2gTee *self, GstCaps *caps, bool in_caps_event);

// The plan made again (replan) where pads came, went or relinked or a setting changed since it
// was made; its refusal, if any, is the one the next frame posts. Streaming thread.
void refresh_plan(G2gTee *self);

// The plan in force (takes the object lock): for threads other than the streaming thread.
std::shared_ptr<const TeePlan> current_plan(G2gTee *self);

// The branch pads `converter` feeds in the plan in force, for its events and queries.
std::vector<PadRef> pads_of(G2gTee *self, const Converter *converter);

// Whether `pad` is still one of the tee's branches (call with the object lock held).
bool holds_branch(const TeeState &state, const GstPad *pad);

} // namespace g2g::tee
