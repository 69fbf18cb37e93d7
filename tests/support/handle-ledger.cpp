// SPDX-License-Identifier: LGPL-2.1-or-later
// The platform objects of a test producer and their releases (see handle-ledger.h).
#include "handle-ledger.h"

namespace g2g::test {

HandleLedger::Made HandleLedger::make()
{
    std::size_t index;
    StandIn *object;
    {
        const std::lock_guard<std::mutex> guard(lock_);
        index = objects_.size();
        object = &objects_.emplace_back();
    }
    return {index, object, std::make_shared<LedgerKeepAlive>(shared_from_this(), index, object)};
}

std::size_t HandleLedger::made() const
{
    const std::lock_guard<std::mutex> guard(lock_);
    return objects_.size();
}

std::size_t HandleLedger::live() const
{
    const std::lock_guard<std::mutex> guard(lock_);
    std::size_t live = 0;
    for (const StandIn &object : objects_)
        live += object.releases == 0 ? 1 : 0;
    return live;
}

std::vector<int> HandleLedger::releases() const
{
    const std::lock_guard<std::mutex> guard(lock_);
    std::vector<int> counts;
    for (const StandIn &object : objects_)
        counts.push_back(object.releases);
    return counts;
}

std::string HandleLedger::released_once_each() const
{
    std::string problems;
    const std::vector<int> counts = releases();
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] == 1)
            continue;
        problems += (problems.empty() ? "" : ", ") + std::string("frame ") + std::to_string(i) +
                    " released " + std::to_string(counts[i]) +
                    (counts[i] == 0 ? " times (a leak)" : " times");
    }
    return problems;
}

const StandIn &HandleLedger::object(std::size_t index) const
{
    const std::lock_guard<std::mutex> guard(lock_);
    return objects_[index];
}

} // namespace g2g::test
