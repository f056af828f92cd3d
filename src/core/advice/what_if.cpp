// recommend --what-if runs-per-week=FROM:TO[:STEP]: the best option of each plan across a range of
// training frequencies, and the points where the cheapest plan changes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "gpuadvise/advice/recommend.hpp"
#include "gpuadvise/base/errors.hpp"
#include "recommend_candidates.hpp"

namespace gpuadvise {
namespace {

// The cheapest option of one plan (and commitment term) at any runs a week, within the request's
// filters: what best_of_plan found by building the whole candidate pool at every point, from options
// sized and priced once. Only the month changes with the runs a week: on demand and on spot it is the
// cost per run x the runs a month (the same product cost_plan takes), reserved it is ReservedMonth's
// (the same arithmetic as cost_plan). The choice is build_candidates' and best_of_plan's: in the pool's
// order, a complete price first, the first of the cheapest months, within the budget.
class PlanCurve {
public:
    PlanCurve(const Catalog& catalog, const RecommendRequest& base, detail::EstimateCache& estimates,
              const detail::SizedPool& sized, Plan plan, int term)
        : catalog_(catalog), base_(base), estimates_(estimates), sized_(sized), plan_(plan), term_(term) {
        if (plan == Plan::spot && !base.interruptible) return;
        // Priced once at one run a week without the budget (the budget is checked at every point).
        RecommendRequest r = base;
        r.runs_per_week = 1;
        r.plan = PlanFilter{plan, term};
        r.budget_monthly.reset();
        std::vector<std::size_t> from;
        pool_ = detail::price_candidates(catalog, r, estimates, sized, true, &from);
        const detail::BuildContext b = detail::build_context(catalog, r);
        for (std::size_t i = 0; i < pool_.options.size(); ++i) {
            const detail::Option& o = pool_.options[i];
            if (o.cost.plan != plan) continue;
            Entry e{i, &o, o.cost.cost_per_run, std::nullopt};
            if (plan == Plan::reserved) {
                e.reserved.emplace(catalog, *o.offer, o.instances,
                                   detail::billed_run_hours(b, r, *o.estimate), r.currency,
                                   *sized.options[from[i]].billing);
                e.key = e.reserved->floor(term).value_or(0);
            }
            (o.price_complete ? complete_ : partial_).push_back(std::move(e));
        }
        sort_entries();
    }

    // The reserved plan of one term (0: any) from the curve of any term: the same options where a
    // commitment of that term prices them (the deadline and the host do not depend on the term).
    PlanCurve(const PlanCurve& any_term, int term)
        : catalog_(any_term.catalog_),
          base_(any_term.base_),
          estimates_(any_term.estimates_),
          sized_(any_term.sized_),
          plan_(Plan::reserved),
          term_(term) {
        for (const auto& [from, into] :
             {std::pair{&any_term.complete_, &complete_}, std::pair{&any_term.partial_, &partial_}})
            for (const auto& e : *from)
                if (const auto floor = e.reserved->floor(term)) {
                    into->push_back(e);
                    into->back().key = *floor;
                }
        sort_entries();
    }

    std::optional<WhatIfBest> best(double runs_per_week) const {
        // A one-off job (--runs N, or no runs a week) is held to the budget by the job's cost.
        const bool one_off = !base_.service && (base_.runs.has_value() || runs_per_week <= 0);
        const double runs = one_off ? static_cast<double>(base_.runs.value_or(1)) : 0.0;
        if (plan_ == Plan::reserved && base_.budget_monthly && runs > 0) return rebuilt(runs_per_week);
        for (const auto* v : {&complete_, &partial_}) {
            const Found f = plan_ == Plan::reserved ? cheapest_reserved(*v, runs_per_week)
                                                    : cheapest_per_run(*v, runs_per_week, runs);
            if (f.entry) return result(*f.entry->option, f.cost_per_month, f.term_months);
        }
        return std::nullopt;
    }

private:
    struct Entry {
        std::size_t index = 0;  // in the pool's order: of two as cheap, the first is the choice
        const detail::Option* option = nullptr;
        double key = 0;  // on demand, spot: the cost per run; reserved: the month's floor (ReservedMonth)
        std::optional<ReservedMonth> reserved;
    };
    struct Found {
        const Entry* entry = nullptr;
        double cost_per_month = 0;
        int term_months = 0;
    };

    void sort_entries() {
        for (auto* v : {&complete_, &partial_})
            std::sort(v->begin(), v->end(), [](const Entry& x, const Entry& y) {
                return std::tie(x.key, x.index) < std::tie(y.key, y.index);
            });
    }

    bool within_budget(double rank_cost) const {
        return !base_.budget_monthly || !(rank_cost > *base_.budget_monthly);
    }

    // On demand, spot: the month is the cost per run x the runs a month, so it grows with the key; the
    // first (by index) of the options at the least month within the budget.
    Found cheapest_per_run(const std::vector<Entry>& entries, double runs_per_week, double runs) const {
        const double per_month = runs_per_month(runs_per_week);
        Found f;
        for (const auto& e : entries) {
            const double month = e.key * per_month;
            if (f.entry && month > f.cost_per_month) break;
            if (!within_budget(runs > 0 ? e.key * runs : month)) continue;
            if (!f.entry || month < f.cost_per_month ||
                (month == f.cost_per_month && e.index < f.entry->index))
                f = {&e, month, 0};
        }
        return f;
    }

    // Reserved: each option's month from its commitments; none costs less than its floor.
    Found cheapest_reserved(const std::vector<Entry>& entries, double runs_per_week) const {
        Found f;
        for (const auto& e : entries) {
            if (f.entry && e.key > f.cost_per_month) break;
            const auto at = e.reserved->at(runs_per_week, term_);
            if (!at || !within_budget(at->cost_per_month)) continue;
            if (!f.entry || at->cost_per_month < f.cost_per_month ||
                (at->cost_per_month == f.cost_per_month && e.index < f.entry->index))
                f = {&e, at->cost_per_month, at->term_months};
        }
        return f;
    }

    // A reserved plan of a one-off job within a budget: the job's cost is not the month's, so the pool
    // is priced again at this point.
    std::optional<WhatIfBest> rebuilt(double runs_per_week) const {
        RecommendRequest r = base_;
        r.runs_per_week = runs_per_week;
        r.plan = PlanFilter{plan_, term_};
        const detail::CandidatePool pool = detail::price_candidates(catalog_, r, estimates_, sized_, true);
        const detail::Option* best = nullptr;
        for (const auto& o : pool.options)
            if (o.cost.plan == plan_ && detail::cheaper_complete_first(o, best)) best = &o;
        if (!best) return std::nullopt;
        return result(*best, best->cost.cost_per_month,
                      detail::materialize(catalog_, r, *best).cost.term_months);
    }

    WhatIfBest result(const detail::Option& o, double cost_per_month, int term_months) const {
        WhatIfBest w;
        w.provider = o.offer->provider;
        w.gpu = o.gpu->id;
        w.instance_type = o.offer->instance_type;
        w.region = o.offer->region;
        w.gpu_count = o.gpu_count;
        w.cost_per_month = cost_per_month;
        if (plan_ == Plan::reserved) w.term_months = term_months;
        return w;
    }

    const Catalog& catalog_;
    const RecommendRequest& base_;
    detail::EstimateCache& estimates_;
    const detail::SizedPool& sized_;
    Plan plan_;
    int term_;
    detail::CandidatePool pool_;             // priced once; the entries point into it
    std::vector<Entry> complete_, partial_;  // by key, then index
};

// recommend's basis, or the catalog sized for the request here.
std::shared_ptr<detail::WhatIfBasis> basis_for(const Catalog& catalog, const RecommendRequest& request,
                                               const RecommendBasis* basis) {
    if (basis && basis->state) return basis->state;
    auto made = std::make_shared<detail::WhatIfBasis>(catalog, request.workload);
    made->sized = detail::size_candidates(catalog, request, made->estimates);
    return made;
}

const std::optional<WhatIfBest>& of(const WhatIfPoint& p, Plan plan) {
    return plan == Plan::on_demand ? p.on_demand : plan == Plan::reserved ? p.reserved : p.spot;
}

// The cheapest plan at a point, or nullopt when no plan has an option.
std::optional<Plan> cheapest(const WhatIfPoint& p) {
    std::optional<Plan> best;
    for (Plan plan : {Plan::on_demand, Plan::reserved, Plan::spot})
        if (const auto& b = of(p, plan);
            b && (!best || b->cost_per_month < of(p, *best)->cost_per_month - 1e-9))
            best = plan;
    return best;
}

}  // namespace

WhatIf what_if_runs_per_week(const Catalog& catalog, const RecommendRequest& request, double from, double to,
                             double step, bool by_term, const RecommendBasis* basis) {
    // At most 1000 points: FROM, FROM + STEP, ... up to TO (so (TO - FROM) / STEP at most 999); TO within
    // the range --runs-per-week allows.
    if (!(from >= 0) || !(to >= from) || !(to <= 10000) || !(step > 0) || (to - from) / step > 999 + 1e-9)
        throw UsageError("--what-if runs-per-week=" + format_number(from) + ":" + format_number(to) + ":" +
                             format_number(step) +
                             ": expected FROM:TO[:STEP] with 0 <= FROM <= TO <= 10000 (as --runs-per-week), "
                             "STEP > 0 and at "
                             "most 1000 points",
                         "e.g. --what-if runs-per-week=1:40 or runs-per-week=0.5:10:0.5");
    WhatIf out;
    // The job is the same at every point: sized once (by recommend, when it kept its basis).
    const std::shared_ptr<detail::WhatIfBasis> kept = basis_for(catalog, request, basis);
    detail::EstimateCache& estimates = kept->estimates;
    const detail::SizedPool& sized = kept->sized;
    const int base_term =
        request.plan && request.plan->plan == Plan::reserved ? request.plan->term_months : 0;
    const PlanCurve on_demand(catalog, request, estimates, sized, Plan::on_demand, 0);
    const PlanCurve any_term(catalog, request, estimates, sized, Plan::reserved, 0);
    const PlanCurve reserved(any_term, base_term);
    const PlanCurve spot(catalog, request, estimates, sized, Plan::spot, 0);
    auto curve = [&](Plan plan) -> const PlanCurve& {
        return plan == Plan::on_demand ? on_demand : plan == Plan::reserved ? reserved : spot;
    };
    std::vector<int>
        terms;  // the commitment terms the catalog prices (a --plan reserved-N keeps its one term)
    if (by_term && (!request.plan || request.plan->plan == Plan::reserved)) {
        for (const auto& o : catalog.offers)
            for (const auto& k : o.commitments)
                if (k.term_months > 0 && std::find(terms.begin(), terms.end(), k.term_months) == terms.end())
                    terms.push_back(k.term_months);
        if (request.plan && request.plan->term_months) terms = {request.plan->term_months};
        std::sort(terms.begin(), terms.end());
    }
    std::vector<PlanCurve> by_terms;
    by_terms.reserve(terms.size());
    for (int term : terms) by_terms.emplace_back(any_term, term);
    auto point = [&](double x) {
        WhatIfPoint p;
        p.runs_per_week = x;
        p.on_demand = on_demand.best(x);
        p.reserved = reserved.best(x);
        p.spot = spot.best(x);
        for (std::size_t t = 0; t < terms.size(); ++t)
            if (auto b = by_terms[t].best(x); b && b->term_months == terms[t])
                p.reserved_by_term.push_back(*b);
        return p;
    };
    const long n = static_cast<long>(std::floor((to - from) / step + 1e-9));
    for (long i = 0; i <= n; ++i) out.points.push_back(point(from + static_cast<double>(i) * step));
    for (std::size_t i = 1; i < out.points.size(); ++i) {
        const auto a = cheapest(out.points[i - 1]), b = cheapest(out.points[i]);
        if (!a || !b || *a == *b) continue;
        // Refine between the two grid points: where the two plans' best options cost the same.
        double lo = out.points[i - 1].runs_per_week, hi = out.points[i].runs_per_week;
        for (int k = 0; k < 60 && hi - lo > 1e-9 * std::max(1.0, hi); ++k) {
            const double mid = (lo + hi) / 2;
            const auto x = curve(*a).best(mid);
            const auto y = curve(*b).best(mid);
            if (x && (!y || x->cost_per_month <= y->cost_per_month))
                lo = mid;
            else
                hi = mid;
        }
        out.crossovers.push_back({(lo + hi) / 2, *a, *b});
    }
    return out;
}

// Traffic points from `from` to `to`: both ends and every 1, 2 and 5 x 10^k between them.
std::vector<double> traffic_points(double from, double to) {
    std::vector<double> out{from};
    for (double decade = std::pow(10.0, std::floor(std::log10(from))); decade <= to; decade *= 10)
        for (double m : {1.0, 2.0, 5.0})
            if (const double x = m * decade; x > from * (1 + 1e-9) && x < to * (1 - 1e-9)) out.push_back(x);
    if (to > from) out.push_back(to);
    return out;
}

ServiceWhatIf what_if_requests_per_day(const Catalog& catalog, const RecommendRequest& request, double from,
                                       double to, const RecommendBasis* basis) {
    if (!request.service)
        throw UsageError("--what-if requests-per-day=FROM:TO applies to an online service (--task serve)",
                         "for batch jobs use --what-if runs-per-week=FROM:TO");
    if (request.service->peak_rps)
        throw UsageError("--what-if requests-per-day varies the daily traffic; --peak-rps fixes the peak",
                         "leave --peak-rps out (the peak is then --peak-factor x the mean)");
    if (!(from >= 0.001) || !(to >= from) || !(to <= 1e15))
        throw UsageError("--what-if requests-per-day=" + format_number(from) + ":" + format_number(to) +
                             ": expected 0.001 <= FROM <= TO <= 1e15 (as --requests-per-day)",
                         "e.g. --what-if requests-per-day=1k:1M");
    ServiceWhatIf out;
    // Sized once: only the copies that carry the peak, the host checks and the prices read the traffic.
    const std::shared_ptr<detail::WhatIfBasis> kept = basis_for(catalog, request, basis);
    detail::EstimateCache& estimates = kept->estimates;
    const detail::SizedPool& sized = kept->sized;
    const GridCarbonIndex grid(catalog);  // for each point's best
    for (double x : traffic_points(from, to)) {
        RecommendRequest r = request;
        r.service->requests_per_day = x;
        r.service->tokens_per_month.reset();
        ServiceWhatIfPoint p;
        p.requests_per_day = x;
        const detail::CandidatePool pool = detail::price_candidates(catalog, r, estimates, sized, true);
        const detail::Option* best = nullptr;
        for (const auto& o : pool.options)
            if (detail::cheaper_complete_first(o, best)) best = &o;
        if (best) {
            const Candidate c = detail::materialize(catalog, r, *best, &grid);
            WhatIfBest b;
            b.provider = best->offer->provider;
            b.gpu = best->gpu->id;
            b.instance_type = best->offer->instance_type;
            b.region = best->offer->region;
            b.gpu_count = best->gpu_count;
            b.term_months = c.cost.plan == Plan::reserved ? c.cost.term_months : 0;
            b.cost_per_month = c.cost.cost_per_month;
            p.best = b;
            p.plan = c.cost.plan;
            if (c.service) {
                p.replicas = c.service->replicas;
                p.utilisation = c.service->utilisation;
                p.cost_per_million_tokens = c.service->cost_per_million_tokens;
            }
        }
        out.points.push_back(std::move(p));
    }
    return out;
}

}  // namespace gpuadvise
