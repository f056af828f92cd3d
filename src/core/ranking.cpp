// Ranking: objective order, region duplicates merged, Pareto front (time vs cost), over-buying.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <unordered_map>

#include "recommend_candidates.hpp"

namespace gpuadvise::detail {
namespace {

auto tie_key(const Candidate& c) {
    return std::make_tuple(c.gpu_count, c.cost.plan == Plan::spot, c.offer->provider, c.offer->gpu, c.offer->region,
                           c.offer->instance_type);
}

bool same_option(const Candidate& a, const Candidate& b) {
    return a.offer->provider == b.offer->provider && a.offer->gpu == b.offer->gpu && a.gpu_count == b.gpu_count &&
           a.cost.plan == b.cost.plan &&
           std::fabs(a.cost.cost_per_month - b.cost.cost_per_month) <= 1e-3 * std::max(1.0, a.cost.cost_per_month) &&
           a.offer->instance_type == b.offer->instance_type;
}

}  // namespace

void rank_candidates(std::vector<Candidate>& cs, Objective objective) {
    double min_cost = std::numeric_limits<double>::max(), min_hours = std::numeric_limits<double>::max();
    for (const auto& c : cs) {
        min_cost = std::min(min_cost, c.cost.cost_per_month);
        min_hours = std::min(min_hours, c.cost.hours_per_run);
    }
    auto score = [&](const Candidate& c) {
        switch (objective) {
            case Objective::cost: return std::make_pair(c.cost.cost_per_month, c.cost.hours_per_run);
            case Objective::time: return std::make_pair(c.cost.hours_per_run, c.cost.cost_per_month);
            case Objective::balanced:
                // Geometric balance: each option's cost and time relative to the best of each.
                return std::make_pair((c.cost.cost_per_month / std::max(min_cost, 1e-12)) *
                                          (c.cost.hours_per_run / std::max(min_hours, 1e-12)),
                                      c.cost.cost_per_month);
        }
        return std::make_pair(0.0, 0.0);
    };
    std::stable_sort(cs.begin(), cs.end(), [&](const Candidate& a, const Candidate& b) {
        auto sa = score(a), sb = score(b);
        if (std::fabs(sa.first - sb.first) > 1e-9 * std::max(1.0, std::fabs(sa.first))) return sa.first < sb.first;
        if (std::fabs(sa.second - sb.second) > 1e-9 * std::max(1.0, std::fabs(sa.second))) return sa.second < sb.second;
        return tie_key(a) < tie_key(b);
    });

    // The same instance at the same price in several regions is one option to the user. Grouped
    // by (provider, GPU, count, plan, instance type) so that this stays linear in the offers.
    std::vector<Candidate> merged;
    std::unordered_map<std::string, std::vector<std::size_t>> groups;
    for (auto& c : cs) {
        const std::string key = c.offer->provider + '\x1f' + c.offer->gpu + '\x1f' + std::to_string(c.gpu_count) + '\x1f' +
                                to_string(c.cost.plan) + '\x1f' + c.offer->instance_type;
        auto& members = groups[key];
        auto it = std::find_if(members.begin(), members.end(), [&](std::size_t m) { return same_option(merged[m], c); });
        if (it == members.end()) {
            members.push_back(merged.size());
            merged.push_back(std::move(c));
        } else {
            Candidate& kept = merged[*it];
            std::string note = "also in " + c.offer->region + " at the same price";
            if (kept.reasons.size() < 12 && std::find(kept.reasons.begin(), kept.reasons.end(), note) == kept.reasons.end())
                kept.reasons.push_back(note);
        }
    }
    cs = std::move(merged);

    // Pareto-optimal: no other option is at least as fast and as cheap, and better in one. A sweep
    // in order of run time keeps the cheapest cost seen among strictly faster options.
    std::vector<std::size_t> order(cs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(cs[a].cost.hours_per_run, cs[a].cost.cost_per_month) <
               std::tie(cs[b].cost.hours_per_run, cs[b].cost.cost_per_month);
    });
    double cheapest_faster = std::numeric_limits<double>::infinity();
    for (std::size_t g = 0; g < order.size();) {
        // A group of options with the same run time: only its cheapest can be optimal.
        std::size_t end = g;
        const double hours = cs[order[g]].cost.hours_per_run;
        while (end < order.size() && cs[order[end]].cost.hours_per_run <= hours + 1e-12) ++end;
        const double group_min = cs[order[g]].cost.cost_per_month;
        for (std::size_t k = g; k < end; ++k) {
            const double cost = cs[order[k]].cost.cost_per_month;
            cs[order[k]].pareto = cost <= group_min + 1e-9 && cost < cheapest_faster - 1e-9;
        }
        cheapest_faster = std::min(cheapest_faster, group_min);
        g = end;
    }
    for (std::size_t i = 0; i < cs.size(); ++i) cs[i].rank = static_cast<int>(i + 1);
}

void flag_over_buying(std::vector<Candidate>& ranked, const std::vector<Candidate>& all, double speed_fraction,
                      const std::string& currency) {
    for (auto& c : ranked) {
        const Candidate* best = nullptr;
        for (const auto& o : all) {
            if (o.gpu->family == c.gpu->family || o.gpu_count > c.gpu_count) continue;
            if (o.cost.cost_per_run >= c.cost.cost_per_run * 0.95) continue;
            // Over-buying (seed 4.1) is paying for a premium GPU whose speed is not needed: the
            // alternative is a smaller part (less peak compute) that still reaches the share of
            // the speed. A faster and cheaper option is simply ranked above; no warning needed.
            const double speed = c.cost.hours_per_run / o.cost.hours_per_run;
            if (speed < speed_fraction) continue;
            if (o.gpu->tflops.at(o.estimate.precision).value_or(0) >= c.gpu->tflops.at(c.estimate.precision).value_or(0))
                continue;
            if (!best || o.cost.cost_per_run < best->cost.cost_per_run) best = &o;
        }
        if (!best) continue;
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "over-buying: %s x%d (%s) delivers %.0f%% of this speed at %.0f%% of the cost per run (%s vs %s)",
                      best->gpu->id.c_str(), best->gpu_count, best->offer->provider.c_str(),
                      100.0 * c.cost.hours_per_run / best->cost.hours_per_run,
                      100.0 * best->cost.cost_per_run / c.cost.cost_per_run,
                      money(best->cost.cost_per_run, currency).c_str(), money(c.cost.cost_per_run, currency).c_str());
        c.warnings.push_back(buf);
    }
}

}  // namespace gpuadvise::detail
