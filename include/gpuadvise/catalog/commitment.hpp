// Commitment plans: capacity bought for a term (1 month, 1 year, 3 years …) and paid whether used
// or not. An offer carries any number of them beside its on-demand and spot prices; the guide's
// monthly reserved price (`reserved_per_month`) is a 1-month commitment. See docs/catalog.md
// (format) and docs/methodology.md (the cost model).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/base/names.hpp"
#include "gpuadvise/base/source_location.hpp"

namespace gpuadvise {

// What is bought (docs/catalog.md, "Commitments"):
// - reservation: one instance for the term (reserved instance, committed use, reserved contract);
// - savings_plan: a committed spend per hour for the term (price_per_month / hours a month), which
//   the instance's use draws on; costed like a reservation of this one instance;
// - capacity_block: a fixed window of capacity bought ahead and paid at purchase (AWS Capacity Blocks,
//   1-182 days): an hourly rate for that window only, never costed as always-on use (term_months 0,
//   price_per_month = the rate x 730 h for display; cost_plan and cheapest_commitment skip it).
enum class CommitmentKind { reservation, savings_plan, capacity_block };
inline constexpr NameTable<CommitmentKind, 3> kCommitmentKindNames{
    {{{CommitmentKind::reservation, "reservation"},
      {CommitmentKind::savings_plan, "savings_plan"},
      {CommitmentKind::capacity_block, "capacity_block"}}}};

// How the term is paid: nothing ahead (monthly), part ahead, all ahead; unknown where the source
// does not say. The monthly price is the effective one (upfront spread over the term) in every case.
enum class Payment { unknown, no_upfront, partial_upfront, all_upfront };
inline constexpr NameTable<Payment, 4> kPaymentNames{{{{Payment::unknown, "unknown"},
                                                       {Payment::no_upfront, "no_upfront"},
                                                       {Payment::partial_upfront, "partial_upfront"},
                                                       {Payment::all_upfront, "all_upfront"}}}};

struct Commitment {
    int term_months = 0;         // 1, 12, 36 …
    double price_per_month = 0;  // the whole offer (all its GPUs), the offer's currency, upfront included
    std::optional<double>
        discount;        // as given in the catalog: share off on-demand (0–0.95), when given that way
    double upfront = 0;  // share of the term's total paid at the start (0–1); the monthly figure includes it
    // Shared: a table's thousands of rows repeat a few scopes, sources, dates and notes.
    SharedText scope;  // "instance type + region", "gpu model", "spend" …
    SharedText source;
    SharedText as_of;
    SharedText note;  // e.g. "term not stated by the source; modelled as 1 month"
    CommitmentKind kind = CommitmentKind::reservation;
    Payment payment = Payment::unknown;
    // The sum paid at the start, whole offer, offer's currency: all_upfront = the term's total,
    // no_upfront = 0; nullopt where the source does not give it (partial_upfront without its split).
    std::optional<double> upfront_total = std::nullopt;

    bool operator==(const Commitment&) const = default;
};

// Priced for always-on use over a term (a reservation or a savings plan; not a capacity block).
inline bool prices_always_on(const Commitment& c) { return c.kind != CommitmentKind::capacity_block; }

// "1-year reservation, all upfront", "3-year savings plan (committed spend), no upfront",
// "capacity block (1-182 days, paid at purchase)", "1-year, 37 % off on-demand".
std::string commitment_label(const Commitment& c);
// "all upfront", "partial upfront", "no upfront", "" (unknown).
std::string payment_label(Payment p);

// "1-month", "1-year", "3-year", "18-month".
std::string term_label(int months);
// "1m", "1y", "3y", "18m" (tables, --plan reserved-1y).
std::string term_short(int months);

}  // namespace gpuadvise
