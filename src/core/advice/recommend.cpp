// recommend(): candidates -> constraints -> ranking -> the four steps and pitfalls -> result.
#include "gpuadvise/advice/recommend.hpp"

#include <algorithm>
#include <map>

#include "gpuadvise/base/text.hpp"
#include "host_rules.hpp"
#include "needs_rules.hpp"
#include "recommend_candidates.hpp"

namespace gpuadvise {

Recommendation recommend(const Catalog& catalog, const RecommendRequest& request, RecommendBasis* keep) {
    Recommendation out;
    auto basis = std::make_shared<detail::WhatIfBasis>(catalog, request.workload);
    detail::EstimateCache& estimates = basis->estimates;
    detail::CandidatePool pool =
        detail::build_candidates(catalog, request, estimates, keep ? &basis->sized : nullptr);
    if (keep) keep->state = basis;
    const auto& options = pool.options;

    const detail::RankRules rules = detail::rank_rules(catalog, request);
    const detail::Ranking ranking = detail::rank_options(options, request.objective, false, rules);
    out.feasible = ranking.order.size();
    const std::vector<bool> pareto = detail::pareto_marks(ranking);
    // What the user would otherwise rent, and where a commitment first beats it (#28): over every plan, as
    // --what-if prices them (a --plan filter keeps only its own plan in the pool, so it is priced again).
    std::optional<detail::CandidatePool> all_plans;
    if (request.plan && !request.one_off()) {
        RecommendRequest any = request;
        any.plan.reset();
        all_plans = detail::build_candidates(catalog, any, estimates);
    }
    const std::vector<detail::Option>& priced = all_plans ? all_plans->options : options;
    const std::optional<detail::OtherwiseRent> against = detail::otherwise_rent(catalog, request, priced);
    const std::optional<detail::PlanFlip> flip = detail::plan_flip(catalog, request, priced, against);
    const GridCarbonIndex grid(catalog);  // for every candidate shown (one was built per candidate)
    auto candidate = [&](std::size_t position) {
        const std::size_t i = ranking.order[position];
        Candidate c = detail::materialize(catalog, request, options[i], &grid);
        if (against)
            c.crossover_runs_per_week = detail::commitment_beats_at(catalog, request, options[i], *against);
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
                              : detail::rank_options(options, Objective::cost, true, rules).order,
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
            if (has_commitment(o) && o.provider != last) {
                last = o.provider;
                if (std::find(with.begin(), with.end(), o.provider) == with.end()) with.push_back(o.provider);
            }
        for (const auto& c : ranked)
            if (std::find(with.begin(), with.end(), c.offer->provider) == with.end() &&
                std::find(without.begin(), without.end(), c.offer->provider) == without.end())
                without.push_back(c.offer->provider);
    }
    out.providers_without_commitments = without;
    detail::RuleInput in{catalog,
                         request,
                         estimates,
                         winner,
                         ranked,
                         reservable,
                         out.providers_without_commitments,
                         flip ? &*flip : nullptr};
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
                (request.service ? " a month, against " + format_amount(winner_cost, request.currency) +
                                       " for the top option"
                                 : (request.one_off() ? " for the job and " : " a month and ") +
                                       format_duration(best_tier->cost.hours_per_run) + " per run, against " +
                                       format_amount(winner_cost, request.currency) + " and " +
                                       format_duration(winner->cost.hours_per_run) + " for the top option") +
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
    if (!winner) {
        const NothingFeasible nothing = detail::explain_nothing(pool, request);
        out.binding_constraint = nothing.binding;
        out.nearest_miss = nothing.nearest_miss;
    }
    for (auto& c : ranked) {
        if (c.estimate.basis == TimeBasis::measured)
            c.reasons.insert(c.reasons.begin(), "time from a measurement: " + c.estimate.basis_detail);
        for (const auto& a : c.alternatives)
            c.reasons.push_back(std::string(plan_label(a.plan)) +
                                (a.plan == Plan::reserved ? " (" + term_label(a.term_months) + ")" : "") +
                                " would cost " + format_amount(a.cost_per_month, request.currency) +
                                " a month");
    }
    if (!ranked.empty()) out.why_top = detail::add_winner_reasons(ranked, request, rules.max_cost_increase);
    // A single node on top: what the network did to the multi-node options (issue 27). With a stated
    // network (--network-gbps, for the offers whose network the catalog does not give) the best option
    // over several nodes is named, and the best over the stated network when that is another one (what
    // the stated figure did, as estimate shows it); without one, the cheapest that the demotion of
    // unknown networks kept from the top, when there is one. A cheaper multi-node option that only the
    // margin (policy multi_node_rank_margin) kept below the single node is said to be, with the margin.
    if (winner && winner->instances == 1 && request.objective == Objective::cost) {
        std::optional<std::size_t> shown, over_stated, by_margin;
        for (std::size_t k = 0; k < ranking.order.size(); ++k) {
            const detail::Option& o = options[ranking.order[k]];
            if (o.instances <= 1) continue;
            // As the ranking demoted it (RankRules: not with --allow-unknown-network or a stated network).
            const bool demoted = rules.demote_unknown_network && o.unknown_network;
            const bool cheaper = o.cost.rank_cost < winner_cost;
            if (request.network_gbps) {
                if (!shown) shown = k;
                if (!over_stated && o.stated_network) over_stated = k;
            } else if (demoted && cheaper &&
                       (!shown || o.cost.rank_cost < options[ranking.order[*shown]].cost.rank_cost)) {
                shown = k;
            }
            // Kept below #1 by the margin alone: not demoted, its price complete (a partial one ranks
            // after every complete one), and cheaper.
            if (!demoted && cheaper && o.price_complete &&
                (!by_margin || o.cost.rank_cost < options[ranking.order[*by_margin]].cost.rank_cost))
                by_margin = k;
        }
        const std::string margin_clause =
            ": cheaper than #1, but an option over several nodes ranks first only when it beats one node by "
            "more than " +
            format_number(100 * rules.multi_node_margin) +
            "% (policy multi_node_rank_margin: its set-up and failure risk)";
        const auto describe = [&](std::size_t k) {
            const detail::Option& o = options[ranking.order[k]];
            return "#" + std::to_string(k + 1) + ", " + o.offer->provider + " " + o.gpu->id + " x" +
                   std::to_string(o.gpu_count) + " (" + std::to_string(o.instances) + " nodes), " +
                   format_duration(o.cost.hours_per_run) + " a run and " +
                   format_amount(o.cost.rank_cost, request.currency) +
                   (request.one_off() ? " for the job" : " a month") + ", over " +
                   format_number(o.inter_node_gbps) + " Gbps" + (o.stated_network ? " (stated)" : "") +
                   (by_margin == k ? margin_clause : "");
        };
        if (shown)
            out.why_top.push_back(
                request.network_gbps
                    ? "the best option over several nodes is " + describe(*shown)
                    : "options over several nodes on networks the catalog does not state rank after the "
                      "single-node ones: the cheapest is " +
                          describe(*shown) +
                          " Ethernet (assumed); --network-gbps states your network, "
                          "--allow-unknown-network ranks them by cost");
        if (request.network_gbps) {
            const std::string stated = "the stated " + format_number(*request.network_gbps) +
                                       " Gbps (--network-gbps, applied where the catalog gives no network)";
            if (over_stated && over_stated != shown)
                out.why_top.push_back("the best option over " + stated + " is " + describe(*over_stated));
            else if (!over_stated)
                out.why_top.push_back("no option over several nodes is feasible over " + stated);
        }
        if (by_margin && by_margin != shown && by_margin != over_stated)
            out.why_top.push_back("the cheapest option over several nodes is " + describe(*by_margin));
    }
    out.ranked = std::move(ranked);
    out.rejected = std::move(pool.rejected);
    return out;
}

}  // namespace gpuadvise
