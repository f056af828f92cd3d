// Commitment plans: term labels.
#include "gpuadvise/catalog/commitment.hpp"

#include <cmath>

namespace gpuadvise {

std::string payment_label(Payment p) {
    switch (p) {
        case Payment::no_upfront: return "no upfront";
        case Payment::partial_upfront: return "partial upfront";
        case Payment::all_upfront: return "all upfront";
        case Payment::unknown: break;
    }
    return "";
}

std::string commitment_label(const Commitment& c) {
    if (c.kind == CommitmentKind::capacity_block)
        return "capacity block (a fixed window bought ahead, paid at purchase; not always-on use)";
    std::string s = term_label(c.term_months) + (c.kind == CommitmentKind::savings_plan
                                                     ? " savings plan (committed spend per hour)"
                                                     : " reservation");
    if (const std::string p = payment_label(c.payment); !p.empty()) s += ", " + p;
    if (c.discount)
        s += ", priced as " + std::to_string(static_cast<int>(std::lround(100 * *c.discount))) +
             " % off on-demand";
    return s;
}

std::string term_label(int months) {
    if (months > 0 && months % 12 == 0) return std::to_string(months / 12) + "-year";
    return std::to_string(months) + "-month";
}

std::string term_short(int months) {
    if (months > 0 && months % 12 == 0) return std::to_string(months / 12) + "y";
    return std::to_string(months) + "m";
}

}  // namespace gpuadvise
