// recommend --what-if runs-per-week=FROM:TO[:STEP]: the best option of each plan across a range of
// training frequencies, and the points where the cheapest plan changes.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpuadvise/advice/recommend.hpp"
#include "gpuadvise/base/errors.hpp"
#include "recommend_candidates.hpp"

namespace gpuadvise {
namespace {

// The cheapest option (monthly cost) of one plan at `runs_per_week`, within the request's filters.
std::optional<WhatIfBest> best_of_plan(const Catalog& catalog, const RecommendRequest& base,
                                       detail::EstimateCache& estimates, Plan plan, double runs_per_week,
                                       int term = -1) {
    RecommendRequest r = base;
    r.runs_per_week = runs_per_week;
    r.plan = PlanFilter{plan, term >= 0 ? term
                              : plan == Plan::reserved && base.plan && base.plan->plan == Plan::reserved
                                  ? base.plan->term_months
                                  : 0};
    if (plan == Plan::spot && !r.interruptible) return std::nullopt;
    const detail::CandidatePool pool = detail::build_candidates(catalog, r, estimates);
    const detail::Option* best = nullptr;
    for (const auto& o : pool.options)
        if (o.in_filter && o.cost.plan == plan && detail::cheaper_complete_first(o, best)) best = &o;
    if (!best) return std::nullopt;
    WhatIfBest w;
    w.provider = best->offer->provider;
    w.gpu = best->gpu->id;
    w.instance_type = best->offer->instance_type;
    w.region = best->offer->region;
    w.gpu_count = best->gpu_count;
    w.cost_per_month = best->cost.cost_per_month;
    if (plan == Plan::reserved) {
        const Candidate c = detail::materialize(catalog, r, *best);
        w.term_months = c.cost.term_months;
    }
    return w;
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
                             double step, bool by_term) {
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
    detail::EstimateCache estimates(catalog, request.workload);  // the job is the same at every point
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
    auto point = [&](double x) {
        WhatIfPoint p;
        p.runs_per_week = x;
        p.on_demand = best_of_plan(catalog, request, estimates, Plan::on_demand, x);
        p.reserved = best_of_plan(catalog, request, estimates, Plan::reserved, x);
        p.spot = best_of_plan(catalog, request, estimates, Plan::spot, x);
        for (int term : terms)
            if (auto b = best_of_plan(catalog, request, estimates, Plan::reserved, x, term);
                b && b->term_months == term)
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
            const auto x = best_of_plan(catalog, request, estimates, *a, mid);
            const auto y = best_of_plan(catalog, request, estimates, *b, mid);
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
                                       double to) {
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
    detail::EstimateCache estimates(catalog, request.workload);  // the replicas are the same at every point
    for (double x : traffic_points(from, to)) {
        RecommendRequest r = request;
        r.service->requests_per_day = x;
        r.service->tokens_per_month.reset();
        ServiceWhatIfPoint p;
        p.requests_per_day = x;
        const detail::CandidatePool pool = detail::build_candidates(catalog, r, estimates);
        const detail::Option* best = nullptr;
        for (const auto& o : pool.options)
            if (o.in_filter && detail::cheaper_complete_first(o, best)) best = &o;
        if (best) {
            const Candidate c = detail::materialize(catalog, r, *best);
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
