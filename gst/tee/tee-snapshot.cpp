// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-snapshot.h"

#include "tee-private.h"

#include "common/object-lock.h"

#include <algorithm>

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
    for (const PadRef &pad : self->priv->state.branches) {
        G2gTeeSrcPad *branch = branch_of(pad.get());
        switch (branch->route) {
        case Route::Unresolved:
            // Fed as it is where no routes were decided (no caps yet) and where unlinked (for tee's
            // NOT_LINKED). Linked since the routes were decided: no route yet. (A pad's lock inside
            // the element's, in the order GStreamer's add_pad takes them.)
            if (gst_pad_is_linked(pad.get()) && gst_pad_has_current_caps(self->sinkpad))
                undecided = true;
            else
                direct.push_back(pad);
            break;
        case Route::Direct:
            direct.push_back(pad);
            break;
        case Route::Relabelled:
            relabelled.push_back(pad);
            break;
        case Route::Converted:
            conversion_for(branch->converter).pads.push_back(pad);
            break;
        case Route::Dropped:
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
        if (branch->route == Route::Converted && branch->converter == converter)
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
