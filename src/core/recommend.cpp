// recommend(): candidates -> constraints -> ranking -> the four steps and pitfalls -> result.
#include "gpuadvise/recommend.hpp"

#include <algorithm>
#include <map>

#include "gpuadvise/text.hpp"
#include "needs_rules.hpp"
#include "recommend_candidates.hpp"

namespace gpuadvise {

const char* to_string(Objective o) { return kObjectiveNames.name(o).data(); }

const char* to_string(Dataset d) {
    return d == Dataset::unspecified ? "unspecified" : kDatasetNames.name(d).data();
}

std::optional<Dataset> parse_dataset(std::string_view text) { return kDatasetNames.parse(text); }

namespace {

// When nothing is feasible: the constraint that removed the most options, and the closest one.
void explain_nothing(const detail::CandidatePool& pool, const RecommendRequest& r, Recommendation& out) {
    std::map<Constraint, int> counts;
    for (const auto& x : pool.rejected) counts[x.constraint]++;
    if (counts.empty()) {
        out.binding_constraint = Constraint::filters;
        out.nearest_miss = "no offer in the catalog matches the --gpu/--provider/--region filters";
        return;
    }
    // Budget and deadline bind only when the options they removed were otherwise feasible.
    if (!pool.over_budget.empty()) {
        auto best = std::min_element(pool.over_budget.begin(), pool.over_budget.end(),
                                     [](const detail::Option& a, const detail::Option& b) {
                                         return a.cost.rank_cost < b.cost.rank_cost;
                                     });
        out.binding_constraint = Constraint::budget;
        out.nearest_miss = best->offer->provider + " " + best->gpu->id + " x" +
                           std::to_string(best->gpu_count) + " (" + std::string(plan_label(best->cost.plan)) +
                           ") costs " + format_amount(best->cost.rank_cost, r.currency) +
                           (r.one_off() ? " for the job" : " a month") + ", over the budget of " +
                           format_amount(*r.budget_monthly, r.currency);
        return;
    }
    if (!pool.over_deadline.empty()) {
        const bool high = r.deadline_confidence == DeadlineConfidence::high;
        auto best = std::min_element(pool.over_deadline.begin(), pool.over_deadline.end(),
                                     [high](const detail::Option& a, const detail::Option& b) {
                                         return a.cost.hours_per_run * (high ? a.high_ratio : 1.0) <
                                                b.cost.hours_per_run * (high ? b.high_ratio : 1.0);
                                     });
        out.binding_constraint = Constraint::deadline;
        out.nearest_miss = best->offer->provider + " " + best->gpu->id + " x" +
                           std::to_string(best->gpu_count) + " takes " +
                           (high ? format_duration(best->cost.hours_per_run * best->high_ratio) +
                                       " per run at the high end of the time band (estimate " +
                                       format_duration(best->cost.hours_per_run) + ")"
                                 : format_duration(best->cost.hours_per_run) + " per run") +
                           ", over the deadline of " + format_duration(*r.deadline_hours);
        return;
    }
    auto most = std::max_element(counts.begin(), counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    out.binding_constraint = most->first;
    for (const auto& x : pool.rejected)
        if (x.constraint == most->first) {
            out.nearest_miss = x.offer->provider + " " + x.offer->gpu + " x" +
                               std::to_string(x.offer->gpu_count) + ": " + x.reason;
            break;
        }
}

}  // namespace

Recommendation recommend(const Catalog& catalog, const RecommendRequest& request) {
    Recommendation out;
    detail::EstimateCache estimates(catalog, request.workload);
    detail::CandidatePool pool = detail::build_candidates(catalog, request, estimates);
    const auto& options = pool.options;

    const detail::Ranking ranking = detail::rank_options(
        options, request.objective, false,
        request.max_cost_increase.value_or(catalog.policy.get("carbon_max_cost_increase")));
    out.feasible = ranking.order.size();
    const std::vector<bool> pareto = detail::pareto_marks(ranking);
    auto candidate = [&](std::size_t position) {
        const std::size_t i = ranking.order[position];
        Candidate c = detail::materialize(catalog, request, options[i]);
        c.pareto = pareto[position];
        c.rank = static_cast<int>(position + 1);
        detail::add_region_notes(c, i, ranking, options);
        return c;
    };
    for (std::size_t k = 0; k < ranking.order.size(); ++k) {
        if (k >= kFeasiblePointsCap && !pareto[k]) {
            out.feasible_points_capped = true;
            continue;
        }
        const detail::Option& o = options[ranking.order[k]];
        out.feasible_points.push_back({o.offer->provider, o.gpu->id, o.offer->instance_type, o.offer->region,
                                       o.gpu_count, o.cost.plan, o.cost.hours_per_run, o.cost.rank_cost,
                                       pareto[k], static_cast<int>(k + 1)});
    }
    std::vector<Candidate> ranked;
    for (std::size_t k = 0; k < ranking.order.size() && k < static_cast<std::size_t>(request.top); ++k)
        ranked.push_back(candidate(k));
    // Every option that passes the constraints, filters or not, cheapest first (over-buying and the
    // source's tier compare against options outside the filters too).
    const bool all_in_filter =
        std::all_of(options.begin(), options.end(), [](const detail::Option& o) { return o.in_filter; });
    const std::vector<std::size_t> by_cost_position =
        detail::positions(request.objective == Objective::cost && all_in_filter
                              ? ranking.order  // the same ranking: no filters, same objective
                              : detail::rank_options(options, Objective::cost, true).order,
                          options.size());
    detail::flag_over_buying(ranked, options, by_cost_position, catalog.policy.get("overbuy_speed_fraction"),
                             request.currency);
    for (auto& c : ranked) detail::check_host(catalog, request, c);

    const Candidate* winner = ranked.empty() ? nullptr : &ranked.front();
    std::vector<Candidate> reservable;
    for (std::size_t k = 0; k < ranking.order.size() && reservable.size() < 3; ++k)
        if (options[ranking.order[k]].has_reserved) reservable.push_back(candidate(k));
    // Providers without any commitment price: said so, rather than implying they sell none.
    std::vector<std::string> without;
    {
        std::vector<std::string> with;
        std::string_view last;
        for (const auto& o : catalog.offers)
            if (!o.commitments.empty() && o.provider != last) {
                last = o.provider;
                if (std::find(with.begin(), with.end(), o.provider) == with.end()) with.push_back(o.provider);
            }
        for (const auto& c : ranked)
            if (std::find(with.begin(), with.end(), c.offer->provider) == with.end() &&
                std::find(without.begin(), without.end(), c.offer->provider) == without.end())
                without.push_back(c.offer->provider);
    }
    out.providers_without_commitments = without;
    detail::RuleInput in{
        catalog, request, estimates, winner, ranked, reservable, out.providers_without_commitments};
    out.steps.push_back(detail::step1_model_size(in, out.heuristic_gpu_family));
    out.steps.push_back(detail::step2_frequency(in, out.crossover));
    out.steps.push_back(detail::step3_dataset(in));
    out.steps.push_back(detail::step4_scaling(in));
    out.steps.push_back(detail::pitfalls(in));

    // The top option's cost as the ranking read it (a month's, or a one-off job's).
    const double winner_cost =
        winner ? (request.one_off() ? winner->cost.cost_per_run * detail::one_off_runs(request)
                                    : winner->cost.cost_per_month)
               : 0.0;
    if (winner && winner->gpu->family != out.heuristic_gpu_family) {
        // The cheapest of the tier's options (the first in cost order among equals), in one pass.
        const detail::Option* best_tier = nullptr;
        for (std::size_t i = 0; i < options.size(); ++i) {
            const auto& c = options[i];
            if (by_cost_position[i] == detail::kNotRanked || c.gpu->family != out.heuristic_gpu_family)
                continue;
            if (!best_tier || c.cost.rank_cost < best_tier->cost.rank_cost ||
                (c.cost.rank_cost == best_tier->cost.rank_cost &&
                 by_cost_position[i] <
                     by_cost_position[static_cast<std::size_t>(best_tier - options.data())]))
                best_tier = &c;
        }
        if (best_tier)
            out.why_not_heuristic =
                "the guide's size rule of thumb picks " + out.heuristic_gpu_family + "; its best option (" +
                best_tier->offer->provider + " " + best_tier->gpu->id + " x" +
                std::to_string(best_tier->gpu_count) + ", " + std::string(plan_label(best_tier->cost.plan)) +
                ") costs " + format_amount(best_tier->cost.rank_cost, request.currency) +
                (request.one_off() ? " for the job and " : " a month and ") +
                format_duration(best_tier->cost.hours_per_run) + " per run, against " +
                format_amount(winner_cost, request.currency) + " and " +
                format_duration(winner->cost.hours_per_run) + " for the top option" +
                (best_tier->cost.rank_cost >= winner_cost ? ""
                 : !best_tier->in_filter
                     ? " (it is outside your filters)"
                     : " (cheaper, but the ranking is by " + std::string(to_string(request.objective)) + ")");
        else {
            out.why_not_heuristic = "the guide's size rule of thumb picks " + out.heuristic_gpu_family +
                                    ", but no " + out.heuristic_gpu_family +
                                    " offer in the catalog can run this job within the constraints";
            const Gpu* biggest = nullptr;
            for (const auto& g : catalog.gpus)
                if (g.family == out.heuristic_gpu_family && (!biggest || g.memory_gb > biggest->memory_gb))
                    biggest = &g;
            if (biggest)
                for (const auto& note : estimates.get(*biggest, 1, LinkSpec{}).notes)
                    out.why_not_heuristic += "; " + biggest->id + ": " + note;
        }
    }
    if (!winner) explain_nothing(pool, request, out);
    for (auto& c : ranked) {
        if (c.estimate.basis == TimeBasis::measured)
            c.reasons.insert(c.reasons.begin(), "time from a measurement: " + c.estimate.basis_detail);
        for (const auto& a : c.alternatives)
            c.reasons.push_back(std::string(plan_label(a.plan)) +
                                (a.plan == Plan::reserved ? " (" + term_label(a.term_months) + ")" : "") +
                                " would cost " + format_amount(a.cost_per_month, request.currency) +
                                " a month");
    }
    if (!ranked.empty()) out.why_top = detail::add_winner_reasons(ranked, request);
    out.ranked = std::move(ranked);
    out.rejected = std::move(pool.rejected);
    return out;
}

}  // namespace gpuadvise
