#include "gpuadvise/market/cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace gpuadvise {

double spot_overhead_fraction(const SpotAssumptions& spot) {
    return spot.interruptions_per_hour * (spot.restart_minutes + spot.checkpoint_minutes / 2.0) / 60.0;
}

BillingAssumptions billing_assumptions(const Catalog& catalog, const Provider* provider,
                                       double idle_minutes) {
    BillingAssumptions b;
    b.idle_minutes = idle_minutes;
    b.prompt_release_minutes = catalog.policy.get("prompt_release_minutes");
    const BillingTerms* terms = provider ? &provider->billing : nullptr;
    if (terms && terms->increment_seconds) {
        b.increment_seconds = *terms->increment_seconds;
        b.minimum_seconds = terms->minimum_seconds.value_or(0);
        b.source = terms->source;
    } else {
        // Never silently per-second: the policy's stated default, marked as assumed.
        b.increment_assumed = true;
        b.increment_seconds = catalog.policy.get("default_billing_increment_seconds");
        b.minimum_seconds = terms && terms->minimum_seconds
                                ? *terms->minimum_seconds
                                : catalog.policy.get("default_minimum_charge_seconds");
    }
    if (terms) b.stopped_bills_storage = terms->stopped_bills_storage;
    return b;
}

double billed_hours(const BillingAssumptions& billing, double hours, double idle_minutes) {
    double seconds = std::max(0.0, hours) * 3600.0 + std::max(0.0, idle_minutes) * 60.0;
    // A hair under a whole increment is that increment (1 h 05 min is 3900 s, not 3900.0000001 s).
    if (billing.increment_seconds > 0)
        seconds = std::ceil(seconds / billing.increment_seconds - 1e-9) * billing.increment_seconds;
    return std::max(seconds, billing.minimum_seconds) / 3600.0;
}

namespace {

// A capacity block is bought for one window, not for always-on use: never a term commitment here.
// A commitment priced more than this above the cheapest of its term (output currency a month) is never the
// cheapest month (cost_reserved_at, ReservedMonth::at): far above the 1e-9 tie of their choice.
constexpr double kDearerCommitment = 1e-6;

bool term_matches(const Commitment& c, int term_months) {
    return prices_always_on(c) && (term_months == 0 || c.term_months == term_months);
}

// The month of one commitment's slots for a load: the committed slots that cost least and what they cost
// (cost_commitment and ReservedMonth::at share it, so a what-if point costs what cost_plan says).
struct CommittedMonth {
    int committed = 0;
    CommitmentCost cost;
};
CommittedMonth committed_month(double price_per_month, std::optional<double> od, int instances,
                               double busy_hours, double hours_per_month) {
    CommittedMonth m;
    m.committed = best_committed_slots(price_per_month, od, instances, busy_hours, hours_per_month);
    m.cost = cost_with_commitment(price_per_month, od, instances, m.committed, busy_hours, hours_per_month);
    return m;
}

// The offer's on-demand price per hour in the output currency, when it has one.
std::optional<double> converted_on_demand(const Catalog& catalog, const Offer& offer,
                                          const std::string& currency) {
    if (offer.on_demand_per_hour && *offer.on_demand_per_hour > 0)
        return catalog.convert(*offer.on_demand_per_hour, offer.currency, currency);
    return std::nullopt;
}

// One commitment (price per month for one instance, in the offer's currency) costed for the workload.
std::optional<PlanCost> cost_commitment(const Catalog& catalog, const Offer& offer,
                                        const Commitment* commitment, double price_per_month, int term_months,
                                        int instances, double hours_per_run, double runs_per_week,
                                        const std::string& currency) {
    if (!(price_per_month > 0)) return std::nullopt;
    auto converted = catalog.convert(price_per_month, offer.currency, currency);
    if (!converted) return std::nullopt;
    const std::optional<double> od = converted_on_demand(catalog, offer, currency);
    const double hours_per_month = catalog.policy.get("hours_per_month");
    const double busy_hours = runs_per_month(runs_per_week) * hours_per_run;
    PlanCost c;
    c.plan = Plan::reserved;
    c.commitment = commitment;
    c.term_months = term_months;
    c.hours_per_run = hours_per_run;
    // Paid whether used or not: the month's run hours of each copy must fit in its committed slots,
    // or the rest runs on demand (a copy busier than the month needs a second slot, or on-demand hours).
    const CommittedMonth month = committed_month(*converted, od, instances, busy_hours, hours_per_month);
    c.committed_instances = month.committed;
    const CommitmentCost& cc = month.cost;
    c.reserved_sets = (c.committed_instances + instances - 1) / instances;
    c.cost_per_month = cc.total_per_month;
    c.on_demand_overflow_per_month = cc.on_demand_per_month;
    c.price_per_hour = busy_hours > 0 ? c.cost_per_month / busy_hours : c.cost_per_month / hours_per_month;
    if (od) {
        c.break_even_hours_per_month = *converted / *od;
        c.break_even_utilisation = break_even_utilisation(*converted, *od, hours_per_month);
        c.crossover_runs_per_week =
            crossover_runs_per_week(*c.break_even_utilisation, hours_per_month, hours_per_run);
    }
    c.cost_per_run = c.hours_per_run * c.price_per_hour;
    c.gpu_hours_per_month = busy_hours * offer.gpu_count * instances;
    if (commitment && commitment->upfront_total)
        if (auto up = catalog.convert(*commitment->upfront_total, offer.currency, currency))
            c.upfront_total = *up * c.committed_instances;
    return c;
}

std::optional<PlanCost> cost_reserved_at(const Catalog& catalog, const Offer& offer, int instances,
                                         double hours_per_run, double runs_per_week,
                                         const std::string& currency, int term_months) {
    // A commitment is costed from its price alone (the slots it pays for, plus on-demand hours for what they do
    // not cover, at the offer's one on-demand price), so a dearer one never costs less a month: only those
    // priced at the cheapest are costed, with a margin far above the 1e-9 tie below (ties go to the shorter
    // term). This is what keeps an offer with a dozen commitments (AWS) as cheap to cost as one with one.
    std::optional<double> cheapest;
    for (const auto& k : offer.commitments)
        if (term_matches(k, term_months) && k.price_per_month > 0 &&
            (!cheapest || k.price_per_month < *cheapest))
            cheapest = k.price_per_month;
    const std::optional<double> factor = catalog.convert(1.0, offer.currency, currency);
    std::optional<PlanCost> best;
    for (const auto& k : offer.commitments) {
        if (!term_matches(k, term_months)) continue;
        if (cheapest && factor && (k.price_per_month - *cheapest) * *factor > kDearerCommitment) continue;
        auto c = cost_commitment(catalog, offer, &k, k.price_per_month, k.term_months, instances,
                                 hours_per_run, runs_per_week, currency);
        if (c && (!best || c->cost_per_month < best->cost_per_month - 1e-9 ||
                  (std::fabs(c->cost_per_month - best->cost_per_month) <= 1e-9 &&
                   c->term_months < best->term_months)))
            best = c;
    }
    if (offer.commitments.empty() && offer.reserved_per_month && (term_months == 0 || term_months == 1))
        best = cost_commitment(catalog, offer, nullptr, *offer.reserved_per_month, 1, instances,
                               hours_per_run, runs_per_week, currency);
    return best;
}

// Reserved: the idle tail occupies the committed slots (no rounding: the slot is paid for the term);
// what it costs is what it adds to the month, per run.
std::optional<PlanCost> cost_reserved(const Catalog& catalog, const Offer& offer, int instances,
                                      double hours_per_run, double runs_per_week, const std::string& currency,
                                      int term_months, const BillingAssumptions& billing,
                                      bool idle_breakdown = true) {
    const double idle_hours = billing.idle_minutes / 60.0;
    auto best = cost_reserved_at(catalog, offer, instances, hours_per_run + idle_hours, runs_per_week,
                                 currency, term_months);
    if (!best) return best;
    best->hours_per_run = hours_per_run;
    best->billed_hours_per_run = hours_per_run + idle_hours;
    best->idle_hours_per_run = idle_hours;
    const double runs = runs_per_month(runs_per_week);
    if (idle_breakdown && idle_hours > 0 && runs > 0) {
        auto month_at = [&](double idle) {
            auto c = cost_reserved_at(catalog, offer, instances, hours_per_run + idle, runs_per_week,
                                      currency, best->term_months);
            return c ? c->cost_per_month : best->cost_per_month;
        };
        best->idle_cost_per_run = (best->cost_per_month - month_at(0)) / runs;
        const double prompt = std::min(billing.idle_minutes, billing.prompt_release_minutes) / 60.0;
        best->prompt_release_saving_per_run = (best->cost_per_month - month_at(prompt)) / runs;
    }
    return best;
}

}  // namespace

ReservedMonth::ReservedMonth(const Catalog& catalog, const Offer& offer, int instances, double hours_per_run,
                             const std::string& currency, const BillingAssumptions& billing)
    : od_(converted_on_demand(catalog, offer, currency)),
      instances_(instances),
      hours_per_month_(catalog.policy.get("hours_per_month")) {
    // As cost_reserved: the slots hold the run and its idle tail.
    const double idle_hours = billing.idle_minutes / 60.0;
    hours_ = hours_per_run + idle_hours;
    // As cost_reserved_at and cost_commitment: the commitments a term can match, priced and converted.
    for (const auto& k : offer.commitments)
        if (prices_always_on(k) && k.price_per_month > 0)
            if (auto converted = catalog.convert(k.price_per_month, offer.currency, currency))
                quotes_.push_back({*converted, k.term_months});
    if (offer.commitments.empty() && offer.reserved_per_month && *offer.reserved_per_month > 0)
        if (auto converted = catalog.convert(*offer.reserved_per_month, offer.currency, currency)) {
            quotes_.push_back({*converted, 1});
            bare_ = true;
        }
}

std::optional<ReservedMonth::At> ReservedMonth::at(double runs_per_week, int term_months) const {
    const double busy_hours = runs_per_month(runs_per_week) * hours_;
    // As cost_reserved_at: a dearer commitment never costs less a month, so only those priced at the
    // cheapest of the term (within its margin) are costed.
    std::optional<double> cheapest;
    for (const auto& q : quotes_)
        if ((term_months == 0 || q.term_months == term_months) && (!cheapest || q.per_month < *cheapest))
            cheapest = q.per_month;
    std::optional<At> best;
    for (const auto& q : quotes_) {
        if (term_months != 0 && q.term_months != term_months) continue;
        if (q.per_month - *cheapest > kDearerCommitment) continue;
        const double month =
            committed_month(q.per_month, od_, instances_, busy_hours, hours_per_month_).cost.total_per_month;
        // cost_reserved_at's choice: clearly cheaper, or as cheap on a shorter term.
        if (bare_ || !best || month < best->cost_per_month - 1e-9 ||
            (std::fabs(month - best->cost_per_month) <= 1e-9 && q.term_months < best->term_months))
            best = At{month, q.term_months};
    }
    return best;
}

std::optional<double> ReservedMonth::floor(int term_months) const {
    // At least one slot per instance is committed (best_committed_slots), each at its monthly price.
    const int slots = std::min(std::max(1, instances_), 100000);
    std::optional<double> low;
    for (const auto& q : quotes_)
        if (term_months == 0 || q.term_months == term_months)
            if (const double m = slots * q.per_month; !low || m < *low) low = m;
    return low;
}

std::optional<PlanFilter> parse_plan_filter(std::string_view text) {
    if (text == "on-demand" || text == "on_demand") return PlanFilter{Plan::on_demand, 0};
    if (text == "spot") return PlanFilter{Plan::spot, 0};
    if (text == "reserved") return PlanFilter{Plan::reserved, 0};
    if (text.substr(0, 9) != "reserved-" || text.size() < 11) return std::nullopt;
    const std::string_view n = text.substr(9, text.size() - 10);
    const char unit = text.back();
    if (n.empty() || n.size() > 3 ||
        !std::all_of(n.begin(), n.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        return std::nullopt;
    const int value = std::stoi(std::string(n));
    if (value <= 0 || (unit != 'm' && unit != 'y')) return std::nullopt;
    return PlanFilter{Plan::reserved, unit == 'y' ? value * 12 : value};
}

std::string plan_filter_text(const PlanFilter& f) {
    switch (f.plan) {
        case Plan::on_demand: return "on-demand";
        case Plan::spot: return "spot";
        case Plan::reserved: return f.term_months ? "reserved-" + term_short(f.term_months) : "reserved";
    }
    return "";
}

bool has_commitment(const Offer& offer, int term_months) {
    for (const auto& k : offer.commitments)
        if (term_matches(k, term_months)) return true;
    return offer.commitments.empty() && offer.reserved_per_month && (term_months == 0 || term_months == 1);
}

const Commitment* cheapest_commitment(const Offer& offer, int term_months) {
    const Commitment* best = nullptr;
    for (const auto& k : offer.commitments)
        if (term_matches(k, term_months) && (!best || k.price_per_month < best->price_per_month)) best = &k;
    return best;
}

std::vector<PlanCost> cost_commitment_terms(const Catalog& catalog, const Offer& offer, int instances,
                                            double hours_per_run, double runs_per_week,
                                            const std::string& currency, const BillingAssumptions& billing) {
    std::vector<int> terms;
    for (const auto& k : offer.commitments)
        if (prices_always_on(k) && std::find(terms.begin(), terms.end(), k.term_months) == terms.end())
            terms.push_back(k.term_months);
    if (offer.commitments.empty() && offer.reserved_per_month) terms.push_back(1);
    std::sort(terms.begin(), terms.end());
    std::vector<PlanCost> out;
    for (int t : terms)
        if (auto c =
                cost_reserved(catalog, offer, instances, hours_per_run, runs_per_week, currency, t, billing))
            out.push_back(*c);
    return out;
}

std::optional<PlanCost> cost_plan(const Catalog& catalog, const Offer& offer, int instances, Plan plan,
                                  double hours_per_run, double runs_per_week, const SpotAssumptions& spot,
                                  const std::string& currency, int term_months,
                                  const BillingAssumptions& billing, bool idle_breakdown) {
    if (plan == Plan::reserved)
        return cost_reserved(catalog, offer, instances, hours_per_run, runs_per_week, currency, term_months,
                             billing, idle_breakdown);
    auto raw = offer.price(plan);
    if (!raw || *raw <= 0) return std::nullopt;
    auto converted = catalog.convert(*raw, offer.currency, currency);
    if (!converted) return std::nullopt;
    const double runs = runs_per_month(runs_per_week);

    PlanCost c;
    c.plan = plan;
    c.hours_per_run = hours_per_run;
    c.price_per_hour = *converted * instances;
    if (plan == Plan::spot) {
        c.spot_overhead = spot_overhead_fraction(spot);
        c.hours_per_run = hours_per_run * (1.0 + *c.spot_overhead);
    }
    // Each instance is billed for the run and the idle tail, rounded up to the increment.
    c.idle_hours_per_run = billing.idle_minutes / 60.0;
    c.billed_hours_per_run = billed_hours(billing, c.hours_per_run, billing.idle_minutes);
    c.cost_per_run = c.billed_hours_per_run * c.price_per_hour;
    c.idle_cost_per_run = c.cost_per_run - billed_hours(billing, c.hours_per_run, 0) * c.price_per_hour;
    const double prompt = std::min(billing.idle_minutes, billing.prompt_release_minutes);
    c.prompt_release_saving_per_run =
        c.cost_per_run - billed_hours(billing, c.hours_per_run, prompt) * c.price_per_hour;
    c.cost_per_month = c.cost_per_run * runs;
    c.gpu_hours_per_month = runs * hours_per_run * offer.gpu_count * instances;
    return c;
}

}  // namespace gpuadvise
