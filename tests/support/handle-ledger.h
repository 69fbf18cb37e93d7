// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: the platform objects a test producer (g2gtesthandlesrc) made, one stand-in per
// frame, and how often each was released. Each frame's keep-alive is a LedgerKeepAlive, derived
// from g2g's KeepAlive as a producer that links its platform derives its own; a consumer recovers
// it by type (KeepAlive::as<LedgerKeepAlive>) and so learns which object a frame holds. Releases
// are counted per object: a leak leaves 0, a double release shows 2.
#pragma once

#include <g2g/platform-handles.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "handle-frames.h"

namespace g2g::test {

class HandleLedger : public std::enable_shared_from_this<HandleLedger> {
public:
    // A new platform object and the keep-alive that owns it (the frame's); its index is made().
    struct Made {
        std::size_t index;
        StandIn *object;
        std::shared_ptr<handles::KeepAlive> keep_alive;
    };
    Made make();

    std::size_t made() const;
    // Objects not released yet.
    std::size_t live() const;
    // Each object's releases, in the order they were made.
    std::vector<int> releases() const;
    // "" when every object made was released exactly once, else which were not ("frame 3 released
    // 0 times (a leak)", "frame 1 released 2 times").
    std::string released_once_each() const;
    // The object of `index` (valid while the ledger lives).
    const StandIn &object(std::size_t index) const;

private:
    mutable std::mutex lock_;
    std::deque<StandIn> objects_; // a deque: the objects never move
};

// A frame's keep-alive: releases its object in the ledger (which it keeps alive) when the last
// share of the frame's memory is gone.
class LedgerKeepAlive final : public handles::KeepAlive {
public:
    LedgerKeepAlive(std::shared_ptr<HandleLedger> ledger, std::size_t index, StandIn *object)
        : ledger_(std::move(ledger)), index_(index), object_(object)
    {
    }
    ~LedgerKeepAlive() override { ++object_->releases; }
    LedgerKeepAlive(const LedgerKeepAlive &) = delete;
    LedgerKeepAlive &operator=(const LedgerKeepAlive &) = delete;

    const std::shared_ptr<HandleLedger> &ledger() const { return ledger_; }
    std::size_t index() const { return index_; }
    const StandIn *object() const { return object_; }

private:
    std::shared_ptr<HandleLedger> ledger_;
    std::size_t index_;
    StandIn *object_;
};

} // namespace g2g::test
