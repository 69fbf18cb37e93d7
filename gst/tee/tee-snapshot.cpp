// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-snapshot.h"

#include "tee-private.h"

#include "common/object-lock.h"

#include <algorithm>
#include <optional>

namespace g2g::tee {

using element::ObjectLock;

HeldRoutes RouteSnapshot::take(G2gTee *self, Gaps gaps)
{
    fill(self, gaps);
    return HeldRoutes(*this);
}

void RouteSnapshot::fill(G2gTee *self, Gaps gaps)
{
    const ObjectLock lock(self);
    const TeeSettings &settings = self->priv->settings;
    silent = settings.silent;
    allow_not_linked = settings.allow_not_linked;
    std::optional<bool> negotiated; // whether the stream has caps, asked once if needed
    for (const PadRef &pad : self->priv->state.branches) {
        G2gTeeSrcPad *branch = branch_of(pad.get());
        switch (branch->route) {
        case BranchRoute::Unresolved:
            // Before the stream's caps no route is decided: fed as it is, as tee feeds it. After
            // them, an unlinked branch gets nothing (tee's NOT_LINKED for it): linked before the
            // push reached it, it would get the frame in a domain it may not read. One linked since
            // the routes were decided waits for its route. (A pad's lock inside the element's, in
            // the order GStreamer's add_pad takes them.)
            if (!negotiated.has_value())
                negotiated = gst_pad_has_current_caps(self->sinkpad);
            if (!*negotiated)
                direct.push_back(pad);
            else if (gst_pad_is_linked(pad.get()))
                undecided = true;
            break;
        case BranchRoute::Direct:
            direct.push_back(pad);
            break;
        case BranchRoute::Restated:
            restated.push_back(pad);
            break;
        case BranchRoute::Relabelled:
            relabelled.push_back(pad);
            break;
        case BranchRoute::Converted:
            conversion_for(branch->converter).pads.push_back(pad);
            break;
        case BranchRoute::Dropped:
            dropped.push_back(pad);
            break;
        }
    }
    // Gaps are claimed by a snapshot that is used: one that decides again first would lose them.
    if (gaps == Gaps::Claim && !undecided) {
        for (const PadRef &pad : dropped) {
            G2gTeeSrcPad *branch = branch_of(pad.get());
            if (!branch->gap_sent) {
                gapping.push_back(pad);
                branch->gap_sent = true;
            }
        }
    }
}

Conversion &RouteSnapshot::conversion_for(Converter *converter)
{
    if (Conversion *known = conversion_of(converter))
        return *known;
    if (used_ == conversions_.size())
        conversions_.emplace_back();
    Conversion &conversion = conversions_[used_++];
    conversion.converter = converter;
    conversion.feeder = PadRef::borrow(converter->feeder());
    return conversion;
}

Conversion *RouteSnapshot::conversion_of(const Converter *converter)
{
    for (Conversion &conversion : conversions()) {
        if (conversion.converter == converter)
            return &conversion;
    }
    return nullptr;
}

void RouteSnapshot::clear()
{
    direct.clear();
    restated.clear();
    relabelled.clear();
    dropped.clear();
    gapping.clear();
    undecided = false;
    for (Conversion &conversion : conversions()) {
        conversion.converter = nullptr;
        conversion.feeder.reset();
        conversion.pads.clear();
        conversion.delivered = false;
    }
    used_ = 0;
}

std::vector<PadRef> pads_of(G2gTee *self, const Converter *converter)
{
    std::vector<PadRef> pads;
    const ObjectLock lock(self);
    for (const PadRef &pad : self->priv->state.branches) {
        const G2gTeeSrcPad *branch = branch_of(pad.get());
        if (branch->route == BranchRoute::Converted && branch->converter == converter)
            pads.push_back(pad);
    }
    return pads;
}

bool holds_branch(const TeeState &state, const GstPad *pad)
{
    return std::any_of(state.branches.begin(), state.branches.end(),
                       [&](const PadRef &branch) { return branch.get() == pad; });
}

} // namespace g2g::tee
