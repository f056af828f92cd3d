// Ranking: objective order, region duplicates merged, Pareto front (time vs cost), over-buying.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "recommend_candidates.hpp"

namespace gpuadvise::detail {
namespace {

// Ties broken by (GPU count, spot after the rest, provider, GPU, region, instance type), compared only as far
// as they differ; the provider by storage first (a table's offers share one provider text).
bool tie_before(const Option& a, const Option& b) {
    if (a.gpu_count != b.gpu_count) return a.gpu_count < b.gpu_count;
    const bool spot_a = a.cost.plan == Plan::spot, spot_b = b.cost.plan == Plan::spot;
    if (spot_a != spot_b) return spot_b;
    const Offer &x = *a.offer, &y = *b.offer;
    if (!x.provider.same_storage(y.provider))
        if (const int c = std::string_view(x.provider).compare(std::string_view(y.provider)); c != 0)
            return c < 0;
    if (const int c = x.gpu.compare(y.gpu); c != 0) return c < 0;
    if (const int c = x.region.compare(y.region); c != 0) return c < 0;
    return x.instance_type < y.instance_type;
}

// Within one group (same provider, GPU, count, plan, instance type): the same price, up to
// floating-point noise. Relative, so that the output currency cannot decide it: a 0.1 % tolerance
// merged GCP's 1.54 and 1.54154 USD/h in USD but not in EUR, and the feasible count changed with
// --currency (#13).
bool same_price(double kept, double c) {
    return std::fabs(kept - c) <= 1e-9 * std::max(std::fabs(kept), std::fabs(c));
}

}  // namespace

RankRules rank_rules(const Catalog& catalog, const RecommendRequest& request) {
    RankRules rules;
    rules.max_cost_increase =
        request.max_cost_increase.value_or(catalog.policy.get("carbon_max_cost_increase"));
    rules.multi_node_margin = catalog.policy.get("multi_node_rank_margin");
    rules.demote_unknown_network = !request.allow_unknown_network && !request.network_gbps;
    return rules;
}

Ranking rank_options(const std::vector<Option>& options, Objective objective, bool all,
                     const RankRules& rules) {
    const double max_cost_increase = rules.max_cost_increase;
    // Everything the ranking reads is copied once, in catalog order, into one array that is then
    // sorted: at a million options, reading the options in ranked order (scattered over 100 MB)
    // cost more than the sort itself.
    struct Scored {
        double first, second;  // the objective's keys
        double hours, monthly;
        std::size_t index, group;
        bool partial;  // a price known to be partial (GPU only): after every complete one
        bool demoted;  // several nodes over an unknown network: after every other (RankRules)
    };
    double min_cost = std::numeric_limits<double>::max(), min_hours = std::numeric_limits<double>::max();
    for (const auto& o : options)
        if (all || o.in_filter) {
            min_cost = std::min(min_cost, o.cost.rank_cost);
            min_hours = std::min(min_hours, o.cost.hours_per_run);
        }
    std::vector<Scored> scored;
    scored.reserve(options.size());
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (!all && !options[i].in_filter) continue;
        const CostSummary& c = options[i].cost;
        Scored x{0,
                 0,
                 c.hours_per_run,
                 c.rank_cost,
                 i,
                 options[i].group,
                 !options[i].price_complete,
                 rules.demote_unknown_network && options[i].unknown_network};
        switch (objective) {
            case Objective::cost: x.first = c.rank_cost, x.second = c.hours_per_run; break;
            case Objective::time: x.first = c.hours_per_run, x.second = c.rank_cost; break;
            case Objective::balanced:
                // Geometric balance: each option's cost and time relative to the best of each.
                x.first = (c.rank_cost / std::max(min_cost, 1e-12)) *
                          (c.hours_per_run / std::max(min_hours, 1e-12));
                x.second = c.rank_cost;
                break;
            case Objective::carbon: {
                // Within the cost tolerance: by carbon, unknown after known; beyond it: by cost.
                constexpr double kUnknown = 1e15, kBeyond = 1e18;
                const bool within = c.cost_per_month <= min_cost * (1 + max_cost_increase) + 1e-9;
                const double co2 = options[i].co2e_kg_per_run;
                x.first = within ? (co2 >= 0 ? co2 : kUnknown) : kBeyond + c.cost_per_month;
                x.second = c.cost_per_month;
                break;
            }
        }
        // A multi-node option must beat a single-node one by the margin: its key counts that much more.
        if (options[i].instances > 1 && objective != Objective::carbon)
            x.first *= 1 + rules.multi_node_margin;
        scored.push_back(x);
    }
    // Sorted as compact keys (a third of a Scored: the sort moves them some 25,000 times at 2,300 options),
    // which then read their Scored.
    struct Key {
        double first, second;
        std::uint32_t at;    // in `scored`
        std::uint8_t order;  // demoted x 2 + partial: complete, then partial, then the demoted
    };
    std::vector<Key> keys(scored.size());
    for (std::size_t k = 0; k < scored.size(); ++k)
        keys[k] = {scored[k].first, scored[k].second, static_cast<std::uint32_t>(k),
                   static_cast<std::uint8_t>(scored[k].demoted * 2 + scored[k].partial)};
    std::stable_sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
        if (a.order != b.order) return a.order < b.order;
        if (std::fabs(a.first - b.first) > 1e-9 * std::max(1.0, std::fabs(a.first))) return a.first < b.first;
        if (std::fabs(a.second - b.second) > 1e-9 * std::max(1.0, std::fabs(a.second)))
            return a.second < b.second;
        // strings only on a tie
        return tie_before(options[scored[a.at].index], options[scored[b.at].index]);
    });

    // The same instance at the same price in several regions is one option to the user, whatever the
    // objective (the feasible count does not change with it, #29); by carbon the region kept is the
    // first in carbon order: within the cost tolerance, the lowest known intensity of the group. Each
    // group (Option::group) keeps its kept options' prices side by side, so a new option is
    // compared with a few contiguous doubles: linear in the offers, times the regions an instance
    // type has different prices in (tens; zone duplicates were merged on reading). The groups' slices
    // of one array, sized by their options (a vector per group was 900 allocations at 2,300 options).
    std::size_t groups = 0;
    for (const auto& x : scored) groups = std::max(groups, x.group + 1);
    std::vector<std::size_t> start(groups + 1, 0), used(groups, 0);
    for (const auto& x : scored) ++start[x.group + 1];
    for (std::size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
    std::vector<std::pair<double, std::size_t>> kept(scored.size());  // (monthly cost, option)
    Ranking out;
    out.order.reserve(scored.size());
    out.hours.reserve(scored.size());
    out.monthly.reserve(scored.size());
    for (const Key& key : keys) {
        const Scored& x = scored[key.at];
        const auto members = kept.begin() + static_cast<std::ptrdiff_t>(start[x.group]);
        const auto end = members + static_cast<std::ptrdiff_t>(used[x.group]);
        auto same = std::find_if(members, end, [&](const auto& m) { return same_price(m.first, x.monthly); });
        if (same != end) {
            out.merged.emplace_back(same->second, x.index);
            continue;
        }
        *end = {x.monthly, x.index};
        ++used[x.group];
        out.order.push_back(x.index);
        out.hours.push_back(x.hours);
        out.monthly.push_back(x.monthly);
    }
    return out;
}

std::vector<bool> pareto_marks(const Ranking& ranking) {
    // Pareto-optimal: no other option is at least as fast and as cheap, and better in one. Run
    // times take few distinct values (one per GPU, count, nodes and plan), so the options are
    // bucketed by run time, the buckets swept in order of time keeping the cheapest cost seen among
    // strictly faster ones, and each option compared with its bucket's figures: linear in the options.
    // Hashed by their bits (run times are positive: no -0.0 to equal 0.0), not by std::hash's byte hash.
    struct HoursHash {
        std::size_t operator()(double h) const {
            const auto x = std::bit_cast<std::uint64_t>(h);
            return static_cast<std::size_t>((x ^ (x >> 32)) * 0x9E3779B97F4A7C15ull);
        }
    };
    std::pmr::monotonic_buffer_resource nodes;  // the map's nodes, freed at once
    std::pmr::unordered_map<double, std::size_t, HoursHash> bucket_of(&nodes);  // run time -> bucket
    std::vector<double> bucket_hours, bucket_min;
    std::vector<std::size_t> bucket(ranking.order.size());  // each option's
    for (std::size_t k = 0; k < ranking.order.size(); ++k) {
        auto [it, fresh] = bucket_of.try_emplace(ranking.hours[k], bucket_hours.size());
        bucket[k] = it->second;
        if (fresh) {
            bucket_hours.push_back(ranking.hours[k]);
            bucket_min.push_back(ranking.monthly[k]);
        } else {
            bucket_min[it->second] = std::min(bucket_min[it->second], ranking.monthly[k]);
        }
    }
    std::vector<std::size_t> by_time(bucket_hours.size());
    for (std::size_t b = 0; b < by_time.size(); ++b) by_time[b] = b;
    std::sort(by_time.begin(), by_time.end(),
              [&](std::size_t a, std::size_t b) { return bucket_hours[a] < bucket_hours[b]; });
    // Run times within 1e-12 h of a group's fastest are one group; only the cheapest option of the
    // group's fastest run time can be optimal, and it must beat everything strictly faster.
    std::vector<double> group_min(bucket_hours.size()), cheaper_than(bucket_hours.size());
    double cheapest_faster = std::numeric_limits<double>::infinity();
    for (std::size_t g = 0; g < by_time.size();) {
        std::size_t end = g;
        const double hours = bucket_hours[by_time[g]];
        while (end < by_time.size() && bucket_hours[by_time[end]] <= hours + 1e-12) ++end;
        const double min_cost = bucket_min[by_time[g]];
        for (std::size_t k = g; k < end; ++k) {
            group_min[by_time[k]] = min_cost;
            cheaper_than[by_time[k]] = cheapest_faster;
        }
        cheapest_faster = std::min(cheapest_faster, min_cost);
        g = end;
    }
    std::vector<bool> marks(ranking.order.size(), false);
    for (std::size_t k = 0; k < marks.size(); ++k) {
        const std::size_t b = bucket[k];
        const double cost = ranking.monthly[k];
        marks[k] = cost <= group_min[b] + 1e-9 && cost < cheaper_than[b] - 1e-9;
    }
    return marks;
}

std::vector<std::size_t> positions(const std::vector<std::size_t>& order, std::size_t options) {
    std::vector<std::size_t> pos(options, kNotRanked);
    for (std::size_t k = 0; k < order.size(); ++k) pos[order[k]] = k;
    return pos;
}

void add_region_notes(Candidate& c, std::size_t kept, const Ranking& ranking,
                      const std::vector<Option>& options) {
    for (const auto& [k, dup] : ranking.merged) {
        if (k != kept) continue;
        std::string note = "also in " + options[dup].offer->region + " at the same price";
        if (c.reasons.size() < 12 && std::find(c.reasons.begin(), c.reasons.end(), note) == c.reasons.end())
            c.reasons.push_back(std::move(note));
    }
}

void flag_over_buying(std::vector<Candidate>& ranked, const std::vector<Option>& options,
                      const std::vector<std::size_t>& by_cost_position, double speed_fraction,
                      const std::string& currency) {
    // One pass over the options in catalog order for all the shown candidates (reading a million
    // options in cost order, once per candidate, was slower than everything else in recommend).
    // Among equally cheap alternatives the first in cost order wins, as a scan in that order would.
    std::vector<const Option*> best(ranked.size(), nullptr);
    std::vector<double> tflops(ranked.size());
    for (std::size_t k = 0; k < ranked.size(); ++k)
        tflops[k] = ranked[k].gpu->tflops.at(ranked[k].estimate.precision).value_or(0);
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (by_cost_position[i] == kNotRanked) continue;  // merged into another region's option
        const Option& o = options[i];
        for (std::size_t k = 0; k < ranked.size(); ++k) {
            const Candidate& c = ranked[k];
            if (o.gpu->family == c.gpu->family || o.gpu_count > c.gpu_count) continue;
            if (o.cost.cost_per_run >= c.cost.cost_per_run * 0.95) continue;
            // Over-buying (seed 4.1) is paying for a premium GPU whose speed is not needed: the
            // alternative is a smaller part (less peak compute) that still reaches the share of
            // the speed. A faster and cheaper option is simply ranked above; no warning needed.
            const double speed = c.cost.hours_per_run / o.cost.hours_per_run;
            if (speed < speed_fraction) continue;
            if (o.gpu->tflops.at(o.estimate->precision).value_or(0) >= tflops[k]) continue;
            const Option* b = best[k];
            if (!b || o.cost.cost_per_run < b->cost.cost_per_run ||
                (o.cost.cost_per_run == b->cost.cost_per_run &&
                 by_cost_position[i] < by_cost_position[static_cast<std::size_t>(b - options.data())]))
                best[k] = &o;
        }
    }
    for (std::size_t k = 0; k < ranked.size(); ++k) {
        if (!best[k]) continue;
        const Option* b = best[k];
        Candidate& c = ranked[k];
        char buf[320];
        std::snprintf(
            buf, sizeof buf,
            "over-buying: %s x%d (%s) delivers %.0f%% of this speed at %.0f%% of the cost per run (%s vs %s)",
            b->gpu->id.c_str(), b->gpu_count, b->offer->provider.c_str(),
            100.0 * c.cost.hours_per_run / b->cost.hours_per_run,
            100.0 * b->cost.cost_per_run / c.cost.cost_per_run,
            format_amount(b->cost.cost_per_run, currency).c_str(),
            format_amount(c.cost.cost_per_run, currency).c_str());
        c.warnings.push_back({WarningKind::over_buying, buf});
    }
}

std::vector<std::string> add_winner_reasons(std::vector<Candidate>& ranked, const RecommendRequest& r,
                                            double max_cost_increase) {
    Candidate& top = ranked.front();
    const Candidate* next = ranked.size() > 1 ? &ranked[1] : nullptr;
    std::vector<std::string> why;
    const double runs = one_off_runs(r);
    auto job_cost = [&](const Candidate& c) {
        return runs > 0 ? c.cost.cost_per_run * runs : c.cost.cost_per_month;
    };
    const std::string per =
        runs > 0
            ? (runs == 1 ? " for the run" : " for the " + std::to_string(static_cast<long>(runs)) + " runs")
            : " a month";
    if (!next) {
        why.push_back("the only option that passes every constraint and filter");
    } else if (r.objective == Objective::time) {
        why.push_back("fastest: " + format_duration(top.cost.hours_per_run) + " per run, against " +
                      format_duration(next->cost.hours_per_run) + " for #2");
    } else if (r.objective == Objective::cost) {
        std::string hours =
            runs > 0
                ? ""
                : " for this workload's " +
                      format_duration(top.cost.hours_per_run * runs_per_month(r.runs_per_week)) + " a month";
        why.push_back("cheapest" + hours + ": " + format_amount(job_cost(top), r.currency) + per +
                      ", against " + format_amount(job_cost(*next), r.currency) + " for #2" +
                      (next->price_complete || top.price_complete == next->price_complete
                           ? ""
                           : " (whose price is the GPU alone)"));
    } else if (r.objective == Objective::carbon) {
        // The ranking puts known carbon first among the options within the tolerance: #1 unknown means
        // none of them has a known grid intensity, and they are in cost order.
        auto co2 = [](const Candidate& c) -> std::optional<double> {
            return c.energy ? c.energy->co2e_kg_per_run : std::nullopt;
        };
        const std::string tolerance =
            "within " + format_fixed(100 * max_cost_increase, 0) + " % of the cheapest option's monthly cost";
        if (const auto mine = co2(top)) {
            const auto theirs = co2(*next);
            why.push_back(
                "lowest carbon " + tolerance + ": " + format_fixed(*mine, 3) + " kg CO2e per run, " +
                (theirs ? "against " + format_fixed(*theirs, 3) + " kg for #2" : "where #2's is unknown") +
                ", at " + format_amount(job_cost(top), r.currency) + per);
        } else {
            why.push_back("no option " + tolerance +
                          " has a known carbon intensity, so they are ranked by cost: " +
                          format_amount(job_cost(top), r.currency) + per + ", against " +
                          format_amount(job_cost(*next), r.currency) + " for #2");
        }
    } else {
        why.push_back("best balance of cost and time: " + format_amount(job_cost(top), r.currency) + per +
                      " and " + format_duration(top.cost.hours_per_run) + " per run");
    }
    if (r.deadline_hours) {
        why.push_back(
            "within the deadline of " + format_duration(*r.deadline_hours) + ": " +
            (r.deadline_confidence == DeadlineConfidence::high
                 ? "up to " + format_duration(top.hours_high) + " per run at the high end of the time band"
                 : format_duration(top.cost.hours_per_run) + " per run (estimate)"));
    } else if (top.estimate.memory_available_gb > 0) {
        const double share = top.estimate.memory_required_gb / top.estimate.memory_available_gb;
        char buf[224];
        std::snprintf(buf, sizeof buf, "fits in memory with %.0f%% to spare (%.1f of %.0f GB per GPU on %s)",
                      100.0 * (1.0 - share), top.estimate.memory_required_gb, top.estimate.memory_available_gb,
                      top.gpu->id.c_str());
        why.push_back(buf);
    }
    if (!top.network_note.empty()) why.push_back(top.network_note);
    top.reasons.insert(top.reasons.begin(), why.begin(), why.end() - (top.network_note.empty() ? 0 : 1));
    return why;
}

}  // namespace gpuadvise::detail
