// The cost model: what one configuration (an offer rented `instances` times) costs for a
// workload on one plan. All amounts in the output currency. See docs/methodology.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/calendar.hpp"
#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/market/commitment_cost.hpp"

namespace gpuadvise {

struct SpotAssumptions {
    double interruptions_per_hour = 0;  // policy spot_interruptions_per_hour
    double restart_minutes = 0;         // policy spot_restart_minutes
    double checkpoint_minutes = 30;     // --checkpoint-minutes: work lost is half of it on average
};

// Expected extra share of run time from interruptions: each one costs the restart plus, on
// average, half a checkpoint interval of lost work.
double spot_overhead_fraction(const SpotAssumptions& spot);

// How one run is billed: the instance's time (the run plus an idle tail before it is released) is
// rounded up to the provider's increment and is at least its minimum charge (docs/methodology.md).
struct BillingAssumptions {
    double increment_seconds = 0;  // 0: exact hours, no rounding (catalogs built in code)
    double minimum_seconds = 0;
    double idle_minutes = 0;  // kept up after each run (--idle-minutes, policy idle_minutes_after_run)
    double prompt_release_minutes = 0;  // "released promptly" (policy prompt_release_minutes)
    bool increment_assumed = false;     // the provider's billing is not in the catalog: the policy's defaults
    std::optional<bool> stopped_bills_storage;
    std::string source;  // of the provider's billing terms; empty when assumed
};

// The provider's billing terms, or the policy's default increment and minimum where it has none.
BillingAssumptions billing_assumptions(const Catalog& catalog, const Provider* provider, double idle_minutes);

// Hours billed per instance for a run of `hours` followed by `idle_minutes` of idle time.
double billed_hours(const BillingAssumptions& billing, double hours, double idle_minutes);

struct PlanCost {
    Plan plan = Plan::on_demand;
    double price_per_hour =
        0;                     // whole configuration; reserved: monthly fees spread over the workload's hours
    double hours_per_run = 0;  // spot: expected, including interruptions
    double cost_per_run = 0;   // = hours_per_run × price_per_hour
    double cost_per_month = 0;
    double gpu_hours_per_month = 0;
    int reserved_sets = 0;  // reserved: configurations reserved so the monthly hours fit (730 h each)
    std::optional<double>
        break_even_hours_per_month;       // reserved monthly ÷ on-demand hourly, same configuration
    std::optional<double> spot_overhead;  // fraction added to the run time
    // reserved (a commitment of any term): which one, and how it compares with on-demand.
    const Commitment* commitment = nullptr;  // into the offer; nullptr for a bare reserved_per_month
    int term_months = 0;
    int committed_instances = 0;              // slots paid for the term (reserved_sets x instances, or fewer)
    double on_demand_overflow_per_month = 0;  // hours the committed slots do not cover, at on-demand
    std::optional<double> break_even_utilisation;  // share of the term's hours above which it beats on-demand
    std::optional<double>
        crossover_runs_per_week;  // runs a week of this job at that share; nullopt when >= 1
    // The sum paid at the start for all committed instances (output currency): all upfront = the
    // term's total, no upfront = 0; nullopt where the catalog does not give it.
    std::optional<double> upfront_total;
    // Billing of one run (on-demand, spot: per instance, rounded; reserved: the slot hours it occupies).
    double billed_hours_per_run = 0;  // run + idle tail, rounded up to the increment, at least the minimum
    double idle_hours_per_run = 0;    // the idle tail
    double idle_cost_per_run = 0;     // what the idle tail (with its rounding) adds to cost_per_run
    double prompt_release_saving_per_run =
        0;  // cost_per_run minus the cost when released after prompt_release_minutes
};

// A --plan value: on-demand, reserved (any term, or reserved-1m/-1y/-3y/-Nm), spot.
struct PlanFilter {
    Plan plan = Plan::on_demand;
    int term_months = 0;  // reserved only; 0 = any term
    bool operator==(const PlanFilter&) const = default;
};
std::optional<PlanFilter> parse_plan_filter(std::string_view text);
std::string plan_filter_text(const PlanFilter& f);  // "on-demand", "reserved", "reserved-1y", "spot"

// Cost of a plan, or nullopt when the offer has no such price (or it cannot be converted).
// reserved: the commitment of `term_months` (0 = any term) that costs this workload least a month.
// The cost per run: hours_per_run (spot: plus the expected interruptions) and billing's idle tail,
// rounded up to billing's increment and at least its minimum, x the configuration's price per hour.
// `idle_breakdown` false: a reserved plan's idle_cost_per_run and prompt_release_saving_per_run are
// left 0 (they cost two more pricings of the commitments; what ranks an offer does not read them).
std::optional<PlanCost> cost_plan(const Catalog& catalog, const Offer& offer, int instances, Plan plan,
                                  double hours_per_run, double runs_per_week, const SpotAssumptions& spot,
                                  const std::string& currency, int term_months = 0,
                                  const BillingAssumptions& billing = {}, bool idle_breakdown = true);

// cost_plan(reserved)'s month and commitment term at many runs a week, without re-costing the rest
// (recommend --what-if): the offer's commitments and on-demand price converted once. at() gives the
// same numbers as cost_plan(reserved, term_months).cost_per_month and .term_months for the same offer,
// instances, hours per run (without the idle tail), currency and billing; nullopt where cost_plan is.
class ReservedMonth {
public:
    ReservedMonth(const Catalog& catalog, const Offer& offer, int instances, double hours_per_run,
                  const std::string& currency, const BillingAssumptions& billing);
    struct At {
        double cost_per_month = 0;
        int term_months = 0;
    };
    std::optional<At> at(double runs_per_week, int term_months = 0) const;
    // A floor under at(x, term_months).cost_per_month at every x (one slot per instance at the cheapest
    // matching price); nullopt when at() is.
    std::optional<double> floor(int term_months = 0) const;
    // The same month at every runs a week (at() reads nothing else): an offer's regions at one price.
    bool operator==(const ReservedMonth&) const = default;

private:
    struct Quote {
        double per_month = 0;  // one instance, output currency
        int term_months = 0;
        bool operator==(const Quote&) const = default;
    };
    // The commitments cost_plan can price, in the offer's order: in the object up to kInline of them (an
    // offer has a handful, and plan_flip makes a month for each of a thousand options), else all on the heap.
    static constexpr std::size_t kInline = 8;
    struct Quotes {
        std::array<Quote, kInline> in{};  // unused slots stay value-initialized (operator==)
        std::size_t count = 0;
        std::vector<Quote> heap;  // all of them, past kInline
        __attribute__((always_inline)) void push_back(const Quote& q) {
            if (count < kInline) {
                in[count++] = q;
                return;
            }
            if (count == kInline) heap.assign(in.begin(), in.end());
            heap.push_back(q);
            ++count;
        }
        const Quote* begin() const { return count <= kInline ? in.data() : heap.data(); }
        const Quote* end() const { return begin() + count; }
        bool operator==(const Quotes&) const = default;
    };
    Quotes quotes_;
    bool bare_ = false;  // no commitments: the offer's reserved_per_month as a 1-month one
    std::optional<double> od_;
    int instances_ = 1;
    double hours_ = 0;  // per run, with the idle tail (what the committed slots hold)
    double hours_per_month_ = 0;
};

// reserved, one PlanCost per commitment term of the offer (the cheapest of each term), shortest first.
std::vector<PlanCost> cost_commitment_terms(const Catalog& catalog, const Offer& offer, int instances,
                                            double hours_per_run, double runs_per_week,
                                            const std::string& currency,
                                            const BillingAssumptions& billing = {});

// The offer's commitments, and a bare reserved_per_month as the 1-month commitment it is (offers
// built in code; the catalog readers add it to `commitments` themselves).
bool has_commitment(const Offer& offer, int term_months = 0);

// The cheapest commitment of `term_months` (0 = any) per hour at full use (monthly / hours_per_month), whole offer.
const Commitment* cheapest_commitment(const Offer& offer, int term_months = 0);

}  // namespace gpuadvise
