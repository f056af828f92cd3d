// Where a commitment takes over from what the user would otherwise rent (issue #28): the runs a week at
// which a commitment's month costs what the cheapest on-demand (or, for an --interruptible job, spot)
// option's month does, the same point where `recommend --what-if runs-per-week=...` flips.
#include <algorithm>
#include <cmath>

#include "recommend_candidates.hpp"

namespace gpuadvise::detail {
namespace {

BillingAssumptions billing_of(const Catalog& catalog, const RecommendRequest& r, const BuildContext& b,
                              const Option& o) {
    return r.workload.serving.output_len ? BillingAssumptions{}
                                         : billing_assumptions(catalog, o.provider, b.idle_minutes);
}

// billing_of for options in runs of one provider: worked out once per run (its policy lookups were a
// third of otherwise_rent).
class BillingRun {
public:
    const BillingAssumptions& of(const Catalog& catalog, const RecommendRequest& r, const BuildContext& b,
                                 const Option& o) {
        if (!set_ || o.provider != provider_) {
            billing_ = billing_of(catalog, r, b, o);
            provider_ = o.provider;
            set_ = true;
        }
        return billing_;
    }

private:
    bool set_ = false;
    const Provider* provider_ = nullptr;
    BillingAssumptions billing_;
};

// The hours a deadline is checked against (as the candidate builder checks them).
double flip_deadline_hours(double hours_per_run, double high_ratio, const RecommendRequest& r) {
    return r.deadline_confidence == DeadlineConfidence::high ? hours_per_run * high_ratio : hours_per_run;
}

constexpr double kMaxRunsPerWeek = 10000;  // as --runs-per-week and --what-if allow

}  // namespace

std::optional<OtherwiseRent> otherwise_rent(const Catalog& catalog, const RecommendRequest& r,
                                            const std::vector<Option>& options) {
    const BuildContext b = build_context(catalog, r);
    std::optional<OtherwiseRent> best;
    BillingRun billings;
    for (const auto& o : options) {
        if (!o.in_filter) continue;
        const BillingAssumptions& billing = billings.of(catalog, r, b, o);
        const double hours = billed_run_hours(b, r, *o.estimate);
        for (Plan p : {Plan::on_demand, Plan::spot}) {
            if (p == Plan::spot && !r.interruptible) continue;
            // The option's own plan was costed so when it was ranked (the same hours, billing and runs;
            // an on-demand or spot cost has no term): taken as it is.
            double cost_per_run = o.cost.cost_per_run, hours_per_run = o.cost.hours_per_run;
            if (o.cost.plan != p) {
                auto c = cost_plan(catalog, *o.offer, o.instances, p, hours, r.runs_per_week, b.spot,
                                   r.currency, 0, billing);
                if (!c) continue;
                cost_per_run = c->cost_per_run;
                hours_per_run = c->hours_per_run;
            }
            if (r.deadline_hours && flip_deadline_hours(hours_per_run, o.high_ratio, r) > *r.deadline_hours)
                continue;
            // A price of the GPU alone (the host VM extra) only when no complete one is left, as ranked.
            const bool complete = o.price_complete, best_complete = best && best->option->price_complete;
            if (!best || (complete && !best_complete) ||
                (complete == best_complete && cost_per_run < best->cost_per_run - 1e-12))
                best = OtherwiseRent{&o, p, cost_per_run};
        }
    }
    return best;
}

namespace {

// commitment_beats_at with the request's context and the option's billing worked out by the caller, from
// the commitment's month `month_of` (ReservedMonth of the option).
std::optional<double> beats_at(const ReservedMonth& month_of, int term, const OtherwiseRent& against,
                               std::optional<double> below) {
    auto reserved = [&](double x) -> std::optional<double> {
        auto c = month_of.at(x, term);
        return c ? std::optional<double>(c->cost_per_month) : std::nullopt;
    };
    // The other plan's month is linear in the runs (its cost per run does not depend on them); the
    // commitment's never falls as the runs grow. So from the left, x' = the runs at which the other plan
    // costs what the commitment costs at x never passes the first crossing and converges to it. So every
    // iterate is a lower bound of the answer: once one reaches `below`, the answer cannot be under it.
    double x = 1e-9;
    for (int i = 0; i < 400; ++i) {
        if (below && x >= *below - 1e-12) return std::nullopt;
        const auto month = reserved(x);
        if (!month) return std::nullopt;
        if (*month <= runs_per_month(x) * against.cost_per_run * (1 + 1e-12)) return x;
        const double next = runs_per_week_of_month(*month / against.cost_per_run);
        if (next > kMaxRunsPerWeek) return std::nullopt;
        if (next - x <= 1e-12 * std::max(1.0, x)) return next;
        x = next;
    }
    return std::nullopt;  // approaches it without crossing: never within the range
}

int flip_term(const RecommendRequest& r) {
    return r.plan && r.plan->plan == Plan::reserved ? r.plan->term_months : 0;
}

}  // namespace

std::optional<double> commitment_beats_at(const Catalog& catalog, const RecommendRequest& r, const Option& o,
                                          const OtherwiseRent& against, std::optional<double> below) {
    const int term = flip_term(r);
    if (!has_commitment(*o.offer, term) || !(against.cost_per_run > 0)) return std::nullopt;
    const BuildContext b = build_context(catalog, r);
    // The commitment's month at x runs a week: cost_plan(reserved)'s figure, its commitments and the
    // on-demand price converted once for the up to 400 iterates (not re-costed with the idle tail's
    // breakdown at each).
    const ReservedMonth month_of(catalog, *o.offer, o.instances, billed_run_hours(b, r, *o.estimate),
                                 r.currency, billing_of(catalog, r, b, o));
    return beats_at(month_of, term, against, below);
}

std::optional<PlanFlip> plan_flip(const Catalog& catalog, const RecommendRequest& r,
                                  const std::vector<Option>& options,
                                  const std::optional<OtherwiseRent>& against) {
    if (!against || !(against->cost_per_run > 0)) return std::nullopt;
    const int term = flip_term(r);
    const BuildContext b = build_context(catalog, r);
    BillingRun billings;
    // Every commitment's month has a floor (one slot per instance at its cheapest price), so its crossing
    // lies at or above the runs at which the other plan's month reaches that floor. The options are searched
    // from the lowest such bound up, each cut off at the best crossing so far, and the search ends at the
    // first bound above the best. (On the built-in catalog the bounds are rarely tight enough to end it early:
    // the saving there was the context and what the user would otherwise rent, no longer worked out again.)
    // The months in one array (reserved: it never moves), in the options' order; the bounds are sorted
    // beside them (a month is too large to move around in a sort).
    struct Bounded {
        std::size_t index;
        double bound;
        const ReservedMonth* month;  // into `months`
    };
    std::vector<ReservedMonth> months;
    months.reserve(options.size());
    std::vector<Bounded> bounded;
    bounded.reserve(options.size());
    for (std::size_t i = 0; i < options.size(); ++i) {
        const Option& o = options[i];
        if (!o.in_filter || !has_commitment(*o.offer, term)) continue;
        const ReservedMonth& month =
            months.emplace_back(catalog, *o.offer, o.instances, billed_run_hours(b, r, *o.estimate),
                                r.currency, billings.of(catalog, r, b, o));
        const std::optional<double> floor = month.floor(term);
        if (!floor) {  // at() has no month either
            months.pop_back();
            continue;
        }
        bounded.push_back({i, runs_per_week_of_month(*floor / against->cost_per_run), &month});
    }
    std::sort(bounded.begin(), bounded.end(), [](const Bounded& x, const Bounded& y) {
        return x.bound != y.bound ? x.bound < y.bound : x.index < y.index;
    });
    // The smallest crossing; of crossings within 1e-12 of each other, the option first in `options` (as a
    // search in their order keeps the first it finds).
    std::optional<PlanFlip> best;
    std::size_t best_index = 0;
    for (std::size_t k = 0; k < bounded.size(); ++k) {
        const Bounded& c = bounded[k];
        if (best && c.bound > best->runs_per_week + 1e-12) break;  // so are the rest
        // beats_at's first iterate is at least the bound (its month at no runs is at least the floor): past
        // the runs a week it searches, it finds nothing, nor does any option after it.
        if (c.bound > kMaxRunsPerWeek * (1 + 1e-9)) break;
        // The same month as the option before it (the same instance and prices in another region): the
        // same crossing, and that option, first in `options`, has had it.
        if (k > 0 && bounded[k - 1].bound == c.bound && *bounded[k - 1].month == *c.month) continue;
        const auto x = beats_at(*c.month, term, *against,
                                best ? std::optional<double>(best->runs_per_week + 2e-12) : std::nullopt);
        if (!x) continue;
        if (!best || *x < best->runs_per_week - 1e-12 ||
            (*x <= best->runs_per_week + 1e-12 && c.index < best_index)) {
            best = PlanFlip{&options[c.index], *against, *x, {}};
            best_index = c.index;
        }
    }
    if (best) {
        const Option& o = *best->reserved;
        if (auto c =
                cost_plan(catalog, *o.offer, o.instances, Plan::reserved, billed_run_hours(b, r, *o.estimate),
                          best->runs_per_week, b.spot, r.currency, term, billing_of(catalog, r, b, o)))
            best->commitment = *c;
    }
    return best;
}

}  // namespace gpuadvise::detail
