// Checks that parse but are wrong: missing exchange rates (error); spot at or above on-demand,
// reserved above a month of on-demand, zero prices, duplicate offers, stale prices (warnings).
#pragma once

#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise {

// Offers of a table that a command's filter left out while the table was read (io: the filter
// push-down of `offers`), kept as a count for the checks that count a provider's offers (prices of
// unknown, future or old date), so that those warnings read as if the offers had been loaded.
struct PrunedOffers {
    SharedText provider, as_of;
    long offers = 0;
    SourceLocation first;         // where the first of them came from
    bool first_is_first = false;  // it came before every offer of the provider that was kept
};

// Which checks lint_catalog makes. `all` is `undated` and `dated` together (in one pass, in that order
// per offer). `undated` are those that depend on the catalog alone (GPU names, calibration points, prices
// against each other, commitments, zero prices, duplicates): io makes them once for the built-in tables,
// when the snapshot is built, and keeps what they found. `dated` are the rest: the exchange rates (a
// cached rate may be added at run time) and the prices' dates against `today`.
enum class LintChecks { all, undated, dated };

// `today` is an ISO date; empty skips the staleness check. `pruned`: see PrunedOffers.
Diagnostics lint_catalog(const Catalog& catalog, std::string_view today = {},
                         const std::vector<PrunedOffers>& pruned = {}, LintChecks checks = LintChecks::all);

}  // namespace gpuadvise
