// Commitment plans: capacity bought for a term (1 month, 1 year, 3 years …) and paid whether used
// or not. An offer carries any number of them beside its on-demand and spot prices; the guide's
// monthly reserved price (`reserved_per_month`) is a 1-month commitment. See docs/catalog.md
// (format) and docs/methodology.md (the cost model).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuadvise {

struct Commitment {
    int term_months = 0;         // 1, 12, 36 …
    double price_per_month = 0;  // the whole offer (all its GPUs), the offer's currency, upfront included
    std::optional<double>
        discount;        // as given in the catalog: share off on-demand (0–0.95), when given that way
    double upfront = 0;  // share of the term's total paid at the start (0–1); the monthly figure includes it
    std::string scope;   // "instance type + region", "gpu model", "spend" …
    std::string source;
    std::string as_of;
    std::string note;  // e.g. "term not stated by the source; modelled as 1 month"

    bool operator==(const Commitment&) const = default;
};

// "1-month", "1-year", "3-year", "18-month".
std::string term_label(int months);
// "1m", "1y", "3y", "18m" (tables, --plan reserved-1y).
std::string term_short(int months);

}  // namespace gpuadvise
