// Checks that parse but are wrong: missing exchange rates (error); spot at or above on-demand,
// reserved above a month of on-demand, zero prices, duplicate offers, stale prices (warnings).
#pragma once

#include <string_view>

#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise {

// `today` is an ISO date; empty skips the staleness check.
Diagnostics lint_catalog(const Catalog& catalog, std::string_view today = {});

}  // namespace gpuadvise
