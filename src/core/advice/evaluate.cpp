// The one evaluation of a job (evaluate.hpp): candidates, layouts, billed hours and plan costs
// from detail::build_candidates, and why nothing is feasible.
#include "gpuadvise/advice/evaluate.hpp"

#include <algorithm>
#include <map>

#include "gpuadvise/base/text.hpp"
#include "recommend_candidates.hpp"

namespace gpuadvise {
namespace detail {

NothingFeasible explain_nothing(const CandidatePool& pool, const RecommendRequest& r) {
    NothingFeasible out;
    std::map<Constraint, int> counts;
    for (const auto& x : pool.rejected) counts[x.constraint]++;
    if (counts.empty()) {
        out.binding = Constraint::filters;
        out.nearest_miss = "no offer in the catalog matches the --gpu/--provider/--region filters";
        return out;
    }
    // Budget and deadline bind only when the options they removed were otherwise feasible.
    if (!pool.over_budget.empty()) {
        auto best = std::min_element(
            pool.over_budget.begin(), pool.over_budget.end(),
            [](const Option& a, const Option& b) { return a.cost.rank_cost < b.cost.rank_cost; });
        out.binding = Constraint::budget;
        out.nearest_miss = best->offer->provider + " " + best->gpu->id + " x" +
                           std::to_string(best->gpu_count) + " (" + std::string(plan_label(best->cost.plan)) +
                           ") costs " + format_amount(best->cost.rank_cost, r.currency) +
                           (r.one_off() ? " for the job" : " a month") + ", over the budget of " +
                           format_amount(*r.budget_monthly, r.currency);
        return out;
    }
    if (!pool.over_deadline.empty()) {
        const bool high = r.deadline_confidence == DeadlineConfidence::high;
        auto best = std::min_element(pool.over_deadline.begin(), pool.over_deadline.end(),
                                     [high](const Option& a, const Option& b) {
                                         return a.cost.hours_per_run * (high ? a.high_ratio : 1.0) <
                                                b.cost.hours_per_run * (high ? b.high_ratio : 1.0);
                                     });
        out.binding = Constraint::deadline;
        out.nearest_miss = best->offer->provider + " " + best->gpu->id + " x" +
                           std::to_string(best->gpu_count) + " takes " +
                           (high ? format_duration(best->cost.hours_per_run * best->high_ratio) +
                                       " per run at the high end of the time band (estimate " +
                                       format_duration(best->cost.hours_per_run) + ")"
                                 : format_duration(best->cost.hours_per_run) + " per run") +
                           ", over the deadline of " + format_duration(*r.deadline_hours);
        return out;
    }
    auto most = std::max_element(counts.begin(), counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    out.binding = most->first;
    if (most->first == Constraint::latency && !pool.latency_miss_text.empty()) {
        out.nearest_miss = pool.latency_miss_text;
        return out;
    }
    for (const auto& x : pool.rejected)
        if (x.constraint == most->first) {
            out.nearest_miss = x.offer->provider + " " + x.offer->gpu + " x" +
                               std::to_string(x.offer->gpu_count) + ": " + x.reason;
            break;
        }
    return out;
}

}  // namespace detail

Evaluation evaluate(const Catalog& catalog, const RecommendRequest& request) {
    detail::EstimateCache estimates(catalog, request.workload);
    const detail::CandidatePool pool = detail::build_candidates(catalog, request, estimates);
    Evaluation out;
    const detail::BuildContext context = detail::build_context(catalog, request);
    out.setup_hours = context.setup_hours;
    out.options.reserve(pool.options.size());
    for (const auto& o : pool.options)
        out.options.push_back({o.offer, o.gpu, o.instances, o.gpu_count,
                               detail::billed_run_hours(context, request, *o.estimate), o.cost.plan,
                               o.cost.cost_per_run,
                               o.cost.cost_per_month, o.in_filter});
    if (std::none_of(out.options.begin(), out.options.end(),
                     [](const EvaluatedOption& o) { return o.in_filter; }))
        out.nothing = detail::explain_nothing(pool, request);
    return out;
}

SpotAssumptions spot_assumptions(const Catalog& catalog, const RecommendRequest& request) {
    return detail::build_context(catalog, request).spot;
}

double cost_of_run(const Catalog& catalog, const Offer& offer, double estimated_hours, int gpus,
                   double price_per_gpu_hour) {
    const double setup_hours = catalog.policy.get("run_setup_minutes") / 60.0;
    const double idle_minutes = catalog.policy.get("idle_minutes_after_run");
    const BillingAssumptions billing =
        billing_assumptions(catalog, catalog.find_provider(offer.provider), idle_minutes);
    return billed_hours(billing, estimated_hours + setup_hours, idle_minutes) * gpus * price_per_gpu_hour;
}

}  // namespace gpuadvise
