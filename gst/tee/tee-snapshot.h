// SPDX-License-Identifier: LGPL-2.1-or-later
// The routes a frame or an event follows, copied out of the branch pads in one go under the
// object lock, so the streaming thread pushes without holding it and a branch released
// meanwhile stays alive until its push returns. The chain and serialized events reuse one
// snapshot (TeeState::routes): emptied, its vectors keep their capacity, so a steady stream
// allocates nothing per frame.
#pragma once

#include "g2gtee.h"

#include <g2g/gst-ref.h>

#include <cstddef>
#include <span>
#include <vector>

namespace g2g::tee {

class Converter;
struct TeeState;

using PadRef = Ref<GstPad>;

// A conversion in use and the branch pads its output goes to.
struct Conversion {
    Converter *converter = nullptr;
    PadRef feeder;
    std::vector<PadRef> pads;
    // Set by collector_chain: the conversion's output reached its branches while the frame was
    // pushed into it (the conversion's own verdict then does not count).
    bool delivered = false;
};

// Whether taking the routes claims the gaps owed to newly dropped branches: a frame does (it
// sends them), an event does not.
enum class Gaps { Leave, Claim };

struct RouteSnapshot;

// Empties a snapshot when it goes out of scope: the pad references go, the vectors keep their
// capacity for the next frame.
class [[nodiscard]] HeldRoutes {
public:
    explicit HeldRoutes(RouteSnapshot &routes) : routes_(routes) {}
    ~HeldRoutes();
    HeldRoutes(const HeldRoutes &) = delete;
    HeldRoutes &operator=(const HeldRoutes &) = delete;

private:
    RouteSnapshot &routes_;
};

struct RouteSnapshot {
    std::vector<PadRef> direct;     // Direct branches (and all of them before caps): the frame as it is
    std::vector<PadRef> restated;   // Restated branches: the frame as it is, caps in the other form
    std::vector<PadRef> relabelled; // Relabelled branches: the frame as it is, caps in system memory
    std::vector<PadRef> dropped;    // Dropped branches: only what ends or flushes their stream
    std::vector<PadRef> gapping;    // dropped since the last frame: owed the stream and a gap
    // The settings the pushes follow, read under the same lock.
    bool silent = true;
    bool allow_not_linked = false;
    // A branch was linked after the routes were decided (its RECONFIGURE not handled yet): it
    // is left out, and no gaps are claimed, until routes are decided again. Fed as it is, it
    // would get frames in a domain it may not read (a view, to a branch that takes none).
    bool undecided = false;

    // Fills the (empty) snapshot from `self`'s branches, under the object lock, and empties it
    // again when the HeldRoutes goes.
    HeldRoutes take(G2gTee *self, Gaps gaps);
    // The same into a snapshot already held (emptied with clear()).
    void fill(G2gTee *self, Gaps gaps);

    // The conversions with at least one branch, each once.
    std::span<Conversion> conversions() { return {conversions_.data(), used_}; }
    // The conversion of `converter`; nullptr when none of the snapshot's branches takes its output.
    Conversion *conversion_of(const Converter *converter);

    void clear();

private:
    Conversion &conversion_for(Converter *converter);

    // Entries past used_ are kept, empty, for their vectors' capacity.
    std::vector<Conversion> conversions_;
    std::size_t used_ = 0;
};

inline HeldRoutes::~HeldRoutes()
{
    routes_.clear();
}

// The branch pads `converter` feeds, for its events and queries (takes the object lock).
std::vector<PadRef> pads_of(G2gTee *self, const Converter *converter);

// Whether `pad` is still one of the tee's branches (call with the object lock held).
bool holds_branch(const TeeState &state, const GstPad *pad);

} // namespace g2g::tee
