// SPDX-License-Identifier: LGPL-2.1-or-later
// Each row of the domain table (lib/src/core/domain-table.cpp) against the behaviour that reads it.
#include <gtest/gtest.h>

#include "core/domain-table.h"

TEST(DomainTable, OneRowPerKindInKindOrder)
{
    for (g2g::MemoryDomainKind kind : g2g::kAllMemoryDomainKinds)
        EXPECT_EQ(g2g::detail::domain_info(kind).kind, kind);
}
